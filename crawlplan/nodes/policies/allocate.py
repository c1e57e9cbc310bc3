"""Node allocate: scores (+ host index) -> budgets, the per-host plan for the next crawl.

The policy is ``crawlplan.policies.allocate`` (exploration reserve, priors, candidate ranking,
caps and floors); this node reads the inputs, calls it and counts.
"""

from __future__ import annotations

from crawlplan.nodes.policies.common import host_index_rows
from crawlplan.policies import hostdata
from crawlplan.policies.allocate import AllocatorConfig, plan_budgets
from crawlplan.schemas import conform


def run(ctx) -> dict:
    cfg = AllocatorConfig.from_params(ctx.params)
    table = hostdata.HostTableSettings.from_params(ctx.params, "policies.allocate", min_pages=1)
    scores = ctx.read("scores")
    hosts = hostdata.host_counts(scores, table.classifier, table.threshold, table.min_pages)
    index = host_index_rows(ctx, scores, table)
    hosts = hostdata.with_host_index(hosts, index, table.cc_budget_column, table.known_column, table.fetched_column)
    plan = plan_budgets(hosts, index, cfg, classifier=table.classifier, known_column=table.known_column,
                        fetched_column=table.fetched_column)
    if plan.explore_candidates is not None:
        ctx.count("explore_candidates", plan.explore_candidates)
    ctx.count("hosts_sampled", plan.hosts_sampled)
    ctx.count("pages_allocated", plan.pages_allocated)
    ctx.count("hosts_allocated", plan.hosts_allocated)
    if plan.pages_allocated < cfg.total_budget:
        ctx.note(f"only {plan.pages_allocated:,} of {cfg.total_budget:,} pages could be allocated: "
                 "the hosts' caps (uncrawled known URLs, politeness maximum) bind")
    return {"budgets": conform(plan.budgets, "budgets")}
