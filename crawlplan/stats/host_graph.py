"""The scored hosts' place in the host-level web graph (the paper's Table 2 and the centrality
side of Tables 4-6): log HC / log PR and degrees per scored host, and the rank stability of two
graph releases.

A host that is not in the graph keeps its row with null centralities (``in_graph`` false): the
node counts them, and the correlations downstream leave them out. With a domain-level release,
each host also gets the centrality of its registered domain (``domain_*`` columns). Each
release's ``www`` convention is measured on its own vertices (or set in the conf), so two
releases that name ``www.`` hosts differently still meet on the project's host key.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from crawlplan import hosts
from crawlplan.conf import Settings
from crawlplan.graph import webgraph
from crawlplan.stats.ranks import spearman_matrix


@dataclass(frozen=True)
class HostGraphSettings(Settings):
    """Conf section ``stats.host_graph`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "stats.host_graph"

    degrees: bool
    previous_release: str
    www_convention: str
    previous_www_convention: str
    domain_ranks: str


RANK_STABILITY_SCHEMA = ("release_a string, release_b string, measure string, common_hosts long, only_a long, "
                         "only_b long, spearman double")
DOMAIN_COLUMNS = {"registered_domain": "string", "domain_harmonicc_pos": "long", "domain_harmonicc_val": "double",
                  "domain_pr_val": "double", "domain_log_hc": "double", "domain_log_pr": "double",
                  "domain_n_hosts": "long"}


@dataclass(frozen=True)
class DomainLevel:
    """What joining the domain-level release found (the node counts and notes it)."""
    bad_rows: int
    hosts_with_domain_ranks: int
    hosts_ranked_by_domain_only: int


def host_features(spark: SparkSession, host_scores: DataFrame, ranks: DataFrame, graph_path: str, *,
                  convention=None, base: str | None = None, degrees: bool = True) -> DataFrame:
    """One row per scored host with its ranks (null when not in the graph) and, with ``degrees``,
    in/out degree from the edge list (a pass over all edges); ``domain_*`` columns are added by
    ``with_domain_level``."""
    hosts_df = host_scores.select("rev_host", "surt_host_name").distinct()
    feats = hosts_df.join(ranks.drop("surt_host_name"), "rev_host", "left")
    if degrees:
        deg = webgraph.host_degrees(webgraph.read_vertices(spark, graph_path, base, convention=convention),
                                    webgraph.read_edges(spark, graph_path, base))
        feats = feats.join(deg, "rev_host", "left")
    else:
        feats = feats.withColumn("in_degree", F.lit(None).cast("long")).withColumn(
            "out_degree", F.lit(None).cast("long"))
    return feats


def select_features(spark: SparkSession, feats: DataFrame, graph_path: str) -> DataFrame:
    """The ``host_features`` columns in order."""
    return feats.select("rev_host", "surt_host_name", F.col("harmonicc_val").isNotNull().alias("in_graph"),
                        "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "log_hc", "log_pr",
                        "in_degree", "out_degree", F.lit(webgraph.release_name(spark, graph_path)).alias("release"),
                        *DOMAIN_COLUMNS)


def _registered_domain(rev_host: str | None) -> str | None:
    return hosts.registered_domain(hosts.rev_to_host(rev_host)) if rev_host else None


def with_domain_level(spark: SparkSession, feats: DataFrame, domain_path: str) -> tuple[DataFrame, DomainLevel | None]:
    """The registered domain's ranks from the domain-level release (nulls when not configured)."""
    if not domain_path:
        return feats.select("*", *[F.lit(None).cast(t).alias(c) for c, t in DOMAIN_COLUMNS.items()]), None
    bad = webgraph.count_bad_rank_rows(spark, domain_path, level="domain")
    dom = webgraph.read_domain_ranks(spark, domain_path).select(
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
    return out, DomainLevel(bad, int(found.d or 0), int(found.o or 0))


def graph_coverage(features: DataFrame) -> tuple[int, int]:
    """(scored hosts, hosts of them missing from the graph), in one aggregation."""
    row = features.groupBy().agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("in_graph").cast("long")).alias("g")).head()
    return int(row.n or 0), int(row.n or 0) - int(row.g or 0)


def release_stability(spark: SparkSession, previous_path: str, previous_convention, ranks: DataFrame,
                      graph_path: str) -> DataFrame:
    """``rank_stability`` of this release against ``previous_path``; empty when none is configured."""
    if not previous_path:
        return spark.createDataFrame([], RANK_STABILITY_SCHEMA)
    return rank_stability(webgraph.read_host_ranks(spark, previous_path, convention=previous_convention), ranks,
                          webgraph.release_name(spark, previous_path), webgraph.release_name(spark, graph_path))


def rank_stability(ranks_a: DataFrame, ranks_b: DataFrame, release_a: str, release_b: str) -> DataFrame:
    """Spearman of HC and PR values between two releases over their common hosts (Table 2)."""
    spark = ranks_a.sparkSession
    a = ranks_a.select("rev_host", F.col("harmonicc_val").alias("hc_a"), F.col("pr_val").alias("pr_a"))
    b = ranks_b.select("rev_host", F.col("harmonicc_val").alias("hc_b"), F.col("pr_val").alias("pr_b"))
    both = a.join(b, "rev_host", "full_outer").groupBy().agg(
        F.sum((F.col("hc_a").isNotNull() & F.col("hc_b").isNotNull()).cast("long")).alias("common"),
        F.sum((F.col("hc_a").isNotNull() & F.col("hc_b").isNull()).cast("long")).alias("only_a"),
        F.sum((F.col("hc_a").isNull() & F.col("hc_b").isNotNull()).cast("long")).alias("only_b")).head()
    common = a.join(b, "rev_host", "inner").where(
        F.col("hc_a").isNotNull() & F.col("hc_b").isNotNull() & F.col("pr_a").isNotNull() & F.col("pr_b").isNotNull())
    if (both.common or 0) < 3:
        rho_hc = rho_pr = float("nan")
    else:
        m = spearman_matrix(common, "rev_host", ["hc_a", "hc_b", "pr_a", "pr_b"])
        rho_hc, rho_pr = float(m[0, 1]), float(m[2, 3])
    rows = [(release_a, release_b, name, int(both.common or 0), int(both.only_a or 0), int(both.only_b or 0), rho)
            for name, rho in (("harmonic_centrality", rho_hc), ("pagerank", rho_pr))]
    return spark.createDataFrame(rows, RANK_STABILITY_SCHEMA)
