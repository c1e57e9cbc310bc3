"""Bad inputs of the statistics stages: NaN scores, a host with one page, hosts missing from the
web graph, host-index partitions with differing schemas. Each completes; every score is
accounted for (used, or dropped as NaN); missing pieces are counted and noted, not crashed on."""

from __future__ import annotations

import math

import pytest
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job
from crawlplan.graph.hostindex import HostIndexError, read_host_index
from crawlplan.graph.webgraph import read_host_ranks
from crawlplan.stats.host_stats import host_language, host_scores, icc_table, long_scores

pytestmark = pytest.mark.spark
NAN = float("nan")


@pytest.fixture(scope="module")
def scores(spark):
    rows = []
    # many: 5 pages, one NaN dclm score; single: one page; blank: dclm all NaN / null
    for s in [0.1, 0.4, NAN, 0.8, 0.9]:
        rows.append(("com,many", "com.many", "many.com", "com", "en", s, 0.5))
    rows.append(("org,single", "org.single", "single.org", "org", "de", 0.7, 0.2))
    for s in (NAN, None, NAN):
        rows.append(("net,blank", "net.blank", "blank.net", "net", None, s, 0.3))
    return spark.createDataFrame(rows, "surt_host_name string, rev_host string, host string, tld string, "
                                       "language string, dclm double, fineweb_edu double")


def test_nan_scores_are_dropped_and_counted_once(scores):
    long = long_scores(scores, ["dclm", "fineweb_edu"])
    hs = {(r.rev_host, r.classifier): r for r in host_scores(long, host_language(scores), min_docs=1, threshold=0.5).collect()}
    assert hs[("com.many", "dclm")].documents == 4
    assert ("net.blank", "dclm") not in hs and hs[("net.blank", "fineweb_edu")].documents == 3
    # accounting: every finite score is in exactly one host row, NaN/null ones in none
    finite = scores.where(F.col("dclm").isNotNull() & ~F.isnan("dclm")).count()
    assert sum(r.documents for (h, c), r in hs.items() if c == "dclm") == finite == 5
    for r in hs.values():
        assert r.median is None or not math.isnan(r.median)


def test_a_host_with_one_page(scores):
    long = long_scores(scores, ["dclm"])
    one = [r for r in host_scores(long, host_language(scores), min_docs=1, threshold=0.5).collect() if r.rev_host == "org.single"]
    assert len(one) == 1 and one[0].documents == 1 and one[0].median == pytest.approx(0.7)
    assert one[0].std is None or math.isnan(one[0].std)
    # the default min_docs (3) leaves it out; ICC with too few hosts is NaN, not an error
    assert "org.single" not in {r.rev_host for r in host_scores(long, host_language(scores), min_docs=3, threshold=0.5).collect()}
    icc = {(r.classifier, r.min_docs): r for r in icc_table(long, thresholds=(1, 3, 10)).collect()}
    assert icc[("dclm", 1)].hosts == 2 and icc[("dclm", 1)].documents == 5
    assert math.isnan(icc[("dclm", 3)].icc1)  # one host of >= 3 pages: no between-host variance estimate
    assert ("dclm", 10) not in icc or icc[("dclm", 10)].hosts == 0


def test_host_index_partitions_with_differing_schemas(spark, tmp_path):
    root = tmp_path / "host_index"
    spark.createDataFrame([("com,a", 1.5, 10), ("org,b", 2.5, 20)], "surt_host_name string, hcrank double, fetch_200 long") \
        .write.parquet(str(root / "crawl=CC-MAIN-2024-10"))
    # a later partition: hcrank written as text (one value junk), fetch_200 absent, an extra column
    spark.createDataFrame([("com,a", "3.5", "x"), ("net,c", "junk", "y")],
                          "surt_host_name string, hcrank string, surprise string") \
        .write.parquet(str(root / "crawl=CC-MAIN-2024-18"))
    notes: list[str] = []
    df = read_host_index(spark, str(root), columns=["hcrank", "fetch_200"], notes=notes)
    got = {(r.crawl, r.surt_host_name): (r.hcrank, r.fetch_200) for r in df.collect()}
    assert got == {("CC-MAIN-2024-10", "com,a"): (1.5, 10), ("CC-MAIN-2024-10", "org,b"): (2.5, 20),
                   ("CC-MAIN-2024-18", "com,a"): (3.5, None), ("CC-MAIN-2024-18", "net,c"): (None, None)}
    assert any("CC-MAIN-2024-18" in n and "fetch_200" in n for n in notes)
    # a partition without the key column, and an empty one: errors that name the partition
    spark.createDataFrame([("x",)], "host string").write.parquet(str(root / "crawl=CC-MAIN-2024-22"))
    with pytest.raises(HostIndexError, match="CC-MAIN-2024-22.*surt_host_name"):
        read_host_index(spark, str(root), columns=["hcrank"])
    empty = tmp_path / "host_index_empty"
    (empty / "crawl=CC-MAIN-2024-26").mkdir(parents=True)
    with pytest.raises(HostIndexError, match="crawl=CC-MAIN-2024-26 is unreadable"):
        read_host_index(spark, str(empty), columns=["hcrank"])


def test_hosts_missing_from_the_graph_are_counted(spark, tmp_path_factory):
    from crawlplan.demo.crawl import ensure_demo

    demo = tmp_path_factory.mktemp("demo-small")
    paths = ensure_demo(demo, hosts=40, seed=3, echo=lambda *_: None)
    graph = str(paths["web_graph"])
    known = [r.rev_host for r in read_host_ranks(spark, graph).select("rev_host").limit(3).collect()]
    rows = [(h.replace(".", ","), h, h, h.rsplit(".", 1)[-1], "en", 0.5 + i / 10, 0.1)
            for i, h in enumerate(known) for _ in range(3)]
    rows += [("zz,nowhere", "zz.nowhere", "nowhere.zz", "zz", "en", 0.2, 0.1)] * 3
    sc = spark.createDataFrame(rows, "surt_host_name string, rev_host string, host string, tld string, "
                                     "language string, dclm double, fineweb_edu double")
    hs = host_scores(long_scores(sc, ["dclm"]), host_language(sc), min_docs=3, threshold=0.5)
    inp = tmp_path_factory.mktemp("hg-in")
    storage.write_dataset(hs, "host_scores", str(inp))
    out = tmp_path_factory.mktemp("hg-out")
    conf = load_conf("local", overrides=[f"inputs.web_graph={graph}"])
    pipeline = load_pipeline("main")
    result = run_single_job(spark, conf, pipeline, "host_graph", [str(inp)], str(out), echo=lambda *_: None)
    feats = {r.rev_host: r for r in spark.read.parquet(str(out / "host_features")).collect()}
    assert set(feats) == set(known) | {"zz.nowhere"}
    assert not feats["zz.nowhere"].in_graph and feats["zz.nowhere"].log_hc is None
    assert all(feats[h].in_graph for h in known)
    assert result["counters"]["hosts_missing_from_graph"] == 1
    assert any("not in the web graph" in n for n in result["notes"])
