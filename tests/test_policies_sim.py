"""Crawl simulations (pure numpy): accounting on hand-checked populations, the vectorised
policies against a per-host loop, the calibrated generator, the empirical-Bayes pieces."""

from __future__ import annotations

import naive_policies
import numpy as np
import pytest
from settings_support import sweep_config

from crawlplan.policies import adaptive, sim
from crawlplan.policies.population import (
    CalibratedParams,
    Population,
    calibrated_population,
    page_orders,
)
from crawlplan.policies.simulate import run_seed, summarize
from crawlplan.stats.reference import icc1, icc1_from_counts


def tiny(n, hq, tld=None, log_hc=None):
    n = np.asarray(n)
    return Population(n=n, hq=np.asarray(hq), tld=np.asarray(tld if tld is not None else np.arange(len(n))),
                      group=np.zeros(len(n), dtype=np.int32),
                      log_hc=None if log_hc is None else np.asarray(log_hc, dtype=float))


def test_population_rejects_inconsistent_counts():
    with pytest.raises(ValueError):
        tiny([3, 2], [4, 0])
    with pytest.raises(ValueError):
        Population(n=[3], hq=[1, 2], tld=[0], group=[0])


def test_page_orders_keep_each_hosts_pages_and_shuffle_within():
    pop = tiny([3, 5, 4], [1, 5, 2])
    flags, offsets = page_orders(pop, np.random.default_rng(0))
    assert list(offsets) == [0, 3, 8, 12]
    assert [int(flags[offsets[i]:offsets[i + 1]].sum()) for i in range(3)] == [1, 5, 2]
    orders = {tuple(page_orders(pop, np.random.default_rng(s))[0]) for s in range(20)}
    assert len(orders) > 1


def test_icc1_from_counts_equals_icc1_on_expanded_flags():
    rng = np.random.default_rng(3)
    n = rng.integers(1, 12, 400)
    p = rng.beta(0.5, 1.5, 400)
    s = rng.binomial(n, p)
    host = np.repeat(np.arange(400), n)
    flags = np.concatenate([np.r_[np.ones(k), np.zeros(m - k)] for k, m in zip(s, n)])
    assert icc1_from_counts(n, s).icc1 == pytest.approx(icc1(flags, host).icc1, abs=1e-12)


def test_order_curve_is_hand_checked():
    pop = tiny([2, 3, 5], [2, 0, 1], tld=[0, 1, 0])
    order = np.array([0, 2, 1])
    outs = sim.order_curve(pop, order, [3, 7, 10])
    assert outs[0].pages == 3 and outs[0].hq == pytest.approx(2 + 0.2)
    assert outs[0].hosts == 2 and outs[0].tlds == 1
    assert outs[1].hq == pytest.approx(3.0) and outs[1].hosts == 2
    assert outs[2].hq == pytest.approx(3.0) and outs[2].tlds == 2


def test_uniform_breadth_spends_the_budget_at_equal_depth():
    pop = tiny([1, 4, 6], [1, 2, 3])
    out = sim.uniform_breadth(pop, 7, np.random.default_rng(0))  # depth 3: 1 + 3 + 3
    assert out.pages == 7
    assert out.hq == pytest.approx(1 + 3 * 0.5 + 3 * 0.5)
    out = sim.uniform_breadth(pop, 8, np.random.default_rng(0))  # one page more on host 1 or 2
    assert out.pages == 8 and out.hq == pytest.approx(4.5)


@pytest.mark.parametrize("frac", [0.2, 0.5, 0.9, 1.0])
def test_sample_then_deepen_equals_the_per_host_loop(frac):
    pop = calibrated_population(CalibratedParams(hosts=600), seed=5)
    flags, offsets = page_orders(pop, np.random.default_rng(1))
    cum = sim.cumulative_flags(flags)
    budget = sim.budget_pages(pop, frac)
    for share in (0.25, 0.75):
        (out, _), = sim.sample_then_deepen(pop, cum, offsets, [budget], 3, np.random.default_rng(9), (share,))
        ref = naive_policies.sample_then_deepen_loop(pop, flags, offsets, budget, 3, np.random.default_rng(9), share)
        assert out.hq == pytest.approx(ref, rel=1e-12)
        assert out.pages == budget


def test_sample_then_deepen_finds_pure_hosts():
    # hosts are all-good or all-bad: a 3-page probe identifies them exactly
    n = np.full(10, 10)
    hq = np.array([10, 0, 0, 10, 0, 0, 0, 10, 0, 0])
    pop = tiny(n, hq)
    flags, offsets = page_orders(pop, np.random.default_rng(0))
    (out, share), = sim.sample_then_deepen(pop, sim.cumulative_flags(flags), offsets, [50], 3,
                                           np.random.default_rng(0))
    assert share == 1.0  # 30 probe pages fit: every host probed
    assert out.hq == pytest.approx(9 + 20)  # 3 good probes + 20 deepening pages, all on good hosts


def test_full_budget_collects_everything_for_every_policy():
    pop = calibrated_population(CalibratedParams(hosts=3000), seed=2)
    cfg = sweep_config(budgets=(1.0,), seeds=(0,), random_repeats=1, reliability_ks=(1,))
    rows = run_seed(pop, 0, cfg)
    for row in rows["ordering"] + rows["depth"]:
        assert row["pages"] == pop.pages, row["policy"]
        assert row["hq"] == pytest.approx(pop.hq.sum()), row["policy"]


def test_every_policy_spends_each_budget():
    pop = calibrated_population(CalibratedParams(hosts=4000), seed=1)
    cfg = sweep_config(budgets=(0.01, 0.05, 0.3), seeds=(0,), random_repeats=2, reliability_ks=(1, 3))
    rows = run_seed(pop, 0, cfg)
    for row in rows["ordering"] + rows["depth"]:
        assert row["pages"] == pytest.approx(row["budget_pages"]), (row["policy"], row["budget_frac"])
        assert 0 <= row["hq"] <= row["pages"]


def test_trajectories_stop_when_the_posterior_drops():
    flags = np.array([1, 1, 0, 0], dtype=bool)
    args = (np.array([4]), np.array([0.5]), np.array([0.5]), flags, np.array([0, 4]))
    fetched, found = adaptive.trajectories(*args, tau=0.65, forced=np.array([1]))
    assert (fetched[0], found[0]) == (3, 2)   # after page 3: (0.5 + 2) / 4 = 0.625 < 0.65
    fetched, found = adaptive.trajectories(*args, tau=0.4, forced=np.array([1]))
    assert (fetched[0], found[0]) == (4, 2)


def test_trajectories_match_a_loop_on_many_hosts():
    pop = calibrated_population(CalibratedParams(hosts=2000), seed=4)
    flags, offsets = page_orders(pop, np.random.default_rng(0))
    alpha, beta = np.full(pop.hosts, 0.2), np.full(pop.hosts, 1.8)
    forced = np.ones(pop.hosts, dtype=np.int64)
    fetched, found = adaptive.trajectories(pop.n, alpha, beta, flags, offsets, 0.15, forced)
    for i in range(pop.hosts):
        t = s = 0
        while t < pop.n[i]:
            s += int(flags[offsets[i] + t])
            t += 1
            if not (alpha[i] + s >= 0.15 * (alpha[i] + beta[i] + t)):
                break
        assert (fetched[i], found[i]) == (t, s)


def test_beta_prior_recovers_icc_and_group_means():
    rng = np.random.default_rng(0)
    hosts = 40000
    group = rng.integers(0, 2, hosts)
    means = np.array([0.1, 0.3])
    icc = 0.4
    strength = (1 - icc) / icc
    p = rng.beta(means[group] * strength, (1 - means[group]) * strength)
    k = np.full(hosts, 2)
    s = rng.binomial(k, p)
    prior = adaptive.beta_prior(s, k, group, 2)
    # the pooled ICC mixes the group shift in, so it sits a little above the within-group 0.4
    assert 0.37 < prior.icc < 0.47
    assert prior.alpha / (prior.alpha + prior.beta) == pytest.approx(means, abs=0.01)


def test_posterior_mean_shrinks_small_samples():
    a, b = 0.5, 4.5   # prior mean 0.1
    assert adaptive.posterior_mean(1, 1, a, b) < adaptive.posterior_mean(40, 50, a, b)
    assert adaptive.posterior_mean(0, 0, a, b) == pytest.approx(0.1)


def test_calibrated_population_matches_the_paper_shape():
    pop = calibrated_population(CalibratedParams(hosts=50000), seed=0)
    assert pop.n.min() >= 3
    assert 4.5 < pop.pages / pop.hosts < 7.0
    assert np.percentile(pop.n, 99.9) > 50        # heavy tail
    assert 0.45 < pop.score_icc1 < 0.55
    assert 0.03 < pop.hq.sum() / pop.pages < 0.2
    from scipy.stats import spearmanr
    assert abs(spearmanr(pop.log_hc, pop.density)[0]) < 0.2
    again = calibrated_population(CalibratedParams(hosts=50000), seed=0)
    assert np.array_equal(pop.n, again.n) and np.array_equal(pop.hq, again.hq)


def test_sample_reliability_is_one_for_pure_hosts_and_rises_with_k():
    pure = tiny(np.full(50, 12), np.where(np.arange(50) % 3 == 0, 12, 0))
    flags, offsets = page_orders(pure, np.random.default_rng(0))
    (k, hosts, rho), = sim.sample_reliability(pure, sim.cumulative_flags(flags), offsets, [2], 5)
    assert hosts == 50 and rho == pytest.approx(1.0)
    pop = calibrated_population(CalibratedParams(hosts=30000), seed=0)
    flags, offsets = page_orders(pop, np.random.default_rng(0))
    rel = sim.sample_reliability(pop, sim.cumulative_flags(flags), offsets, [1, 3, 10], 5)
    assert rel[0][2] < rel[1][2] < rel[2][2]


def test_sample_reliability_is_nan_without_a_warning_when_every_sample_is_alike():
    import warnings

    flat = tiny(np.full(20, 12), np.zeros(20, dtype=int))        # no host has a high-quality page
    flags, offsets = page_orders(flat, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (k, hosts, rho), = sim.sample_reliability(flat, sim.cumulative_flags(flags), offsets, [3], 5)
    assert hosts == 20 and np.isnan(rho)


def test_new_policy_beats_sample_then_deepen_on_a_calibrated_population():
    cfg = sweep_config(budgets=(0.02, 0.05, 0.1), seeds=(0, 1, 2), random_repeats=1, reliability_ks=(3,))
    wins = []
    for seed in cfg.seeds:
        pop = calibrated_population(CalibratedParams(hosts=60000), seed=seed)
        depth = {(r["policy"], r["budget_frac"]): r["hq"] for r in run_seed(pop, seed, cfg)["depth"]}
        wins += [depth[("eb_adaptive", b)] > depth[("sample_then_deepen", b)] for b in cfg.budgets]
    assert all(wins)


def test_summaries_have_one_row_per_policy_and_budget():
    pop = calibrated_population(CalibratedParams(hosts=3000), seed=0)
    cfg = sweep_config(budgets=(0.05, 0.1), seeds=(0, 1), random_repeats=2, reliability_ks=(1, 2))
    from crawlplan.policies.simulate import run_sweep

    out = summarize(run_sweep(pop, cfg))
    d = out["depth_sim"]
    assert len(d) == 2 * 5 and set(d.n_seeds) == {2}
    assert (d[d.policy == "oracle"].share_of_oracle == 1.0).all()
    o = out["ordering_sim"]
    assert (o[o.policy == "random"].n_runs == 4).all()
    assert o[o.policy == "random"].multiple_of_random.round(12).eq(1.0).all()
    assert list(out["sample_reliability"].k) == [1, 2]


def test_beta_prior_pools_groups_that_do_not_differ():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 50, 3000)
    s = rng.binomial(2, rng.beta(0.1, 0.9, 3000))
    prior = adaptive.beta_prior(s, np.full(3000, 2), group, 50)
    means = prior.alpha / (prior.alpha + prior.beta)
    assert np.ptp(means) < 0.02   # 50 equal groups: their noisy raw means are pooled
