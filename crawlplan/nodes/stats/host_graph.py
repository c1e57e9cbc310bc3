"""Node host_graph: web graph release + host_scores -> host_features, rank_stability.

``host_features`` has one row per scored host with its log HC / log PR (null when the host is
not in the graph: counted, and excluded from the correlations downstream) and, when enabled,
in/out degree from the edge list. With ``domain_ranks`` set, each host also gets the
centrality of its registered domain from the domain-level release (``domain_*`` columns).
``rank_stability`` compares this release with ``stats.host_graph.previous_release`` when one is
configured (Table 2), else it is empty. The computation is ``crawlplan.stats.host_graph``.

Each release's ``www`` convention is measured on its own vertices (or set by
``www_convention`` / ``previous_www_convention``), so two releases that name ``www.`` hosts
differently still meet on the project's host key.
"""

from __future__ import annotations

from crawlplan.conf import number_setting, section
from crawlplan.graph import webgraph
from crawlplan.stats import host_graph


def run(ctx) -> dict:
    settings = host_graph.HostGraphSettings.from_params(ctx.params)
    path = str(ctx.input("web_graph"))
    base = str(section(ctx.conf, "inputs")["web_graph_base"]) or None
    convention = _convention(ctx, path, base, settings.www_convention)
    ranks = webgraph.read_host_ranks(ctx.spark, path, convention=convention)
    bad = webgraph.count_bad_rank_rows(ctx.spark, path)
    if bad:
        ctx.count("graph_rank_rows_rejected", bad)
        ctx.note(f"web graph: {bad} rows of the ranks file did not parse and were skipped")
    feats = host_graph.host_features(ctx.spark, ctx.read("host_scores"), ranks, path, convention=convention,
                                     base=base, degrees=settings.degrees)
    feats, domain = host_graph.with_domain_level(ctx.spark, feats, settings.domain_ranks)
    if domain is not None:
        if domain.bad_rows:
            ctx.count("graph_domain_rank_rows_rejected", domain.bad_rows)
            ctx.note(f"domain graph: {domain.bad_rows} rows of the domain ranks file did not parse and were skipped")
        ctx.count("hosts_with_domain_ranks", domain.hosts_with_domain_ranks)
        ctx.count("hosts_ranked_by_domain_only", domain.hosts_ranked_by_domain_only)
        ctx.note(f"domain graph: {domain.hosts_with_domain_ranks} scored hosts have their registered domain's "
                 f"ranks, {domain.hosts_ranked_by_domain_only} of them are not in the host graph")
    feats = host_graph.select_features(ctx.spark, feats, path)
    hosts, missing = host_graph.graph_coverage(feats)
    ctx.count("hosts", hosts)
    ctx.count("hosts_missing_from_graph", missing)
    if missing:
        ctx.note(f"{missing} of {hosts} scored hosts are not in the web graph; they are excluded "
                 f"from the centrality correlations")
    previous = settings.previous_release
    previous_convention = _convention(ctx, previous, base, settings.previous_www_convention) if previous else None
    stab = host_graph.release_stability(ctx.spark, previous, previous_convention, ranks, path)
    return {"host_features": feats, "rank_stability": stab}


def _convention(ctx, path: str, base: str | None, setting: str):
    min_names = number_setting("inputs.www_min_names", section(ctx.conf, "inputs")["www_min_names"], integer=True)
    convention = webgraph.release_convention(ctx.spark, path, base, setting, min_names)
    ctx.note(f"web graph {webgraph.release_name(ctx.spark, path)}: {convention.describe()}")
    return convention
