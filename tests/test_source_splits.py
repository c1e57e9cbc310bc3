"""bench/source_splits.py: the design and validation sets are summarised apart, sites sites.yaml
does not list are `unlisted`, and the registry's split covers every labelled site."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for sub in ("bench", "scripts"):
    if str(REPO / sub) not in sys.path:
        sys.path.insert(0, str(REPO / sub))

import source_splits  # noqa: E402


def _row(site, f, purity, outliers, hr, hr_bfs, config="default"):
    return {"site": site, "config": config, "micro_f": f, "micro_purity": purity, "full_outlier_share": outliers,
            "target/source/harvest_rate": hr, "target/bfs/harvest_rate": hr_bfs}


def test_split_summary_reports_each_set_apart():
    split_of = {"a": {"split": "design"}, "b": {"split": "design"}, "c": {"split": "validation"}}
    rows = [_row("a", 0.9, 1.0, 0.0, 0.9, 0.5), _row("b", 0.7, 0.8, 0.04, 0.6, 0.5),
            _row("c", 0.4, 0.9, 0.01, 0.2, 0.3), _row("x", 1.0, 1.0, 0.0, 1.0, 0.0)]
    got = {s["split"]: s for s in source_splits.split_summary(rows, split_of)}
    assert set(got) == {"design", "validation", "unlisted"}
    d, v = got["design"], got["validation"]
    assert d["sites"] == 2 and abs(d["mean_micro_f"] - 0.8) < 1e-12 and d["worst_site"] == "b"
    assert d["worst_outliers"] == 0.04 and d["harvest_ge_bfs"] == 2 and abs(d["mean_purity"] - 0.9) < 1e-12
    assert v["sites"] == 1 and v["worst_micro_f"] == 0.4 and v["harvest_ge_bfs"] == 0
    assert got["unlisted"]["sites"] == 1


def test_every_labelled_site_has_a_split():
    splits = source_splits.splits()
    assert {"docs.python.org", "docs.djangoproject.com", "forum.mardun.es"} <= set(splits)
    assert all(v["split"] in ("design", "validation") and v["family"] for v in splits.values())


def test_the_rule_keeps_a_default_only_if_no_validation_site_drops():
    """Issue 30's rule (``prefers``): a higher validation mean is not enough when one validation
    site loses more than 0.02 micro-F or harvest; design sites do not count."""
    split_of = {"v1": {"split": "validation"}, "v2": {"split": "validation"}, "d": {"split": "design"}}
    rows = [_row("v1", 0.90, 1, 0, 0.9, 0, "with"), _row("v2", 0.70, 1, 0, 0.5, 0, "with"),
            _row("v1", 0.80, 1, 0, 0.9, 0, "without"), _row("v2", 0.71, 1, 0, 0.5, 0, "without"),
            _row("d", 0.10, 1, 0, 0.1, 0, "with"), _row("d", 0.99, 1, 0, 0.9, 0, "without")]
    kept = source_splits.prefers(rows, "with", "without", split_of=split_of)
    assert kept["sites"] == 2 and kept["passes"] and not kept["a_lower"]       # v2 -0.01 is within the rule
    assert not source_splits.prefers(rows, "without", "with", split_of=split_of)["passes"]
    rows[1] = _row("v2", 0.70, 1, 0, 0.47, 0, "with")                          # harvest -0.03 on one site
    dropped = source_splits.prefers(rows, "with", "without", split_of=split_of)
    assert not dropped["passes"] and dropped["a_lower"] == ["v2 target HR 0.470 < 0.500"]
