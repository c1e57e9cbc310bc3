"""The Spark sweeps (``policies.sweep``) against today's numpy sweeps (``policies.simulate``).

The numpy sweeps hold one array entry per page and are exact for one random draw; the Spark ones
hold per-host counts and give expectations (key orders, uniform breadth) or per-host seeded draws
(sample-then-deepen, reliability, eb_adaptive). They must agree: exactly where the policy is
deterministic, within the numpy sweep's spread over seeds where it is random.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from settings_support import sweep_config

from crawlplan.policies import blocks, pageorder, sim, simulate, sweep
from crawlplan.policies.population import (
    CalibratedParams,
    Population,
    calibrated_chunk,
    calibrated_hosts,
    calibrated_population,
)


def _host_table(pop: Population) -> pd.DataFrame:
    return pd.DataFrame({"host": [f"h{i}.example" for i in range(pop.hosts)], "n": pop.n, "hq": pop.hq,
                         "tld": [pop.tld_names[c] for c in pop.tld], "grp": [pop.group_names[g] for g in pop.group],
                         "log_hc": pop.log_hc, "log_pr": pop.log_pr, "cc": pop.cc_fetched.astype(float)})


def test_block_curve_with_distinct_keys_is_the_host_order_curve():
    pop = calibrated_population(CalibratedParams(hosts=400), seed=3)
    order = sim.order_by(pop.density + np.arange(pop.hosts) * 1e-9, np.random.default_rng(0))   # no ties
    budgets = [10, 200, 1000, pop.pages]
    exact = sim.order_curve(pop, order, budgets)
    tld_first = np.full(len(pop.tld_names), len(order))
    for pos, host in enumerate(order):
        tld_first[pop.tld[host]] = min(tld_first[pop.tld[host]], pos)
    seen = tld_first < len(order)
    got = blocks.ordered_curve(np.ones(pop.hosts), pop.n[order], pop.hq[order], budgets,
                               tld_first=tld_first[seen], tld_count=np.ones(seen.sum()))
    assert np.allclose(got.hq, [o.hq for o in exact]) and np.allclose(got.pages, [o.pages for o in exact])
    assert np.array_equal(got.hosts, [o.hosts for o in exact]) and np.allclose(got.tlds, [o.tlds for o in exact])


def test_a_tied_block_gives_the_budget_its_own_density():
    # two blocks: 10 pages at density 0.8, then 100 pages at density 0.1, hosts in random order inside
    got = blocks.ordered_curve([2, 5], [10, 100], [8, 10], [5, 10, 60, 500])
    assert np.allclose(got.hq, [4.0, 8.0, 8.0 + 50 * 0.1, 18.0])
    assert np.allclose(got.pages, [5, 10, 60, 110])


def test_uniform_curve_is_the_mean_of_uniform_breadth():
    pop = calibrated_population(CalibratedParams(hosts=300), seed=1)
    budgets = [100, 299, 900, 1500]
    draws = np.array([[sim.uniform_breadth(pop, b, np.random.default_rng(s)).hq for b in budgets]
                      for s in range(200)])
    size, inv = np.unique(pop.n, return_inverse=True)
    got = blocks.uniform_curve(size, np.bincount(inv), np.bincount(inv, weights=pop.hq),
                               np.bincount(inv, weights=pop.density), budgets, np.bincount(pop.tld))
    assert np.allclose(got.hq, draws.mean(axis=0), rtol=0.03)
    assert np.allclose(got.pages, budgets)


def test_page_order_is_an_urn_without_replacement_and_depends_on_the_key_only():
    n, hq = np.full(20000, 10), np.full(20000, 4)
    keys = np.arange(20000, dtype=np.uint64) * np.uint64(2654435761)
    pre = pageorder.prefix_hq(n, hq, keys, 12)
    assert (pre[:, -1] == 4).all() and (np.diff(pre, axis=1) >= 0).all()       # every good page, once
    assert abs(pre[:, 2].mean() - 3 * 4 / 10) < 0.03                           # hypergeometric mean
    again = pageorder.prefix_hq(n[::-1].copy(), hq[::-1].copy(), keys[::-1].copy(), 12)[::-1]
    assert np.array_equal(pre, again)                                          # order of hosts is irrelevant


def test_stop_rule_runs_follow_the_rule():
    n, hq = np.array([50, 50, 3]), np.array([50, 0, 3])
    keys = np.array([1, 2, 3], dtype=np.uint64)
    fetched, found = pageorder.stop_rule_runs(n, hq, keys, np.full(3, 1.0), np.full(3, 1.0), np.ones(3, int), 0.3)
    assert list(fetched) == [50, 2, 3] and list(found) == [50, 0, 3]   # (1+0)/(2+2) = 0.25 < 0.3 after two misses
    many = np.full(4000, 300)     # long runs: most finish on the tail permutation
    keys = np.arange(4000, dtype=np.uint64) * np.uint64(11400714819323198485)
    f, h = pageorder.stop_rule_runs(many, np.full(4000, 150), keys, np.full(4000, 1.0), np.full(4000, 1.0),
                                    np.ones(4000, int), 0.3)
    assert (f > pageorder.URN_STEPS).mean() > 0.5 and (h <= f).all() and (h <= 150).all()
    # a host's run does not depend on the other hosts of its batch
    f1, h1 = pageorder.stop_rule_runs(many[:7], np.full(7, 150), keys[:7], np.full(7, 1.0), np.full(7, 1.0),
                                      np.ones(7, int), 0.3)
    assert np.array_equal(f1, f[:7]) and np.array_equal(h1, h[:7])
    # stopping only when every page is read: all found
    f2, h2 = pageorder.stop_rule_runs(many[:50], np.full(50, 150), keys[:50], np.full(50, 1.0), np.full(50, 1.0),
                                      np.ones(50, int), 0.0)
    assert (f2 == 300).all() and (h2 == 150).all()


def test_the_chunked_calibrated_generator_follows_the_population():
    params = CalibratedParams(hosts=20000)
    pop = calibrated_population(params, seed=0)
    chunk = calibrated_chunk(params, 0, 0, 0, 20000)
    assert abs(chunk.n.mean() - pop.n.mean()) < 0.05 * pop.n.mean()
    assert abs(chunk.hq.sum() / chunk.n.sum() - pop.hq.sum() / pop.n.sum()) < 0.01
    assert (chunk.hq <= chunk.n).all() and chunk.host.is_unique
    assert calibrated_chunk(params, 0, 0, 0, 100).equals(calibrated_chunk(params, 0, 0, 0, 100))


@pytest.mark.spark
@pytest.mark.slow
def test_spark_sweep_stays_within_the_seed_spread_of_the_numpy_sweep(spark):
    pop = calibrated_population(CalibratedParams(hosts=1500), seed=0)
    cfg = dataclasses.replace(sweep_config(hosts=pop.hosts), seeds=(0, 1, 2), budgets=(0.05, 0.2, 0.5),
                              random_repeats=2, reliability_ks=(1, 3, 5))
    old = simulate.summarize(simulate.run_sweep(pop, cfg))
    new = simulate.summarize(sweep.run_sweep(spark.createDataFrame(_host_table(pop)), cfg))
    for name in ("ordering_sim", "depth_sim"):
        both = old[name].merge(new[name], on=["policy", "budget_frac"], suffixes=("_old", "_new"))
        assert len(both) == len(old[name]) == len(new[name])
        diff = both.yield_mean_new - both.yield_mean_old
        # within today's seed spread; the tie blocks and the expectations add a little
        ok = diff.abs() <= np.maximum(0.25 * (both.yield_max_old - both.yield_min_old) + 2e-3,
                                      2.5 * both.yield_sd_old + 5e-3)
        # eb_adaptive picks tau on the twin's expected curve instead of one noisy draw of it: never worse
        eb = both.policy == "eb_adaptive"
        ok = np.where(eb, diff >= -(2 * both.yield_sd_old + 5e-3), ok)
        assert ok.all(), both.loc[~ok, ["policy", "budget_frac", "yield_mean_old", "yield_mean_new", "yield_sd_old"]]
    fixed = new["depth_sim"][new["depth_sim"].policy.isin(["oracle", "hc_depth"])]
    assert (fixed.yield_sd.fillna(0) < 1e-12).all()        # expectations: no spread over seeds
    rel = old["sample_reliability"].merge(new["sample_reliability"], on="k", suffixes=("_old", "_new"))
    assert (rel.n_hosts_old == rel.n_hosts_new).all()
    assert (abs(rel.spearman_new - rel.spearman_old) < 3 * rel.spearman_sd_old + 0.05).all()


@pytest.mark.spark
def test_spark_sweep_does_not_depend_on_partitioning(spark):
    frame = calibrated_hosts(spark, CalibratedParams(hosts=600, chunk_hosts=200), seed=5)
    cfg = dataclasses.replace(sweep_config(hosts=600), seeds=(7,), budgets=(0.1, 0.4), random_repeats=1,
                              reliability_ks=(1, 2), depth_policies=("uniform", "sample_then_deepen", "eb_adaptive",
                                                                     "oracle"))
    one = sweep.run_sweep(frame.repartition(1), cfg)
    many = sweep.run_sweep(frame.repartition(5), cfg)
    for key in ("ordering", "depth", "reliability"):
        a, b = one[key].sort_values(list(one[key].columns[:3])), many[key].sort_values(list(many[key].columns[:3]))
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), rtol=1e-9)
