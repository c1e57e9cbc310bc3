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


def stop_rule_runs(n, hq, keys, alpha, beta, forced, tau: float, vector_until: int = 64):
    """Pages fetched and high-quality pages found per host under the stopping rule of
    ``adaptive.trajectories``: fetch page after page while t < forced or the posterior predictive
    (alpha + found) / (alpha + beta + t) stays >= tau, and at most n pages.

    Draws follow the host's urn (``prefix_hq``'s order) step by step while many hosts are active;
    the few that run long finish on a seeded permutation of their remaining pages (the rest of a
    uniformly random order is uniformly random given what was drawn), one array per host."""
    n = np.asarray(n, dtype=np.int64)
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    good = np.asarray(hq, dtype=np.int64).copy()
    fetched = np.zeros(len(n), dtype=np.int64)
    found = np.zeros(len(n), dtype=np.int64)
    active = np.flatnonzero(n > 0)
    t = 0
    while len(active) > vector_until:
        left = n[active] - t
        hit = uniforms(keys[active], t) * left < good[active]
        found[active] += hit
        good[active] -= hit
        t += 1
        fetched[active] = t
        a = active
        keep = (t < n[a]) & ((t < forced[a]) | (alpha[a] + found[a] >= tau * (alpha[a] + beta[a] + t)))
        active = a[keep]
    for i in active:
        rest = int(n[i] - t)
        order = np.argsort(uniforms(np.full(rest, keys[i]), _TAIL + np.arange(rest, dtype=np.uint64)))
        cs = found[i] + np.cumsum(order < good[i])
        tt = np.arange(t + 1, n[i] + 1)
        go_on = (tt < forced[i]) | (alpha[i] + cs >= tau * (alpha[i] + beta[i] + tt))
        stop = np.flatnonzero(~go_on)
        last = int(stop[0]) if len(stop) else rest - 1
        fetched[i] = t + last + 1
        found[i] = cs[last]
    return fetched, found
