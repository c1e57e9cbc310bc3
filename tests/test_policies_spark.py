"""Spark side of the policies: scores -> host table on tiny DataFrames, and both nodes end to end
(simulate, allocate) on a tiny scores dataset with a host index and a web-graph ranks file."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from crawlplan.policies import hostdata

pytestmark = pytest.mark.spark


def scores_df(spark, rows):
    from crawlplan.schemas import load_schema

    schema = load_schema("scores")
    full = []
    for r in rows:
        rec = {c: None for c in schema.names}
        rec.update(r)
        full.append(tuple(rec[c] for c in schema.names))
    return spark.createDataFrame(full, schema=schema.struct())


def page(i, host, surt, rev, tld, lang, score, crawl="CC-MAIN-2024-10"):
    return dict(record_id=f"r{i}", url=f"https://{host}/p{i}", host=host, surt_host_name=surt, rev_host=rev,
                registered_domain=host, tld=tld, crawl=crawl, language=lang, text_length=100, fineweb_edu=score,
                dclm=0.5)


@pytest.fixture(scope="module")
def tiny_rows():
    rows, i = [], 0
    for score_list, host, lang in [([0.9, 0.8, 0.2, None], "a.com", ["en", "en", "de", "en"]),
                                   ([0.1, 0.2, 0.6], "b.de", ["de", "en", "de"]),
                                   ([0.7, 0.9], "c.org", ["en", "en"])]:
        surt = ",".join(reversed(host.split(".")))
        for s, lg in zip(score_list, lang):
            rows.append(page(i, host, surt, surt.replace(",", "."), host.rsplit(".", 1)[1], lg, s))
            i += 1
    return rows


@pytest.mark.quick
def test_host_counts(spark, tiny_rows):
    out = hostdata.host_counts(scores_df(spark, tiny_rows), "fineweb_edu", 0.5, 3).toPandas()
    out = out.set_index("surt_host_name")
    assert sorted(out.index) == ["com,a", "de,b"]           # c.org has 2 pages: below min_pages
    assert out.loc["com,a", "n_pages"] == 3                  # the null score is left out
    assert out.loc["com,a", "hq_pages"] == 2
    assert out.loc["de,b", "hq_pages"] == 1
    assert out.loc["com,a", "language"] == "en" and out.loc["de,b", "language"] == "de"
    assert out.loc["com,a", "rev_host"] == "com.a"
    with pytest.raises(ValueError, match="not a column"):
        hostdata.host_counts(scores_df(spark, tiny_rows), "nope", 0.5, 3)


@pytest.mark.quick
def test_language_tie_is_deterministic(spark):
    rows = [page(i, "t.com", "com,t", "com.t", "com", lg, 0.9) for i, lg in enumerate(["fr", "de", "fr", "de"])]
    out = hostdata.host_counts(scores_df(spark, rows), "fineweb_edu", 0.5, 1).collect()
    assert out[0]["language"] == "de"


@pytest.mark.quick
def test_host_index_and_graph_joins(spark, tiny_rows):
    hosts = hostdata.host_counts(scores_df(spark, tiny_rows), "fineweb_edu", 0.5, 1)
    index = spark.createDataFrame([("com,a", 40, 100, 30), ("org,c", 5, 4, 9)],
                                  "surt_host_name string, fetch_200 long, nutch_numRecords long, nutch_fetched long")
    ranks = spark.createDataFrame([("com.a", 6.5, -8.0)], "rev_host string, log_hc double, log_pr double")
    out = hostdata.with_graph(hostdata.with_host_index(hosts, index), ranks).toPandas().set_index("surt_host_name")
    assert out.loc["com,a", "cc_budget"] == 40 and out.loc["com,a", "cap_known"] == 70
    assert out.loc["org,c", "cap_known"] == 0                # known < fetched never gives a negative cap
    assert np.isnan(out.loc["de,b", "cc_budget"]) and np.isnan(out.loc["de,b", "log_hc"])
    assert out.loc["com,a", "log_hc"] == 6.5


@pytest.fixture(scope="module")
def demo_inputs(spark, tmp_path_factory):
    """~40 hosts of 3-12 pages, a host index partition and a ranks file."""
    from crawlplan import storage

    root = tmp_path_factory.mktemp("policies")
    rng = np.random.default_rng(0)
    rows, idx, ranks, i = [], [], [], 0
    for h in range(40):
        tld = ["com", "de", "org", "edu"][h % 4]
        host = f"h{h}.example.{tld}"
        surt = ",".join(reversed(host.split(".")))
        p = rng.beta(0.3, 0.7)
        for _ in range(int(rng.integers(3, 13))):
            rows.append(page(i, host, surt, surt.replace(",", "."), tld, ["en", "de"][h % 2], float(rng.random() < p)))
            i += 1
        idx.append((surt, int(rng.integers(1, 50)), int(rng.integers(50, 500)), int(rng.integers(1, 50))))
        ranks.append((h + 1, float(rng.integers(1, 10**6)), h + 1, float(rng.random() * 1e-6), surt.replace(",", ".")))
    for h in range(10):  # known to the host index, never scored: exploration candidates
        idx.append((f"net,fresh{h}", 0, 30, 0))
    storage.write_dataset(scores_df(spark, rows), "scores", str(root / "run"))
    spark.createDataFrame(idx, "surt_host_name string, fetch_200 long, nutch_numRecords long, nutch_fetched long") \
        .write.parquet(str(root / "hostindex" / "crawl=CC-MAIN-2024-10"))
    (root / "graph").mkdir()
    with gzip.open(root / "graph" / "demo-host-ranks.txt.gz", "wt") as fh:
        fh.write("#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n")
        for r in ranks:
            fh.write("\t".join(str(x) for x in r) + "\n")
    return root, len(rows)


def _run_node(spark, name, root, extra=()):
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    conf = load_conf("local", overrides=[f"inputs.host_index={root / 'hostindex'}", f"inputs.web_graph={root / 'graph'}",
                                         "policies.simulate.seeds=[0,1]", "policies.simulate.budgets=[0.1,0.3,1.0]",
                                         "policies.simulate.reliability_k_max=3", *extra])
    pipe = load_pipeline("main")
    out = root / f"out-{name}"
    result = run_single_job(spark, conf, pipe, name, [str(root / "run")], str(out), echo=lambda *_: None)
    return out, result


def test_simulate_node_end_to_end(spark, demo_inputs):
    root, pages = demo_inputs
    out, result = _run_node(spark, "simulate", root)
    assert set(result["rows"]) == {"ordering_sim", "depth_sim", "sample_reliability"}
    assert result["counters"]["hosts"] == 40 and result["counters"]["pages"] == pages
    depth = spark.read.parquet(str(out / "depth_sim")).toPandas()
    assert set(depth.policy) == {"uniform", "hc_depth", "sample_then_deepen", "eb_adaptive", "oracle"}
    full = depth[depth.budget_frac == 1.0]
    assert np.allclose(full.yield_mean, full.yield_mean.iloc[0])   # whole crawl: every policy collects all
    order = spark.read.parquet(str(out / "ordering_sim")).toPandas()
    assert set(order.policy) == {"random", "common_crawl", "hc", "pr", "oracle"}
    assert (order[order.policy == "oracle"].yield_mean >= order[order.policy == "random"].yield_mean.values - 1e-12).all()
    rel = spark.read.parquet(str(out / "sample_reliability")).toPandas()
    assert sorted(rel.k) == [1, 2, 3]


def test_allocate_node_end_to_end(spark, demo_inputs):
    root, _ = demo_inputs
    out, result = _run_node(spark, "allocate", root, ["policies.allocate.total_budget=2000",
                                                      "policies.allocate.explore_share=0.05"])
    plan = spark.read.parquet(str(out / "budgets")).toPandas()
    assert result["rows"]["budgets"] == 50
    assert plan.allocated_pages.sum() <= 2000
    explore = plan[plan.policy == "explore"]
    assert len(explore) == 10 and explore.allocated_pages.sum() == 30   # 10 fresh hosts x 3 pages
    assert plan["rank"].is_unique


def test_conform_pandas_types_and_nulls(spark):
    import pandas as pd

    from crawlplan.schemas import check_schema, conform, load_schema

    pdf = pd.DataFrame({"surt_host_name": ["com,a", "org,b"], "registered_domain": ["a.com", None],
                        "tld": ["com", "org"], "language": [None, "en"], "sample_size": np.array([0, 3]),
                        "sampled_density": [np.nan, 0.5], "estimate": [0.1, 0.4],
                        "allocated_pages": np.array([3, 10]), "rank": np.array([2, 1]),
                        "policy": ["explore", "eb_shrinkage"], "reason": ["explore", "rank"]})
    df = conform(pdf, "budgets", spark=spark)
    check_schema(df.schema, load_schema("budgets"))
    rows = sorted(df.collect(), key=lambda r: r["rank"])
    assert rows[1]["sampled_density"] is None and rows[1]["language"] is None
    assert rows[0]["sample_size"] == 3 and rows[0]["registered_domain"] is None
