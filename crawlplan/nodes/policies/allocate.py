"""Node allocate: scores (+ host index) -> budgets, the per-host plan for the next crawl.

The policy is ``crawlplan.policies.allocate`` (exploration reserve, priors, candidate ranking,
caps and floors); this node reads the inputs, calls it and counts.
"""

from __future__ import annotations

from crawlplan.nodes.policies.common import host_index_rows, params
from crawlplan.policies import hostdata
from crawlplan.policies.allocate import AllocatorConfig, plan_budgets
from crawlplan.schemas import conform


def allocator_config(p: dict) -> AllocatorConfig:
    return AllocatorConfig(
        total_budget=int(p.get("total_budget", 1_000_000)), policy=str(p.get("policy", "eb_shrinkage")),
        politeness_max=int(p.get("politeness_max", 50_000)), default_cap=int(p.get("default_cap", 1000)),
        explore_share=float(p.get("explore_share", 0.05)), explore_pages=int(p.get("explore_pages", 3)),
        min_share_per_language=float(p.get("min_share_per_language", 0.0)),
        language_floors={str(k): float(v) for k, v in (p.get("language_floors") or {}).items()},
        tld_category_floors={str(k): float(v) for k, v in (p.get("tld_category_floors") or {}).items()},
    )


def run(ctx) -> dict:
    p = params(ctx)
    cfg = allocator_config(p)
    scores = ctx.read("scores")
    hosts = hostdata.host_counts(scores, str(p["classifier"]), float(p["threshold"]), 1)
    index = host_index_rows(ctx, scores, p)
    hosts = hostdata.with_host_index(hosts, index, p["cc_budget_column"], p["known_column"], p["fetched_column"])
    plan = plan_budgets(hosts, index, cfg, classifier=str(p["classifier"]), known_column=p["known_column"],
                        fetched_column=p["fetched_column"])
    if plan.explore_candidates is not None:
        ctx.count("explore_candidates", plan.explore_candidates)
    allocated = int(plan.budgets.allocated_pages.sum())
    ctx.count("hosts_sampled", plan.hosts_sampled)
    ctx.count("pages_allocated", allocated)
    ctx.count("hosts_allocated", int((plan.budgets.allocated_pages > 0).sum()))
    if allocated < cfg.total_budget:
        ctx.note(f"only {allocated:,} of {cfg.total_budget:,} pages could be allocated: "
                 "the hosts' caps (uncrawled known URLs, politeness maximum) bind")
    return {"budgets": conform(plan.budgets, "budgets", spark=ctx.spark)}
