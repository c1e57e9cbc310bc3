"""The statistics, Spark-free: ICC1, Spearman-Brown, ranks, (weighted) Spearman, bootstrap CIs.

These functions are the definitions the Spark transforms must agree with, and they run inside
``applyInPandas`` for per-group correlation work, so they are vectorised numpy throughout.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class ICCResult:
    hosts: int
    documents: int
    mean_docs: float          # m-bar = N / k, the paper's Table 8 column
    n0: float                 # the ANOVA group-size adjustment for unbalanced groups
    ms_between: float
    ms_within: float
    var_between: float
    var_within: float
    icc1: float

    def as_dict(self) -> dict:
        return asdict(self)


def icc1_from_sums(k: int, n_total: int, sum_n_sq: float, ss_between: float, ss_within: float) -> ICCResult:
    """One-way random-effects ICC1 (ANOVA estimator) from the group summaries a distributed
    aggregation can produce.

    With k groups of sizes n_i (N = sum n_i):
      MSB = SSB / (k - 1), MSW = SSW / (N - k), n0 = (N - sum n_i^2 / N) / (k - 1),
      var_between = (MSB - MSW) / n0, var_within = MSW, ICC1 = var_between / (var_between + var_within).
    n0 replaces the common group size of the balanced design; for equal sizes it is that size.

    The one convention of the project (every ICC1 it reports or uses comes from here):
    - var_between is not truncated at 0: a negative estimate is information (no host effect plus
      sampling noise), and truncating it would bias the averages readers take over classifiers;
    - degenerate input (fewer than 2 groups, or no more values than groups) gives NaN, and so does
      input without any variance (0 / 0). Callers that need a number decide what NaN means to them.
    """
    if k < 2 or n_total <= k:
        nan = float("nan")
        return ICCResult(k, n_total, n_total / k if k else nan, nan, nan, nan, nan, nan, nan)
    msb = ss_between / (k - 1)
    msw = ss_within / (n_total - k)
    n0 = anova_n0(k, n_total, sum_n_sq)
    var_b = (msb - msw) / n0
    denom = var_b + msw
    icc = var_b / denom if denom != 0 else float("nan")
    return ICCResult(k, n_total, n_total / k, n0, msb, msw, var_b, msw, icc)


def anova_n0(k: int, n_total: float, sum_n_sq: float) -> float:
    """The ANOVA group-size adjustment n0 = (N - sum n_i^2 / N) / (k - 1) for k unbalanced groups."""
    return (n_total - sum_n_sq / n_total) / (k - 1)


def icc1_from_counts(n, s) -> ICCResult:
    """ICC1 of 0/1 flags from per-group counts only (``s`` of ``n`` flagged): the same estimator as
    ``icc1`` on the expanded flags, without expanding them. Groups with n = 0 are left out."""
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    keep = n > 0
    n, s = n[keep], s[keep]
    total = float(n.sum())
    grand = s.sum() / total if total else float("nan")
    ss_between = float(np.sum(n * (s / n - grand) ** 2))
    ss_within = float(np.sum(s - s * s / n))
    return icc1_from_sums(len(n), int(total), float(np.sum(n ** 2)), ss_between, ss_within)


def icc1_from_count_sums(hosts: int, n_total: float, s_total: float, sum_s_sq_over_n: float,
                         sum_n_sq: float) -> ICCResult:
    """``icc1_from_counts`` from the sums over hosts a distributed aggregation gives: hosts with
    n > 0, N = sum n, S = sum s, sum s^2 / n and sum n^2 (SSB = sum s^2/n - S^2/N, SSW = S - sum s^2/n)."""
    grand = s_total / n_total if n_total else float("nan")
    ss_between = sum_s_sq_over_n - s_total * grand
    ss_within = s_total - sum_s_sq_over_n
    return icc1_from_sums(int(hosts), int(n_total), float(sum_n_sq), ss_between, ss_within)


def icc1(values, groups) -> ICCResult:
    """ICC1 of ``values`` grouped by ``groups`` (any hashable labels), NaNs dropped."""
    values = np.asarray(values, dtype=float)
    groups = np.asarray(groups)
    keep = ~np.isnan(values)
    values, groups = values[keep], groups[keep]
    _, inv = np.unique(groups, return_inverse=True)
    n = np.bincount(inv).astype(float)
    sums = np.bincount(inv, weights=values)
    means = sums / n
    grand = values.mean() if values.size else float("nan")
    ss_between = float(np.sum(n * (means - grand) ** 2))
    ss_within = float(np.sum((values - means[inv]) ** 2))
    return icc1_from_sums(len(n), int(n.sum()), float(np.sum(n ** 2)), ss_between, ss_within)


def spearman_brown(icc: float, m: float) -> float:
    """Reliability of a mean over m documents: m*ICC / (1 + (m - 1)*ICC)."""
    return m * icc / (1.0 + (m - 1.0) * icc)


def correlation_ceiling(reliability: float) -> float:
    """The largest correlation a perfectly measured signal can reach with a host mean of this
    reliability (attenuation: r_observed <= sqrt(reliability)); NaN for negative reliability."""
    return math.sqrt(reliability) if reliability >= 0 else float("nan")


# ---------------------------------------------------------------- ranks and rank correlations


def _tie_groups(x: np.ndarray) -> np.ndarray:
    """Group id of each element in sorted order of distinct values (0 = smallest)."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new_group = np.empty(xs.size, dtype=bool)
    if xs.size:
        new_group[0] = True
        new_group[1:] = xs[1:] != xs[:-1]
    gid = np.empty(xs.size, dtype=np.int64)
    gid[order] = np.cumsum(new_group) - 1
    return gid


def _ranks_from_groups(gid: np.ndarray, counts: np.ndarray) -> np.ndarray:
    per_group = np.bincount(gid, weights=counts)
    before = np.cumsum(per_group) - per_group
    return (before + (per_group + 1.0) / 2.0)[gid]


def midranks(x, counts=None) -> np.ndarray:
    """1-based ranks with ties at their mean rank (as scipy's ``rankdata``).

    With integer ``counts`` (frequency weights, e.g. a bootstrap resample) each element stands
    for ``counts[i]`` copies: the rank is the mid-rank those copies would get in the expanded
    sample, so Pearson-with-weights of these ranks equals Spearman of the expanded sample.
    """
    x = np.asarray(x, dtype=float)
    c = np.ones(x.size) if counts is None else np.asarray(counts, dtype=float)
    return _ranks_from_groups(_tie_groups(x), c)


def weighted_pearson(x, y, w=None) -> float:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones(x.size) if w is None else np.asarray(w, dtype=float)
    sw = w.sum()
    if x.size < 2 or sw <= 0:
        return float("nan")
    mx, my = (w * x).sum() / sw, (w * y).sum() / sw
    dx, dy = x - mx, y - my
    sxx, syy = (w * dx * dx).sum(), (w * dy * dy).sum()
    if sxx <= 0 or syy <= 0:
        return float("nan")
    return float((w * dx * dy).sum() / math.sqrt(sxx * syy))


def spearman(x, y) -> float:
    return weighted_pearson(midranks(x), midranks(y))


def weighted_spearman(x, y, w) -> float:
    """Weighted Spearman: the w-weighted Pearson correlation of the ordinary mid-ranks.

    With w = documents per host, a host observed through many documents (a precise median)
    counts more than one seen through three, while the ranks themselves stay the hosts' ranks,
    so the statistic stays comparable to the unweighted rho of the same table.
    """
    return weighted_pearson(midranks(x), midranks(y), w)


def kendall_tau(x, y) -> float:
    """Kendall's tau-b (scipy's O(n log n) implementation)."""
    # scipy.stats: heavy, only for Kendall's tau
    from scipy.stats import kendalltau

    if len(x) < 2:
        return float("nan")
    return float(kendalltau(x, y).statistic)


def group_seed(seed: int, *key) -> int:
    """A seed per group that does not depend on Python's hash randomisation or partitioning."""
    return (int(seed) * 1_000_003 + zlib.crc32("\x1f".join(map(str, key)).encode())) % (2 ** 32)


def bootstrap_spearman(x, y, replicates: int, seed: int, alpha: float) -> tuple[float, float]:
    """Percentile bootstrap CI of Spearman's rho, resampling hosts (rows) with replacement.

    A resample is drawn as multinomial counts and its rho computed from count-weighted
    mid-ranks (``midranks(x, counts)``): identical to ranking the expanded resample, without
    materialising it. Replicates whose rho is undefined (a constant resample) are dropped.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = x.size
    if n < 3 or replicates <= 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    gx, gy = _tie_groups(x), _tie_groups(y)  # sorting once: a replicate is then O(n)
    out = np.empty(replicates)
    for b in range(replicates):
        c = np.bincount(rng.integers(0, n, size=n), minlength=n).astype(float)
        out[b] = weighted_pearson(_ranks_from_groups(gx, c), _ranks_from_groups(gy, c), c)
    out = out[~np.isnan(out)]
    if out.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(out, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def check_bootstrap(replicates: int, alpha: float) -> None:
    """Bootstrap settings, checked on the driver (inside the groups they would fail every group)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1) (two-sided CIs at alpha/2, 1 - alpha/2), got {alpha}")
    if replicates < 0:
        raise ValueError(f"bootstrap_replicates must be >= 0 (0 = no CIs), got {replicates}")
