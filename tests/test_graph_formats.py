"""Common Crawl's formats as they are now (issue 17, item 5), on files written here exactly as
published: gzip'ed tab-separated text for the web graph releases, Parquet for the host index.

- A www-stripping release (2017-2025: ``com.example`` is ``www.example.com``, ``org.typo.www``
  is ``www.www.typo.org``) and a www-keeping one (2026-: ``com.example.www`` next to
  ``com.example``) each get their convention measured on their own vertices, and their hosts
  meet on the project's key in the host_graph node's rank stability.
- The domain-level ranks file (sixth column ``#n_hosts``) gives each host its registered
  domain's ranks.
- Host index partitions of v2 (``warc_record_length_av``, int8 ``_pct``) and v3
  (``warc_record_length_avg``, added columns, www-keeping names) read as one table.
"""

from __future__ import annotations

import gzip

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawlplan import hosts
from crawlplan.demo.graph import java_float

FILLERS = [f"h{i}.filler-{i % 7}.net" for i in range(150)]
# plain host -> (harmonic centrality in the old release, in the new one); None: not in that release
SITES = {
    "www.example.com": (9.0e6, 9.5e6),
    "example.com": (None, 2.0e5),          # the 2026 release names the bare form as its own node
    "blog.example.com": (3.0e6, 3.1e6),
    "news.bbc.co.uk": (8.0e6, 8.2e6),
    "www.www.typo.org": (1.0e3, 1.2e3),    # one www label survives stripping
    "www.wikipedia.org": (9.9e6, 9.9e6),
    "wikipedia.org": (None, 5.0e6),
}
HEADER = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"


def _gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


def _release(root, name, names_hc: dict[str, float]):
    """A host-level release folder as Common Crawl publishes it (ranks, vertices, edges)."""
    folder = root / name / "host"
    order = sorted(names_hc, key=lambda n: -names_hc[n])
    lines = [f"{i + 1}\t{java_float(names_hc[n])}\t{i + 1}\t{java_float(1e-3 / (i + 1))}\t{n}\n"
             for i, n in enumerate(order)]
    _gz(folder / f"{name}-host-ranks.txt.gz", HEADER + "".join(lines))
    ids = {n: i for i, n in enumerate(sorted(names_hc))}    # vertices are sorted by name
    _gz(folder / "vertices" / "part-00000.gz", "".join(f"{i}\t{n}\n" for n, i in ids.items()))
    _gz(folder / "edges" / "part-00000.gz", "".join(f"{i}\t{(i + 1) % len(ids)}\n" for i in ids.values()))
    _gz(folder / f"{name}-host-vertices.paths.gz", "vertices/part-00000.gz\n")
    _gz(folder / f"{name}-host-edges.paths.gz", "edges/part-00000.gz\n")
    return folder


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    root = tmp_path_factory.mktemp("graphs")
    old = {hosts.graph_host_name(h, hosts.WWW_STRIPPED): hc[0] for h, hc in SITES.items() if hc[0] is not None}
    new = {hosts.graph_host_name(h, hosts.WWW_KEPT): hc[1] for h, hc in SITES.items()}
    for i, h in enumerate(FILLERS):
        old[hosts.graph_host_name(h, hosts.WWW_STRIPPED)] = 10.0 + i
        new[hosts.graph_host_name(h, hosts.WWW_KEPT)] = 11.0 + i
        if i % 10 == 0:   # linked both ways in 2026; the bare form is the better-ranked one here
            new[hosts.graph_host_name("www." + h, hosts.WWW_KEPT)] = 1.0 + i
    assert "org.typo.www" in old and "org.typo.www.www" in new and "com.example.www" in new
    domain = root / "cc-main-2026-mar-apr-may" / "domain"
    _gz(domain / "cc-main-2026-mar-apr-may-domain-ranks.txt.gz",
        "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\t#n_hosts\n"
        "1\t1.2E7\t2\t0.01\torg.wikipedia\t912\n"
        "2\t1.1E7\t1\t0.02\tuk.co.bbc\t57\n"
        "3\t9.8E6\t3\t0.005\tcom.example\t3\n"
        "4\tbroken\t4\t0.001\torg.typo\t1\n"
        "5\t5.0E5\t5\t1.0E-4\tnet.filler-0\t22\n")
    return (_release(root, "cc-main-2025-oct-nov-dec", old), _release(root, "cc-main-2026-mar-apr-may", new),
            domain)


def test_www_conventions_map_every_host_to_the_project_key():
    for h in ["www.example.com", "example.com", "www.www.typo.org", "www.com", "WWW.Blog.Example.CO.UK",
              "www1.example.com", "example.com."]:
        for conv in hosts.WWW_CONVENTIONS:
            assert hosts.rev_host_from_graph(hosts.graph_host_name(h, conv), conv) == hosts.rev_host(h), (h, conv)
    assert hosts.graph_host_name("www.example.com", hosts.WWW_KEPT) == "com.example.www"
    assert hosts.graph_host_name("www.example.com", hosts.WWW_STRIPPED) == "com.example"
    # the same published name is a different host under the two conventions
    assert hosts.rev_host_from_graph("org.typo.www", hosts.WWW_STRIPPED) == "org.typo.www"
    assert hosts.rev_host_from_graph("org.typo.www", hosts.WWW_KEPT) == "org.typo"
    assert hosts.has_www_label("com.example.www") and not hosts.has_www_label("com.www")
    with pytest.raises(ValueError, match="www convention"):
        hosts.graph_host_name("example.com", "sometimes")


@pytest.mark.spark
def test_key_expressions_follow_the_convention(spark):
    from pyspark.sql import functions as F

    from crawlplan.graph.keys import rev_host_from_graph, rev_to_host

    names = ["com.example.www", "org.typo.www.www", "com.www", "Uk.Co.Bbc.News", ".com.example", "org.typo.www"]
    df = spark.createDataFrame([(n,) for n in names], "n string")
    for conv in hosts.WWW_CONVENTIONS:
        got = [r.k for r in df.select(rev_host_from_graph(F.col("n"), conv).alias("k")).collect()]
        assert got == [hosts.rev_host_from_graph(n, conv) for n in names]
    assert df.select(rev_to_host(F.col("n")).alias("h")).head().h == hosts.rev_to_host("com.example.www")


def _host_scores(spark, root):
    from crawlplan import storage
    from crawlplan.schemas import load_schema

    plain = [h for h in SITES if h != "example.com" and h != "wikipedia.org"] + FILLERS + ["shop.example.com"]
    rows = [{"surt_host_name": hosts.surt_host(h), "rev_host": hosts.rev_host(h), "host": h,
             "tld": hosts.tld_of(h), "tld_category": hosts.tld_category(h), "primary_language": "en",
             "language_stratum": "english", "classifier": "dclm", "documents": 5, "median": 0.5,
             "mean": 0.5, "std": 0.1, "share_above": 0.4, "threshold": 0.5} for h in plain]
    schema = load_schema("host_scores")
    storage.write_dataset(spark.createDataFrame(pd.DataFrame(rows), schema=schema.struct()), "host_scores",
                          str(root / "run"))
    return {hosts.rev_host(h) for h in plain}


@pytest.mark.spark
def test_host_graph_meets_releases_of_both_conventions(spark, releases, tmp_path):
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job
    from crawlplan.graph import webgraph

    old, new, domain = releases
    scored = _host_scores(spark, tmp_path)
    conf = load_conf("local", overrides=[
        f"inputs.web_graph={new}", f"stats.host_graph.previous_release={old}",
        f"stats.host_graph.domain_ranks={domain}", "spark.shuffle_partitions=2", "inputs.www_min_names=100"])
    pipe = load_pipeline("main")
    out = tmp_path / "out"
    result = run_single_job(spark, conf, pipe, "host_graph", [str(tmp_path / "run")], str(out), echo=lambda *_: None)
    notes = " | ".join(result["notes"])
    assert "cc-main-2026-mar-apr-may: www kept (detected: 18 of 172 names" in notes
    assert "cc-main-2025-oct-nov-dec: www stripped (detected: 1 of 155 names" in notes
    assert "17 hosts named both with and without it" in notes   # 15 fillers, example.com, wikipedia.org

    stab = spark.read.parquet(str(out / "rank_stability")).toPandas().set_index("measure")
    # every host of the old release is found in the new one; the 2026 www pairs are one host each
    assert (stab.common_hosts == 155).all() and (stab.only_a == 0).all() and (stab.only_b == 0).all()
    assert stab.loc["harmonic_centrality", "spearman"] > 0.99

    feats = spark.read.parquet(str(out / "host_features")).toPandas().set_index("rev_host")
    assert set(feats.index) == scored
    assert feats.in_graph.sum() == len(scored) - 1 and not feats.loc["com.example.shop", "in_graph"]
    assert feats.loc["com.example", "harmonicc_val"] == pytest.approx(9.5e6)    # the www node, better ranked
    assert feats.loc["org.typo.www", "harmonicc_val"] == pytest.approx(1.2e3)   # www.www.typo.org, not typo.org
    assert feats.loc["org.wikipedia", "harmonicc_pos"] == 1
    # domain level: the registered domain's ranks, for hosts of the host graph and beyond it
    assert feats.loc["uk.co.bbc.news", "registered_domain"] == "bbc.co.uk"
    assert feats.loc["uk.co.bbc.news", "domain_n_hosts"] == 57
    assert feats.loc["com.example.shop", "domain_harmonicc_val"] == pytest.approx(9.8e6)
    assert pd.isna(feats.loc["org.typo.www", "domain_harmonicc_val"])            # its row did not parse
    assert result["counters"]["graph_domain_rank_rows_rejected"] == 1
    assert result["counters"]["hosts_ranked_by_domain_only"] == 1

    # Assuming instead of measuring: reading the stripped release as www-keeping merges
    # www.www.typo.org into typo.org, a host neither release has under that key
    wrong = {r.rev_host for r in webgraph.read_host_ranks(spark, str(old), convention="kept").collect()}
    assert "org.typo" in wrong and "org.typo.www" not in wrong
    domains = webgraph.read_domain_ranks(spark, str(domain)).toPandas().set_index("rev_domain")
    assert list(domains.columns) == ["registered_domain", "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val",
                                     "n_hosts", "log_hc", "log_pr"]
    assert domains.loc["org.wikipedia", "n_hosts"] == 912 and "org.typo" not in domains.index


def _partition(root, crawl, table):
    folder = root / f"crawl={crawl}"
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "part-00000.gz.parquet", compression="gzip")


@pytest.mark.spark
def test_host_index_v2_and_v3_partitions_read_as_one(spark, tmp_path):
    from crawlplan.graph import hostindex

    root = tmp_path / "host-index"
    # v2 (athena_schema.v2.sql): int32 counts, warc_record_length_av, stripped names (one www.www host)
    v2_names = [hosts.surt_host(h) for h in ["www.example.com", "www.www.typo.org", *FILLERS]]
    n2 = len(v2_names)
    _partition(root, "CC-MAIN-2025-13", pa.table({
        "surt_host_name": v2_names,
        "url_host_registered_domain": pa.array([None] * n2, pa.string()),
        "url_host_tld": [s.split(",", 1)[0] for s in v2_names],
        "hcrank10": pa.array([3.0] * n2), "fetch_200": pa.array([10] * n2, pa.int32()),
        "nutch_numRecords": pa.array([40] * n2, pa.int32()),
        "nutch_fetched_pct": pa.array([25] * n2, pa.int8()),
        "warc_record_length_av": pa.array([5000] * n2, pa.int32()),
        "warc_record_length_median": pa.array([4000] * n2, pa.int32()),
    }))
    # v3: warc_record_length_avg, columns added, www.example.com kept as its own row
    v3_names = ["com,example,www", "com,example", "org,typo,www,www", "org,typo"]
    _partition(root, "CC-MAIN-2026-17", pa.table({
        "surt_host_name": v3_names,
        "url_host_registered_domain": ["example.com", "example.com", "typo.org", "typo.org"],
        "url_host_tld": ["com", "com", "org", "org"],
        "hcrank10": pa.array([4.0, 2.0, 1.0, 1.5]), "fetch_200": pa.array([30, 3, 1, 2], pa.int64()),
        "nutch_numRecords": pa.array([90, 10, 4, 4], pa.int64()),
        "nutch_fetched": pa.array([27, 3, 1, 2], pa.int64()),
        "nutch_fetched_pct": pa.array([30, 20, 25, 50], pa.int32()),
        "warc_record_length_avg": pa.array([6000, 700, 100, 200], pa.int32()),
        "warc_record_length_median": pa.array([5000, 600, 90, 150], pa.int32()),
        "content_language_top": ["eng", "eng", "deu", "deu"],
        "content_language_top_pct": pa.array([80, 90, 70, 60], pa.int8()),
        "indegree": pa.array([12, 3, 0, 1], pa.int32()),   # a column this reader does not know by name
    }))
    notes: list[str] = []
    df = hostindex.read_host_index(spark, str(root), notes=notes)
    types = dict(df.dtypes)
    assert "warc_record_length_av" not in types and types["warc_record_length_avg"] == "bigint"
    assert types["content_language_top_pct"] == "int" and types["indegree"] == "bigint"
    rows = {(r.crawl, r.surt_host_name): r for r in df.collect()}
    v2_example = rows[("CC-MAIN-2025-13", "com,example")]
    assert v2_example.warc_record_length_avg == 5000 and v2_example.content_language_top is None
    assert ("CC-MAIN-2025-13", "org,typo,www") in rows          # www.www.typo.org stays its own host
    assert sum(1 for c, _ in rows if c == "CC-MAIN-2025-13") == n2
    v3_example = rows[("CC-MAIN-2026-17", "com,example")]     # com,example,www + com,example merged
    assert (v3_example.fetch_200, v3_example.nutch_numRecords, v3_example.nutch_fetched_pct) == (33, 100, 30)
    assert v3_example.hcrank10 == 4.0 and v3_example.indegree is not None
    assert rows[("CC-MAIN-2026-17", "org,typo,www")].fetch_200 == 1   # org,typo,www,www minus one label
    assert sum(1 for c, _ in rows if c == "CC-MAIN-2026-17") == 3
    assert any("CC-MAIN-2026-17: www kept" in n for n in notes)
    assert any("CC-MAIN-2025-13: www stripped" in n for n in notes)
    assert any("CC-MAIN-2025-13" in n and "content_language_top" in n and "indegree" in n for n in notes)
    # the old name selects the new column; a name no partition has is an error naming the known ones
    old_name = hostindex.read_host_index(spark, str(root), crawls=["CC-MAIN-2025-13"],
                                         columns=["warc_record_length_av"], www_convention="stripped")
    assert old_name.columns[-1] == "warc_record_length_avg" and old_name.count() == n2
    with pytest.raises(hostindex.HostIndexError, match="no_such_column"):
        hostindex.read_host_index(spark, str(root), columns=["no_such_column"])
