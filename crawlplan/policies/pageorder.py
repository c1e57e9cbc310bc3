"""A seeded random page order per host, drawn from the host's key alone (no page-level arrays).

The simulations need, per host, which of its pages come first in a random crawl order: how many
high-quality pages the first t fetches find. Pages of one host are exchangeable, so that order is
an urn without replacement: fetch t is good with probability (good left) / (pages left). Each
draw's uniform comes from a counter-based generator (splitmix64 of the host's 64-bit key and the
draw's counter), so a host's order depends only on its name and the seed: the same in any
partitioning, any batch size and on any executor, and shared by every policy of one seed (common
random numbers, as ``population.page_orders`` shares one page order).

Memory is per batch of hosts: a few arrays of the batch's length, plus, for the rare host a
stopping rule follows far, one array of that host's remaining pages.
"""

from __future__ import annotations

import numpy as np
from pyspark.sql import Column
from pyspark.sql import functions as F

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TAIL = np.uint64(1 << 40)        # counters of a host's tail permutation start here, past any urn draw
URN_STEPS = 32                    # draws per host from the urn; later pages come from one permutation
# streams: the real page order, the synthetic twin's order and its densities must not share draws
STREAM_PAGES, STREAM_TWIN, STREAM_TWIN_DRAW = 0, 1, 2


def host_key(host: Column, seed: int, stream: int) -> Column:
    """The host's 64-bit key for one seed and stream (a Spark long; numpy reads it as uint64)."""
    return F.xxhash64(host, F.lit(int(seed)), F.lit(int(stream)))


def as_keys(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).view(np.uint64)


def uniforms(keys: np.ndarray, counter) -> np.ndarray:
    """One uniform in [0, 1) per key for draw ``counter`` (scalar or per key)."""
    with np.errstate(over="ignore"):
        z = keys + (np.asarray(counter, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def prefix_hq(n: np.ndarray, hq: np.ndarray, keys: np.ndarray, steps: int) -> np.ndarray:
    """``out[:, t-1]`` = high-quality pages among a host's first t pages, t = 1 .. steps (a host
    with fewer pages stops drawing: its count stays at hq)."""
    n = np.asarray(n, dtype=np.int64)
    good = np.asarray(hq, dtype=np.int64).copy()
    left = n.copy()
    found = np.zeros(len(n), dtype=np.int64)
    out = np.empty((len(n), steps), dtype=np.int64)
    for t in range(steps):
        drawing = left > 0
        hit = drawing & (uniforms(keys, t) * left < good)
        found += hit
        good -= hit
        left -= drawing
        out[:, t] = found
    return out


def stop_rule_runs(n, hq, keys, alpha, beta, forced, tau: float):
    """Pages fetched and high-quality pages found per host under the stopping rule of
    ``adaptive.trajectories``: fetch page after page while t < forced or the posterior predictive
    (alpha + found) / (alpha + beta + t) stays >= tau, and at most n pages.

    The first ``URN_STEPS`` draws follow the host's urn (``prefix_hq``'s order), all hosts of the
    batch at once; a host still fetching after them finishes on a seeded permutation of its
    remaining pages (the rest of a uniformly random order is uniformly random given what was
    drawn), all such hosts in one segmented sort. Which draw a host sees never depends on the
    other hosts of its batch."""
    n = np.asarray(n, dtype=np.int64)
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    forced = np.asarray(forced, dtype=np.int64)
    good = np.asarray(hq, dtype=np.int64).copy()
    fetched = np.zeros(len(n), dtype=np.int64)
    found = np.zeros(len(n), dtype=np.int64)
    active = np.flatnonzero(n > 0)
    t = 0
    while len(active) and t < URN_STEPS:
        a = active
        hit = uniforms(keys[a], t) * (n[a] - t) < good[a]
        found[a] += hit
        good[a] -= hit
        t += 1
        fetched[a] = t
        keep = (t < n[a]) & ((t < forced[a]) | (alpha[a] + found[a] >= tau * (alpha[a] + beta[a] + t)))
        active = a[keep]
    if len(active):
        _finish_on_permutations(active, t, n, good, keys, alpha, beta, forced, tau, fetched, found)
    return fetched, found


def _finish_on_permutations(hosts, t, n, good, keys, alpha, beta, forced, tau, fetched, found) -> None:
    rest = n[hosts] - t
    seg = np.repeat(np.arange(len(hosts)), rest)
    start = np.concatenate([[0], np.cumsum(rest)[:-1]])
    j = np.arange(int(rest.sum()), dtype=np.int64) - start[seg]
    u = uniforms(keys[hosts][seg], _TAIL + j.astype(np.uint64))
    order = np.lexsort((u, seg))
    flags = j[order] < good[hosts][seg]
    cs = found[hosts][seg] + np.cumsum(flags) - np.concatenate([[0], np.cumsum(flags)])[start][seg]
    tt = t + 1 + j
    h = hosts[seg]
    go_on = (tt < forced[h]) | (alpha[h] + cs >= tau * (alpha[h] + beta[h] + tt))
    big = np.iinfo(np.int64).max
    first_stop = np.minimum.reduceat(np.where(go_on, big, j), start)
    last = np.where(first_stop == big, rest - 1, first_stop)
    fetched[hosts] = t + last + 1
    found[hosts] = cs[start + last]
