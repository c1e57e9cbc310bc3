"""How many places hold one concept: the counts issue #14 tracks, measured from the source.

    python scripts/code_counts.py            # from the project root; prints one line per count
    python scripts/code_counts.py --json     # the same as JSON

Everything is read with ``ast`` (nothing is imported or run), so the numbers are reproducible on
any checkout. What is counted:

- ``node_defaults``: ``x.get("key", default)`` calls under ``crawlplan/nodes/`` — a default that
  repeats ``conf/defaults.yaml`` in the node instead of coming from the conf section.
- ``library_defaults``: the same in the library (``crawlplan/`` outside ``nodes/``): a
  ``x.get("key", <number>)`` or ``conf.get(conf, "a.key", <number>)`` call, or a function parameter
  with a number as its default (``def f(min_docs=3)``), where ``conf/defaults.yaml`` has a key of
  that name holding that number — a second place for a value the conf already holds.
- ``icc_kernels``: functions that compute the ANOVA ICC1 machinery themselves: they spell out
  ``n0 = (N - sum n_i^2 / N) / (k - 1)``, the group-size adjustment every ICC1 estimator needs.
- ``schema_shapers``: functions outside ``crawlplan/schemas.py`` that walk a dataset schema column
  by column to build, cast or parse a frame.
- ``package_cycles``: strongly connected groups of more than one package in the import graph of
  the ``crawlplan`` packages (top-level modules count as packages of their own), and
  ``packages_in_cycles``: how many packages sit in one.
- ``function_imports``: ``import`` statements inside function bodies.
- ``packages_importing_dag``: the packages that import ``crawlplan.dag`` (the runner and its
  storage); only the CLI and the nodes should.
- ``private_imports``: ``from crawlplan.x import _name`` across modules (a private helper used
  outside the module that owns it).
"""

from __future__ import annotations

import argparse
import ast
import json
import operator
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "crawlplan"


def python_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / PACKAGE).rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_of(module: str) -> str:
    """``crawlplan.dag.runner`` -> ``dag``; a top-level module is a package of its own
    (``crawlplan.conf`` -> ``conf``), and ``crawlplan/__init__.py`` is ``crawlplan``. A domain's
    ``cli.py`` (its parsers, loaded only by ``crawlplan/cli.py``) and ``commands.py`` (its verbs,
    loaded only when one runs) belong to the ``cli`` layer, as ``crawlplan/commands.py`` does."""
    parts = module.split(".")
    if (len(parts) == 3 and parts[2] in ("cli", "commands")) or module == f"{PACKAGE}.commands":
        return "cli"
    return parts[1] if len(parts) > 1 else PACKAGE


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every ``crawlplan`` module ``path`` imports, at any depth (inside functions too)."""
    module = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, module, path.name == "__init__.py")
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)   # from pkg import module
    return {m for m in out if m == PACKAGE or m.startswith(PACKAGE + ".")}


def package_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Package -> the packages its modules import (itself left out)."""
    known = {module_name(p, root) for p in python_files(root)}
    graph: dict[str, set[str]] = defaultdict(set)
    for path in python_files(root):
        src = package_of(module_name(path, root))
        graph[src]
        for target in imported_modules(path, root):
            while target not in known and "." in target:   # `from pkg.mod import name` -> pkg.mod
                target = target.rsplit(".", 1)[0]
            dst = package_of(target)
            if dst != src and target != PACKAGE:
                graph[src].add(dst)
    return dict(graph)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _functions(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def function_imports(root: Path = ROOT) -> list[str]:
    """``path:line`` of every import statement inside a function body."""
    out = []
    for path in python_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen = set()
        for fn in _functions(tree):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in seen:
                    seen.add(id(node))
                    out.append(f"{path.relative_to(root)}:{node.lineno}")
    return out


def uncommented_function_imports(root: Path = ROOT) -> list[str]:
    """Function-level imports without a comment saying why: on the import line, or on the line
    above its block (consecutive imports, an enclosing ``try:``)."""
    out = []
    for where in function_imports(root):
        path, line = where.rsplit(":", 1)
        lines = (root / path).read_text(encoding="utf-8").splitlines()
        i = int(line) - 1
        if "#" in lines[i]:
            continue
        j = i - 1
        while j >= 0 and (lines[j].strip().startswith(("import ", "from ", "try:")) and "#" not in lines[j]):
            j -= 1
        if j < 0 or not lines[j].strip().startswith("#") and "#" not in lines[j]:
            out.append(where)
    return out


def node_defaults(root: Path = ROOT) -> list[str]:
    out = []
    for path in sorted((root / PACKAGE / "nodes").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                out.append(f"{path.relative_to(root)}:{node.lineno} {node.args[0].value}")
    return out


def conf_keys(root: Path = ROOT) -> dict[str, set]:
    """Every key name of conf/defaults.yaml, at any depth, with the numbers it holds there."""
    import yaml  # PyYAML: only this count needs the conf, read as data

    out: dict[str, set] = defaultdict(set)

    def walk(node) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                walk(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                out[str(key)].add(value)

    walk(yaml.safe_load((root / "conf" / "defaults.yaml").read_text(encoding="utf-8")) or {})
    return out


def _number(node: ast.AST | None):
    """The number a default or argument spells (``3``, ``-1``, ``64 << 10``), else None."""
    shifts = {ast.LShift: operator.lshift, ast.Mult: operator.mul, ast.Pow: operator.pow}
    try:
        value = ast.literal_eval(node) if node is not None else None
    except ValueError:
        if not (isinstance(node, ast.BinOp) and type(node.op) in shifts
                and all(isinstance(x, ast.Constant) and isinstance(x.value, int) for x in (node.left, node.right))):
            return None
        value = shifts[type(node.op)](node.left.value, node.right.value)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def library_defaults(root: Path = ROOT) -> list[str]:
    keys = conf_keys(root)
    out = []
    for path in python_files(root):
        rel = path.relative_to(root)
        if rel.parts[1] == "nodes":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and len(node.args) in (2, 3):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                key, value = node.args[-2], _number(node.args[-1])
                if name == "get" and isinstance(key, ast.Constant) and isinstance(key.value, str) \
                        and value is not None and value in keys.get(key.value.rsplit(".", 1)[-1], ()):
                    out.append(f"{rel}:{node.lineno} get {key.value}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                positional = a.posonlyargs + a.args
                pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
                pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                out += [f"{rel}:{node.lineno} {node.name}({arg.arg}={_number(d)})" for arg, d in pairs
                        if _number(d) is not None and _number(d) in keys.get(arg.arg, ())]
    return out


def _is_n0_formula(node: ast.AST) -> bool:
    """``(N - sum_sq / N) / (k - 1)``: the ANOVA group-size adjustment every ICC1 estimator computes."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
            and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Sub)
            and isinstance(node.left.right, ast.BinOp) and isinstance(node.left.right.op, ast.Div)
            and ast.dump(node.left.left) == ast.dump(node.left.right.right)
            and isinstance(node.right, ast.BinOp) and isinstance(node.right.op, ast.Sub)
            and isinstance(node.right.right, ast.Constant) and node.right.right.value == 1)


def icc_kernels(root: Path = ROOT) -> list[str]:
    out = []
    for path in python_files(root):
        for fn in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if any(_is_n0_formula(n) for n in ast.walk(fn)):
                out.append(f"{path.relative_to(root)}:{fn.name}")
    return out


def _is_schema(node: ast.AST) -> bool:
    """``schema`` (any name containing it) or ``load_schema(...)``."""
    if isinstance(node, ast.Name):
        return "schema" in node.id.lower()
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "load_schema")


def schema_shapers(root: Path = ROOT) -> list[str]:
    """Functions that walk a dataset schema column by column (``for c in schema.columns`` or
    ``schema.names``) to build, cast or parse a frame: each one is a way of shaping data to a schema."""
    out = []
    for path in python_files(root):
        if path.relative_to(root).as_posix() == f"{PACKAGE}/schemas.py":
            continue
        for fn in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if any(inner is not fn for inner in _functions(fn)):
                continue     # judge innermost functions only (a closure is counted once)
            loops = [n.iter for n in ast.walk(fn) if isinstance(n, (ast.For, ast.comprehension))]
            if any(isinstance(it, ast.Attribute) and it.attr in ("columns", "names") and _is_schema(it.value)
                   for it in loops):
                out.append(f"{path.relative_to(root)}:{fn.name}")
    return out


def private_imports(root: Path = ROOT) -> list[str]:
    out = []
    for path in python_files(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                out += [f"{path.relative_to(root)}:{node.lineno} {node.module}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def counts(root: Path = ROOT) -> dict:
    graph = package_graph(root)
    found = cycles(graph)
    return {
        "node_defaults": len(node_defaults(root)),
        "library_defaults": len(library_defaults(root)),
        "icc_kernels": len(icc_kernels(root)),
        "schema_shapers": len(schema_shapers(root)),
        "package_cycles": len(found),
        "packages_in_cycles": sum(len(c) for c in found),
        "function_imports": len(function_imports(root)),
        "private_imports": len(private_imports(root)),
        "uncommented_function_imports": len(uncommented_function_imports(root)),
        "packages_importing_dag": sorted(p for p, deps in graph.items() if "dag" in deps),
        "detail": {"library_defaults": library_defaults(root), "icc_kernels": icc_kernels(root), "schema_shapers": schema_shapers(root), "cycles": found,
                   "private_imports": private_imports(root)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--root", default=str(ROOT), help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    result = counts(Path(args.root).resolve())
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for key, value in result.items():
        if key != "detail":
            print(f"{key}: {value}")
    for key, value in result["detail"].items():
        print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
