"""The project's shape stays as DEVELOPERS.md describes it: one job file per pipeline node, node
modules named like the library they call, and packages that import one way only."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from crawlplan.dag.pipeline import load_pipeline
from crawlplan.paths import resource_dir

ROOT = Path(__file__).resolve().parent.parent
JOB_FILE = '''"""spark-submit entry of the pipeline node `{node}`: the same arguments as `crawlplan job {node}`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("{node}"))
'''


def _pipeline_nodes() -> dict:
    nodes = {}
    for path in sorted(resource_dir("pipelines").glob("*.yaml")):
        nodes.update(load_pipeline(path.stem).nodes)
    return nodes


def _named_node(path: Path) -> str | None:
    """The node a job file runs: the string argument of its ``main(...)`` call."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "main" and node.args:
            arg = node.args[0]
            return arg.value if isinstance(arg, ast.Constant) else None
    return None


def test_every_pipeline_node_has_a_job_file_and_every_job_file_names_a_node():
    nodes = _pipeline_nodes()
    files = {p.stem: p for p in (ROOT / "jobs").glob("*.py")}
    assert sorted(set(nodes) - set(files)) == [], "pipeline nodes without jobs/<node>.py"
    assert sorted(set(files) - set(nodes)) == [], "jobs/<name>.py files that name no pipeline node"
    for name, path in files.items():
        assert _named_node(path) == name, f"{path} must run the node it is named after"
        assert path.read_text(encoding="utf-8") == JOB_FILE.format(node=name), f"{path} differs from the one style"


@pytest.mark.parametrize("node", sorted(_pipeline_nodes().values(), key=lambda n: n.name), ids=lambda n: n.name)
def test_node_module_shares_its_library_module_name(node):
    """Job ``stats.host_stats`` is ``crawlplan.nodes.stats.host_stats`` and calls
    ``crawlplan.stats.host_stats`` (job ``extract``: the package ``crawlplan.extract``)."""
    library = f"crawlplan.{node.job}"
    assert importlib.util.find_spec(f"crawlplan.nodes.{node.job}") is not None
    assert importlib.util.find_spec(library) is not None, f"node {node.name}: no library module {library}"
    source = ROOT / "crawlplan" / "nodes" / (node.job.replace(".", "/") + ".py")
    imported = set()
    for stmt in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            imported.add(stmt.module)
            imported.update(f"{stmt.module}.{a.name}" for a in stmt.names)
    assert any(m == library or m.startswith(library + ".") for m in imported), \
        f"node {node.name} does not call its library {library}"
