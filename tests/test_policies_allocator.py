"""The allocator: budget, caps, exploration reserve, diversity floors, ranking, determinism — on the
in-memory definition (``allocate_table.allocate``) — and the Spark allocator (``plan_budgets``),
which must give the same budgets row for row on the same tables, and its two building blocks (the
running sum along a global order, the prior from group sums)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from settings_support import allocator_config

from crawlplan.policies.allocate import BUDGET_COLUMNS
from crawlplan.policies.allocate_table import allocate


def hosts(rows):
    return pd.DataFrame(rows, columns=["surt_host_name", "registered_domain", "tld", "language", "n_pages",
                                       "hq_pages", "cap_known"])


@pytest.fixture
def sampled():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        lang = ["en", "de", "fr"][i % 3]
        tld = {"en": "com", "de": "de", "fr": "fr"}[lang] if i % 10 else "edu"
        n = int(rng.integers(1, 30))
        hq = int(rng.binomial(n, 0.7 if lang == "en" else 0.2))
        rows.append((f"{tld},host{i:02d}", f"host{i:02d}.{tld}", tld, lang, n, hq, int(rng.integers(0, 400))))
    return hosts(rows)


@pytest.fixture
def unsampled():
    return pd.DataFrame({"surt_host_name": [f"org,new{i}" for i in range(20)],
                         "registered_domain": [f"new{i}.org" for i in range(20)], "tld": "org",
                         "cap_known": [10] * 20})


def test_columns_budget_and_caps(sampled, unsampled):
    cfg = allocator_config(total_budget=3000, politeness_max=150, explore_share=0.02, explore_pages=3)
    plan = allocate(sampled, unsampled, cfg)
    assert list(plan.columns) == BUDGET_COLUMNS
    assert plan.allocated_pages.sum() == 3000
    caps = dict(zip(sampled.surt_host_name, sampled.cap_known))
    for row in plan.itertuples():
        if row.policy != "explore":
            assert row.allocated_pages <= min(caps[row.surt_host_name], 150)
    capped = plan[plan.reason.str.contains("capped:politeness")]
    assert (capped.allocated_pages == 150).all() and len(capped) > 0
    assert list(plan["rank"]) == list(range(1, len(plan) + 1))


def test_exploration_reserve(sampled, unsampled):
    cfg = allocator_config(total_budget=2000, explore_share=0.03, explore_pages=3)
    plan = allocate(sampled, unsampled, cfg)
    ex = plan[plan.policy == "explore"]
    assert len(ex) == 20 and ex.sample_size.eq(0).all() and ex.sampled_density.isna().all()
    assert ex.allocated_pages.max() <= 3
    assert ex.allocated_pages.sum() == 60  # 3 % of 2000 = 60 pages = 20 hosts x 3
    assert (ex[ex.allocated_pages > 0].reason == "explore").all()
    # without unsampled hosts the reserve goes back to the ranked hosts
    plan = allocate(sampled, None, cfg)
    assert plan.allocated_pages.sum() == 2000 and (plan.policy != "explore").all()


def test_ranked_fill_follows_the_estimate(sampled):
    plan = allocate(sampled, None, allocator_config(total_budget=1500, politeness_max=10_000))
    got = plan[plan.allocated_pages > 0]
    left = plan[(plan.allocated_pages == 0) & (plan.reason == "below_cutoff")]
    assert got.estimate.min() >= left.estimate.max()
    assert plan.estimate.is_monotonic_decreasing


def test_language_and_tld_category_floors(sampled):
    base = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000))
    share = lambda plan, lang: plan[plan.language == lang].allocated_pages.sum() / 2000  # noqa: E731
    assert share(base, "de") < 0.2
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   language_floors={"de": 0.2}))
    assert share(plan, "de") >= 0.2 - 1e-9
    assert plan.allocated_pages.sum() == 2000
    assert plan.reason.str.startswith("floor:language=de").any()
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   tld_category_floors={"academic": 0.25}))
    edu = plan[plan.tld == "edu"].allocated_pages.sum()
    cap_edu = sampled[sampled.tld == "edu"].cap_known.sum()
    assert edu >= min(500, cap_edu)
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   min_share_per_language=0.15))
    for lang in ("en", "de", "fr"):
        assert share(plan, lang) >= 0.15 - 1e-9


def test_shrinkage_ranks_a_lucky_one_page_host_below_a_consistent_host():
    df = hosts([("com,lucky", "lucky.com", "com", "en", 1, 1, 100), ("com,solid", "solid.com", "com", "en", 50, 40, 100),
                ("com,poor", "poor.com", "com", "en", 40, 2, 100), ("com,meh", "meh.com", "com", "en", 30, 6, 100)])
    eb = allocate(df, None, allocator_config(total_budget=100, policy="eb_shrinkage"))
    raw = allocate(df, None, allocator_config(total_budget=100, policy="sample_then_deepen"))
    assert eb.surt_host_name.iloc[0] == "com,solid"
    assert raw.surt_host_name.iloc[0] == "com,lucky"
    assert (raw.estimate == raw.sampled_density).all()


def test_unknown_caps_default_and_zero_caps(sampled):
    df = sampled.copy()
    df.loc[0, "cap_known"] = None
    df.loc[1, "cap_known"] = 0
    plan = allocate(df, None, allocator_config(total_budget=10**6, default_cap=7, politeness_max=10**6))
    row = plan.set_index("surt_host_name")
    assert row.loc[df.surt_host_name[0], "allocated_pages"] == 7
    assert row.loc[df.surt_host_name[1], "allocated_pages"] == 0
    assert row.loc[df.surt_host_name[1], "reason"] == "no_capacity"
    assert plan.allocated_pages.sum() < 10**6  # caps bind


def test_deterministic_under_row_order(sampled, unsampled):
    cfg = allocator_config(total_budget=2500, explore_share=0.02, language_floors={"fr": 0.1})
    a = allocate(sampled, unsampled, cfg)
    b = allocate(sampled.sample(frac=1, random_state=3), unsampled.sample(frac=1, random_state=4), cfg)
    pd.testing.assert_frame_equal(a, b)


def test_bad_input_is_a_clear_error(sampled):
    bad = sampled.copy()
    bad.loc[0, "hq_pages"] = bad.loc[0, "n_pages"] + 1
    with pytest.raises(ValueError, match="hq_pages"):
        allocate(bad, None, allocator_config())
    with pytest.raises(ValueError, match="unknown allocator policy"):
        allocator_config(policy="hc")


# ---------------------------------------------------------------- the Spark allocator = the definition

HOST_SCHEMA = ("surt_host_name string, registered_domain string, tld string, language string, n_pages long, "
               "hq_pages long, cap_known long")
INDEX_SCHEMA = ("surt_host_name string, url_host_registered_domain string, url_host_tld string, "
                "nutch_numRecords long, nutch_fetched long")


def index_rows(unsampled):
    """Host-index rows whose uncrawled known URLs are the unsampled hosts' ``cap_known``."""
    return [(r.surt_host_name, r.registered_domain, r.tld, None if pd.isna(r.cap_known) else int(r.cap_known), 0)
            for r in unsampled.itertuples()]


def spark_plan(spark, sampled, unsampled, cfg):
    from crawlplan.policies.allocate import plan_budgets

    rows = [tuple(v if isinstance(v, str) else None if v is None or pd.isna(v) else int(v) for v in r)
            for r in sampled.itertuples(index=False)]
    hosts = spark.createDataFrame(rows, HOST_SCHEMA)
    index = None if unsampled is None else spark.createDataFrame(index_rows(unsampled), INDEX_SCHEMA)
    return plan_budgets(hosts, index, cfg, classifier="fineweb_edu", known_column="nutch_numRecords",
                        fetched_column="nutch_fetched")


def reference(sampled, unsampled, cfg):
    if unsampled is None or cfg.explore_reserve == 0:
        return allocate(sampled, None, cfg)
    known = unsampled.assign(cap_known=unsampled.cap_known.fillna(0).clip(lower=0))   # as uncrawled_known
    return allocate(sampled, known, cfg)


def assert_same_budgets(plan, want):
    from pyspark.sql import DataFrame

    assert isinstance(plan.budgets, DataFrame)
    got = plan.budgets.toPandas()
    assert list(got.columns) == BUDGET_COLUMNS and len(got) == len(want)
    assert got["rank"].tolist() == list(range(1, len(got) + 1))         # sorted by rank
    plain = lambda s: [None if pd.isna(v) else v for v in s]  # noqa: E731
    for col in ("surt_host_name", "registered_domain", "tld", "language", "policy", "reason"):
        assert plain(got[col]) == plain(want[col]), col
    for col in ("sample_size", "allocated_pages", "rank"):
        assert got[col].astype(int).tolist() == want[col].astype(int).tolist(), col
    np.testing.assert_allclose(got.estimate.to_numpy(float), want.estimate.to_numpy(float), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.sampled_density.to_numpy(float), want.sampled_density.to_numpy(float),
                               rtol=0, atol=1e-12)
    assert plan.pages_allocated == int(want.allocated_pages.sum())
    assert plan.hosts_allocated == int((want.allocated_pages > 0).sum())
    assert plan.hosts_sampled == int((want.policy != "explore").sum())


CASES = {   # rank_rows_per_partition 7: many ranking partitions on a tiny table
    "caps_and_reserve": dict(total_budget=3000, politeness_max=150, explore_share=0.02, explore_pages=3,
                             rank_rows_per_partition=7),
    "tld_floor_and_reserve": dict(total_budget=2000, politeness_max=120, explore_share=0.05,
                                  tld_category_floors={"academic": 0.25, "country-code": 0.1}),
    "every_language": dict(total_budget=2000, politeness_max=10_000, min_share_per_language=0.15,
                           language_floors={"fr": 0.3}, tld_category_floors={"academic": 0.2},
                           rank_rows_per_partition=7),
    "raw_density": dict(total_budget=1500, policy="sample_then_deepen", explore_share=0.01),
}


@pytest.mark.spark
@pytest.mark.parametrize("case", sorted(CASES))
def test_spark_allocator_gives_the_same_budgets(spark, sampled, unsampled, case):
    cfg = allocator_config(**CASES[case])
    assert_same_budgets(spark_plan(spark, sampled, unsampled, cfg), reference(sampled, unsampled, cfg))


@pytest.fixture
def random_table():
    """Ties in the estimate (hosts of one group with the same sample), null languages and TLDs,
    missing and zero caps, caps at the politeness maximum, and hosts to explore with and without caps."""
    rng = np.random.default_rng(7)
    rows = []
    for i in range(90):
        lang = [None, "en", "de", "ja"][i % 4]
        tld = [None, "com", "de", "jp", "ac.uk", "gov"][i % 6]
        n, hq = (4, 2) if i % 3 == 0 else (int(rng.integers(1, 40)), None)
        hq = int(rng.binomial(n, 0.4)) if hq is None else hq
        cap = [None, 0, 25, int(rng.integers(1, 300))][i % 4] if i % 5 else 500
        rows.append((f"{tld or 'x'},r{i:03d}", f"r{i:03d}.{tld or 'x'}", tld, lang, n, hq, cap))
    sampled = hosts(rows)
    fresh = pd.DataFrame({"surt_host_name": [f"org,z{i:02d}" for i in range(25)] + ["com,r003"],
                          "registered_domain": [f"z{i:02d}.org" for i in range(25)] + ["r003.com"],
                          "tld": ["org", "edu", None, "fr", "com"] * 5 + ["com"],
                          "cap_known": [None, 0, 2, 5, 40] * 5 + [9]})   # com,r003 was sampled: not explored
    return sampled, fresh


@pytest.mark.spark
def test_spark_allocator_on_a_table_with_ties_floors_and_caps(spark, random_table):
    sampled, fresh = random_table
    cfg = allocator_config(total_budget=4000, politeness_max=200, default_cap=30, explore_share=0.04,
                           explore_pages=4, min_share_per_language=0.05,
                           language_floors={"ja": 0.2}, tld_category_floors={"government": 0.1, "academic": 0.05},
                           rank_rows_per_partition=11)
    want = reference(sampled, fresh, cfg)
    assert want.estimate.duplicated().any() and want.reason.str.contains("capped:politeness").any()
    assert (want.reason == "no_capacity").any() and (want.policy == "explore").any()
    assert_same_budgets(spark_plan(spark, sampled, fresh, cfg), want)


@pytest.mark.spark
def test_explore_candidates_are_every_unsampled_host_not_a_page_count(spark, sampled):
    """The reserve pays for 2 hosts (6 pages / 3), yet all 30 unsampled hosts are candidates (the
    old cut kept max(1, reserve) = 6, pages counted as hosts); the fill decides who gets pages."""
    fresh = pd.DataFrame({"surt_host_name": [f"org,f{i:02d}" for i in range(30)],
                          "registered_domain": [f"f{i:02d}.org" for i in range(30)], "tld": "org",
                          "cap_known": [10] * 30})
    cfg = allocator_config(total_budget=200, explore_share=0.03, explore_pages=3, rank_rows_per_partition=4)
    plan = spark_plan(spark, sampled, fresh, cfg)
    assert plan.explore_candidates == 30
    assert_same_budgets(plan, reference(sampled, fresh, cfg))
    ex = plan.budgets.where("policy = 'explore'").toPandas()
    assert len(ex) == 30 and ex.allocated_pages.sum() == 6 and (ex.allocated_pages > 0).sum() == 2


@pytest.mark.spark
@pytest.mark.quick
def test_spark_allocator_bad_input_is_a_clear_error(spark, sampled):
    bad = sampled.copy()
    bad.loc[0, "hq_pages"] = bad.loc[0, "n_pages"] + 1
    with pytest.raises(ValueError, match="hq_pages"):
        spark_plan(spark, bad, None, allocator_config())
    with pytest.raises(ValueError, match="nothing to allocate"):
        spark_plan(spark, sampled.iloc[:0], None, allocator_config())


@pytest.mark.spark
def test_spark_allocator_on_the_demo_crawl(spark, tmp_path_factory):
    """The demo's hosts, a one-in-three sample of each host's pages labelled by the ground truth,
    the host index's unscored hosts to explore: the same budgets as the in-memory allocator."""
    from demo_support import default_demo, sampled_host_table

    table = sampled_host_table(default_demo(tmp_path_factory))
    fresh = table.iloc[1::6]                       # known to the host index, never scored
    scored = table.drop(index=fresh.index).reset_index(drop=True)
    fresh = fresh[["surt_host_name", "registered_domain", "tld", "cap_known"]].reset_index(drop=True)
    cfg = allocator_config(total_budget=1500, politeness_max=12, explore_share=0.05, rank_rows_per_partition=16)
    assert_same_budgets(spark_plan(spark, scored, fresh, cfg), reference(scored, fresh, cfg))


# ---------------------------------------------------------------- the building blocks


@pytest.mark.spark
@pytest.mark.quick
def test_prefix_sums_along_a_global_order_with_segments(spark):
    from pyspark.sql import functions as F

    from crawlplan.policies.ranking import prefix_sums

    rng = np.random.default_rng(3)
    pdf = pd.DataFrame({"key": rng.permutation(50), "seg": rng.choice(["a", "b", "c"], 50),
                        "v": rng.integers(0, 9, 50)})
    df = spark.createDataFrame(pdf)
    got, totals = prefix_sums(df, "v", [F.desc("key")], out="before", rows_per_partition=6)
    got = got.toPandas().sort_values("key", ascending=False)
    assert got.before.tolist() == (np.cumsum(got.v) - got.v).tolist() and totals == {"": int(pdf.v.sum())}
    got, totals = prefix_sums(df, "v", [F.col("key")], out="before", rows_per_partition=4, segment="seg")
    got = got.toPandas().sort_values(["seg", "key"])
    want = got.groupby("seg").v.cumsum() - got.v
    assert got.before.tolist() == want.tolist()
    assert totals == {s: int(v) for s, v in pdf.groupby("seg").v.sum().items()}


def test_prior_from_spark_sums_is_beta_prior():
    from crawlplan.policies.adaptive import beta_prior, prior_from_sums
    from crawlplan.stats.reference import icc1_from_count_sums, icc1_from_counts

    rng = np.random.default_rng(5)
    for hosts_n, groups_n, p in ((400, 7, None), (1, 1, 0.5), (30, 3, 1.0), (50, 4, 0.0), (200, 1, None)):
        k = rng.integers(1, 30, hosts_n).astype(float)
        s = rng.binomial(k.astype(int), rng.beta(1, 2, hosts_n) if p is None else p).astype(float)
        group = rng.integers(0, groups_n, hosts_n)
        sums = icc1_from_count_sums(hosts_n, k.sum(), s.sum(), float((s * s / k).sum()), float((k * k).sum()))
        direct = icc1_from_counts(k, s)
        assert sums.hosts == direct.hosts and sums.documents == direct.documents
        assert (np.isnan(sums.icc1) and np.isnan(direct.icc1)) or sums.icc1 == pytest.approx(direct.icc1, abs=1e-12)
        want = beta_prior(s, k, group, groups_n, icc_floor=0.02)
        got = prior_from_sums(*(np.bincount(group, weights=w, minlength=groups_n) for w in (s, k, np.ones(hosts_n))),
                          sums, 0.02)
        assert got.icc == pytest.approx(want.icc, abs=1e-12) and got.mean == want.mean
        np.testing.assert_allclose(got.alpha, want.alpha, rtol=1e-12)
        np.testing.assert_allclose(got.beta, want.beta, rtol=1e-12)
