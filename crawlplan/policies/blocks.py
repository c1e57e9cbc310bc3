"""Budget curves from tie blocks: what a policy collects, from per-block sums instead of hosts.

A policy that crawls hosts in the order of a key, ties in random order, collects at budget b the
hosts of every block (hosts with equal keys) before the block where b runs out, and a random part
of that block. Its expectation over the random tie order needs only per-block sums: the blocks
before take whole, the cut block gives the budget's rest at its own density (each of its pages is
equally likely to come first). So a curve over 46 million hosts is a curve over a few thousand
blocks, computed on the driver from a table whose size a setting bounds, never the data.

Keys are blocked on a log scale: hosts whose keys differ by less than a relative
``2 ** (1 / key_steps) - 1`` (0.017 % at 4096 steps per octave) count as tied. That is the stated
error of the sweeps: within such a block, hosts are taken in random order instead of by key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pyspark.sql import Column
from pyspark.sql import functions as F

NULL_SIGN = -2   # hosts without the key come last, as NaN keys do in ``sim.order_by``


def block_columns(key: Column, key_steps: int, prefix: str = "_b") -> list[Column]:
    """Two sortable columns (sign, level) with order (desc, desc) = key order descending: equal
    blocks = keys within a relative 2 ** (1 / key_steps) of each other (zero and null: own blocks)."""
    sign = (F.when(key.isNull() | F.isnan(key), F.lit(NULL_SIGN))
            .when(key > 0, F.lit(1)).when(key < 0, F.lit(-1)).otherwise(F.lit(0)))
    level = F.when(sign.isin(1, -1), F.floor(F.log2(F.abs(key)) * F.lit(float(key_steps))) * sign) \
        .otherwise(F.lit(0)).cast("long")
    return [sign.alias(f"{prefix}sign"), level.alias(f"{prefix}level")]


ZERO_LEVEL = -2 ** 62   # the block of non-positive values, below every positive one


def positive_levels(values: np.ndarray, key_steps: int) -> np.ndarray:
    """``block_columns``' level for non-negative values inside a batch (numpy): floor(log2(x) x
    key_steps), zero in a block of its own below all others."""
    values = np.asarray(values, dtype=np.float64)
    positive = values > 0
    return np.where(positive, np.floor(np.log2(np.where(positive, values, 1.0)) * key_steps), ZERO_LEVEL) \
        .astype(np.int64)


@dataclass(frozen=True)
class Curve:
    """Expected outcome per budget (the fields of ``sim.Outcome``)."""
    pages: np.ndarray
    hq: np.ndarray
    hosts: np.ndarray
    tlds: np.ndarray


def ordered_curve(hosts: np.ndarray, pages: np.ndarray, hq: np.ndarray, budgets, *,
                  tld_first: np.ndarray | None = None, tld_count: np.ndarray | None = None,
                  n_tlds: int = 0) -> Curve:
    """Blocks in crawl order (arrays per block: hosts, pages, hq), each block's hosts in random
    order. ``tld_first[t]``: the block where TLD t first appears, ``tld_count[t]``: its hosts there.

    At the cut block a share f of its pages is taken: its hq at the block's density, f of its
    hosts rounded up (the cut host counts as touched, as in ``sim.order_curve``), and a TLD first
    seen there with c hosts is touched with probability 1 - (1 - f) ** c."""
    pages = np.asarray(pages, dtype=np.float64)
    hq = np.asarray(hq, dtype=np.float64)
    hosts = np.asarray(hosts, dtype=np.float64)
    cum_pages, cum_hq, cum_hosts = np.cumsum(pages), np.cumsum(hq), np.cumsum(hosts)
    out = {k: [] for k in ("pages", "hq", "hosts", "tlds")}
    for budget in budgets:
        full = int(np.searchsorted(cum_pages, budget, side="right"))
        got_p = float(cum_pages[full - 1]) if full else 0.0
        got_h = float(cum_hq[full - 1]) if full else 0.0
        touched = float(cum_hosts[full - 1]) if full else 0.0
        f = 0.0
        if full < len(pages) and budget > got_p:
            f = (budget - got_p) / pages[full]
            got_h += f * hq[full]
            got_p = float(budget)
            touched += min(hosts[full], np.ceil(f * hosts[full]))
        tlds = 0.0
        if tld_first is not None and len(tld_first):
            tlds = float(np.count_nonzero(tld_first < full))
            if f > 0:
                tlds += float(np.sum(1.0 - (1.0 - f) ** tld_count[tld_first == full]))
        out["pages"].append(got_p)
        out["hq"].append(got_h)
        out["hosts"].append(touched)
        out["tlds"].append(tlds)
    return Curve(**{k: np.asarray(v) for k, v in out.items()})


def random_subset_tlds(share: float, tld_hosts: np.ndarray) -> float:
    """Expected distinct TLDs among a random ``share`` of the hosts (``tld_hosts``: hosts per TLD)."""
    share = min(max(float(share), 0.0), 1.0)
    return float(np.sum(1.0 - (1.0 - share) ** np.asarray(tld_hosts, dtype=np.float64)))


def uniform_curve(size: np.ndarray, count: np.ndarray, hq: np.ndarray, density: np.ndarray, budgets,
                  tld_hosts: np.ndarray) -> Curve:
    """Uniform breadth (``sim.uniform_breadth``) in expectation, from the histogram of host sizes:
    per distinct size, its hosts, their hq and the sum of their densities. Depth d goes to every
    host (its size where smaller); the pages left below d + 1 go to random hosts with room, one
    each, at those hosts' mean density."""
    order = np.argsort(size)
    size, count = np.asarray(size, dtype=np.int64)[order], np.asarray(count, dtype=np.float64)[order]
    hq, density = np.asarray(hq, dtype=np.float64)[order], np.asarray(density, dtype=np.float64)[order]
    cum_pages = np.concatenate([[0.0], np.cumsum(size * count)])
    cum_hq = np.concatenate([[0.0], np.cumsum(hq)])
    cum_count = np.concatenate([[0.0], np.cumsum(count)])
    cum_density = np.concatenate([[0.0], np.cumsum(density)])
    total_hosts = cum_count[-1]

    def spend(d: int) -> tuple[int, float]:
        i = int(np.searchsorted(size, d, side="left"))   # sizes < d are read whole
        return i, cum_pages[i] + d * (total_hosts - cum_count[i])

    out = {k: [] for k in ("pages", "hq", "hosts", "tlds")}
    for budget in budgets:
        lo, hi = 0, int(size[-1])
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if spend(mid)[1] <= budget else (lo, mid - 1)
        i, spent = spend(lo)
        got = cum_hq[i] + lo * (cum_density[-1] - cum_density[i])
        room_i = int(np.searchsorted(size, lo, side="right"))     # hosts with size > lo
        room_hosts = total_hosts - cum_count[room_i]
        left = min(budget - spent, room_hosts)
        if left > 0:
            got += left * (cum_density[-1] - cum_density[room_i]) / room_hosts
        touched = total_hosts if lo >= 1 else min(np.ceil(left), room_hosts)
        tlds = float(len(tld_hosts)) if lo >= 1 else random_subset_tlds(touched / total_hosts, tld_hosts)
        out["pages"].append(float(spent + max(left, 0.0)))
        out["hq"].append(float(got))
        out["hosts"].append(float(touched))
        out["tlds"].append(tlds)
    return Curve(**{k: np.asarray(v) for k, v in out.items()})


def sample_then_deepen_curve(table, budgets, shares, tld_hosts: np.ndarray) -> list[tuple[Curve, float]]:
    """Sample-then-deepen (``sim.sample_then_deepen``) in expectation over the random probing order
    and the random order of hosts with equal sampled density, from one row per (probe, s) pair:
    hosts, probe pages, sampled hq, rest pages (n - probe), rest hq (hq - s).

    A probing budget p probes a random share p / (all probe pages) of the hosts; the probed ones
    are deepened in order of s / probe, whole blocks first, the cut block at its rest density;
    budget deepening cannot use probes further hosts at the probes' mean density. The best probing
    share per budget is kept, as the baseline is tuned in hindsight. Returns (curve of one budget,
    share; 1.0 = every host probed) per budget."""
    ratio = table["s"].to_numpy(dtype=np.float64) / table["probe"].to_numpy(dtype=np.float64)
    keys, inverse = np.unique(-ratio, return_inverse=True)           # best sampled density first
    def per_block(col):
        return np.bincount(inverse, weights=table[col].to_numpy(dtype=np.float64), minlength=len(keys))
    rest_n, rest_hq, hosts = per_block("rest_n"), per_block("rest_hq"), per_block("hosts")
    probe_all = float(table["probe_pages"].sum())
    s_all = float(table["s_pages"].sum())
    n_hosts = float(table["hosts"].sum())
    results = []
    for budget in budgets:
        options = [1.0] if probe_all <= budget else list(shares)
        best = None
        for share in options:
            phi = 1.0 if share >= 1.0 else min(1.0, share * budget / probe_all)
            spent, got = phi * probe_all, phi * s_all
            room = budget - spent
            deep = ordered_curve(phi * hosts, phi * rest_n, phi * rest_hq, [room])
            used, got = float(deep.pages[0]), got + float(deep.hq[0])
            left = room - used
            probed = phi
            if left > 0 and phi < 1.0:            # deepening ran out: probe further hosts
                more = min(left, (1.0 - phi) * probe_all)
                got += more * s_all / probe_all
                probed = phi + more / probe_all
                left -= more
            curve = Curve(pages=np.array([budget - max(left, 0.0)]), hq=np.array([got]),
                          hosts=np.array([np.ceil(probed * n_hosts)]),
                          tlds=np.array([random_subset_tlds(probed, tld_hosts)]))
            if best is None or got > best[0].hq[0]:
                best = (curve, share)
        results.append(best)
    return results
