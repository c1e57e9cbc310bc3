"""The report page without Spark: layout, missing-dataset boxes, failures, banner, escaping."""

from __future__ import annotations

import json
import re

import pandas as pd
import report_synthetic

from crawlplan.report import build, figures_source
from crawlplan.report.render import fmt, table_html

CONF = {"inputs": {"warc_paths": "", "host_index": "/data/hi"}, "policies": {"classifier": "fineweb_edu"},
        "spark": {"conf": {"spark.hadoop.fs.s3a.secret.key": "s3cr3t"}}}


def _frames(*names):
    data = report_synthetic.datasets()
    return {n: data[n] for n in names}


def test_only_icc_gives_figure_1_and_boxes_naming_every_other_dataset():
    html, stats = build.build_html(_frames("icc"), [], CONF)
    assert stats.figures == 1 and stats.failed == []
    for dataset in ("ordering_sim", "correlations", "sample_reliability", "depth_sim", "host_quality",
                    "coverage_bins", "classifier_correlations", "budgets", "sitemaps", "site_eval"):
        assert f"dataset <code>{dataset}</code> not produced in this run" in html, dataset
    assert html.count("<img ") == 1
    assert "_markers" in html  # no markers: said, not hidden


def test_empty_dataset_is_reported_as_empty():
    frames = _frames("icc")
    frames["ordering_sim"] = report_synthetic.datasets()["ordering_sim"].head(0)
    html, stats = build.build_html(frames, [], CONF)
    assert "dataset <code>ordering_sim</code> is empty in this run" in html
    frames["classify_rejects"] = report_synthetic.datasets()["classify_rejects"].head(0)
    html, stats = build.build_html(frames, [], CONF)
    assert "none: every document was scored" in html and "classify_rejects" not in stats.missing


def test_a_broken_figure_shows_an_error_box_and_the_rest_still_renders():
    frames = _frames("icc")
    frames["sample_reliability"] = pd.DataFrame({"k": [1, 2], "spearman": [0.1, 0.2]})  # columns missing
    html, stats = build.build_html(frames, [], CONF)
    assert len(stats.failed) == 1 and "k-sample reliability (paper: Figure 4)" in stats.failed[0]
    assert 'class="error">could not draw <b>Figure 5: k-sample reliability (paper: Figure 4)' in html
    assert stats.figures == 1 and "Classifier correlation matrix (paper: Figure 12)" in html


def test_demo_banner_only_when_a_marker_says_demo_models():
    plain, _ = build.build_html({}, report_synthetic.markers(demo_models=False), CONF)
    assert "DEMO MODELS WERE USED" not in plain
    html, _ = build.build_html({}, report_synthetic.markers(demo_models=True), CONF)
    assert "DEMO MODELS WERE USED" in html and "classify: demo models: scores are not real quality" in html
    assert build.demo_notes([{"node": "x", "notes": ["DEMO MODELS: SCORES ARE NOT REAL QUALITY: a"]}])
    assert not build.demo_notes([{"node": "x", "notes": ["no host index: demonstration skipped"]}])


def test_counts_from_markers_and_untrusted_text_is_escaped():
    markers = report_synthetic.markers()
    markers[0]["notes"] = ["<img src=x onerror=alert(1)>"]
    html, _ = build.build_html({}, markers, CONF)
    html = html.replace("<wbr>", "")  # break hints after underscores in table cells
    assert "records_read=900" in html and "rejected=60" in html and "documents=240" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "/data/hi" in html  # inputs
    assert "s3cr3t" not in html and "secret.key: (redacted)" in html  # credentials never reach the page


def test_page_is_self_contained():
    html, _ = build.build_html(_frames("icc", "classifier_correlations"), report_synthetic.markers(), CONF)
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert all(src.startswith("data:image/png;base64,") for src in re.findall(r'<img src="([^"]+)"', html))


def test_table_formatting_and_truncation_note():
    df = pd.DataFrame({"n": range(100), "x": [0.123456] * 100, "s": ["<b>"] * 100})
    html = table_html(df, max_rows=10)
    assert html.count("<tr>") == 11 and "first 10 of 100 rows" in html and "&lt;b&gt;" in html
    assert fmt(1234567) == "1,234,567" and fmt(0.5) == "0.500" and fmt(None) == "" and fmt(float("nan")) == ""


def test_sitemap_graph_input_helpers():
    frames = {"sitemaps": report_synthetic.datasets()["sitemaps"].assign(
        clusters_json=lambda d: d["clusters"].map(lambda v: json.dumps(v) if v is not None else None),
        adjacency_json=lambda d: d["adjacency"].map(lambda v: json.dumps(v) if v is not None else None))}
    assert figures_source.sitemap_sites(frames) == ["docs.example.org", "forum.example.net"]  # error site left out
    pos = figures_source.circle_layout([-1, 0, 1, 2, 3])
    assert pos[-1] == (0.0, 0.0) and all(abs(x * x + y * y - 1) < 1e-9 for c, (x, y) in pos.items() if c >= 0)
    fig = figures_source.fig_sitemap_graph(frames, "docs.example.org")
    assert len(fig.axes[0].collections[0].get_offsets()) == 6  # 5 clusters + outliers


def test_crawl_curves_are_drawn_when_a_run_records_them():
    """No node writes crawl_curves yet; the report draws them as soon as one does."""
    rows = [{"site": s, "task": "target", "method": m, "pages": p, "metric": k, "value": p / 100 * (2 if m == "source" else 1) / 2}
            for s in ("a.org", "b.net") for m in ("bfs", "source") for p in range(0, 101, 10) for k in ("harvest_rate", "recall")]
    frames = _frames("site_eval")
    frames["crawl_curves"] = pd.DataFrame(rows)
    html, stats = build.build_html(frames, [], CONF)
    assert re.search(r"<h3>Figure \d+: Crawl curves</h3>", html) and stats.failed == []
    fig = figures_source.fig_crawl_curves(frames)
    assert len(fig.axes) == 4 and len(fig.axes[0].lines) == 2
    html_without, _ = build.build_html(_frames("site_eval"), [], CONF)
    assert "Crawl curves" not in html_without
