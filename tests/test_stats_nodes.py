"""The four statistics nodes through the DAG runner on the embedded demo crawl.

``scores`` is built from the demo's ground truth (every page, with classifier scores that are
noisy monotone transforms of the true quality) so this test does not depend on extraction and
classification, and the planted ICC1 can be checked end to end through ``host_stats``.
"""

from __future__ import annotations

from pathlib import Path

import naive_stats
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from crawlplan import hosts, storage
from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner
from crawlplan.stats import correlations

pytestmark = pytest.mark.spark

demo = pytest.importorskip("crawlplan.demo.crawl")
if not hasattr(demo, "ensure_demo"):
    pytest.skip("the demo generator (crawlplan.demo.ensure_demo) has not landed", allow_module_level=True)

NODES = ("host_stats", "host_graph", "correlations", "host_quality")


def _scores_from_truth(pages: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = pages["true_quality"].to_numpy(float)
    z = (q - q.mean()) / q.std()
    out = pd.DataFrame({
        "record_id": [f"<urn:uuid:{i}>" for i in range(len(pages))],
        "url": pages["url"], "host": pages["host"],
        "surt_host_name": [hosts.surt_host(h) for h in pages["host"]],
        "rev_host": [hosts.rev_host(h) for h in pages["host"]],
        "registered_domain": [hosts.registered_domain(h) for h in pages["host"]],
        "tld": [hosts.tld_of(h) for h in pages["host"]],
        "crawl": "CC-MAIN-2024-10", "language": pages["language"], "text_length": 1000,
    })
    for name, noise in (("dclm", 1.0), ("fineweb_edu", 0.5), ("nemotron_quality", 0.3)):
        out[name] = 1 / (1 + np.exp(-(z + rng.normal(0, noise, len(z)))))
    for name in ("gneissweb_quality", "gneissweb_sci", "gneissweb_edu", "gneissweb_tech", "gneissweb_med",
                 "nemotron_edu", "nemotron_info"):
        out[name] = np.nan
    out["text_length"] = out["text_length"].astype("int32")
    return out


@pytest.fixture(scope="module")
def demo_run(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("stats-demo")
    paths = demo.ensure_demo(root / "demo", hosts=60, seed=0, echo=lambda *_: None)
    pages = pd.read_parquet(f"{paths['ground_truth']}/pages.parquet")
    out = str(root / "out")
    sdf = spark.createDataFrame(_scores_from_truth(pages))
    sdf = sdf.select(*[sdf[c].cast("double").alias(c) if c in ("gneissweb_quality", "gneissweb_sci",
                       "gneissweb_edu", "gneissweb_tech", "gneissweb_med", "nemotron_edu", "nemotron_info")
                       else sdf[c] for c in sdf.columns])
    storage.write_dataset(sdf, "scores", out)
    conf = load_conf("local", overrides=[
        f"inputs.host_index={paths['host_index']}", f"inputs.web_graph={paths['web_graph']}",
        f"inputs.ground_truth={paths['ground_truth']}", "stats.correlations.bootstrap_replicates=30",
        f"stats.host_graph.previous_release={demo.previous_graph_path(root / 'demo')}",
        "spark.shuffle_partitions=2"])
    pipeline = load_pipeline("main")
    runner = Runner(spark, conf, out, echo=lambda *_: None)
    summary = {n: runner.run_pipeline(pipeline, only=n)[n] for n in NODES}
    return spark, out, summary, pages


def _read(spark, out, name):
    return storage.read_dataset(spark, name, storage.join(out, name)).toPandas()


def test_every_dataset_is_written(demo_run):
    spark, out, summary, _ = demo_run
    for name in ("host_scores", "icc", "host_features", "rank_stability", "correlations", "score_distributions",
                 "classifier_correlations", "host_quality", "coverage_summary", "coverage_bins", "missed_by_tld"):
        assert storage.exists(spark, storage.join(out, name)), name
    assert all(summary[n]["status"] == "ran" for n in NODES)


def test_planted_icc_is_recovered_from_true_page_quality(demo_run):
    from crawlplan.demo.web import ICC1

    spark, out, _, pages = demo_run
    icc = _read(spark, out, "icc")
    truth = icc[(icc.classifier == "true_quality") & (icc.min_docs == 3)].iloc[0]
    assert abs(truth.icc1 - ICC1) <= 0.05
    assert truth.documents == (pages.groupby("host").size()[lambda s: s >= 3]).sum()
    # noisier classifiers see less of the host effect than the truth does
    dclm = icc[(icc.classifier == "dclm") & (icc.min_docs == 3)].iloc[0]
    assert dclm.icc1 < truth.icc1
    assert set(icc.min_docs) == {3, 5, 10}


def test_rank_stability_between_the_demo_releases_equals_scipy(demo_run):
    from crawlplan.demo.graph import PREVIOUS_RELEASE, RELEASE
    from crawlplan.graph.webgraph import read_host_ranks

    spark, out, _, _ = demo_run
    demo_dir = Path(out).parent / "demo"
    stab = _read(spark, out, "rank_stability").set_index("measure")
    now = read_host_ranks(spark, demo.demo_paths(demo_dir)["web_graph"]).toPandas()
    then = read_host_ranks(spark, demo.previous_graph_path(demo_dir)).toPandas()
    both = now.merge(then, on="rev_host", suffixes=("_b", "_a"))
    assert set(stab.index) == {"harmonic_centrality", "pagerank"}
    assert (stab.release_a == PREVIOUS_RELEASE).all() and (stab.release_b == RELEASE).all()
    assert (stab.common_hosts == len(both)).all()
    assert (stab.only_a == len(then) - len(both)).all() and (stab.only_b == len(now) - len(both)).all()
    for measure, col in (("harmonic_centrality", "harmonicc_val"), ("pagerank", "pr_val")):
        expected = spearmanr(both[f"{col}_a"], both[f"{col}_b"])[0]
        assert stab.loc[measure, "spearman"] == pytest.approx(expected, abs=1e-12)
        assert 0.6 < stab.loc[measure, "spearman"] < 0.99


def test_graph_features_and_correlations_on_demo(demo_run):
    spark, out, summary, _ = demo_run
    feats = _read(spark, out, "host_features")
    hs = _read(spark, out, "host_scores")
    assert set(feats.rev_host) == set(hs.rev_host)
    missing = int((~feats.in_graph).sum())
    assert summary["host_graph"]["counters"]["hosts_missing_from_graph"] == missing
    assert np.allclose(feats.log_hc.dropna(), np.log10(1 + feats.harmonicc_val.dropna()))
    corr = _read(spark, out, "correlations")
    overall = corr[(corr.stratum_kind == "all") & (corr.metric == "log_hc")]
    assert set(overall.classifier) == {"dclm", "fineweb_edu", "nemotron_quality"}
    assert (overall.hosts == int(feats.in_graph.sum())).all()
    assert ((corr.ci_low <= corr.spearman + 1e-12) | corr.spearman.isna()).all()
    # every demo group is whole (far below max_hosts_per_group): the statistics of before
    key = ["metric", "classifier", "stratum_kind", "stratum"]
    table = correlations.stratified_host_table(spark.createDataFrame(hs), spark.createDataFrame(
        feats[feats.in_graph][["rev_host", "log_hc", "log_pr"]])).toPandas()
    old = pd.concat([naive_stats.group_correlations(g, 30, 0, 0.05) for _, g in table.groupby(key)])
    both = old.merge(corr, on=key, suffixes=("_old", ""))
    assert len(both) == len(corr) == len(old) and (both.sampled_hosts == both.hosts).all()
    assert np.allclose(both.spearman, both.spearman_old, atol=1e-12, rtol=0, equal_nan=True)
    assert np.allclose(both.weighted_spearman, both.weighted_spearman_old, atol=1e-12, rtol=0, equal_nan=True)
    for col in ("kendall", "ci_low", "ci_high"):
        assert np.array_equal(both[col].to_numpy(), both[f"{col}_old"].to_numpy(), equal_nan=True), col
    pairs = _read(spark, out, "classifier_correlations")
    assert len(pairs) == 9  # three classifiers with scores on every page


def test_host_quality_on_demo(demo_run):
    spark, out, _, _ = demo_run
    hq = _read(spark, out, "host_quality")
    assert set(hq.crawl) == {"CC-MAIN-2023-40", "CC-MAIN-2024-10"}
    assert hq.coverage.between(0, 1).all()
    expected = np.maximum(hq.known - hq.fetched, 0) * hq.density
    assert np.allclose(hq.missed_hq, expected)
    summ = _read(spark, out, "coverage_summary")
    for _, r in summ.iterrows():
        g = hq[(hq.crawl == r.crawl) & (hq.source == r.source)]
        assert r.hosts == len(g) and r.gems == int(g.gem.sum())
        assert r.missed_hq == pytest.approx(g.missed_hq.sum())
        assert r.ci_low <= r.ci_high
        assert r.spearman_coverage_density == pytest.approx(
            spearmanr(g.coverage, g.density).statistic, abs=1e-12)
        # a demo crawl is far below max_hosts_per_group: the CI is the whole-group bootstrap of before
        old = naive_stats.coverage_group(g, 200, 0, 0.05)
        assert r.sampled_hosts == len(g)
        assert (r.ci_low, r.ci_high) == (old["ci_low"], old["ci_high"])
        gem_ref = (g.coverage < g.coverage.median()) & (g.density >= g.density.quantile(0.9))
        assert (g.gem.to_numpy() == gem_ref.to_numpy()).all()
    bins = _read(spark, out, "coverage_bins")
    per = bins.groupby(["crawl", "source"]).agg(h=("share_of_hosts", "sum"), m=("share_of_missed", "sum"))
    assert np.allclose(per.h, 1.0) and np.allclose(per.m.dropna(), 1.0)
    tld = _read(spark, out, "missed_by_tld")
    assert np.allclose(tld.groupby(["crawl", "source"]).share_of_hosts.sum(), 1.0)
    medians = hq.assign(tld=hq.tld.fillna("")).groupby(["crawl", "source", "tld"]).coverage.median()
    got = tld.set_index(["crawl", "source", "tld"]).median_coverage
    assert len(got) == len(medians) and np.allclose(got.loc[medians.index], medians, atol=1e-12, rtol=0)
