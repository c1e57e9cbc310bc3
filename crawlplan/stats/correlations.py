"""Centrality-quality correlations (the paper's Tables 4-7, Figure 12) and rank stability (Table 2).

Host-level correlations run per group (metric x classifier x stratum) inside ``applyInPandas``:
a group is at most one row per host of one classifier (the paper: 27,910; a full crawl: a few
million, i.e. tens of MB of doubles), which fits an executor, and Kendall's tau and the
bootstrap need the whole group anyway. The groups spread over executors, so nothing is
collected to the driver. Document-level classifier-pair correlations and rank stability between
graph releases are far larger (millions of documents, ~10^8 hosts) and use distributed ranks
(``crawlplan.stats.ranks``), never pandas.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import Settings
from crawlplan.stats import reference
from crawlplan.stats.host_stats import union_all
from crawlplan.stats.ranks import quantiles, spearman_matrix

CORRELATION_SCHEMA = ("metric string, classifier string, stratum_kind string, stratum string, hosts long, "
                      "spearman double, kendall double, weighted_spearman double, ci_low double, "
                      "ci_high double, bootstrap_replicates int")
METRICS = ("log_hc", "log_pr")



@dataclass(frozen=True)
class CorrelationsSettings(Settings):
    """Conf section ``stats.correlations``."""
    SECTION = "stats.correlations"

    classifiers: tuple[str, ...]
    bootstrap_replicates: int
    alpha: float
    seed: int

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


def group_correlations(pdf: pd.DataFrame, replicates: int, seed: int, alpha: float) -> pd.DataFrame:
    """All statistics of one group; pure pandas/numpy so tests call it directly."""
    metric, classifier = pdf["metric"].iloc[0], pdf["classifier"].iloc[0]
    kind, stratum = pdf["stratum_kind"].iloc[0], pdf["stratum"].iloc[0]
    # hosts arrive in no particular order; sorting makes the bootstrap reproducible
    pdf = pdf.sort_values("rev_host", kind="mergesort")
    x = pdf["x"].to_numpy(float)
    y = pdf["y"].to_numpy(float)
    w = pdf["documents"].to_numpy(float)
    n = int(x.size)
    rho = reference.spearman(x, y) if n >= 3 else float("nan")
    tau = reference.kendall_tau(x, y) if n >= 3 else float("nan")
    wrho = reference.weighted_spearman(x, y, w) if n >= 3 else float("nan")
    lo, hi = reference.bootstrap_spearman(x, y, replicates, reference.group_seed(seed, metric, classifier, kind, stratum), alpha)
    return pd.DataFrame([{
        "metric": metric, "classifier": classifier, "stratum_kind": kind, "stratum": stratum, "hosts": n,
        "spearman": rho, "kendall": tau, "weighted_spearman": wrho, "ci_low": lo, "ci_high": hi,
        "bootstrap_replicates": int(replicates) if n >= 3 else 0,
    }])


def correlation_table(table: DataFrame, *, replicates: int = 1000, seed: int = 0,
                      alpha: float = 0.05) -> DataFrame:
    reference.check_bootstrap(replicates, alpha)

    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        return group_correlations(pdf, replicates, seed, alpha)

    return table.groupBy("metric", "classifier", "stratum_kind", "stratum").applyInPandas(fn, CORRELATION_SCHEMA)


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
