"""The allocator: per-host crawl budgets for the next crawl from sampled host scores (Spark).

Given each sampled host's sample (pages scored, high-quality among them) and a total budget B,
hosts are ranked by an estimate of their quality density and filled in rank order up to a cap.
Three guards keep the plan from collapsing onto what the classifier likes (the paper's
Limitations): a reserve for exploring hosts nobody sampled yet, per-language and per-TLD
macro-category floors, and per-host caps (uncrawled known URLs from the host index and a
politeness maximum). Every host gets a ``reason`` so a plan can be audited line by line.

A whole crawl has tens of millions of hosts, so the plan is Spark transformations end to end: the
prior comes from per-group sums (language x TLD category: a bounded table), the estimate is a
column expression, the rank and every fill are running sums along the rank
(``ranking.prefix_sums``), and the budgets are written by Spark. The driver sees the group sums,
one row per ranking partition and the counters, never a host. The same allocation on a table in
memory is ``allocate_table.allocate``, the definition this one is tested against row for row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import settings_from
from crawlplan.policies import hostdata
from crawlplan.policies.adaptive import Prior, prior_from_sums
from crawlplan.policies.ranking import prefix_sums
from crawlplan.stats.host_stats import UNKNOWN_LANGUAGE
from crawlplan.stats.reference import ICCResult, icc1_from_count_sums

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
    prior_icc_floor: float       # smallest ICC the prior's strength is computed from
    rank_rows_per_partition: int  # hosts per partition of the distributed ranking and fills

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
        if self.rank_rows_per_partition < 1:
            raise ValueError("rank_rows_per_partition must be >= 1")

    @property
    def explore_reserve(self) -> int:
        """Pages reserved for hosts nobody sampled (when there are any to explore)."""
        return int(round(self.explore_share * self.total_budget))


def language_floors(cfg: AllocatorConfig, languages) -> dict:
    """The language floors in the order they are filled: every language present (sorted) when
    ``min_share_per_language`` is set, then ``language_floors`` (overriding a share it names)."""
    floors = {}
    if cfg.min_share_per_language > 0:
        floors = {lg: cfg.min_share_per_language for lg in sorted(set(languages))}
    floors.update(cfg.language_floors)
    return floors


def _literal_map(values: dict) -> Column:
    return F.create_map(*[x for key, v in sorted(values.items()) for x in (F.lit(key), F.lit(v))])


def _cap(cap_known: Column, cfg: AllocatorConfig) -> Column:
    cap = F.when(cap_known.isNull(), F.lit(int(cfg.default_cap))).otherwise(cap_known)
    return F.least(F.greatest(cap, F.lit(0)), F.lit(int(cfg.politeness_max))).cast("long")


@dataclass(frozen=True)
class GroupSums:
    """The sampled hosts summed per prior group (language x TLD category): all the driver needs."""
    keys: list            # (language, category), sorted as 'language|category'
    hosts: np.ndarray
    hq: np.ndarray
    pages: np.ndarray
    flags: ICCResult      # ICC1 of the hosts' page flags (from the summed counts)
    bad: int              # hosts with n_pages <= 0 or hq_pages outside [0, n_pages]

    def category_means(self) -> dict[str, float]:
        """Pooled high-quality density per TLD category (the estimate of a host nobody sampled)."""
        cats = sorted({c for _, c in self.keys})
        return {c: float(sum(h for (_, k), h in zip(self.keys, self.hq) if k == c)
                         / sum(n for (_, k), n in zip(self.keys, self.pages) if k == c)) for c in cats}


def group_sums(sampled: DataFrame) -> GroupSums:
    """One bounded aggregation of the sampled rows (``_lang``, ``_cat``, ``n_pages``, ``hq_pages``)."""
    n, hq = F.col("n_pages").cast("double"), F.col("hq_pages").cast("double")
    bad = (F.col("n_pages") <= 0) | (F.col("hq_pages") < 0) | (F.col("hq_pages") > F.col("n_pages"))
    rows = sampled.groupBy("_lang", "_cat").agg(
        F.count(F.lit(1)).alias("hosts"), F.sum(hq).alias("hq"), F.sum(n).alias("pages"),
        F.sum(F.when(n > 0, hq * hq / n)).alias("hq_sq_over_n"),
        F.sum(n * n).alias("pages_sq"), F.sum(bad.cast("long")).alias("bad")).collect()
    rows = sorted(rows, key=lambda r: f"{r['_lang']}|{r['_cat']}")
    arr = lambda name: np.array([float(r[name] or 0) for r in rows], dtype=np.float64)  # noqa: E731
    hosts, hq_, pages = arr("hosts"), arr("hq"), arr("pages")
    flags = icc1_from_count_sums(int(hosts.sum()), float(pages.sum()), float(hq_.sum()),
                                 float(arr("hq_sq_over_n").sum()), float(arr("pages_sq").sum()))
    return GroupSums([(r["_lang"], r["_cat"]) for r in rows], hosts, hq_, pages, flags,
                     int(arr("bad").sum()))


@dataclass(frozen=True)
class BudgetPlan:
    budgets: DataFrame          # the ``budgets`` rows (Spark), sorted by rank
    hosts_sampled: int
    explore_candidates: int | None   # None: no host index, nothing to explore
    pages_allocated: int
    hosts_allocated: int


def sampled_rows(hosts: DataFrame, cfg: AllocatorConfig) -> DataFrame:
    """The scored hosts with their prior group (``_lang``, ``_cat``) and cap (``_cap``)."""
    cap_known = F.col("cap_known") if "cap_known" in hosts.columns else F.lit(None).cast("long")
    return hosts.select("surt_host_name", "registered_domain", "tld", "language", "n_pages", "hq_pages",
                        F.coalesce(F.col("language"), F.lit(UNKNOWN_LANGUAGE)).alias("_lang"),
                        hostdata.tld_category_of(F.col("tld")).alias("_cat"), _cap(cap_known, cfg).alias("_cap"))


def _with_estimate(sampled: DataFrame, sums: GroupSums, prior: Prior, cfg: AllocatorConfig) -> DataFrame:
    n, hq = F.col("n_pages").cast("double"), F.col("hq_pages").cast("double")
    estimate = hq / n
    if cfg.policy == "eb_shrinkage":   # adaptive.posterior_mean (a + s) / (a + b + k) with the group's prior
        keys = [f"{lang}|{cat}" for lang, cat in sums.keys]
        key = F.concat_ws("|", "_lang", "_cat")
        a = F.element_at(_literal_map(dict(zip(keys, prior.alpha.tolist()))), key)
        b = F.element_at(_literal_map(dict(zip(keys, prior.beta.tolist()))), key)
        estimate = (a + hq) / (a + b + n)
    return sampled.select("surt_host_name", "registered_domain", "tld", "language",
                          F.col("n_pages").cast("int").alias("sample_size"), (hq / n).alias("sampled_density"),
                          estimate.alias("estimate"), F.lit(cfg.policy).alias("policy"), "_lang", "_cat", "_cap",
                          F.lit(True).alias("_sampled"))


def explore_candidates(index: DataFrame, hosts: DataFrame, cfg: AllocatorConfig, *, category_means: dict,
                       fallback: float, known_column: str, fetched_column: str) -> DataFrame:
    """Every host of the host index nobody sampled (a left-anti join), as a budgets row to explore:
    language unknown, so its estimate is its TLD category's pooled density (``fallback``, the
    prior's global mean, for a category no sampled host has). How many of them the reserve pays
    for is the explore fill's business, along the rank."""
    category = hostdata.tld_category_of(F.col("tld"))
    estimate = F.lit(float(fallback))
    if category_means:
        estimate = F.coalesce(F.element_at(_literal_map(category_means), category), estimate)
    return (index.join(hosts.select("surt_host_name"), "surt_host_name", "left_anti")
            .select("surt_host_name", F.col("url_host_registered_domain").alias("registered_domain"),
                    F.col("url_host_tld").alias("tld"),
                    hostdata.uncrawled_known(known_column, fetched_column).alias("_known"))
            .select("surt_host_name", "registered_domain", "tld", F.lit(None).cast("string").alias("language"),
                    F.lit(0).cast("int").alias("sample_size"), F.lit(None).cast("double").alias("sampled_density"),
                    estimate.alias("estimate"), F.lit("explore").alias("policy"),
                    F.lit(UNKNOWN_LANGUAGE).alias("_lang"), category.alias("_cat"),
                    _cap(F.col("_known"), cfg).alias("_cap"), F.lit(False).alias("_sampled")))


def _running_room(df: DataFrame, room: Column, cfg: AllocatorConfig, segment: str | None = None):
    """The room of the rows before each row along the rank (``_before``; within ``segment``) and
    each segment's total room: the two halves of a fill meet at the budget."""
    return prefix_sums(df.withColumn("_room", room), "_room", [F.col("rank")], out="_before",
                       rows_per_partition=cfg.rank_rows_per_partition, segment=segment, position="rank")


def _give(summed: DataFrame, budget, label: Column, *, segment: str | None = None, new_only: bool = False):
    """Pages along the rank up to each row's room until ``budget`` is spent (a segment -> budget
    dict with ``segment``): ``_alloc`` grows by them and ``reason`` becomes ``label`` where a row
    gets pages (``new_only``: only where it had none)."""
    if segment is None:
        want = F.lit(int(budget))
    elif budget:
        want = F.coalesce(F.element_at(_literal_map({str(k): int(v) for k, v in budget.items()}),
                                       F.col(segment).cast("string")), F.lit(0))
    else:
        want = F.lit(0)
    give = F.greatest(F.lit(0), F.least(F.col("_room"), want - F.col("_before"))).cast("long")
    hit = (F.col("_give") > 0) & (F.col("_alloc") == 0) if new_only else F.col("_give") > 0
    return (summed.withColumn("_give", give).withColumn("reason", F.when(hit, label).otherwise(F.col("reason")))
            .withColumn("_alloc", F.col("_alloc") + F.col("_give")).drop("_room", "_before", "_give")
            .localCheckpoint(eager=True))   # the next fill starts from here, not from the whole lineage


def _chain(floors: list, room: dict, placed: dict, left: int, total: int) -> tuple[dict, int]:
    """Floors filled one after another: each wants its share of the budget less what its members
    already hold, at most what is left; returns the budget of each floor and what is left after."""
    wants = {}
    for value, share in floors:
        want = min(int(round(share * total)) - int(placed.get(value, 0)), left)
        if want <= 0:
            continue
        wants[value] = want
        left -= min(want, int(room.get(value, 0)))
    return wants, left


def plan_budgets(hosts: DataFrame, index: DataFrame | None, cfg: AllocatorConfig, *, classifier: str,
                 known_column: str, fetched_column: str) -> BudgetPlan:
    """The whole allocation from the per-host table (``hostdata.host_counts`` + ``with_host_index``)
    and one crawl of the host index, as Spark transformations: prior from group sums, estimate,
    rank, then the fills (exploration reserve, language floors, TLD-category floors, the rest in
    rank order), each a running sum along the rank."""
    sampled = sampled_rows(hosts, cfg)
    sums = group_sums(sampled)
    if not sums.hosts.sum():
        raise ValueError(f"no host has a '{classifier}' score: nothing to allocate")
    if sums.bad:
        raise ValueError("sampled hosts need n_pages > 0 and 0 <= hq_pages <= n_pages")
    prior = prior_from_sums(sums.hq, sums.pages, sums.hosts, sums.flags, cfg.prior_icc_floor)
    table = _with_estimate(sampled, sums, prior, cfg)
    explore = None
    if index is not None and cfg.explore_reserve > 0:
        explore = explore_candidates(index, hosts, cfg, category_means=sums.category_means(), fallback=prior.mean,
                                     known_column=known_column, fetched_column=fetched_column)
        table = table.unionByName(explore)
    order = [F.desc("estimate"), F.desc("sample_size"), F.asc("surt_host_name")]
    ranked, _ = prefix_sums(table.withColumn("_one", F.lit(1)), "_one", order, out="rank",
                            rows_per_partition=cfg.rank_rows_per_partition)
    df = (ranked.withColumn("rank", F.col("rank") + 1).drop("_one").withColumn("_alloc", F.lit(0).cast("long"))
          .withColumn("reason", F.when(F.col("_cap") == 0, "no_capacity").otherwise("below_cutoff"))
          .localCheckpoint(eager=True))
    sampled_room = lambda: F.when(F.col("_sampled"), F.col("_cap") - F.col("_alloc")).otherwise(0)  # noqa: E731
    total, left = cfg.total_budget, cfg.total_budget
    # 1. exploration reserve: the next sample of hosts nobody scored, best group prior first
    if explore is not None:
        room = F.when(F.col("_sampled"), 0).otherwise(F.least(F.col("_cap"), F.lit(int(cfg.explore_pages))))
        summed, room_total = _running_room(df, room, cfg)
        df = _give(summed, cfg.explore_reserve, F.lit("explore"))
        left -= min(cfg.explore_reserve, room_total.get("", 0))
    # 2. floors (language, then TLD macro-category), best-ranked sampled hosts of the group first;
    # the groups of one kind are disjoint, so each kind is one fill with a budget per group
    lang_floors = list(language_floors(cfg, sorted({lang for lang, _ in sums.keys})).items())
    if lang_floors:
        summed, room_total = _running_room(df, sampled_room(), cfg, "_lang")
        wants, left = _chain(lang_floors, room_total, {}, left, total)
        if wants:
            df = _give(summed, wants, F.concat(F.lit("floor:language="), F.col("_lang")), segment="_lang")
    cat_floors = list(cfg.tld_category_floors.items())
    if cat_floors:
        placed = {r["_cat"]: int(r["placed"] or 0) for r in df.where(F.col("_sampled")).groupBy("_cat")
                  .agg(F.sum("_alloc").alias("placed")).collect()}
        summed, room_total = _running_room(df, sampled_room(), cfg, "_cat")
        wants, left = _chain(cat_floors, room_total, placed, left, total)
        if wants:
            df = _give(summed, wants, F.concat(F.lit("floor:tld_category="), F.col("_cat")), segment="_cat")
    # 3. everything else in rank order
    summed, _ = _running_room(df, sampled_room(), cfg)
    df = _give(summed, left, F.lit("rank"), new_only=True)
    capped = (F.col("_alloc") > 0) & (F.col("_alloc") == F.col("_cap")) & (F.col("_cap") == int(cfg.politeness_max))
    budgets = df.select(*[F.col(c) for c in BUDGET_COLUMNS if c not in ("allocated_pages", "rank", "reason")],
                        F.col("_alloc").alias("allocated_pages"), "rank",
                        F.when(capped, F.concat(F.col("reason"), F.lit(";capped:politeness")))
                        .otherwise(F.col("reason")).alias("reason")).select(*BUDGET_COLUMNS)
    counts = budgets.agg(F.sum((F.col("policy") != "explore").cast("long")).alias("sampled"),
                         F.sum((F.col("policy") == "explore").cast("long")).alias("explore"),
                         F.sum("allocated_pages").alias("pages"),
                         F.sum((F.col("allocated_pages") > 0).cast("long")).alias("funded")).first()
    return BudgetPlan(budgets.orderBy("rank"), int(counts["sampled"] or 0),
                      None if explore is None else int(counts["explore"] or 0), int(counts["pages"] or 0),
                      int(counts["funded"] or 0))
