"""The allocator on a host table held in memory (numpy): the definition of the allocation.

``policies.allocate.plan_budgets`` computes the same budgets in Spark for a whole crawl; this one
is for host tables that are small by construction: the sample-quality studies
(``sample_quality.plan_quality`` on populations of a bench's size) and the tests, where it is the
reference the Spark allocator must agree with row for row (tests/test_policies_allocator.py).
The policy itself (estimate, caps, reserve, floors, fill) is described in ``policies.allocate``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crawlplan.hosts import tld_category
from crawlplan.policies.adaptive import beta_prior, posterior_mean
from crawlplan.policies.allocate import BUDGET_COLUMNS, AllocatorConfig, language_floors
from crawlplan.stats.host_stats import UNKNOWN_LANGUAGE


def _category(tld: pd.Series) -> pd.Series:
    return tld.fillna("").astype(str).map(lambda t: tld_category(t) if t else "other")


def category_means(sampled: pd.DataFrame) -> dict[str, float]:
    """Pooled high-quality density of the sampled hosts per TLD macro-category: the estimate of a
    host nobody sampled (its language is unknown, so the prior is pooled over languages)."""
    if not len(sampled):
        return {}
    sums = sampled.assign(_cat=_category(sampled.tld)).groupby("_cat")[["hq_pages", "n_pages"]].sum()
    return {str(c): float(hq / n) for c, hq, n in zip(sums.index, sums.hq_pages, sums.n_pages)}


def _fill(order: np.ndarray, room: np.ndarray, budget: int) -> np.ndarray:
    """Integer pages along ``order`` up to ``room`` each until ``budget`` is spent."""
    give = np.zeros(len(room), dtype=np.int64)
    if budget <= 0 or not len(order):
        return give
    cum = np.cumsum(room[order])
    full = int(np.searchsorted(cum, budget, side="right"))
    give[order[:full]] = room[order[:full]]
    if full < len(order):
        give[order[full]] = budget - (int(cum[full - 1]) if full else 0)
    return give


def allocate(sampled: pd.DataFrame, unsampled: pd.DataFrame | None, cfg: AllocatorConfig) -> pd.DataFrame:
    """``sampled``: surt_host_name, registered_domain, tld, language, n_pages, hq_pages, cap_known
    (nullable). ``unsampled``: surt_host_name, registered_domain, tld, cap_known — hosts the
    host index knows but nobody scored. Returns the ``budgets`` rows, sorted by rank."""
    s = sampled.reset_index(drop=True).copy()
    n = s.n_pages.to_numpy(dtype=np.float64)
    hq = s.hq_pages.to_numpy(dtype=np.float64)
    if (n <= 0).any() or (hq < 0).any() or (hq > n).any():
        raise ValueError("sampled hosts need n_pages > 0 and 0 <= hq_pages <= n_pages")
    lang = s.language.fillna(UNKNOWN_LANGUAGE).astype(str)
    cat = _category(s.tld)
    groups, gidx = np.unique((lang + "|" + cat).to_numpy(), return_inverse=True)
    prior = beta_prior(hq, n, gidx, len(groups), icc_floor=cfg.prior_icc_floor)
    density = hq / n
    if cfg.policy == "eb_shrinkage":
        estimate = posterior_mean(hq, n, prior.alpha[gidx], prior.beta[gidx])
    else:
        estimate = density
    s["sample_size"] = n.astype(np.int64)
    s["sampled_density"] = density
    s["estimate"] = estimate
    s["policy"] = cfg.policy
    s["_lang"], s["_cat"] = lang, cat

    u = (unsampled.reset_index(drop=True).copy() if unsampled is not None and len(unsampled)
         else pd.DataFrame(columns=["surt_host_name", "registered_domain", "tld", "cap_known"]))
    u = u[~u.surt_host_name.isin(s.surt_host_name)].reset_index(drop=True)
    u_cat = _category(u.tld) if len(u) else pd.Series([], dtype=object)
    # unsampled hosts: language unknown, so the prior of their TLD category pooled over languages
    cat_mean = category_means(s)
    u["language"] = None
    u["sample_size"] = 0
    u["sampled_density"] = np.nan
    u["estimate"] = [cat_mean.get(c, prior.mean) for c in u_cat]
    u["policy"] = "explore"
    u["_lang"], u["_cat"] = UNKNOWN_LANGUAGE, u_cat

    rows = pd.concat([s, u], ignore_index=True) if len(u) else s
    cap_known = pd.to_numeric(rows.get("cap_known"), errors="coerce")
    cap = np.where(cap_known.isna(), cfg.default_cap, cap_known.fillna(0)).astype(np.int64)
    cap = np.minimum(np.maximum(cap, 0), cfg.politeness_max)
    rank_order = np.lexsort((rows.surt_host_name.to_numpy(), -rows.sample_size.to_numpy(),
                             -rows.estimate.to_numpy(dtype=np.float64)))
    rank = np.empty(len(rows), dtype=np.int64)
    rank[rank_order] = np.arange(1, len(rows) + 1)
    is_explore = (rows.policy == "explore").to_numpy()
    alloc = np.zeros(len(rows), dtype=np.int64)
    reason = np.array(["below_cutoff"] * len(rows), dtype=object)
    reason[cap == 0] = "no_capacity"

    # 1. exploration reserve: the next sample of hosts nobody scored, best group prior first
    reserve = cfg.explore_reserve if is_explore.any() else 0
    ex_order = rank_order[is_explore[rank_order]]
    room = np.where(is_explore, np.minimum(cap, cfg.explore_pages), 0)
    give = _fill(ex_order, room, reserve)
    alloc += give
    reason[give > 0] = "explore"
    left = cfg.total_budget - int(give.sum())

    # 2. floors (language, then TLD macro-category), best-ranked sampled hosts of the group first
    sampled_mask = ~is_explore
    floors = [("language", lang_, share) for lang_, share in language_floors(cfg, lang).items()]
    floors += [("tld_category", c, share) for c, share in cfg.tld_category_floors.items()]
    for kind, value, share in floors:
        col = rows._lang if kind == "language" else rows._cat
        member = sampled_mask & (col == value).to_numpy()
        want = int(round(share * cfg.total_budget)) - int(alloc[member].sum())
        want = min(want, left)
        if want <= 0:
            continue
        order = rank_order[member[rank_order]]
        give = _fill(order, cap - alloc, want)
        alloc += give
        reason[give > 0] = f"floor:{kind}={value}"
        left -= int(give.sum())

    # 3. everything else in rank order
    order = rank_order[sampled_mask[rank_order]]
    give = _fill(order, cap - alloc, left)
    newly = (give > 0) & (alloc == 0)
    alloc += give
    reason[newly] = "rank"
    capped = (alloc > 0) & (alloc == cap) & (cap == cfg.politeness_max)
    reason[capped] = [f"{r};capped:politeness" for r in reason[capped]]

    out = rows.assign(allocated_pages=alloc, rank=rank, reason=reason)
    out["sample_size"] = out.sample_size.astype("int64")
    out["sampled_density"] = out.sampled_density.astype("float64")
    out["estimate"] = out.estimate.astype("float64")
    return out.sort_values(["rank"], kind="stable")[BUDGET_COLUMNS].reset_index(drop=True)

