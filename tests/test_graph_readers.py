"""Readers of Common Crawl's host-level web graph and host index v2, on files written here in
the published layouts (header line, Java float formatting, www variants, diverging partitions)."""

from __future__ import annotations

import gzip
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawlplan import hosts
from crawlplan.graph import hostindex, webgraph

pytestmark = pytest.mark.spark

RANKS = """#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev
1\t3.4626736E7\t2\t0.0112\tcom.facebook.www
2\t3.1E7\t1\t0.0200\tcom.facebook
3\t2.0E7\t3\t1.5E-4\torg.example
4\tnot-a-number\t4\t1.0E-5\tnet.broken
5\t0.0\t5\t0.0\tuk.co.bbc.news
"""


def _gz(path, text):
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


@pytest.fixture()
def release(tmp_path):
    folder = tmp_path / "graph"
    (folder / "vertices").mkdir(parents=True)
    (folder / "edges").mkdir()
    _gz(folder / "cc-main-test-host-ranks.txt.gz", RANKS)
    _gz(folder / "vertices" / "part-0.txt.gz", "0\tcom.facebook.www\n1\torg.example\n")
    _gz(folder / "vertices" / "part-1.txt.gz", "2\tuk.co.bbc.news\n3\tcom.facebook\n")
    _gz(folder / "edges" / "part-0.txt.gz", "0\t1\n1\t2\n2\t0\n3\t1\nbad line\n")
    _gz(folder / "cc-main-test-host-vertices.paths.gz", "vertices/part-0.txt.gz\nvertices/part-1.txt.gz\n")
    _gz(folder / "cc-main-test-host-edges.paths.gz", "edges/part-0.txt.gz\n")
    return folder


def test_read_host_ranks_parses_java_floats_and_normalises_keys(spark, release):
    df = webgraph.read_host_ranks(spark, str(release))
    assert df.columns == ["rev_host", "surt_host_name", "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val",
                          "log_hc", "log_pr"]
    rows = {r.rev_host: r for r in df.collect()}
    # www and bare variants collapse onto one key, keeping the better harmonic-centrality position
    assert set(rows) == {"com.facebook", "org.example", "uk.co.bbc.news"}
    fb = rows["com.facebook"]
    assert fb.harmonicc_pos == 1 and fb.harmonicc_val == pytest.approx(34626736.0)
    assert fb.surt_host_name == "com,facebook"
    assert fb.log_hc == pytest.approx(math.log10(1 + 34626736.0))
    assert rows["org.example"].pr_val == pytest.approx(1.5e-4)
    assert rows["org.example"].log_pr == pytest.approx(math.log10(1 + 1.5e-4))
    assert rows["uk.co.bbc.news"].log_hc == 0.0
    assert webgraph.count_bad_rank_rows(spark, str(release)) == 1
    assert webgraph.release_name(spark, str(release)) == "cc-main-test"


@pytest.mark.quick
def test_rank_keys_match_document_keys(spark, release):
    ranks = {r.rev_host for r in webgraph.read_host_ranks(spark, str(release)).collect()}
    for url in ("https://www.facebook.com/x", "http://news.bbc.co.uk/", "https://example.org/a"):
        assert hosts.rev_host(hosts.host_of(url)) in ranks


def test_vertices_and_edges_from_listings(spark, release):
    v = webgraph.read_vertices(spark, str(release))
    e = webgraph.read_edges(spark, str(release))
    assert v.count() == 4 and e.count() == 4  # the malformed edge line is dropped
    deg = {r.rev_host: (r.in_degree, r.out_degree) for r in webgraph.host_degrees(v, e).collect()}
    assert deg["com.facebook"] == (1, 2)  # ids 0 and 3 both map to com.facebook
    assert deg["org.example"] == (2, 1)
    assert deg["uk.co.bbc.news"] == (1, 1)


def test_paths_listing_with_base_prefix(spark, release):
    listing = str(release / "cc-main-test-host-edges.paths.gz")
    assert webgraph.read_paths_listing(spark, listing, base="s3://commoncrawl/") == [
        "s3://commoncrawl/edges/part-0.txt.gz"]
    assert webgraph.read_paths_listing(spark, listing)[0].endswith("graph/edges/part-0.txt.gz")


def _write_partition(root, crawl, table):
    folder = root / f"crawl={crawl}"
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "part-0.parquet")


def test_read_host_index_unifies_diverging_partitions(spark, tmp_path):
    root = tmp_path / "hostindex"
    _write_partition(root, "CC-MAIN-2024-10", pa.table({
        "surt_host_name": ["com,example", "com,example,www", "org,wiki"],
        "url_host_tld": ["com", "com", "org"],
        "fetch_200": pa.array([10, 5, 7], pa.int32()),
        "nutch_numRecords": pa.array([100, 50, 7], pa.int32()),
        "nutch_fetched": pa.array([20, 10, 7], pa.int32()),
        "nutch_fetched_pct": pa.array([20, 20, 100], pa.int8()),
        "hcrank": [1.5, 2.5, 3.0],
    }))
    _write_partition(root, "CC-MAIN-2024-18", pa.table({  # wider ints, no hcrank column
        "surt_host_name": ["com,example"],
        "url_host_tld": ["com"],
        "fetch_200": pa.array([3], pa.int64()),
        "nutch_numRecords": pa.array([30], pa.int64()),
        "nutch_fetched": pa.array([3], pa.int64()),
        "nutch_fetched_pct": pa.array([10], pa.int32()),
    }))
    notes: list[str] = []
    df = hostindex.read_host_index(spark, str(root), notes=notes)
    types = dict(df.dtypes)
    assert types["fetch_200"] == "bigint" and types["nutch_fetched_pct"] == "int" and types["hcrank"] == "double"
    rows = {(r.crawl, r.surt_host_name): r for r in df.collect()}
    assert set(rows) == {("CC-MAIN-2024-10", "com,example"), ("CC-MAIN-2024-10", "org,wiki"),
                         ("CC-MAIN-2024-18", "com,example")}
    merged = rows[("CC-MAIN-2024-10", "com,example")]
    assert (merged.fetch_200, merged.nutch_numRecords, merged.nutch_fetched_pct) == (15, 150, 20)
    assert merged.hcrank == 2.5 and merged.rev_host == "com.example"
    assert rows[("CC-MAIN-2024-18", "com,example")].hcrank is None
    assert any("CC-MAIN-2024-18" in n and "hcrank" in n for n in notes)
    only = hostindex.read_host_index(spark, str(root), crawls=["CC-MAIN-2024-18"])
    assert only.count() == 1
    with pytest.raises(hostindex.HostIndexError, match="CC-MAIN-2024-10"):
        hostindex.read_host_index(spark, str(root), crawls=["CC-MAIN-2099-01"])
    raw = hostindex.read_host_index(spark, str(root), crawls=["CC-MAIN-2024-10"], collapse_www=False)
    assert raw.count() == 3


def test_key_expressions_equal_hosts_module(spark):
    from pyspark.sql import functions as F

    from crawlplan.graph.keys import normalize_rev_host, normalize_surt_host

    plain = ["www.example.com", "example.com", "www.com", "WWW.Blog.Example.CO.UK", "news.bbc.co.uk",
             "www.www.example.org", "wwwexample.com", "example.com."]
    graph_form = [".".join(reversed(h.lower().rstrip(".").split("."))) for h in plain]  # www kept
    df = spark.createDataFrame([(g, g.replace(".", ",")) for g in graph_form], "rev string, surt string")
    got = df.select(normalize_rev_host(F.col("rev")).alias("r"), normalize_surt_host(F.col("surt")).alias("s")).collect()
    assert [r.r for r in got] == [hosts.rev_host(h) for h in plain]
    assert [r.s for r in got] == [hosts.surt_host(h) for h in plain]
    assert all(hosts.surt_to_rev(r.s) == r.r and hosts.rev_to_surt(r.r) == r.s for r in got)


@pytest.mark.quick
def test_gneissweb_url_level_annotations_become_host_density(spark, tmp_path):
    from crawlplan.graph.gneissweb import read_gneissweb

    path = tmp_path / "gw.parquet"
    pq.write_table(pa.table({
        "url_surtkey": ["com,example,www)/a", "com,example)/b", "com,example)/c", "org,wiki:8080)/x"],
        "crawl": ["CC-MAIN-2024-10"] * 4,
        "fetch_time": ["2024-02-20T00:00:00Z"] * 4,
        "in_gneissweb": [True, False, True, False],
        "gneissweb_medical": [0.1, 0.2, 0.3, 0.9],
    }), path)
    rows = {r.surt_host_name: r for r in read_gneissweb(spark, str(path)).collect()}
    ex = rows["com,example"]
    assert (ex.pages, ex.gneissweb_pages) == (3, 2) and ex.density == pytest.approx(2 / 3)
    assert ex.rev_host == "com.example" and ex.gneissweb_medical == pytest.approx(0.2)
    assert ex.gneissweb_science is None
    assert rows["org,wiki"].density == 0.0
