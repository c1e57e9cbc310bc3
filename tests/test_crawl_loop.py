"""The closed loop with real tools: pywb replays the demo crawl on 127.0.0.1, Scrapy crawls it
driven by an exported plan, and the crawl's WARC goes back into the pipeline.

The plan is built in-process so the test needs no DAG run: ``allocate`` over a one-in-three
sample of each host's pages labelled with the demo's ground truth (a perfect classifier on a
sample), and within-host plans for the forum hosts from clusters = page types (a perfect
sitemap: thread-list pages link to threads) turned into URL patterns by the same code as the
export. ``crawlplan crawl-loop``
runs the same loop on a real ``crawlplan run`` (docs/policies.md, "A real crawl closes the loop").
Skips when the crawl venv (.venv-crawl: pywb, Scrapy; scripts/test-extras.sh) is missing.
"""

from __future__ import annotations

import json
import os
import socket

import pandas as pd
import pytest
from settings_support import allocator_config

from crawlplan.crawlers import loop
from crawlplan.policies import export
from crawlplan.policies.allocate_table import allocate
from crawlplan.source.plans import cluster_url_patterns
from tests.demo_support import default_demo, sampled_host_table

TOTAL = 300
PER_HOST = 8

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def crawl_py():
    py = loop.crawl_python()
    if py is None:
        pytest.skip(f"crawl venv {loop.CRAWL_VENV} (pywb, Scrapy, warcio) is missing: run scripts/test-extras.sh")
    return py


def sample_plan(demo, total: int, per_host: int) -> pd.DataFrame:
    pages = pd.read_parquet(demo / "ground_truth" / "pages.parquet").sort_values("url")
    hosts = pd.read_parquet(demo / "ground_truth" / "hosts.parquet")
    sampled = sampled_host_table(demo)
    budgets = allocate(sampled, None, allocator_config(total_budget=total, explore_share=0.0, politeness_max=per_host))
    forums = hosts[hosts.site_type == "forum"].host.tolist()
    fp = pages[pages.host.isin(forums)]
    types = {t: i for i, t in enumerate(sorted(fp.page_type.unique()))}
    clusters = pd.DataFrame({"site": fp.host, "url": fp.url, "cluster": fp.page_type.map(types)})
    # the plan row: links on thread-list pages, which lead to threads (the wanted pages)
    apath = "/html/body/main/table/tr/td/a"
    plans = pd.DataFrame([{"site": s, "rank": 1, "cluster": types["thread_list"], "apath": apath,
                           "expected_share": 1.0, "links_seen": 1.0, "wanted_basis": "labels"} for s in forums])
    navigation = {(s, types["thread_list"], apath): {types["thread"]: 1.0} for s in forums}
    return export.attach_plans(budgets, plans, patterns=cluster_url_patterns(clusters), navigation=navigation)


@pytest.fixture(scope="module")
def crawled(crawl_py, tmp_path_factory):
    demo = default_demo(tmp_path_factory)
    out = tmp_path_factory.mktemp("crawl-loop")
    plan = sample_plan(demo, TOTAL, PER_HOST)
    jsonl = export.write(plan, "jsonl", out / "budgets.jsonl")
    result = loop.closed_loop(jsonl, demo, out, py=crawl_py)
    return demo, out, plan, result


def test_plan_caps_hold_and_the_plan_beats_uniform(crawled):
    _, out, plan, result = crawled
    budget = {h.replace(",", "."): b for h, b in zip(plan.surt_host_name, plan.allocated_pages)}
    fetched = result["fetches_by_host"]
    assert result["caps_held"]
    planned = {".".join(reversed(h.split("."))): b for h, b in budget.items() if b > 0}
    assert set(fetched) <= set(planned)                                   # only planned hosts
    assert all(n <= planned[h] for h, n in fetched.items())               # per-host caps
    p, u = result["plan"], result["uniform"]
    assert p["fetches"] == u["fetches"] and 0.8 * TOTAL <= p["fetches"] <= TOTAL
    assert u["hosts"] > 2 * p["hosts"]                                    # uniform really is breadth
    assert p["hq_pages"] > 1.5 * u["hq_pages"]                            # the plan's hosts are better
    assert 0.5 * p["predicted_hq_at_fetches"] < p["hq_pages"] < 1.5 * p["predicted_hq_at_fetches"]
    assert "| crawl driven by the plan (Scrapy) |" in (out / "yield.md").read_text()


def test_within_host_plan_steers_forum_hosts_to_threads(crawled):
    demo, out, plan, result = crawled
    hosts = pd.read_parquet(demo / "ground_truth" / "hosts.parquet")
    pages = pd.read_parquet(demo / "ground_truth" / "pages.parquet", columns=["url", "host", "page_type"])
    forums = hosts[(hosts.site_type == "forum")]
    partial = [h for h in forums.host if 0 < result["fetches_by_host"].get(h, 0) < len(pages[pages.host == h])]
    assert partial, "no forum host with a partial budget: the within-host part would not be tested"
    got = loop.crawled_pages(out / "crawl-plan.warc.gz")
    got = got[got.html & got.url.str.contains("|".join(partial), regex=True)]
    truth = pages.assign(key=pages.url.map(loop.page_key)).set_index("key").page_type
    fetched_threads = got.key.map(truth).eq("thread").mean()
    host_threads = pages[pages.host.isin(partial)].page_type.eq("thread").mean()
    assert fetched_threads > host_threads + 0.25, (fetched_threads, host_threads)


def test_warc_is_the_crawls_own_and_the_pipeline_reads_it(crawled, spark):
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    _, out, _, result = crawled
    warc = out / "crawl-plan.warc.gz"
    fetched = loop.crawled_pages(warc)
    assert len(fetched) == result["plan"]["fetches"]
    assert not fetched.url.str.contains("127.0.0.1").any()                # original URLs, not the replay's
    pipe = load_pipeline("main")
    res = run_single_job(spark, load_conf("local"), pipe, "extract", [str(warc)], str(out / "replan"),
                         echo=lambda *_: None)
    docs = spark.read.parquet(str(out / "replan" / "documents")).count()
    rejects = spark.read.parquet(str(out / "replan" / "rejects")).count()
    assert docs + rejects >= result["plan"]["html_pages"] and docs > 0.8 * result["plan"]["html_pages"]
    assert res["rows"]["documents"] == docs


def test_replay_server_was_stopped_by_pid(crawled):
    _, out, _, result = crawled
    with pytest.raises(ProcessLookupError):
        os.kill(result["replay"]["pid"], 0)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", result["replay"]["port"])) != 0
    assert json.loads((out / "loop.json").read_text())["caps_held"] is True
