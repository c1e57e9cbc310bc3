"""The paper's crawl simulations over a ``Population``, vectorised (no per-host Python loop).

Accounting, as in the paper (§3.4): a budget is a number of pages; a crawler cannot tell a host's
high-quality pages from its others before fetching, so fetching m pages of host i yields
``density_i * m`` high-quality pages in expectation. A policy only chooses hosts and depths.
Sampled pages are real fetches: they count against the budget and contribute the high-quality
pages they actually hold (the seed's page order says which), and deepening a sampled host yields
the density of its *remaining* pages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from crawlplan.policies.population import Population


@dataclass(frozen=True)
class Outcome:
    pages: float          # pages fetched (= the budget unless the population ran out)
    hq: float             # expected high-quality pages collected
    hosts: int            # hosts with at least one fetched page
    tlds: int             # distinct TLDs among them

    @property
    def yield_(self) -> float:
        return self.hq / self.pages if self.pages else 0.0


def budget_pages(pop: Population, fraction: float) -> int:
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"budget fraction must be in (0, 1], got {fraction}")
    return max(1, int(round(fraction * pop.pages)))


def order_by(key: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Host indices by ``key`` descending; ties in random order; NaN keys last.

    A stable sort of a randomly permuted copy puts ties in a seeded random order (the
    permutation's) with one sort instead of a two-key lexsort."""
    key = np.where(np.isnan(key), -np.inf, np.asarray(key, dtype=np.float64))
    perm = rng.permutation(len(key))
    return perm[np.argsort(-key[perm], kind="stable")]


def order_curve(pop: Population, order: np.ndarray, budgets) -> list[Outcome]:
    """Whole hosts in ``order`` at every budget at once: one cumulative sum, one search per budget.

    Distinct TLDs after m hosts = TLDs whose first host in the order comes before m."""
    cap = pop.n[order].astype(np.float64)
    val = pop.hq[order].astype(np.float64)
    cum_cap, cum_val = np.cumsum(cap), np.cumsum(val)
    _, first = np.unique(pop.tld[order], return_index=True)
    first.sort()
    out = []
    for budget in budgets:
        full = int(np.searchsorted(cum_cap, budget, side="right"))
        pages = float(cum_cap[full - 1]) if full else 0.0
        hq = float(cum_val[full - 1]) if full else 0.0
        touched = full
        if full < len(order) and budget > pages:
            part = budget - pages
            hq += part * val[full] / cap[full]
            pages += part
            touched += 1
        out.append(Outcome(pages=pages, hq=hq, hosts=touched, tlds=int(np.searchsorted(first, touched))))
    return out


def _outcome(pop: Population, fetched: np.ndarray, hq: float) -> Outcome:
    touched = fetched > 0
    return Outcome(pages=float(fetched.sum()), hq=float(hq), hosts=int(touched.sum()),
                   tlds=int(np.count_nonzero(np.bincount(pop.tld[touched]))))


# ---------------------------------------------------------------- RQ2: host ordering
def policy_order(pop: Population, policy: str, rng: np.random.Generator) -> np.ndarray:
    """The host order of an ordering policy (the paper's RQ2); HC and oracle *depth* are the same
    orders, since both crawl hosts fully one after another."""
    if policy == "random":
        return rng.permutation(pop.hosts)
    keys = {
        "oracle": lambda: pop.density,
        "hc": lambda: pop.log_hc,
        "pr": lambda: pop.log_pr,
        "common_crawl": lambda: pop.cc_fetched,
    }
    if policy not in keys:
        raise ValueError(f"unknown ordering policy '{policy}'; known: random, {', '.join(keys)}")
    key = keys[policy]()
    if key is None:
        raise ValueError(f"ordering policy '{policy}' needs a signal the population lacks")
    return order_by(np.asarray(key, dtype=np.float64), rng)


# ---------------------------------------------------------------- RQ3: crawl depth
def uniform_breadth(pop: Population, budget: float, rng: np.random.Generator) -> Outcome:
    """The same depth d on every host (fewer where a host has fewer pages); the pages left over
    below depth d+1 go to randomly chosen hosts that still have pages, one each.

    sum(min(n, d)) comes from the sorted sizes in O(log H) per d, so the search is cheap."""
    sizes = np.sort(pop.n)
    cum = np.concatenate([[0], np.cumsum(sizes)])

    def spend(d: int) -> int:
        i = int(np.searchsorted(sizes, d, side="left"))
        return int(cum[i] + d * (len(sizes) - i))

    lo, hi = 0, int(sizes[-1])
    while lo < hi:  # largest d with spend(d) <= budget
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if spend(mid) <= budget else (lo, mid - 1)
    fetched = np.minimum(pop.n, lo).astype(np.float64)
    left = budget - spend(lo)
    room = np.flatnonzero(pop.n > lo)
    if left > 0 and len(room):
        pick = rng.choice(room, size=int(min(np.ceil(left), len(room))), replace=False)
        fetched[pick[: int(left)]] += 1
        if int(left) < len(pick):
            fetched[pick[int(left)]] += left - int(left)
    return _outcome(pop, fetched, float((fetched * pop.density).sum()))


def prefix_hq(cumflags: np.ndarray, offsets: np.ndarray, hosts: np.ndarray, m: np.ndarray) -> np.ndarray:
    """High-quality pages among the first ``m`` pages (seed's page order) of each given host."""
    start = offsets[hosts]
    return cumflags[start + m] - cumflags[start]


def sample_then_deepen(pop: Population, cumflags: np.ndarray, offsets: np.ndarray, budgets, k: int,
                       rng: np.random.Generator, sample_shares=(0.5,)) -> list[tuple[Outcome, float]]:
    """Probe k pages per host, then crawl hosts fully in order of sampled density (§3.4).

    When a budget cannot pay for probing every host, hosts are probed in random order with a
    share of the budget (each of ``sample_shares`` is tried; the best is kept, so the baseline is
    tuned in hindsight); budget that deepening cannot use probes further hosts, so the whole
    budget is always spent. Returns (outcome, share used; 1.0 = every host probed) per budget."""
    hosts = np.arange(pop.hosts)
    probe = np.minimum(pop.n, k)
    s = cumflags[offsets[:-1] + probe] - cumflags[offsets[:-1]]
    order = rng.permutation(pop.hosts)
    position = np.empty(pop.hosts, dtype=np.int64)
    position[order] = hosts
    cum_probe = np.cumsum(probe[order])
    cum_s = np.cumsum(s[order])
    deep_all = order_by(s / probe, rng)
    rest_n = (pop.n - probe).astype(np.float64)
    rest_hq = (pop.hq - s).astype(np.float64)
    results = []
    for budget in budgets:
        if cum_probe[-1] <= budget:
            counts = [(pop.hosts, 1.0)]
        else:
            counts = [(int(np.searchsorted(cum_probe, share * budget, side="right")), share)
                      for share in sample_shares]
        best = None
        for n_sampled, share in counts:
            spent = float(cum_probe[n_sampled - 1]) if n_sampled else 0.0
            hq = float(cum_s[n_sampled - 1]) if n_sampled else 0.0
            deep = deep_all[position[deep_all] < n_sampled]
            cap, val = rest_n[deep], rest_hq[deep]
            cum_cap = np.cumsum(cap)
            room = budget - spent
            full = int(np.searchsorted(cum_cap, room, side="right"))
            used = float(cum_cap[full - 1]) if full else 0.0
            hq += float(val[:full].sum())
            if full < len(deep) and room > used:
                hq += (room - used) * val[full] / cap[full]
                used = room
            left = room - used
            probed = n_sampled
            if left > 0 and n_sampled < pop.hosts:  # deepening ran out of room: probe more hosts
                more = int(np.searchsorted(cum_probe, spent + left, side="right"))
                hq += float(cum_s[more - 1] - (cum_s[n_sampled - 1] if n_sampled else 0.0))
                extra = spent + left - float(cum_probe[more - 1])
                probed = more
                if more < pop.hosts and extra > 0:
                    host = order[more]
                    hq += float(cumflags[offsets[host] + int(extra)] - cumflags[offsets[host]])
                    probed += 1
                left = 0.0
            outcome = Outcome(pages=float(budget - left), hq=hq, hosts=probed,
                              tlds=int(np.count_nonzero(np.bincount(pop.tld[order[:probed]]))))
            if best is None or outcome.hq > best[0].hq:
                best = (outcome, share)
        results.append(best)
    return results


def cumulative_flags(flags: np.ndarray) -> np.ndarray:
    """``c[j]`` = high-quality pages among page positions < j: prefix counts in O(1)."""
    return np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])


def sample_reliability(pop: Population, cumflags: np.ndarray, offsets: np.ndarray, ks, min_remaining: int):
    """Spearman between a k-page sample's density and the density of the host's remaining pages
    (the paper's Figure 4), on hosts with at least k + ``min_remaining`` pages."""
    out = []
    for k in ks:
        hosts = np.flatnonzero(pop.n >= k + min_remaining)
        if len(hosts) < 3:
            out.append((k, len(hosts), float("nan")))
            continue
        s = prefix_hq(cumflags, offsets, hosts, np.full(len(hosts), k))
        rest = (pop.hq[hosts] - s) / (pop.n[hosts] - k)
        # a constant side (every sample with the same density, common for small k on few hosts)
        # has no rank correlation: NaN, as spearmanr says, without its warning on the console
        rho = spearmanr(s / k, rest)[0] if np.ptp(s) > 0 and np.ptp(rest) > 0 else float("nan")
        out.append((k, len(hosts), float(rho) if np.isfinite(rho) else float("nan")))
    return out
