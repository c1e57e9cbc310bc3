"""The report node on a tiny synthetic run (every dataset the report reads, written through the
schemas), opened in a real headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import report_synthetic

from crawlplan import storage
from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job
from crawlplan.report import browser
from crawlplan.schemas import load_schema

pytestmark = pytest.mark.spark


def write_run(spark, out: Path, names=None, demo_models=True) -> None:
    """A run folder as the DAG leaves it: Parquet datasets plus completion markers."""
    for name, pdf in report_synthetic.datasets().items():
        if names is not None and name not in names:
            continue
        df = spark.createDataFrame(report_synthetic.plain_records(name, pdf), load_schema(name).struct())
        storage.write_dataset(df, name, str(out))
    (out / "_markers").mkdir(parents=True, exist_ok=True)
    for marker in report_synthetic.markers(demo_models=demo_models):
        (out / "_markers" / f"{marker['node']}.json").write_text(json.dumps(marker))


def run_report(spark, run_dir: Path, out: Path) -> dict:
    conf = load_conf("local")
    return run_single_job(spark, conf, load_pipeline("main"), "report", [str(run_dir)], str(out), force=True,
                          echo=lambda *_: None)


@pytest.fixture(scope="module")
def full_report(spark, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    write_run(spark, run_dir)
    out = tmp_path_factory.mktemp("report-out")
    result = run_report(spark, run_dir, out)
    return result, out / "report" / "index.html"


def test_every_dataset_the_report_reads_is_declared_by_the_pipeline():
    pipeline = load_pipeline("main")
    written = set(pipeline.producer())
    declared = set(pipeline.nodes["report"].inputs)
    from crawlplan.report.collect import REPORT_DATASETS

    assert declared == {d for d in REPORT_DATASETS if d in written}


def test_report_node_writes_index_html_with_every_figure(full_report):
    result, index = full_report
    assert index.is_file()
    html = index.read_text(encoding="utf-8")
    counters = result["counters"]
    assert counters["figures_failed"] == 0
    assert counters["datasets_missing"] == 0, re.findall(r'class="missing">dataset <code>(\w+)', html)
    # 11 paper/summary figures + one graph per learned sitemap (2 synthetic sites; the third has an error)
    assert counters["figures"] == 13
    numbers = [int(n) for n in re.findall(r'alt="Figure (\d+):', html)]
    assert numbers == list(range(1, 14))  # every drawn figure, numbered in reading order
    for fig in ("paper: Figure 1)", "paper: Figure 2)", "paper: Figure 3)", "paper: Figure 4)", "paper: Figure 5)",
                "paper: Figure 6)", "paper: Figure 7)", "paper: Figure 9)", "paper: Figure 12)", "Budget summary",
                "Sitemaps as graphs"):
        assert fig in html
    assert html.count("<img ") == 13
    assert 'class="missing"' not in html


def test_report_shows_counts_inputs_config_and_demo_banner(full_report):
    _, index = full_report
    html = index.read_text(encoding="utf-8").replace("<wbr>", "")  # break hints after underscores in cells
    assert "DEMO MODELS WERE USED" in html
    assert "records_read=900" in html and "rejected=60" in html  # marker counters
    assert "documents=240" in html  # marker rows
    assert "/data/*.warc.gz" in html  # the run's inputs
    assert "Effective configuration" in html and "shuffle_partitions" in html
    # rejects are aggregated by stage and reason; the untrusted detail text never reaches the page
    assert "empty_text" in html and "<script>alert(1)</script>" not in html


def test_report_opens_in_headless_chromium(full_report):
    chromium = browser.find_chromium()
    if not chromium:
        pytest.skip(f"no chromium binary found: {browser.INSTALL_HINT}")
    _, index = full_report
    result = browser.check_in_browser(index, chromium)
    assert result["title"] == "crawlplan report"
    assert len(result["images"]) == 13
    assert all(img["inline"] and img["naturalWidth"] > 100 for img in result["images"])
    assert result["viewport_width"] == browser.WIDTH and result["tables"] >= 20
    assert result["wide_tables"] == []  # every table fits a 1280 px window
    assert browser.problems(result) == []


def test_browser_probe_catches_broken_pages(tmp_path):
    """The probe itself must see errors, or the test above proves nothing."""
    chromium = browser.find_chromium()
    if not chromium:
        pytest.skip(f"no chromium binary found: {browser.INSTALL_HINT}")
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body>'
                   '<img alt="broken" src="data:image/png;base64,AAAA">'
                   '<img alt="remote" src="https://example.invalid/x.png">'
                   '<h3>Table 1: wide</h3><div class="tablewrap"><table><tr><td style="white-space:nowrap">'
                   + "wide " * 600 + '</td></tr></table></div>'
                   '<script>console.error("boom"); notDefined();</script></body></html>')
    found = browser.problems(browser.check_in_browser(bad, chromium))
    assert any("table wider than the page at 1280 px: Table 1: wide" in p for p in found), found
    assert any("notDefined" in p for p in found)
    assert any("boom" in p for p in found)
    assert any("image not loaded: broken" in p for p in found)
    assert any("network resources" in p for p in found)


@pytest.mark.quick
def test_report_with_few_datasets_shows_missing_boxes_not_errors(spark, tmp_path):
    run_dir = tmp_path / "run"
    write_run(spark, run_dir, names={"icc", "rejects"}, demo_models=False)
    result = run_report(spark, run_dir, tmp_path / "out")
    html = (tmp_path / "out" / "report" / "index.html").read_text(encoding="utf-8")
    assert result["counters"]["figures_failed"] == 0
    assert result["counters"]["figures"] == 1  # Figure 1 from icc
    for dataset in ("ordering_sim", "depth_sim", "host_quality", "coverage_bins", "budgets", "sitemaps"):
        assert f"dataset <code>{dataset}</code> not produced in this run" in html
    assert "DEMO MODELS" not in html


def test_the_report_says_the_extract_mode_and_the_sampling_fraction_by_host_size(full_report):
    _, index = full_report
    html = index.read_text(encoding="utf-8")
    section = html[html.index("Extract mode and sampling fraction"):][:4000]
    assert "sampled" in section and "1001+" in section and "0.005" in section   # 10 of 2,000 pages read
