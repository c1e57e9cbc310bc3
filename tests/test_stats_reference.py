"""The reference statistics against independent computations (textbook ANOVA loops, scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from crawlplan.stats import reference


def _anova_icc_loops(values, groups):
    """Textbook one-way ANOVA with plain Python loops: an independent ICC1 computation."""
    by: dict = {}
    for v, g in zip(values, groups):
        by.setdefault(g, []).append(float(v))
    k = len(by)
    n_total = sum(len(v) for v in by.values())
    grand = sum(sum(v) for v in by.values()) / n_total
    ssb = 0.0
    ssw = 0.0
    for vals in by.values():
        m = sum(vals) / len(vals)
        ssb += len(vals) * (m - grand) ** 2
        for v in vals:
            ssw += (v - m) ** 2
    msb, msw = ssb / (k - 1), ssw / (n_total - k)
    n0 = (n_total - sum(len(v) ** 2 for v in by.values()) / n_total) / (k - 1)
    s2b = (msb - msw) / n0
    return s2b / (s2b + msw), s2b, msw, n0


@pytest.mark.parametrize("seed", range(5))
def test_icc1_matches_textbook_anova_on_unbalanced_groups(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, size=60)
    groups = np.repeat(np.arange(sizes.size), sizes)
    effects = rng.normal(0, 0.7, size=sizes.size)
    values = effects[groups] + rng.normal(0, 1.0, size=groups.size)
    ref_icc, ref_b, ref_w, ref_n0 = _anova_icc_loops(values, groups)
    got = reference.icc1(values, groups)
    assert got.icc1 == pytest.approx(ref_icc, abs=1e-9)
    assert got.var_between == pytest.approx(ref_b, abs=1e-9)
    assert got.var_within == pytest.approx(ref_w, abs=1e-9)
    assert got.n0 == pytest.approx(ref_n0, abs=1e-9)
    assert got.mean_docs == pytest.approx(groups.size / sizes.size)


def test_icc1_balanced_n0_is_group_size_and_recovers_planted_icc():
    rng = np.random.default_rng(1)
    k, m, icc = 4000, 8, 0.4
    groups = np.repeat(np.arange(k), m)
    values = rng.normal(0, math.sqrt(icc), k)[groups] + rng.normal(0, math.sqrt(1 - icc), k * m)
    got = reference.icc1(values, groups)
    assert got.n0 == pytest.approx(m)
    assert got.icc1 == pytest.approx(icc, abs=0.03)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.01, 100), shift=st.floats(-100, 100))
def test_icc1_invariant_under_affine_transform(seed, scale, shift):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 12, size=80)
    values = rng.normal(size=80) + groups * 0.1
    a, b = reference.icc1(values, groups), reference.icc1(values * scale + shift, groups)
    assert b.icc1 == pytest.approx(a.icc1, abs=1e-8)


def test_spearman_brown_and_ceiling_match_the_paper():
    # §4.1: m ~ 5 documents and ICC1 ~ 0.5 give reliability ~ 0.83 and a ceiling ~ 0.9
    rel = reference.spearman_brown(0.5, 5)
    assert rel == pytest.approx(5 / 6)
    assert reference.correlation_ceiling(rel) == pytest.approx(0.913, abs=1e-3)
    assert reference.spearman_brown(0.3, 1) == pytest.approx(0.3)


def test_midranks_equal_scipy_rankdata_with_ties():
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    assert np.allclose(reference.midranks(x), sps.rankdata(x))


def test_count_weighted_midranks_equal_ranks_of_expanded_sample():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, size=40).astype(float)
    y = x + rng.normal(size=40)
    c = rng.multinomial(40, np.full(40, 1 / 40))
    expanded_x, expanded_y = np.repeat(x, c), np.repeat(y, c)
    rho_expanded = sps.spearmanr(expanded_x, expanded_y).statistic
    rho_counts = reference.weighted_pearson(reference.midranks(x, c), reference.midranks(y, c), c)
    assert rho_counts == pytest.approx(rho_expanded, abs=1e-12)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")   # a constant draw: scipy's NaN, checked below
@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.floats(-1e6, 1e6, allow_nan=False)), min_size=3, max_size=60))
def test_spearman_matches_scipy_and_is_bounded(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    rho = reference.spearman(x, y)
    ref = sps.spearmanr(x, y).statistic
    if np.isnan(ref):
        assert np.isnan(rho)
    else:
        assert rho == pytest.approx(ref, abs=1e-9)
        assert -1 - 1e-12 <= rho <= 1 + 1e-12


def test_weighted_spearman_reduces_to_spearman_with_equal_weights_and_follows_weights():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=200), rng.normal(size=200)
    assert reference.weighted_spearman(x, y, np.full(200, 7.0)) == pytest.approx(reference.spearman(x, y), abs=1e-12)
    # integer weights act as replicated ranks' weights: equal to a weighted Pearson of the ranks
    w = rng.integers(1, 20, size=200)
    rx, ry = sps.rankdata(x), sps.rankdata(y)
    ref = np.cov(rx, ry, aweights=w)[0, 1] / math.sqrt(np.cov(rx, aweights=w) * np.cov(ry, aweights=w))
    assert reference.weighted_spearman(x, y, w) == pytest.approx(ref, abs=1e-12)


def test_kendall_is_scipy_tau_b():
    x = [1, 2, 2, 3, 4, 5]
    y = [2, 1, 3, 3, 5, 4]
    assert reference.kendall_tau(x, y) == pytest.approx(sps.kendalltau(x, y).statistic)


def test_bootstrap_ci_is_seeded_and_covers_the_estimate():
    rng = np.random.default_rng(7)
    x = rng.normal(size=500)
    y = 0.5 * x + rng.normal(size=500)
    lo, hi = reference.bootstrap_spearman(x, y, replicates=200, seed=11, alpha=0.05)
    assert (lo, hi) == reference.bootstrap_spearman(x, y, replicates=200, seed=11, alpha=0.05)
    assert lo < reference.spearman(x, y) < hi
    assert 0.05 < hi - lo < 0.3
    assert reference.group_seed(1, "a", "b") == reference.group_seed(1, "a", "b") != reference.group_seed(1, "a", "c")


@pytest.mark.parametrize("replicates, alpha", [(1000, 0.0), (1000, 1.0), (1000, 2.0), (-1, 0.05)])
def test_bad_bootstrap_settings_are_refused(replicates, alpha):
    with pytest.raises(ValueError, match="alpha must be in|bootstrap_replicates must be"):
        reference.check_bootstrap(replicates, alpha)
    reference.check_bootstrap(0, 0.05)                                # no CIs is a valid choice
