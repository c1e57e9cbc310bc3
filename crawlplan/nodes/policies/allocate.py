"""Node allocate: scores (+ host index) -> budgets, the per-host plan for the next crawl.

Every host with at least one scored page is a sampled host. Hosts the host index knows but
nobody scored are exploration candidates; only as many as the exploration reserve can pay for
are brought to the driver (best TLD-category prior first), so a host index of tens of millions
of hosts is never collected.
"""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan.hosts import rev_to_host, surt_to_rev, tld_category
from crawlplan.nodes.policies.common import host_index_rows, params, to_spark
from crawlplan.policies import hostdata
from crawlplan.policies.allocate import AllocatorConfig, allocate


def allocator_config(p: dict) -> AllocatorConfig:
    return AllocatorConfig(
        total_budget=int(p.get("total_budget", 1_000_000)), policy=str(p.get("policy", "eb_shrinkage")),
        politeness_max=int(p.get("politeness_max", 50_000)), default_cap=int(p.get("default_cap", 1000)),
        explore_share=float(p.get("explore_share", 0.05)), explore_pages=int(p.get("explore_pages", 3)),
        min_share_per_language=float(p.get("min_share_per_language", 0.0)),
        language_floors={str(k): float(v) for k, v in (p.get("language_floors") or {}).items()},
        tld_category_floors={str(k): float(v) for k, v in (p.get("tld_category_floors") or {}).items()},
    )


@F.udf(T.StringType())
def _category_of_surt(surt):
    return tld_category(rev_to_host(surt_to_rev(surt))) if surt else "other"


def run(ctx) -> dict:
    p = params(ctx)
    cfg = allocator_config(p)
    scores = ctx.read("scores")
    hosts = hostdata.host_counts(scores, str(p["classifier"]), float(p["threshold"]), 1)
    index = host_index_rows(ctx, scores, p)
    hosts = hostdata.with_host_index(hosts, index, p["cc_budget_column"], p["known_column"], p["fetched_column"])
    sampled = hostdata.to_pandas_hosts(hosts)
    if sampled.empty:
        raise ValueError(f"no host has a '{p['classifier']}' score: nothing to allocate")
    unsampled = None
    reserve = int(round(cfg.explore_share * cfg.total_budget))
    if index is not None and reserve > 0:
        cats = sampled.assign(cat=sampled.tld.fillna("").map(lambda t: tld_category(t) if t else "other"))
        means = (cats.groupby("cat").hq_pages.sum() / cats.groupby("cat").n_pages.sum()).to_dict()
        prior = float(sampled.hq_pages.sum() / sampled.n_pages.sum())
        est = F.coalesce(F.element_at(F.create_map(*[x for c, m in sorted(means.items())
                                                    for x in (F.lit(c), F.lit(float(m)))]),
                                      _category_of_surt("surt_host_name")), F.lit(prior)) if means else F.lit(prior)
        cand = (index.join(sampled[["surt_host_name"]].pipe(lambda d: ctx.spark.createDataFrame(d)),
                           "surt_host_name", "left_anti")
                .select("surt_host_name", F.col("url_host_registered_domain").alias("registered_domain"),
                        F.col("url_host_tld").alias("tld"),
                        F.greatest(F.col(p["known_column"]) - F.coalesce(F.col(p["fetched_column"]), F.lit(0)),
                                   F.lit(0)).cast("long").alias("cap_known"))
                .withColumn("_est", est)
                .orderBy(F.desc("_est"), F.desc("cap_known"), F.asc("surt_host_name"))
                .limit(max(1, reserve)))
        unsampled = cand.drop("_est").toPandas()
        ctx.count("explore_candidates", len(unsampled))
    plan = allocate(sampled, unsampled, cfg)
    ctx.count("hosts_sampled", len(sampled))
    ctx.count("pages_allocated", int(plan.allocated_pages.sum()))
    ctx.count("hosts_allocated", int((plan.allocated_pages > 0).sum()))
    if int(plan.allocated_pages.sum()) < cfg.total_budget:
        ctx.note(f"only {int(plan.allocated_pages.sum()):,} of {cfg.total_budget:,} pages could be allocated: "
                 "the hosts' caps (uncrawled known URLs, politeness maximum) bind")
    return {"budgets": to_spark(ctx.spark, plan, "budgets")}
