"""Node host_graph: web graph release + host_scores -> host_features, rank_stability.

``host_features`` has one row per scored host with its log HC / log PR (null when the host is
not in the graph: counted, and excluded from the correlations downstream) and, when enabled,
in/out degree from the edge list. ``rank_stability`` compares this release with
``stats.host_graph.previous_release`` when one is configured (Table 2), else it is empty.
"""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan.graph import webgraph as W
from crawlplan.stats.correlate import rank_stability


def run(ctx) -> dict:
    p = ctx.params
    path = str(ctx.input("web_graph"))
    base = p.get("base") or None
    hs = ctx.read("host_scores")
    hosts = hs.select("rev_host", "surt_host_name").distinct()
    ranks = W.read_host_ranks(ctx.spark, path)
    bad = W.count_bad_rank_rows(ctx.spark, path)
    if bad:
        ctx.count("graph_rank_rows_rejected", bad)
        ctx.note(f"web graph: {bad} rows of the ranks file did not parse and were skipped")
    feats = hosts.join(ranks.drop("surt_host_name"), "rev_host", "left")
    if p.get("degrees", True):
        deg = W.host_degrees(W.read_vertices(ctx.spark, path, base), W.read_edges(ctx.spark, path, base))
        feats = feats.join(deg, "rev_host", "left")
    else:
        feats = feats.withColumn("in_degree", F.lit(None).cast("long")).withColumn(
            "out_degree", F.lit(None).cast("long"))
    feats = feats.select("rev_host", "surt_host_name", F.col("harmonicc_val").isNotNull().alias("in_graph"),
                         "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "log_hc", "log_pr",
                         "in_degree", "out_degree", F.lit(W.release_name(ctx.spark, path)).alias("release"))
    counts = feats.groupBy().agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("in_graph").cast("long")).alias("g")).head()
    missing = int(counts.n or 0) - int(counts.g or 0)
    ctx.count("hosts", int(counts.n or 0))
    ctx.count("hosts_missing_from_graph", missing)
    if missing:
        ctx.note(f"{missing} of {counts.n} scored hosts are not in the web graph; they are excluded "
                 f"from the centrality correlations")
    prev = p.get("previous_release") or ""
    if prev:
        stab = rank_stability(W.read_host_ranks(ctx.spark, prev), ranks, W.release_name(ctx.spark, prev),
                              W.release_name(ctx.spark, path))
    else:
        stab = ctx.spark.createDataFrame([], "release_a string, release_b string, measure string, "
                                             "common_hosts long, only_a long, only_b long, spearman double")
    return {"host_features": feats, "rank_stability": stab}
