"""Spark transforms of the statistics against numpy/scipy on the same small tables."""

from __future__ import annotations

import naive_stats
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from crawlplan import hosts
from crawlplan.stats import correlations, host_graph, host_sample, host_stats, reference

pytestmark = pytest.mark.spark

TLDS = ["com", "org", "ac.uk", "edu", "gov.au", "de", "io", "net", "fr"]


def make_scores(seed=0, n_hosts=40, classifiers=("dclm", "fineweb_edu", "nemotron_quality")) -> pd.DataFrame:
    """Unbalanced hosts (1-15 docs) with a host effect, some nulls and a language mix."""
    rng = np.random.default_rng(seed)
    rows = []
    for h in range(n_hosts):
        name = f"www.site{h}.{TLDS[h % len(TLDS)]}" if h % 3 == 0 else f"site{h}.{TLDS[h % len(TLDS)]}"
        effect = rng.normal(0, 0.15)
        lang_main = "en" if h % 2 == 0 else "de"
        for d in range(int(rng.integers(1, 16))):
            row = {"record_id": f"r{h}-{d}", "url": f"https://{name}/p{d}", "host": name,
                   "surt_host_name": hosts.surt_host(name), "rev_host": hosts.rev_host(name),
                   "registered_domain": None, "tld": hosts.tld_of(name), "crawl": "CC-MAIN-2024-10",
                   "language": lang_main if rng.random() < 0.8 else ("unknown" if rng.random() < 0.5 else "fr"),
                   "text_length": 100}
            for c in classifiers:
                v = float(np.clip(0.5 + effect + rng.normal(0, 0.1), 0, 1))
                row[c] = None if rng.random() < 0.05 else round(v, 3)  # rounding makes ties
            rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def scores_pdf():
    return make_scores()


@pytest.fixture(scope="module")
def scores_df(spark, scores_pdf):
    return spark.createDataFrame(scores_pdf)


def long_pdf(pdf, classifiers=("dclm", "fineweb_edu", "nemotron_quality")):
    m = pdf.melt(id_vars=["rev_host", "language"], value_vars=list(classifiers), var_name="classifier",
                 value_name="score")
    return m.dropna(subset=["score"])


@pytest.mark.quick
def test_host_scores_match_pandas(spark, scores_df, scores_pdf):
    clf = host_stats.present_classifiers(scores_df)
    assert clf == ["dclm", "fineweb_edu", "nemotron_quality"]
    long = host_stats.long_scores(scores_df, clf)
    got = host_stats.host_scores(long, host_stats.host_language(scores_df), min_docs=3, threshold=0.5).toPandas()
    ref = long_pdf(scores_pdf).groupby(["rev_host", "classifier"])["score"].agg(
        documents="size", median="median", mean="mean", std="std",
        share_above=lambda s: float((s > 0.5).mean())).reset_index()
    ref = ref[ref.documents >= 3]
    merged = ref.merge(got, on=["rev_host", "classifier"], suffixes=("_ref", ""))
    assert len(merged) == len(ref) == len(got)
    for col in ("documents", "median", "mean", "share_above"):
        assert np.allclose(merged[col], merged[f"{col}_ref"], atol=1e-12), col
    # primary language is the mode of identified languages; english iff 'en'
    row = got[got.rev_host == hosts.rev_host("site2.ac.uk")].iloc[0]
    assert row.tld_category == hosts.tld_category("site2.ac.uk") == "academic"
    assert row.language_stratum == "english"
    assert set(got.language_stratum) <= {"english", "non-english", "unknown"}


def test_tld_category_expression_equals_hosts_module(spark):
    names = ["a.com", "x.ac.uk", "b.edu", "c.gov.au", "d.gouv.fr", "e.de", "f.io", "g.org", "h.net",
             "i.mil", "j.co.jp", "k.xyz", "l.go.jp", "localhost"]
    df = spark.createDataFrame([(hosts.rev_host(n),) for n in names], "rev_host string")
    got = [r.c for r in df.select(host_stats.tld_category_column(df.rev_host).alias("c")).collect()]
    assert got == [hosts.tld_category(n) for n in names]


@pytest.mark.quick
def test_spark_icc_equals_reference_on_random_unbalanced_data(spark):
    rng = np.random.default_rng(42)
    sizes = rng.integers(1, 25, size=70)
    rows = []
    for h, n in enumerate(sizes):
        eff = rng.normal(0, 2.0)
        for _ in range(n):
            rows.append((f"h{h}", "c", 1000.0 + eff + rng.normal(0, 3.0)))  # offset tests cancellation
    long = spark.createDataFrame(rows, "rev_host string, classifier string, score double")
    got = {r.min_docs: r for r in host_stats.icc_table(long, [1, 3, 5, 10]).collect()}
    pdf = pd.DataFrame(rows, columns=["rev_host", "classifier", "score"])
    for t in (1, 3, 5, 10):
        sub = pdf[pdf.groupby("rev_host")["score"].transform("size") >= t]
        ref = reference.icc1(sub.score.to_numpy(), sub.rev_host.to_numpy())
        r = got[t]
        assert (r.hosts, r.documents) == (ref.hosts, ref.documents)
        for f in ("icc1", "var_between", "var_within", "n0", "mean_docs"):
            assert getattr(r, f) == pytest.approx(getattr(ref, f), abs=1e-9), (t, f)
        assert r.reliability == pytest.approx(reference.spearman_brown(ref.icc1, ref.mean_docs), abs=1e-12)


def _corr_table(spark, scores_df):
    long = host_stats.long_scores(scores_df, ["dclm", "fineweb_edu"])
    hs = host_stats.host_scores(long, host_stats.host_language(scores_df), min_docs=2, threshold=0.5)
    rng = np.random.default_rng(9)
    host_keys = sorted(r.rev_host for r in hs.select("rev_host").distinct().collect())
    feats = spark.createDataFrame([(k, float(rng.normal()), float(np.round(rng.normal(), 1))) for k in host_keys],
                                  "rev_host string, log_hc double, log_pr double")   # log_pr rounded: ties
    return correlations.stratified_host_table(hs, feats)


def test_correlation_table_equals_scipy_and_the_whole_group_reference(spark, scores_df):
    """Groups no larger than max_hosts_per_group: Spearman / weighted Spearman from Spark's ranks
    and sums equal the numpy definitions to 1e-12, Kendall and the CIs equal the whole-group
    pandas computation of before (tests/naive_stats.py) exactly."""
    table = _corr_table(spark, scores_df)
    got = correlations.correlation_table(table, replicates=50, seed=3, alpha=0.05,
                                         max_hosts_per_group=10_000).toPandas()
    tab = table.toPandas()
    assert set(got.stratum_kind) == {"all", "language", "tld_category"}
    key = ["metric", "classifier", "stratum_kind", "stratum"]
    old = pd.concat([naive_stats.group_correlations(g, 50, 3, 0.05) for _, g in tab.groupby(key)], ignore_index=True)
    merged = old.merge(got, on=key, suffixes=("_old", ""))
    assert len(merged) == len(old) == len(got)
    assert (merged.hosts == merged.hosts_old).all() and (merged.sampled_hosts == merged.hosts).all()
    assert (merged.bootstrap_replicates == merged.bootstrap_replicates_old).all()
    for col in ("spearman", "weighted_spearman"):
        assert np.allclose(merged[col], merged[f"{col}_old"], atol=1e-12, rtol=0, equal_nan=True), col
    for col in ("kendall", "ci_low", "ci_high"):
        assert np.array_equal(merged[col].to_numpy(), merged[f"{col}_old"].to_numpy(), equal_nan=True), col
    for _, r in got.iterrows():
        g = tab[(tab.metric == r.metric) & (tab.classifier == r.classifier) & (tab.stratum_kind == r.stratum_kind)
                & (tab.stratum == r.stratum)]
        if len(g) >= 3:
            assert r.spearman == pytest.approx(sps.spearmanr(g.x, g.y).statistic, abs=1e-12, nan_ok=True)
            assert r.kendall == pytest.approx(sps.kendalltau(g.x, g.y).statistic, abs=1e-12, nan_ok=True)
    assert merged.spearman.notna().sum() > 10 and merged.ci_low.notna().sum() > 10
    overall = got[(got.stratum_kind == "all")]
    assert set(overall.metric) == {"log_hc", "log_pr"} and set(overall.classifier) == {"dclm", "fineweb_edu"}


def test_sampled_groups_hold_at_most_max_hosts_and_stay_within_the_stated_error(spark):
    """Groups larger than max_hosts_per_group: Spearman stays exact, Kendall comes from a sample
    of exactly max_hosts hosts (within 4 of its stated standard errors of the whole group's
    tau), and the rescaled CI is close to the whole group's bootstrap CI."""
    rng = np.random.default_rng(4)
    n, m = 3000, 400
    x = rng.normal(size=n)
    y = 0.5 * x + rng.normal(size=n)
    rows = [("log_hc", "c", "all", "all", f"h{i:05d}", float(x[i]), float(np.round(y[i], 1)), int(1 + i % 7))
            for i in range(n)] + [("log_pr", "c", "all", "all", f"h{i:05d}", float(x[i]), float(y[i]), 1)
                                  for i in range(50)]
    table = spark.createDataFrame(rows, "metric string, classifier string, stratum_kind string, stratum string, "
                                        "rev_host string, x double, y double, documents long")
    got = correlations.correlation_table(table, replicates=200, seed=1, alpha=0.05, max_hosts_per_group=m)
    got = {r.metric: r for r in got.collect()}
    big, small = got["log_hc"], got["log_pr"]
    assert (big.hosts, big.sampled_hosts, small.hosts, small.sampled_hosts) == (n, m, 50, 50)
    yr = np.round(y, 1)
    assert big.spearman == pytest.approx(sps.spearmanr(x, yr).statistic, abs=1e-12)
    assert big.weighted_spearman == pytest.approx(
        reference.weighted_spearman(x, yr, 1 + np.arange(n) % 7), abs=1e-12)
    tau = sps.kendalltau(x, yr).statistic
    assert abs(big.kendall - tau) <= 4 * np.sqrt(2 * (1 - tau ** 2) / m)
    order = np.argsort([f"h{i:05d}" for i in range(n)], kind="mergesort")
    lo, hi = reference.bootstrap_spearman(x[order], yr[order], 200, 7, 0.05)
    assert big.ci_low < big.spearman < big.ci_high
    assert 0.6 < (big.ci_high - big.ci_low) / (hi - lo) < 1.6
    assert abs((big.ci_high + big.ci_low) / 2 - (hi + lo) / 2) < 0.5 * (hi - lo)


def test_bounded_sample_is_seeded_bounded_and_independent_of_partitioning(spark):
    rows = [("a", f"k{i}", float(i)) for i in range(500)] + [("b", f"k{i}", float(i)) for i in range(20)]
    df = spark.createDataFrame(rows, "g string, key string, v double")
    first = host_sample.bounded_sample(df, ["g"], "key", 60, seed=5).toPandas()
    again = host_sample.bounded_sample(df.repartition(7), ["g"], "key", 60, seed=5).toPandas()
    other = host_sample.bounded_sample(df, ["g"], "key", 60, seed=6).toPandas()
    assert first.groupby("g").size().to_dict() == {"a": 60, "b": 20}
    assert set(first[first.g == "b"].key) == {f"k{i}" for i in range(20)}
    assert set(first.key) == set(again.key) and set(first.key) != set(other.key)
    assert not first.duplicated(["g", "key"]).any()
    with pytest.raises(ValueError, match="max_hosts_per_group"):
        host_sample.check_max_hosts(2)


def test_score_distributions_and_classifier_pairs(spark, scores_df, scores_pdf):
    clf = ["dclm", "fineweb_edu", "nemotron_quality"]
    long = host_stats.long_scores(scores_df, clf)
    dist = {(r.stratum, r.classifier): r for r in correlations.score_distributions(long, host_stats.host_language(scores_df)).collect()}
    s = scores_pdf["dclm"].dropna().to_numpy()
    r = dist[("all", "dclm")]
    assert r.documents == s.size
    assert (r.p10, r.median, r.p90) == pytest.approx(tuple(np.quantile(s, [0.1, 0.5, 0.9])), abs=1e-12)
    assert r.mean == pytest.approx(s.mean())
    assert r.hosts == scores_pdf.loc[scores_pdf["dclm"].notna(), "rev_host"].nunique()
    # the strata split the overall documents and hosts (every host here has a known language)
    strata = [dist[(k, "dclm")] for k in ("english", "non-english") if (k, "dclm") in dist]
    assert sum(x.documents for x in strata) <= r.documents and sum(x.hosts for x in strata) <= r.hosts
    assert {k[0] for k in dist} <= {"all", "english", "non-english"}
    pairs = {(r.classifier_a, r.classifier_b): r for r in correlations.classifier_correlations(scores_df, clf).collect()}
    core = scores_pdf[clf].dropna()
    ref = sps.spearmanr(core.to_numpy()).statistic
    assert pairs[("dclm", "dclm")].spearman == pytest.approx(1.0)
    assert pairs[("dclm", "fineweb_edu")].spearman == pytest.approx(ref[0, 1], abs=1e-9)
    assert pairs[("fineweb_edu", "nemotron_quality")].spearman == pytest.approx(ref[1, 2], abs=1e-9)
    assert pairs[("dclm", "fineweb_edu")].documents == len(core)


def test_rank_stability_equals_scipy(spark):
    rng = np.random.default_rng(2)
    hc = rng.lognormal(10, 2, 60)
    a = [(f"h{i}", float(hc[i]), float(hc[i] * 1e-9)) for i in range(50)]
    b = [(f"h{i}", float(hc[i] * rng.lognormal(0, 0.5)), float(hc[i] * 1e-9 * rng.lognormal(0, 1)))
         for i in range(10, 60)]
    schema = "rev_host string, harmonicc_val double, pr_val double"
    got = {r.measure: r for r in host_graph.rank_stability(spark.createDataFrame(a, schema), spark.createDataFrame(b, schema),
                                                  "r1", "r2").collect()}
    common = [i for i in range(10, 50)]
    bmap = {x[0]: x for x in b}
    ref_hc = sps.spearmanr([a[i][1] for i in common], [bmap[f"h{i}"][1] for i in common]).statistic
    ref_pr = sps.spearmanr([a[i][2] for i in common], [bmap[f"h{i}"][2] for i in common]).statistic
    hc_row = got["harmonic_centrality"]
    assert (hc_row.common_hosts, hc_row.only_a, hc_row.only_b) == (40, 10, 10)
    assert hc_row.spearman == pytest.approx(ref_hc, abs=1e-9)
    assert got["pagerank"].spearman == pytest.approx(ref_pr, abs=1e-9)


@pytest.mark.quick
def test_host_quality_coverage_missed_pages_and_gems_on_a_tiny_crawl(spark):
    """Five hosts, one classifier: coverage is fetched/known clipped to 1, missed HQ pages are
    max(known - fetched, 0) x density, and a gem has coverage below the median and density at or
    above the 90th percentile (numpy's linear interpolation), per crawl and source."""
    from crawlplan.stats import host_quality as hq

    names = ["a.example", "b.example", "c.example", "d.example", "e.example"]
    known, fetched = [100, 10, 50, 40, 0], [10, 20, 25, 4, 3]     # e: nothing known, dropped
    index = spark.createDataFrame(pd.DataFrame({
        "crawl": "CC-MAIN-2024-10", "surt_host_name": [hosts.surt_host(h) for h in names],
        "rev_host": [hosts.rev_host(h) for h in names], "url_host_tld": "example",
        "nutch_numRecords": known, "fetch_200": fetched}))
    density = spark.createDataFrame(pd.DataFrame({
        "rev_host": [hosts.rev_host(h) for h in names], "source": "dclm",
        "density": [0.9, 0.1, 0.5, 0.95, 0.7], "density_docs": 10}))
    coverage = hq.host_coverage(index, ["nutch_numRecords"], ["fetch_200"])
    got = hq.host_quality(coverage, density).toPandas().set_index("rev_host").sort_index()

    assert hosts.rev_host("e.example") not in got.index
    cov = {"a": 0.1, "b": 1.0, "c": 0.5, "d": 0.1}
    dens = {"a": 0.9, "b": 0.1, "c": 0.5, "d": 0.95}
    for h in cov:
        row = got.loc[hosts.rev_host(f"{h}.example")]
        assert row.coverage == pytest.approx(cov[h]) and bool(row.coverage_clipped) == (h == "b")
        k, f = dict(zip("abcd", known))[h], dict(zip("abcd", fetched))[h]
        assert row.missed_hq == pytest.approx(max(k - f, 0) * dens[h])
    median, p90 = np.percentile(list(cov.values()), 50), np.percentile(list(dens.values()), 90)
    assert got.coverage_median.iloc[0] == pytest.approx(median) and got.density_p90.iloc[0] == pytest.approx(p90)
    gems = {h for h in cov if cov[h] < median and dens[h] >= p90}
    assert gems == {"d"}
    assert set(got.index[got.gem]) == {hosts.rev_host(f"{h}.example") for h in gems}
