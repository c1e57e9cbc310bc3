"""Node host_stats: scores -> host_scores (per host and classifier) and icc (Table 8).

With the demo's ground truth available, the ICC1 of the planted true page qualities is added
to ``icc`` as classifier ``true_quality``: the yardstick the classifiers' ICC1 is read against.
"""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.stats import host_stats


def run(ctx) -> dict:
    settings = host_stats.HostStatsSettings.from_params(ctx.params)
    scores = ctx.read("scores")
    classifiers = host_stats.present_classifiers(scores, settings.classifiers or None)
    if not classifiers:
        raise ValueError(f"scores has none of the classifier columns {settings.classifiers or host_stats.CLASSIFIERS}")
    long = host_stats.long_scores(scores, classifiers)
    langs = host_stats.host_language(scores)
    min_docs = settings.min_docs
    hs = host_stats.host_scores(long, langs, min_docs=min_docs, threshold=settings.threshold)
    icc = host_stats.icc_table(long, list(settings.icc_min_docs))
    truth = ctx.input("ground_truth")
    if truth:
        icc = icc.unionByName(_true_quality_icc(ctx, truth, scores, settings))
    # one pass for both counters: a host is kept when any classifier reaches min_docs
    per_host = long.groupBy("rev_host", "classifier").count().groupBy("rev_host").agg(F.max("count").alias("n"))
    c = per_host.agg(F.count(F.lit(1)).alias("all"), F.sum((F.col("n") >= min_docs).cast("long")).alias("kept")).head()
    ctx.count("hosts_scored", int(c["all"] or 0))
    ctx.count("hosts_below_min_docs", int(c["all"] or 0) - int(c["kept"] or 0))
    ctx.count("classifiers", len(classifiers))
    return {"host_scores": hs, "icc": icc}


def _true_quality_icc(ctx, truth, scores, settings):
    """ICC1 of true page quality over the pages that were actually scored (same hosts, same
    documents), so it is comparable with the classifiers' rows."""
    path = storage.join(str(truth), "pages.parquet")
    pages = ctx.spark.read.parquet(path).select("url", F.col("true_quality").cast("double").alias("true_quality"))
    docs = scores.select("url", "surt_host_name", "rev_host", "host", "tld", "language").dropDuplicates(["url"])
    joined = docs.join(pages, "url", "inner")
    long = host_stats.long_scores(joined, ["true_quality"])
    return host_stats.icc_table(long, list(settings.icc_min_docs))
