"""The allocator: per-host crawl budgets for the next crawl from sampled host scores.

Given each sampled host's sample (pages scored, high-quality among them) and a total budget B,
hosts are ranked by an estimate of their quality density and filled in rank order up to a cap.
Three guards keep the plan from collapsing onto what the classifier likes (the paper's
Limitations): a reserve for exploring hosts nobody sampled yet, per-language and per-TLD
macro-category floors, and per-host caps (uncrawled known URLs from the host index and a
politeness maximum). Every host gets a ``reason`` so a plan can be audited line by line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import settings_from
from crawlplan.hosts import tld_category
from crawlplan.policies import hostdata
from crawlplan.policies.adaptive import beta_prior, posterior_mean
from crawlplan.stats.host_stats import UNKNOWN_LANGUAGE, tld_category_column

BUDGET_COLUMNS = ["surt_host_name", "registered_domain", "tld", "language", "sample_size", "sampled_density",
                  "estimate", "allocated_pages", "rank", "policy", "reason"]
POLICIES = ("eb_shrinkage", "sample_then_deepen")


@dataclass(frozen=True)
class AllocatorConfig:
    """Conf section ``policies.allocate`` (the keys' meaning and defaults: conf/defaults.yaml)."""
    total_budget: int            # pages to fetch in the next crawl
    policy: str                  # eb_shrinkage | sample_then_deepen (raw sampled density)
    politeness_max: int          # most pages one host may get
    default_cap: int             # cap when the host index does not know the host
    explore_share: float         # budget reserved for hosts without a sample
    explore_pages: int           # pages per explored host (the next sample)
    min_share_per_language: float  # floor for every language present
    language_floors: dict        # language -> share of B
    tld_category_floors: dict    # academic|commercial|... -> share of B

    @classmethod
    def from_params(cls, params: dict) -> AllocatorConfig:
        cfg = settings_from(cls, params, "policies.allocate")
        return replace(cfg, language_floors={str(k): float(v) for k, v in cfg.language_floors.items()},
                       tld_category_floors={str(k): float(v) for k, v in cfg.tld_category_floors.items()})

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown allocator policy '{self.policy}'; known: {', '.join(POLICIES)}")
        if self.total_budget < 0 or not 0.0 <= self.explore_share <= 1.0:
            raise ValueError("total_budget must be >= 0 and explore_share in [0, 1]")
        floors = sum(self.language_floors.values()) + sum(self.tld_category_floors.values())
        if any(v < 0 for v in [*self.language_floors.values(), *self.tld_category_floors.values()]) or floors > 2.0:
            raise ValueError("floors are shares of the budget in [0, 1]")

    @property
    def explore_reserve(self) -> int:
        """Pages reserved for hosts nobody sampled (when there are any to explore)."""
        return int(round(self.explore_share * self.total_budget))


def _category(tld: pd.Series) -> pd.Series:
    return tld.fillna("").astype(str).map(lambda t: tld_category(t) if t else "other")


def category_means(sampled: pd.DataFrame) -> dict[str, float]:
    """Pooled high-quality density of the sampled hosts per TLD macro-category: the estimate of a
    host nobody sampled (its language is unknown, so the prior is pooled over languages)."""
    if not len(sampled):
        return {}
    sums = sampled.assign(_cat=_category(sampled.tld)).groupby("_cat")[["hq_pages", "n_pages"]].sum()
    return {str(c): float(hq / n) for c, hq, n in zip(sums.index, sums.hq_pages, sums.n_pages)}


def explore_candidates(index: DataFrame, sampled: pd.DataFrame, cfg: AllocatorConfig, known_column: str,
                       fetched_column: str) -> pd.DataFrame:
    """The hosts of the host index nobody sampled that the exploration reserve can pay for, best
    TLD-category prior first (then most uncrawled known URLs, then name): ``surt_host_name,
    registered_domain, tld, cap_known``.

    Ranked and cut in Spark (column expressions: the category rule is ``tld_category_column``), so
    only as many hosts as the reserve can explore reach the driver, never a host index of tens of
    millions of hosts."""
    reserve = cfg.explore_reserve
    means = category_means(sampled)
    overall = float(sampled.hq_pages.sum() / sampled.n_pages.sum())
    category = tld_category_column(F.translate(F.col("surt_host_name"), ",", "."))
    estimate = F.lit(overall)
    if means:
        prior_of = F.create_map(*[x for c, m in sorted(means.items()) for x in (F.lit(c), F.lit(m))])
        estimate = F.coalesce(F.element_at(prior_of, category), estimate)
    known = index.sparkSession.createDataFrame(sampled[["surt_host_name"]])
    candidates = (index.join(known, "surt_host_name", "left_anti")
                  .select("surt_host_name", F.col("url_host_registered_domain").alias("registered_domain"),
                          F.col("url_host_tld").alias("tld"),
                          hostdata.uncrawled_known(known_column, fetched_column).alias("cap_known"))
                  .withColumn("_estimate", estimate)
                  .orderBy(F.desc("_estimate"), F.desc("cap_known"), F.asc("surt_host_name"))
                  .limit(max(1, reserve)))
    return candidates.drop("_estimate").toPandas()


@dataclass(frozen=True)
class BudgetPlan:
    budgets: pd.DataFrame       # the ``budgets`` rows, by rank
    hosts_sampled: int
    explore_candidates: int | None   # None: no host index, nothing to explore


def plan_budgets(hosts: DataFrame, index: DataFrame | None, cfg: AllocatorConfig, *, classifier: str,
                 known_column: str, fetched_column: str) -> BudgetPlan:
    """The whole allocation from the per-host table (``hostdata.host_counts`` + ``with_host_index``)
    and one crawl of the host index: sampled hosts on the driver, exploration candidates cut in
    Spark, then ``allocate``."""
    sampled = hostdata.to_pandas_hosts(hosts)
    if sampled.empty:
        raise ValueError(f"no host has a '{classifier}' score: nothing to allocate")
    unsampled = None
    if index is not None and cfg.explore_reserve > 0:
        unsampled = explore_candidates(index, sampled, cfg, known_column, fetched_column)
    return BudgetPlan(allocate(sampled, unsampled, cfg), len(sampled),
                      None if unsampled is None else len(unsampled))


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
    prior = beta_prior(hq, n, gidx, len(groups))
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
    floors = [("language", lang_, share) for lang_, share in _language_floors(cfg, lang).items()]
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


def _language_floors(cfg: AllocatorConfig, lang: pd.Series) -> dict:
    floors = {}
    if cfg.min_share_per_language > 0:
        floors = {lg: cfg.min_share_per_language for lg in sorted(set(lang))}
    floors.update(cfg.language_floors)
    return floors
