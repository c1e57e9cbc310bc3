"""Node host_graph: web graph release + host_scores -> host_features, rank_stability.

``host_features`` has one row per scored host with its log HC / log PR (null when the host is
not in the graph: counted, and excluded from the correlations downstream) and, when enabled,
in/out degree from the edge list. With ``domain_ranks`` set, each host also gets the
centrality of its registered domain from the domain-level release (``domain_*`` columns).
``rank_stability`` compares this release with ``stats.host_graph.previous_release`` when one is
configured (Table 2), else it is empty.

Each release's ``www`` convention is measured on its own vertices (or set by
``www_convention`` / ``previous_www_convention``), so two releases that name ``www.`` hosts
differently still meet on the project's host key.
"""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan import hosts
from crawlplan.graph import webgraph as W
from crawlplan.stats.correlate import rank_stability

DOMAIN_COLUMNS = {"registered_domain": "string", "domain_harmonicc_pos": "long", "domain_harmonicc_val": "double",
                  "domain_pr_val": "double", "domain_log_hc": "double", "domain_log_pr": "double",
                  "domain_n_hosts": "long"}


def run(ctx) -> dict:
    p = ctx.params
    path = str(ctx.input("web_graph"))
    base = p.get("base") or None
    convention = _convention(ctx, path, base, p.get("www_convention"))
    hs = ctx.read("host_scores")
    hosts_df = hs.select("rev_host", "surt_host_name").distinct()
    ranks = W.read_host_ranks(ctx.spark, path, convention=convention)
    bad = W.count_bad_rank_rows(ctx.spark, path)
    if bad:
        ctx.count("graph_rank_rows_rejected", bad)
        ctx.note(f"web graph: {bad} rows of the ranks file did not parse and were skipped")
    feats = hosts_df.join(ranks.drop("surt_host_name"), "rev_host", "left")
    if p.get("degrees", True):
        deg = W.host_degrees(W.read_vertices(ctx.spark, path, base, convention=convention),
                             W.read_edges(ctx.spark, path, base))
        feats = feats.join(deg, "rev_host", "left")
    else:
        feats = feats.withColumn("in_degree", F.lit(None).cast("long")).withColumn(
            "out_degree", F.lit(None).cast("long"))
    feats = _with_domain_level(ctx, feats, str(p.get("domain_ranks") or ""))
    feats = feats.select("rev_host", "surt_host_name", F.col("harmonicc_val").isNotNull().alias("in_graph"),
                         "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "log_hc", "log_pr",
                         "in_degree", "out_degree", F.lit(W.release_name(ctx.spark, path)).alias("release"),
                         *DOMAIN_COLUMNS)
    counts = feats.groupBy().agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("in_graph").cast("long")).alias("g")).head()
    missing = int(counts.n or 0) - int(counts.g or 0)
    ctx.count("hosts", int(counts.n or 0))
    ctx.count("hosts_missing_from_graph", missing)
    if missing:
        ctx.note(f"{missing} of {counts.n} scored hosts are not in the web graph; they are excluded "
                 f"from the centrality correlations")
    prev = p.get("previous_release") or ""
    if prev:
        prev_convention = _convention(ctx, prev, base, p.get("previous_www_convention"))
        stab = rank_stability(W.read_host_ranks(ctx.spark, prev, convention=prev_convention), ranks,
                              W.release_name(ctx.spark, prev), W.release_name(ctx.spark, path))
    else:
        stab = ctx.spark.createDataFrame([], "release_a string, release_b string, measure string, "
                                             "common_hosts long, only_a long, only_b long, spearman double")
    return {"host_features": feats, "rank_stability": stab}


def _convention(ctx, path: str, base: str | None, setting: str | None):
    convention = W.release_convention(ctx.spark, path, base, setting)
    ctx.note(f"web graph {W.release_name(ctx.spark, path)}: {convention.describe()}")
    return convention


def _registered_domain(rev_host: str | None) -> str | None:
    return hosts.registered_domain(hosts.rev_to_host(rev_host)) if rev_host else None


def _with_domain_level(ctx, feats, domain_path: str):
    """The registered domain's ranks from the domain-level release (nulls when not configured)."""
    if not domain_path:
        return feats.select("*", *[F.lit(None).cast(t).alias(c) for c, t in DOMAIN_COLUMNS.items()])
    bad = W.count_bad_rank_rows(ctx.spark, domain_path, level="domain")
    if bad:
        ctx.count("graph_domain_rank_rows_rejected", bad)
        ctx.note(f"domain graph: {bad} rows of the domain ranks file did not parse and were skipped")
    dom = W.read_domain_ranks(ctx.spark, domain_path).select(
        "registered_domain", F.col("harmonicc_pos").alias("domain_harmonicc_pos"),
        F.col("harmonicc_val").alias("domain_harmonicc_val"), F.col("pr_val").alias("domain_pr_val"),
        F.col("log_hc").alias("domain_log_hc"), F.col("log_pr").alias("domain_log_pr"),
        F.col("n_hosts").alias("domain_n_hosts"))
    to_domain = F.udf(lambda rev: _registered_domain(rev), "string")   # no hints: a plain row-at-a-time UDF
    out = feats.withColumn("registered_domain", to_domain(F.col("rev_host"))).join(dom, "registered_domain", "left")
    found = out.groupBy().agg(
        F.sum(F.col("domain_harmonicc_val").isNotNull().cast("long")).alias("d"),
        F.sum((F.col("domain_harmonicc_val").isNotNull() & F.col("harmonicc_val").isNull()).cast("long")).alias("o"),
    ).head()
    ctx.count("hosts_with_domain_ranks", int(found.d or 0))
    ctx.count("hosts_ranked_by_domain_only", int(found.o or 0))
    ctx.note(f"domain graph: {int(found.d or 0)} scored hosts have their registered domain's ranks, "
             f"{int(found.o or 0)} of them are not in the host graph")
    return out
