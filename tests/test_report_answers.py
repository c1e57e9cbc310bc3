"""The report reads as findings: each section's answer is computed from the run's frames (change a
frame, the sentence changes), the demo caveat appears exactly when demo models scored the pages,
figures and tables are numbered in reading order with the paper's number beside, and every
column heading is for people."""

from __future__ import annotations

import html as htmllib
import re

import pandas as pd
import pytest
import report_synthetic

from crawlplan.report import answers, browser, build
from crawlplan.report.labels import COLUMNS, column_label, humanise

CONF = {"policies": {"classifier": "fineweb_edu"}}


def _frames() -> dict:
    data = report_synthetic.datasets()
    frames = dict(data)
    frames["warc_files"] = pd.DataFrame({"status": ["ok", "truncated"], "files": [7, 1], "records": [900, 50],
                                         "responses": [300, 10], "documents": [240, 5], "rejected": [60, 5],
                                         "bytes": [10, 1], "seconds": [1.0, 0.5], "retries": [0, 3]})
    frames["budgets_by_reason"] = pd.DataFrame({"reason": ["rank", "explore"], "hosts": [150, 50],
                                                "pages": [90000, 10000]})
    return frames


def _answer(html: str, anchor: str) -> str:
    section = html[html.index(f'<section id="{anchor}">'):]
    match = re.search(r'<p class="answer">(.*?)</p>', section)
    return htmllib.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def test_rq1_answer_is_the_icc_of_the_run_and_follows_the_frame():
    frames = _frames()
    icc = frames["icc"].copy()
    icc.loc[icc["min_docs"] == 3, "icc1"] = [0.61, 0.72, 0.55, 0.66, 0.9]   # 4 classifiers + true_quality
    frames["icc"] = icc
    text = answers.rq1(frames)
    assert text.startswith("Largely: the host explains 55%–72%") and "median 64%" in text
    assert "Highest for dclm (0.72), lowest for nemotron_hq (0.55)" in text
    assert "planted quality has ICC1 0.90" in text
    icc.loc[icc["min_docs"] == 3, "icc1"] = [0.05, 0.08, 0.02, 0.1, 0.9]
    assert answers.rq1({"icc": icc}).startswith("Mostly not: the host explains 2%–10%")


def test_rq2_answer_follows_the_simulated_yields():
    frames = _frames()
    text = answers.rq2(frames)
    assert "at a 10% budget" in text and "yields 1.30× random's" in text and "the oracle 5.00×" in text
    sim = frames["ordering_sim"].copy()
    sim.loc[sim["policy"] == "hc", "multiple_of_random"] = 0.8
    assert answers.rq2({"ordering_sim": sim}).startswith("No, worse than random:")
    assert "yields 0.80× random's" in answers.rq2({"ordering_sim": sim})
    with pytest.raises(build.Missing):
        answers.rq2({"ordering_sim": sim[sim["policy"] != "hc"]})


def test_rq3_and_rq4_answers_name_the_run_s_policy_and_correlation():
    frames = _frames()
    rq3 = answers.rq3(frames)
    assert "eb_adaptive does best" in rq3 and "1.50× the high-quality yield of uniform depth" in rq3
    assert "0.7 is reached at k = 11" in rq3
    summary = frames["coverage_summary"].copy()
    summary["spearman_coverage_density"] = 0.42
    summary["ci_low"], summary["ci_high"] = 0.3, 0.5
    text = answers.rq4({"coverage_summary": summary}, "gneissweb")
    assert text.startswith("Yes: in CC-MAIN-2024-10") and "(gneissweb)" in text and "ρ 0.42 (95% CI 0.30 to 0.50)" in text
    assert "50% of the estimated missed high-quality pages are on hosts with coverage below 0.20" in text


def test_every_section_opens_with_its_answer_and_the_demo_caveat_only_for_demo_models():
    frames = _frames()
    demo, _ = build.build_html(frames, report_synthetic.markers(demo_models=True), CONF)
    real, _ = build.build_html(frames, report_synthetic.markers(demo_models=False), CONF)
    for anchor in ("run", "rq1", "rq2", "rq3", "rq4", "budgets", "source"):
        section = demo[demo.index(f'<section id="{anchor}">'):]
        assert re.match(r'<section id="\w+"><h2>[^<]+</h2><p class="answer">', section), anchor
        scored = anchor not in ("run", "source")
        assert (answers.DEMO_CAVEAT in _answer(demo, anchor)) == scored, anchor
        assert answers.DEMO_CAVEAT not in _answer(real, anchor)
    assert "Extract read 950 records from 8 WARC files and kept 245 documents" in _answer(demo, "run")
    assert "1 file not read whole (truncated: 1)" in _answer(demo, "run")
    assert "The plan allocates 100,000 pages over 200 hosts; 90% of the pages" in _answer(demo, "budgets")
    findings = demo[demo.index('<div class="findings">'):demo.index("<section")]
    assert answers.DEMO_CAVEAT.replace("'", "&#x27;") in findings and findings.count("<li>") == 7


def test_a_missing_dataset_gives_a_no_answer_line_not_a_guess():
    html, stats = build.build_html({}, [], CONF)
    assert _answer(html, "rq1") == "Answer. No answer in this run: dataset icc was not produced."
    assert _answer(html, "rq4").endswith("dataset coverage_summary was not produced.")
    assert stats.failed == []


def test_figures_and_tables_are_numbered_in_reading_order_with_the_paper_s_number():
    html, _ = build.build_html(_frames(), report_synthetic.markers(), CONF)
    heads = re.findall(r"<(?:h3|figcaption)>(Figure|Table) (\d+): ([^<]*)</(?:h3|figcaption)>", html)
    for kind in ("Figure", "Table"):
        numbers = [int(n) for k, n, _ in heads if k == kind]
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 9, kind
    titles = {f"{k} {n}": t for k, n, t in heads}
    assert titles["Figure 1"] == "ICC1 per classifier (paper: Figure 1)"
    assert titles["Figure 3"] == "Yield across budgets (paper: Figure 9)"     # paper's 9 comes third here
    assert any(t == "Coverage summary (paper: Table 1)" for t in titles.values())
    assert "(Table 1)" not in html and "Figure 9: yield" not in html         # no paper numbers as own numbers


def test_column_headings_are_human():
    html, _ = build.build_html(_frames(), report_synthetic.markers(), CONF)
    heads = [htmllib.unescape(h) for h in re.findall(r"<th[^>]*>([^<]*)</th>", html)]
    assert heads and not [h for h in heads if "_" in h]
    for raw in ("spearman_coverage_density", "missed_share_low_coverage", "min_docs", "icc1"):
        assert f'<th title="{raw}">{htmllib.escape(COLUMNS[raw])}</th>' in html
    assert column_label("yield_mean") == "HQ yield (mean)"
    assert humanise("share_of_tld_hosts_p90") == "Share of TLD hosts p90" and humanise("url") == "URL"
    assert column_label("some_new_column") == "Some new column"


def test_report_check_without_chromium_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(browser, "find_chromium", lambda: None)
    page = tmp_path / "index.html"
    page.write_text("<html><head></head><body></body></html>")
    with pytest.raises(FileNotFoundError, match=r"apt-get install -y chromium.*CRAWLPLAN_CHROMIUM"):
        browser.check_in_browser(page)
    with pytest.raises(FileNotFoundError, match="scripts/install-chromium.sh"):
        browser.screenshot(page, tmp_path / "x.png")


def test_source_answer_compares_sourCe_with_its_baselines():
    rows = [("a.org", m, v) for m, v in (("bfs", 0.4), ("tpm", 0.5), ("source", 0.8), ("ceiling", 0.9))]
    df = pd.DataFrame([{"site": s, "task": "target", "method": m, "metric": "harvest_rate", "value": v}
                       for s, m, v in rows])
    assert answers.source({"site_eval": df}) == ("SOUrCe beats BFS and TPM: over 1 site, the target crawl's mean "
                                                  "final harvest rate is 0.80 for SOUrCe against ceiling 0.90, "
                                                  "TPM 0.50, BFS 0.40.")
    df.loc[df["method"] == "tpm", "value"] = 0.85
    assert answers.source({"site_eval": df}).startswith("SOUrCe does not beat every baseline:")
