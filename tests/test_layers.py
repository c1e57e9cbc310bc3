"""Layers point one way: the "Where things live" table of DEVELOPERS.md is the rule, and the
import graph of ``crawlplan/`` (read with ``ast`` by scripts/code_counts.py) must follow it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import code_counts as counts
import pytest

ROOT = Path(__file__).resolve().parent.parent


def allowed_imports() -> dict[str, set[str] | None]:
    """package -> the packages it may import (None: any), from DEVELOPERS.md's table."""
    text = (ROOT / "DEVELOPERS.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    rules: dict[str, set[str] | None] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("package", "") or set(cells[0]) <= {"-"}:
            continue
        may = cells[2]
        rules[cells[0]] = None if may == "everything" else {p for p in re.split(r"[,\s]+", may) if p and p != "—"}
    return rules


@pytest.fixture(scope="module")
def graph():
    return counts.package_graph(ROOT)


def test_no_import_cycle_between_packages(graph):
    assert counts.cycles(graph) == []


def test_every_package_imports_only_what_its_row_allows(graph):
    rules = allowed_imports()
    assert "storage" in rules and "cli" in rules, "the table was not found in DEVELOPERS.md"
    unlisted = sorted(set(graph) - set(rules) - {counts.PACKAGE})
    assert unlisted == [], "packages missing from DEVELOPERS.md's 'Where things live'"
    wrong = sorted(f"{src} -> {dst}" for src, deps in graph.items() for dst in deps
                   if rules.get(src) is not None and dst not in rules[src])
    assert wrong == [], "imports the table does not allow"


def test_storage_sits_below_the_dag_and_the_domain_libraries(graph):
    assert "dag" not in graph["storage"]
    for domain in ("extract", "graph", "source", "report", "stats", "policies", "classify", "warc"):
        assert "dag" not in graph[domain], f"{domain} imports the DAG machinery"


def test_no_private_cross_module_import():
    assert counts.private_imports(ROOT) == []


def test_function_level_imports_say_which_heavy_optional_dependency():
    assert counts.uncommented_function_imports(ROOT) == []


def test_the_layer_rule_catches_a_violation(tmp_path):
    """The check itself works: a storage module importing the DAG is an edge the table forbids."""
    pkg = tmp_path / "crawlplan"
    (pkg / "dag").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "dag" / "__init__.py").write_text("from crawlplan import storage\n")
    (pkg / "storage.py").write_text("from crawlplan.dag import runner\n")
    (pkg / "dag" / "runner.py").write_text("def f():\n    import json\n")
    graph = counts.package_graph(tmp_path)
    assert graph["storage"] == {"dag"} and counts.cycles(graph) == [["dag", "storage"]]
    assert counts.uncommented_function_imports(tmp_path) == ["crawlplan/dag/runner.py:2"]


def test_hosts_stays_importable_without_spark():
    """The crawl venv (Scrapy, pywb; no Spark) imports crawlplan.hosts through the Scrapy adapter."""
    tree = ast.parse((ROOT / "crawlplan" / "hosts.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not [m for m in imported if m.split(".")[0] == "pyspark"]
