"""Common Crawl's GneissWeb annotations as a host quality-density source (full-crawl regime).

Two published granularities: URL level (``url_surtkey, crawl, fetch_time, in_gneissweb,
gneissweb_medical/technology/education/science``) and host level (``surt_host_name, crawl``
with the same annotation columns). Both reduce here to one row per (crawl, host) with the
share of annotated pages kept by the GneissWeb filter: the paper's RQ4 quality density.
"""

from __future__ import annotations

import logging

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan.graph.keys import normalize_surt_host, surt_to_rev

log = logging.getLogger("crawlplan")

TOPICS = ("gneissweb_medical", "gneissweb_technology", "gneissweb_education", "gneissweb_science")


def url_surtkey_host(col):
    """``com,example,www)/path?q`` -> ``com,example,www`` (the SURT host part, port dropped)."""
    host = F.split(col, r"\)", 2).getItem(0)
    return F.regexp_replace(host, r":\d+$", "")


def read_gneissweb(spark: SparkSession, path: str | list[str], notes: list[str] | None = None) -> DataFrame:
    """``crawl, surt_host_name, rev_host, pages, gneissweb_pages, density`` plus topic means.

    URL-level rows (a boolean ``in_gneissweb``) are aggregated per host. Host-level rows with a
    numeric ``in_gneissweb`` are taken as the kept share already (clipped to [0, 1], noted).
    """
    df = spark.read.parquet(*(path if isinstance(path, list) else [path]))
    cols = set(df.columns)
    if "in_gneissweb" not in cols or "crawl" not in cols:
        raise ValueError(f"GneissWeb annotations at {path} lack 'in_gneissweb' or 'crawl' (have {sorted(cols)})")
    if "url_surtkey" in cols:
        raw_host = url_surtkey_host(F.col("url_surtkey"))
    elif "surt_host_name" in cols:
        raw_host = F.col("surt_host_name")
    else:
        raise ValueError(f"GneissWeb annotations at {path} have neither url_surtkey nor surt_host_name")
    key = normalize_surt_host(raw_host)
    topics = [F.mean(F.col(t).cast("double")).alias(t) if t in cols else F.lit(None).cast("double").alias(t)
              for t in TOPICS]
    flag_type = df.schema["in_gneissweb"].dataType
    if isinstance(flag_type, T.BooleanType):
        agg = df.select(F.col("crawl").cast("string").alias("crawl"), key.alias("surt_host_name"),
                        F.col("in_gneissweb"), *[F.col(t) for t in TOPICS if t in cols]).groupBy(
            "crawl", "surt_host_name").agg(
            F.count(F.lit(1)).cast("long").alias("pages"),
            F.sum(F.col("in_gneissweb").cast("long")).cast("long").alias("gneissweb_pages"), *topics)
        agg = agg.withColumn("density", F.col("gneissweb_pages") / F.col("pages"))
    else:
        msg = "GneissWeb annotations: numeric in_gneissweb read as the host's kept share (clipped to [0, 1])"
        log.warning(msg)
        if notes is not None:
            notes.append(msg)
        share = F.least(F.greatest(F.col("in_gneissweb").cast("double"), F.lit(0.0)), F.lit(1.0))
        agg = df.select(F.col("crawl").cast("string").alias("crawl"), key.alias("surt_host_name"),
                        share.alias("share"), *[F.col(t) for t in TOPICS if t in cols]).groupBy(
            "crawl", "surt_host_name").agg(F.lit(None).cast("long").alias("pages"),
                                           F.lit(None).cast("long").alias("gneissweb_pages"), *topics,
                                           F.mean("share").alias("density"))
    return agg.select("crawl", "surt_host_name", surt_to_rev(F.col("surt_host_name")).alias("rev_host"),
                      "pages", "gneissweb_pages", "density", *TOPICS)
