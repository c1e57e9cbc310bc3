"""Node host_graph: web graph release + host_scores -> host_features, rank_stability.

``host_features`` has one row per scored host with its log HC / log PR (null when the host is
not in the graph: counted, and excluded from the correlations downstream) and, when enabled,
in/out degree from the edge list. ``rank_stability`` compares this release with
``stats.host_graph.previous_release`` when one is configured (Table 2), else it is empty.
"""

from __future__ import annotations

from crawlplan.graph import webgraph
from crawlplan.stats import host_graph


def run(ctx) -> dict:
    settings = host_graph.HostGraphSettings.from_params(ctx.params)
    path = str(ctx.input("web_graph"))
    ranks = webgraph.read_host_ranks(ctx.spark, path)
    bad = webgraph.count_bad_rank_rows(ctx.spark, path)
    if bad:
        ctx.count("graph_rank_rows_rejected", bad)
        ctx.note(f"web graph: {bad} rows of the ranks file did not parse and were skipped")
    feats = host_graph.host_features(ctx.spark, ctx.read("host_scores"), ranks, path,
                                     base=settings.base or None, degrees=settings.degrees)
    hosts, missing = host_graph.graph_coverage(feats)
    ctx.count("hosts", hosts)
    ctx.count("hosts_missing_from_graph", missing)
    if missing:
        ctx.note(f"{missing} of {hosts} scored hosts are not in the web graph; they are excluded "
                 f"from the centrality correlations")
    stab = host_graph.release_stability(ctx.spark, settings.previous_release, ranks, path)
    return {"host_features": feats, "rank_stability": stab}
