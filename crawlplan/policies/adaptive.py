"""The policy beyond the paper: empirical-Bayes priors plus adaptive, size-aware sampling.

Sample-then-deepen spends k probe pages on every host it looks at and then trusts a k-page
density. Two things waste budget there. A probe of a host whose first page is poor is mostly lost
(with ICC ~0.5 one poor page already says a lot), and a 3/3 sample of a 4-page host leaves nothing
to deepen. This policy treats each host as a beta-binomial arm:

1. **Prior from a pilot.** Up to ``pilot_hosts`` random hosts (at most a tenth of the smallest
   budget) get two pages each, charged to the budget.
   The pooled within-host correlation of their high-quality flags is the ICC (method of
   moments, the paper's RQ1 statistic); group means (language x TLD macro-category) are shrunk
   toward the global mean by how much the groups really differ (``beta_prior``). A host of group g starts at
   Beta(a_g, b_g) with a_g + b_g = (1 - ICC) / ICC.
2. **Sequential sampling (a stopping rule).** A host is fetched page by page while the posterior
   predictive (a + s) / (a + b + t) of its next page stays above a threshold tau, so a poor
   first page stops a host after one fetch and a good host is deepened as far as it keeps paying.
3. **Which hosts to open, and tau.** Under the fitted model each (group, size bucket) cell has an
   expected rate (high-quality pages per fetch) for a given tau; hosts are opened in order of that
   rate, the knapsack-greedy order. tau is chosen per budget by simulating the policy on a
   synthetic population drawn from the *fitted prior* with the real host sizes — no true
   densities are used, only what the pilot measured and the known URL counts.

All fetched pages, pilot included, count against the budget; high-quality pages are the ones
the fetched pages actually hold in the seed's page order, shared with the other policies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crawlplan.policies.population import Population, page_orders
from crawlplan.stats.reference import ICCResult, icc1_from_counts

TAUS = (0.06, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
_SIZE_EDGES = np.array([3, 4, 5, 6, 8, 11, 16, 25, 40, 70, 130, 300, 1000])


@dataclass(frozen=True)
class Prior:
    alpha: np.ndarray    # per group
    beta: np.ndarray
    icc: float
    mean: float


def beta_prior(s: np.ndarray, k: np.ndarray, group: np.ndarray, n_groups: int, icc_floor: float = 0.02) -> Prior:
    """Beta priors per group by the method of moments: ``s`` high-quality of ``k`` sampled pages per
    host.

    The ICC of the page flags sets the prior strength a + b = (1 - ICC) / ICC (for a beta-binomial,
    ICC = 1 / (a + b + 1)). Group means are shrunk toward the global mean empirical-Bayes style:
    weight tau^2 / (tau^2 + v_g), with v_g the sampling variance of the group's mean (binomial,
    inflated by the design effect 1 + (pages per host - 1) ICC of clustered pages) and tau^2 the
    between-group variance left after subtracting that noise. Groups that do not differ, or are
    seen on few pages, fall back to the global mean instead of getting a noisy prior."""
    s = np.asarray(s, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    return prior_from_sums(np.bincount(group, weights=s, minlength=n_groups),
                           np.bincount(group, weights=k, minlength=n_groups),
                           np.bincount(group, minlength=n_groups), icc1_from_counts(k, s), icc_floor)


def prior_from_sums(s_g: np.ndarray, k_g: np.ndarray, h_g: np.ndarray, flags: ICCResult, icc_floor: float) -> Prior:
    """``beta_prior`` from the group sums (high-quality pages ``s_g``, pages ``k_g``, hosts ``h_g``
    per group) and the ICC of the hosts' page flags: what a Spark aggregation gives (the allocator)
    and what ``beta_prior`` computes from per-host arrays, one rule for both."""
    s_g, k_g, h_g = (np.asarray(x, dtype=np.float64) for x in (s_g, k_g, h_g))
    mean = float(np.clip(s_g.sum() / max(k_g.sum(), 1.0), 1e-4, 1 - 1e-4))
    if flags.hosts < 2 or flags.documents <= flags.hosts:
        icc = 0.5                    # too few hosts or pages to estimate: a weak prior
    elif flags.icc1 != flags.icc1:
        icc = 0.0                    # no variance at all (every flag alike): no host effect to see
    else:
        icc = flags.icc1
    icc = float(min(max(icc, icc_floor), 0.95))
    n_groups = len(s_g)
    seen = k_g > 0
    raw = np.divide(s_g, k_g, out=np.full(n_groups, mean), where=seen)
    pages_per_host = np.divide(k_g, h_g, out=np.ones(n_groups), where=h_g > 0)
    noise = np.divide(mean * (1 - mean) * (1 + (pages_per_host - 1) * icc), k_g, out=np.full(n_groups, np.inf),
                      where=seen)
    weights = k_g[seen] / k_g[seen].sum() if seen.any() else np.array([])
    tau2 = max(float((weights * (raw[seen] - mean) ** 2).sum() - (weights * noise[seen]).sum()), 0.0) \
        if seen.sum() > 1 else 0.0
    shrink = np.where(seen, tau2 / (tau2 + noise), 0.0) if tau2 > 0 else np.zeros(n_groups)
    mean_g = np.clip(mean + shrink * (raw - mean), 1e-4, 1 - 1e-4)
    strength = (1.0 - icc) / icc
    return Prior(alpha=mean_g * strength, beta=(1.0 - mean_g) * strength, icc=icc, mean=mean)


def flags_cum_prefix(flags, offsets, hosts, m) -> np.ndarray:
    """High-quality pages among the first ``m`` pages of each given host (few hosts: no cumsum)."""
    idx = np.repeat(offsets[hosts], m) + (np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m))
    return np.bincount(np.repeat(np.arange(len(hosts)), m), weights=flags[idx], minlength=len(hosts))


def posterior_mean(s, k, alpha, beta):
    """Shrunk density estimate (a + s) / (a + b + k): the ranking estimate of the allocator."""
    return (alpha + s) / (alpha + beta + k)


def trajectories(n, alpha, beta, flags, offsets, tau: float, forced: np.ndarray):
    """Pages fetched and hq found per host under the stopping rule, each host opened once.

    Rounds fetch page t of every still-active host at once; when few hosts remain active (big,
    good hosts) the rest of each one's run is resolved with one cumulative sum per host."""
    hosts = len(n)
    fetched = np.zeros(hosts, dtype=np.int64)
    found = np.zeros(hosts, dtype=np.int64)
    active = np.arange(hosts)
    t = 0
    while len(active) > 256:
        x = flags[offsets[active] + t]
        found[active] += x
        t += 1
        fetched[active] = t
        keep = (t < n[active]) & ((t < forced[active])
                                  | (alpha[active] + found[active] >= tau * (alpha[active] + beta[active] + t)))
        active = active[keep]
    for i in active:
        seg = flags[offsets[i] + t: offsets[i] + n[i]].astype(np.int64)
        cs = found[i] + np.cumsum(seg)
        tt = np.arange(t + 1, n[i] + 1)
        go_on = (tt < forced[i]) | (alpha[i] + cs >= tau * (alpha[i] + beta[i] + tt))
        stop = np.flatnonzero(~go_on)
        last = int(stop[0]) if len(stop) else len(seg) - 1
        fetched[i] = t + last + 1
        found[i] = cs[last]
    return fetched, found


def budget_curve(order, fetched, found, flags, offsets, budgets, n, hq, alpha, beta) -> list[float]:
    """High-quality pages at each budget when hosts are opened in ``order``.

    The last opened host stops where the money ends (its realised pages). If every host has
    been opened and stopped with budget left, the rest deepens the stopped hosts in order of
    their posterior mean (expected yield = density of their remaining pages), so the policy
    always spends what the others spend."""
    cum = np.cumsum(fetched[order])
    cum_found = np.cumsum(found[order])
    room = (n - fetched).astype(np.float64)
    rest = np.divide(hq - found, room, out=np.zeros(len(n)), where=room > 0)
    deep = np.argsort(-posterior_mean(found, fetched, alpha, beta))
    cum_room = np.cumsum(room[deep])
    cum_rest = np.cumsum(room[deep] * rest[deep])
    out = []
    for budget in budgets:
        full = int(np.searchsorted(cum, budget, side="right"))
        pages = float(cum[full - 1]) if full else 0.0
        got = float(cum_found[full - 1]) if full else 0.0
        if full < len(order) and budget > pages:
            host = order[full]
            got += float(flags[offsets[host]: offsets[host] + int(budget - pages)].sum())
        elif budget > pages:
            left = budget - pages
            k = int(np.searchsorted(cum_room, left, side="right"))
            got += float(cum_rest[k - 1]) if k else 0.0
            used = float(cum_room[k - 1]) if k else 0.0
            if k < len(deep) and left > used:
                got += (left - used) * rest[deep[k]]
        out.append(got)
    return out


def size_bucket(n: np.ndarray) -> np.ndarray:
    return np.searchsorted(_SIZE_EDGES, n, side="right")


def open_order(rate_cell: np.ndarray, cell: np.ndarray, first: np.ndarray, shuffled: np.ndarray):
    """``first`` hosts (the pilot) lead, then the rest by their cell's expected rate; ``shuffled``
    (a random permutation of all hosts) breaks ties at random."""
    is_first = np.zeros(len(cell), dtype=bool)
    is_first[first] = True
    rest = shuffled[~is_first[shuffled]]
    cell_rank = np.empty(len(rate_cell), dtype=np.int16)  # small ints: numpy's stable sort is a radix sort
    cell_rank[np.argsort(-rate_cell, kind="stable")] = np.arange(len(rate_cell), dtype=np.int16)
    return np.concatenate([first, rest[np.argsort(cell_rank[cell[rest]], kind="stable")]])


def adaptive_policy(pop: Population, flags, offsets, budgets, rng: np.random.Generator, *, pilot_hosts: int,
                    pilot_pages=2, use_groups=True, use_sizes=True, taus=TAUS):
    """Yield of the adaptive policy at each budget (pages); returns [(pages, hq, tau), ...] and the prior."""
    hosts = pop.hosts
    group = pop.group if use_groups else np.zeros(hosts, dtype=np.int32)
    n_groups = int(group.max()) + 1 if hosts else 1
    # the pilot may cost at most a tenth of the smallest budget, so it never crowds out the policy
    pilot_hosts = int(min(pilot_hosts, hosts, max(10, 0.1 * min(budgets) / pilot_pages)))
    pilot = rng.choice(hosts, size=pilot_hosts, replace=False)
    k = np.minimum(pop.n[pilot], pilot_pages)
    s = flags_cum_prefix(flags, offsets, pilot, k)
    prior = beta_prior(s, k, group[pilot], n_groups)
    alpha, beta = prior.alpha[group], prior.beta[group]
    forced = np.ones(hosts, dtype=np.int64)
    forced[pilot] = pilot_pages

    # a synthetic twin: real sizes and groups, densities drawn from the fitted prior only
    p = rng.beta(alpha, beta)
    twin = Population(n=pop.n, hq=rng.binomial(pop.n, p), tld=pop.tld, group=pop.group)
    tflags, _ = page_orders(twin, rng)
    cell = (size_bucket(pop.n) if use_sizes else np.zeros(hosts, dtype=np.int64)) * n_groups + group
    n_cells = int(cell.max()) + 1

    shuffled = rng.permutation(hosts)
    plans = {}
    best = [(-1.0, None)] * len(budgets)
    for tau in taus:
        tf, th = trajectories(pop.n, alpha, beta, tflags, offsets, tau, forced)
        rate = np.bincount(cell, weights=th, minlength=n_cells) / np.maximum(
            np.bincount(cell, weights=tf, minlength=n_cells), 1)
        order = open_order(rate, cell, pilot, shuffled)
        plans[tau] = order
        for b, got in enumerate(budget_curve(order, tf, th, tflags, offsets, budgets, pop.n, twin.hq, alpha, beta)):
            if got > best[b][0]:
                best[b] = (got, tau)
    results = []
    for tau in sorted({t for _, t in best}):
        f, h = trajectories(pop.n, alpha, beta, flags, offsets, tau, forced)
        curve = budget_curve(plans[tau], f, h, flags, offsets, budgets, pop.n, pop.hq, alpha, beta)
        results += [(b, float(budgets[b]), curve[b], tau) for b in range(len(budgets)) if best[b][1] == tau]
    return [r[1:] for r in sorted(results)], prior
