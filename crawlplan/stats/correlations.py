"""Centrality-quality correlations (the paper's Tables 4-7, Figure 12) and rank stability (Table 2).

Host-level correlations are computed per group (metric x classifier x stratum) without ever
holding a group in one place: Spearman and weighted Spearman exactly, by distributed ranks and
aggregations (``crawlplan.stats.ranks.group_spearman``); Kendall's tau and the bootstrap CI,
which need a group in one worker, on a seeded sample of at most ``max_hosts_per_group`` hosts
per group (``crawlplan.stats.host_sample``: the whole group when it is that small, so the paper's
27,910 hosts are computed exactly; a full crawl's groups of millions are sampled, with a
stated error). Nothing proportional to hosts reaches the driver. Document-level
classifier-pair correlations and rank stability between graph releases (millions of
documents, ~10^8 hosts) use the same distributed ranks (``crawlplan.stats.ranks``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import Settings
from crawlplan.stats import host_sample, reference
from crawlplan.stats.host_stats import union_all
from crawlplan.stats.ranks import group_spearman, quantiles, spearman_matrix

METRICS = ("log_hc", "log_pr")
GROUP = ("metric", "classifier", "stratum_kind", "stratum")



@dataclass(frozen=True)
class CorrelationsSettings(Settings):
    """Conf section ``stats.correlations``."""
    SECTION = "stats.correlations"

    classifiers: tuple[str, ...]
    bootstrap_replicates: int
    alpha: float
    seed: int
    max_hosts_per_group: int


def stratified_host_table(host_scores: DataFrame, features: DataFrame, metrics=METRICS) -> DataFrame:
    """One row per (metric, classifier, stratum, host): the host median against the metric.

    Strata: ``all``; language (english / non-english, from the host's primary language);
    TLD macro-category. Hosts without the metric (not in the graph) are dropped here; the
    caller counts them from the join.
    """
    joined = host_scores.join(features.select("rev_host", *metrics), "rev_host", "inner")
    value = F.explode(F.array(*[F.struct(F.lit(m).alias("metric"), F.col(m).alias("x")) for m in metrics]))
    base = joined.select("rev_host", "classifier", "median", "documents", "language_stratum", "tld_category",
                         value.alias("mv")).select("rev_host", "classifier", F.col("median").alias("y"),
                                                   "documents", "language_stratum", "tld_category", "mv.*")
    base = base.where(F.col("x").isNotNull() & F.col("y").isNotNull())
    overall = base.select(*_keep(), F.lit("all").alias("stratum_kind"), F.lit("all").alias("stratum"))
    lang = base.where(F.col("language_stratum").isin("english", "non-english")).select(
        *_keep(), F.lit("language").alias("stratum_kind"), F.col("language_stratum").alias("stratum"))
    tld = base.select(*_keep(), F.lit("tld_category").alias("stratum_kind"),
                      F.col("tld_category").alias("stratum"))
    return union_all([overall, lang, tld])


def _keep():
    return ["metric", "classifier", "rev_host", "x", "y", "documents"]


def correlation_table(table: DataFrame, *, replicates: int, seed: int, alpha: float,
                      max_hosts_per_group: int) -> DataFrame:
    """One row per (metric, classifier, stratum) of ``stratified_host_table``.

    Spearman and the documents-weighted Spearman are exact, by Spark aggregations over the
    whole group (``ranks.group_spearman``). Kendall's tau-b and the bootstrap CI come from the
    group's seeded sample of at most ``max_hosts_per_group`` hosts (``host_sample``): the whole
    group, hence exactly the whole-group numbers, up to that size; beyond it a simple random
    sample, with the error stated in ``crawlplan.stats.host_sample`` (Kendall's SE <=
    sqrt(2 (1 - tau^2) / m); CI endpoints rescaled to the group's size). ``sampled_hosts`` says
    which.
    """
    reference.check_bootstrap(replicates, alpha)
    host_sample.check_max_hosts(max_hosts_per_group)
    # on disk only: a block of this table is a shuffle partition of host rows (6M rows at 8M hosts
    # and the local profile's 8 partitions), and a memory level reads a spilled block back into
    # one heap buffer, which ran out of a 2 GB heap (bench_scale, docs/scale.md); from disk it streams
    table = table.persist(StorageLevel.DISK_ONLY)
    rho = group_spearman(table, list(GROUP), "x", "y", weight="documents")
    sample = host_sample.sampled_statistics(table, list(GROUP), "rev_host", "x", "y", max_hosts=max_hosts_per_group,
                                            replicates=replicates, seed=seed, alpha=alpha)
    hosts = F.col("_n")
    return rho.join(sample, list(GROUP)).select(
        *GROUP, hosts.alias("hosts"), F.col("_spearman").alias("spearman"), F.col("_kendall").alias("kendall"),
        F.col("_weighted_spearman").alias("weighted_spearman"),
        host_sample.rescaled(F.col("_q_low"), F.col("_spearman"), hosts).alias("ci_low"),
        host_sample.rescaled(F.col("_q_high"), F.col("_spearman"), hosts).alias("ci_high"),
        F.when(hosts >= 3, F.lit(int(replicates))).otherwise(F.lit(0)).cast("int").alias("bootstrap_replicates"),
        F.col("_sampled").alias("sampled_hosts"))


def score_distributions(long: DataFrame, languages: DataFrame) -> DataFrame:
    """Document score distributions by the host's language stratum (Table 7): mean and exact
    P10/median/P90, interpolated like numpy. The quantiles come from distributed ranks
    (``ranks.quantiles``), so no group's values are ever held in one place.

    The documents are read once, into per-stratum counts of each distinct score and the
    distinct (stratum, classifier, host) keys; the ``all`` stratum is summed from those small
    tables rather than from a second copy of the documents."""
    joined = long.join(languages.select("rev_host", "language_stratum"), "rev_host", "left").select(
        F.coalesce("language_stratum", F.lit("unknown")).alias("stratum"), "classifier", "rev_host", "score")
    # one row per distinct score: the sort behind the quantiles runs over distinct values, at
    # most one per document and far fewer where scores are rounded or tied
    by_lang = joined.groupBy("stratum", "classifier", "score").agg(F.count(F.lit(1)).alias("n"))
    strata = F.col("stratum").isin("english", "non-english")
    values = by_lang.where(strata).unionByName(
        by_lang.groupBy("classifier", "score").agg(F.sum("n").alias("n")).withColumn("stratum", F.lit("all"))
    ).persist(StorageLevel.MEMORY_AND_DISK)
    # a host has one stratum, so the hosts of ``all`` are the sum over every stratum's hosts
    host_counts = joined.select("stratum", "classifier", "rev_host").distinct().groupBy("stratum", "classifier").agg(
        F.count(F.lit(1)).alias("hosts"))
    hosts = host_counts.where(strata).unionByName(
        host_counts.groupBy("classifier").agg(F.sum("hosts").alias("hosts")).withColumn("stratum", F.lit("all")))
    agg = values.groupBy("stratum", "classifier").agg(
        F.sum("n").cast("long").alias("documents"), (F.sum(F.col("score") * F.col("n")) / F.sum("n")).alias("mean"))
    q = quantiles(values, ["stratum", "classifier"], "score", [0.1, 0.5, 0.9], weight="n")
    qdf = long.sparkSession.createDataFrame(
        [(s, c, *v) for (s, c), v in q.items()],
        "stratum string, classifier string, p10 double, median double, p90 double")
    return agg.join(hosts, ["stratum", "classifier"]).join(F.broadcast(qdf), ["stratum", "classifier"], "left").select(
        "stratum", "classifier", "documents", F.col("hosts").cast("long").alias("hosts"), "mean", "median", "p10", "p90")


def classifier_correlations(scores: DataFrame, classifiers: list[str]) -> DataFrame:
    """Pairwise document-level Spearman over the core documents (scored by every classifier),
    as in Figure 12; long form, both triangles and the diagonal."""
    spark = scores.sparkSession
    cond = None
    for c in classifiers:
        ok = F.col(c).isNotNull() & ~F.isnan(c)
        cond = ok if cond is None else cond & ok
    # a document id of this computation alone: record ids are unique in ``scores``, but a long
    # string key would be carried through the rank shuffle for nothing
    core = scores.where(cond).select(F.monotonically_increasing_id().alias("_doc"), *classifiers)
    n = core.count()
    schema = "classifier_a string, classifier_b string, documents long, spearman double"
    if n < 3 or len(classifiers) < 2:
        return spark.createDataFrame([], schema)
    mat = spearman_matrix(core, "_doc", classifiers)
    rows = [(a, b, int(n), float(mat[i, j])) for i, a in enumerate(classifiers) for j, b in enumerate(classifiers)]
    return spark.createDataFrame(rows, schema)
