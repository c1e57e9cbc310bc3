"""Host-level score summaries and ICC1 as Spark aggregations (the paper's RQ1 and Table 8).

Scores arrive wide (one nullable column per classifier). Everything here works on the long
form ``(host keys, classifier, score)`` with nulls dropped, so any subset of classifiers works
and a classifier that was not run simply has no rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from crawlplan.conf import Settings
from crawlplan.hosts import GENERIC_OTHER_TLDS
from crawlplan.stats.reference import correlation_ceiling, icc1_from_sums, spearman_brown


@dataclass(frozen=True)
class HostStatsSettings(Settings):
    """Conf section ``stats.host_stats``."""
    SECTION = "stats.host_stats"

    classifiers: tuple[str, ...]
    min_docs: int
    threshold: float
    icc_min_docs: tuple[int, ...]


CLASSIFIERS = ("dclm", "fineweb_edu", "gneissweb_quality", "gneissweb_sci", "gneissweb_edu", "gneissweb_tech",
               "gneissweb_med", "nemotron_quality", "nemotron_edu", "nemotron_info")
HOST_KEYS = ("surt_host_name", "rev_host")


def present_classifiers(scores: DataFrame, wanted=None) -> list[str]:
    """Classifier columns of ``scores`` to analyse: ``wanted`` (or the ten) that exist."""
    names = list(wanted) if wanted else list(CLASSIFIERS)
    return [c for c in names if c in scores.columns]


def active_classifiers(scores: DataFrame, classifiers: list[str]) -> list[str]:
    """The classifiers with at least one score: a registry column left null (model not run)
    would otherwise empty the 'scored by every classifier' core set."""
    row = scores.select(*[F.count(F.when(F.col(c).isNotNull() & ~F.isnan(c), F.lit(1))).alias(c) for c in classifiers]).head()
    return [c for c in classifiers if row[c] > 0]


def long_scores(scores: DataFrame, classifiers: list[str]) -> DataFrame:
    """``surt_host_name, rev_host, host, tld, language, classifier, score`` without nulls/NaNs."""
    if not classifiers:
        raise ValueError("no classifier score columns to analyse")
    pairs = F.array(*[F.struct(F.lit(c).alias("classifier"), F.col(c).cast("double").alias("score"))
                      for c in classifiers])
    base = scores.select(*HOST_KEYS, "host", "tld", "language", F.explode(pairs).alias("p"))
    return base.select(*HOST_KEYS, "host", "tld", "language", "p.classifier", "p.score").where(
        F.col("score").isNotNull() & ~F.isnan("score"))


def tld_category_column(rev_host):
    """``crawlplan.hosts.tld_category`` as a Spark column on the reversed host (``com.example.blog``):
    the same rule, evaluated in the JVM (it needs the last two labels). It lives here, not in
    ``hosts``, so ``hosts`` stays importable without Spark (the crawl venv imports it)."""
    labels = F.split(F.lower(rev_host), r"\.")
    tld = F.element_at(labels, 1)
    second = F.when(F.size(labels) >= 2, F.element_at(labels, 2)).otherwise(F.lit(""))
    return (F.when((tld == "edu") | second.isin("ac", "edu"), "academic")
            .when((tld == "gov") | second.isin("gov", "gouv", "go", "govt") | (tld == "mil"), "government")
            .when(tld.isin("com", "net"), "commercial")
            .when(tld == "org", "nonprofit")
            .when((F.length(tld) == 2) & tld.rlike("^[a-z]{2}$") & ~tld.isin(*sorted(GENERIC_OTHER_TLDS)),
                  "country-code")
            .otherwise("other"))


UNKNOWN_LANGUAGE = "unknown"   # a host none of whose documents has an identified language


def primary_language(docs: DataFrame, key: str = "rev_host") -> DataFrame:
    """``key, primary_language``: the project's one host-language rule.

    A host's primary language is the most frequent identified language of its documents (null,
    empty and 'unknown' are not identified; ties broken alphabetically so reruns agree); a host
    with no identified language is 'unknown'. ``key`` is the host key of the caller's tables
    (``rev_host`` for the statistics, ``surt_host_name`` for the policies)."""
    known = docs.where(F.col("language").isNotNull() & ~F.col("language").isin(UNKNOWN_LANGUAGE, ""))
    counts = known.groupBy(key, "language").agg(F.count(F.lit(1)).alias("n"))
    w = Window.partitionBy(key).orderBy(F.desc("n"), F.asc("language"))
    top = counts.withColumn("_r", F.row_number().over(w)).where("_r = 1").select(
        key, F.col("language").alias("primary_language"))
    return docs.select(key).distinct().join(top, key, "left").select(
        key, F.coalesce("primary_language", F.lit(UNKNOWN_LANGUAGE)).alias("primary_language"))


def host_language(scores: DataFrame) -> DataFrame:
    """``rev_host, primary_language, language_stratum`` (english | non-english | unknown); hosts
    of unknown language only enter the overall (unstratified) statistics."""
    stratum = (F.when(F.col("primary_language") == UNKNOWN_LANGUAGE, UNKNOWN_LANGUAGE)
               .when(F.col("primary_language") == "en", "english").otherwise("non-english"))
    return primary_language(scores, "rev_host").select("rev_host", "primary_language",
                                                       stratum.alias("language_stratum"))


def host_scores(long: DataFrame, languages: DataFrame, *, min_docs: int, threshold: float) -> DataFrame:
    """Per host and classifier: documents, exact median, mean, share above ``threshold``.

    The median is Spark's ``percentile(score, 0.5)``, which is exact (linear interpolation
    between the two middle values, like numpy) and, unlike ``percentile_approx``, keeps a
    value->count map per group: cheap here because groups are hosts (a few to a few thousand
    documents each). Hosts with fewer than ``min_docs`` scored documents are left out.
    """
    agg = long.groupBy(*HOST_KEYS, "classifier").agg(
        F.min("host").alias("host"),
        F.first("tld", ignorenulls=True).alias("tld"),
        F.count(F.lit(1)).cast("long").alias("documents"),
        F.percentile(F.col("score"), F.lit(0.5)).alias("median"),
        F.mean("score").alias("mean"),
        F.stddev_samp("score").alias("std"),
        F.mean((F.col("score") > F.lit(threshold)).cast("double")).alias("share_above"),
    ).where(F.col("documents") >= F.lit(int(min_docs)))
    return agg.join(languages, "rev_host", "left").select(
        "surt_host_name", "rev_host", "host", "tld", tld_category_column(F.col("rev_host")).alias("tld_category"),
        F.coalesce("primary_language", F.lit("unknown")).alias("primary_language"),
        F.coalesce("language_stratum", F.lit("unknown")).alias("language_stratum"),
        "classifier", "documents", "median", "mean", "std", "share_above",
        F.lit(float(threshold)).alias("threshold"))


def icc_sums(long: DataFrame, thresholds: list[int]) -> DataFrame:
    """The ANOVA sums per (classifier, min_docs) from two aggregation passes.

    Pass 1 per host: n_i, mean_i and the within-host sum of squares n_i*var_pop (Spark's
    central-moment aggregate, numerically stable: no sum-of-squares cancellation). Pass 2 per
    (classifier, threshold) over hosts with n_i >= threshold. SS_between needs the grand mean,
    so it is sum n_i*(mean_i - grand)^2 after joining the (tiny) grand-mean table back.
    """
    per_host = long.groupBy("rev_host", "classifier").agg(
        F.count(F.lit(1)).cast("long").alias("n"),
        F.mean("score").alias("m"),
        (F.var_pop("score") * F.count(F.lit(1))).alias("ssw"),
    )
    th = long.sparkSession.createDataFrame([(int(t),) for t in thresholds], "min_docs int")
    eligible = per_host.crossJoin(F.broadcast(th)).where(F.col("n") >= F.col("min_docs"))
    grand = eligible.groupBy("classifier", "min_docs").agg(
        (F.sum(F.col("n") * F.col("m")) / F.sum("n")).alias("grand"))
    return eligible.join(F.broadcast(grand), ["classifier", "min_docs"]).groupBy("classifier", "min_docs").agg(
        F.count(F.lit(1)).cast("long").alias("hosts"),
        F.sum("n").cast("long").alias("documents"),
        F.sum(F.col("n").cast("double") * F.col("n")).alias("sum_n_sq"),
        F.sum(F.col("n") * (F.col("m") - F.col("grand")) ** 2).alias("ss_between"),
        F.sum("ssw").alias("ss_within"),
    )


def icc_table(long: DataFrame, thresholds=(3, 5, 10)) -> DataFrame:
    """``icc``: one row per classifier and minimum host size. The sums are one row per
    (classifier, threshold) (at most 30 rows), so the closing arithmetic runs on the driver
    through ``icc1_from_sums``: one definition for Spark and the reference."""
    spark = long.sparkSession
    rows = []
    for r in icc_sums(long, list(thresholds)).collect():
        res = icc1_from_sums(int(r.hosts), int(r.documents), float(r.sum_n_sq), float(r.ss_between),
                             float(r.ss_within))
        rel = spearman_brown(res.icc1, res.mean_docs) if res.icc1 == res.icc1 else float("nan")
        rows.append((r.classifier, int(r.min_docs), res.hosts, res.documents, res.mean_docs, res.n0,
                     res.ms_between, res.ms_within, res.var_between, res.var_within, res.icc1, rel,
                     correlation_ceiling(rel) if rel == rel else float("nan")))
    schema = ("classifier string, min_docs int, hosts long, documents long, mean_docs double, n0 double, "
              "ms_between double, ms_within double, var_between double, var_within double, icc1 double, "
              "reliability double, correlation_ceiling double")
    return spark.createDataFrame(rows, schema).orderBy("classifier", "min_docs")


def union_all(frames: list[DataFrame]) -> DataFrame:
    return reduce(lambda a, b: a.unionByName(b), frames)
