"""Common Crawl's host index v2: one row per web host and crawl, Parquet partitioned by
``crawl=CC-MAIN-YYYY-WW`` (``s3://commoncrawl/projects/host-index-testing/v2/``).

Partitions written at different times disagree on column sets and integer widths (``_pct``
columns are int8 on disk in some, int32 in others; counts int32 or int64), and Spark's schema
merging refuses such conflicts. So every partition is read on its own, its columns are selected
explicitly and cast to one schema (counts long, ``_pct`` int, ranks double), absent columns
become nulls with a logged note, and the partitions are unioned by name.
"""

from __future__ import annotations

import logging
import re

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.graph.keys import normalize_surt_host, surt_to_rev

log = logging.getLogger("crawlplan")

_CRAWL_RE = re.compile(r"^CC-MAIN-\d{4}-\d{2}$")

STRING_COLUMNS = ("surt_host_name", "url_host_registered_domain", "url_host_tld")
RANK_COLUMNS = ("hcrank", "prank", "hcrank10", "prank10")
FETCH_COUNTS = ("fetch_200", "fetch_200_lote", "fetch_3xx", "fetch_4xx", "fetch_5xx", "fetch_gone",
                "fetch_notModified", "fetch_other", "fetch_redirPerm", "fetch_redirTemp")
NUTCH_COUNTS = ("nutch_fetched", "nutch_gone", "nutch_notModified", "nutch_numRecords", "nutch_redirPerm",
                "nutch_redirTemp", "nutch_unfetched")
ROBOTS_COUNTS = ("robots_200", "robots_3xx", "robots_4xx", "robots_5xx", "robots_gone", "robots_notModified",
                 "robots_other", "robots_redirPerm", "robots_redirTemp")
PCT_COLUMNS = ("fetch_200_lote_pct", "nutch_fetched_pct", "nutch_gone_pct", "nutch_notModified_pct",
               "nutch_redirPerm_pct", "nutch_redirTemp_pct", "nutch_unfetched_pct")
LENGTH_COLUMNS = ("warc_record_length_av", "warc_record_length_median")
COUNT_COLUMNS = FETCH_COUNTS + NUTCH_COUNTS + ROBOTS_COUNTS + LENGTH_COLUMNS


def column_types() -> dict[str, str]:
    """The one schema every partition is cast to."""
    types = {c: "string" for c in STRING_COLUMNS}
    types.update({c: "double" for c in RANK_COLUMNS})
    types.update({c: "long" for c in COUNT_COLUMNS})
    types.update({c: "int" for c in PCT_COLUMNS})
    return types


class HostIndexError(ValueError):
    pass


def list_crawls(spark: SparkSession, path: str) -> dict[str, str]:
    """``{crawl: partition folder}`` for every ``crawl=...`` folder under ``path``."""
    fs, hpath = storage._fs(spark, path)
    if not fs.exists(hpath):
        raise HostIndexError(f"host index not found: {path}")
    out = {}
    for st in fs.listStatus(hpath):
        name = str(st.getPath().getName())
        if st.isDirectory() and name.startswith("crawl="):
            out[name.split("=", 1)[1]] = storage.join(path, name)
    if not out:
        raise HostIndexError(f"no 'crawl=CC-MAIN-YYYY-WW' partitions under {path}")
    return dict(sorted(out.items()))


def read_host_index(spark: SparkSession, path: str | list[str], crawls: list[str] | None = None,
                    *, columns: list[str] | None = None, notes: list[str] | None = None,
                    collapse_www: bool = True) -> DataFrame:
    """The host index as one DataFrame with a ``crawl`` column, ``rev_host`` and a normalised
    ``surt_host_name`` (no ``www`` label, as in ``crawlplan.hosts``) plus the published SURT as
    ``surt_host_name_raw``.

    ``crawls`` selects partitions (all when None; an unknown crawl is an error that lists the
    known ones). ``columns`` narrows the value columns read (default: all of ``column_types``).
    Missing columns are appended to ``notes`` (when given) and logged.

    With ``collapse_www`` (default) the rows of ``com,example`` and ``com,example,www`` of one
    crawl become one row (counts summed, ranks the maximum, ``_pct`` recomputed), since both are
    the same site for every document-side join; without it a join can double-count a host.
    """
    roots = [path] if isinstance(path, str) else list(path)
    parts: dict[str, str] = {}
    for root in roots:
        if root.rstrip("/").rsplit("/", 1)[-1].startswith("crawl="):
            parts[root.rstrip("/").rsplit("=", 1)[1]] = root
        else:
            parts.update(list_crawls(spark, root))
    if crawls:
        unknown = [c for c in crawls if c not in parts]
        if unknown:
            raise HostIndexError(f"crawl(s) {unknown} not in the host index; it has: {', '.join(parts)}")
        parts = {c: parts[c] for c in crawls}
    for crawl in parts:
        if not _CRAWL_RE.match(crawl):
            log.warning("host index partition 'crawl=%s' does not look like CC-MAIN-YYYY-WW", crawl)
    types = column_types()
    wanted = [c for c in (columns or list(types)) if c != "surt_host_name"]
    for c in wanted:
        if c not in types:
            raise HostIndexError(f"unknown host index column '{c}'; known: {', '.join(types)}")
    frames = []
    for crawl, folder in parts.items():
        try:
            df = spark.read.parquet(folder)
        except Exception as exc:  # empty or non-Parquet partition: name it instead of Spark's bare error
            raise HostIndexError(f"host index partition {folder} is unreadable: "
                                 f"{str(exc).splitlines()[0][:200]}") from exc
        present = set(df.columns)
        if "surt_host_name" not in present:
            raise HostIndexError(f"host index partition {folder} has no surt_host_name column")
        missing = [c for c in wanted if c not in present]
        if missing:
            msg = f"host index {crawl}: columns absent, read as null: {', '.join(missing)}"
            log.warning(msg)
            if notes is not None:
                notes.append(msg)
        cols = [F.col("surt_host_name").cast("string").alias("surt_host_name_raw")]
        cols += [(F.col(c) if c in present else F.lit(None)).try_cast(types[c]).alias(c) for c in wanted]
        frames.append(df.select(*cols).withColumn("crawl", F.lit(crawl)))
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    key = normalize_surt_host(F.col("surt_host_name_raw"))
    out = out.select(key.alias("surt_host_name"), "crawl", "surt_host_name_raw", *wanted).where(
        F.col("surt_host_name").isNotNull())
    if collapse_www:
        out = _collapse_www(out, wanted)
    return out.select("surt_host_name", surt_to_rev(F.col("surt_host_name")).alias("rev_host"), "crawl",
                      "surt_host_name_raw", *wanted)


_PCT_OF = {"fetch_200_lote_pct": ("fetch_200_lote", "fetch_200")}
_PCT_OF.update({f"{c}_pct": (c, "nutch_numRecords") for c in NUTCH_COUNTS if f"{c}_pct" in PCT_COLUMNS})


def _collapse_www(df: DataFrame, wanted: list[str]) -> DataFrame:
    types = column_types()
    aggs = [F.count(F.lit(1)).alias("_rows"), F.min("surt_host_name_raw").alias("surt_host_name_raw")]
    for c in wanted:
        if c in STRING_COLUMNS:
            aggs.append(F.min(c).alias(c))
        elif c in RANK_COLUMNS:
            aggs.append(F.max(c).alias(c))
        elif c in COUNT_COLUMNS and c not in LENGTH_COLUMNS:
            aggs.append(F.sum(c).cast("long").alias(c))
        else:  # percentages are recomputed below for merged rows; record lengths keep one row's value
            aggs.append(F.first(c, ignorenulls=True).alias(c))
    grouped = df.groupBy("surt_host_name", "crawl").agg(*aggs)
    for pct, (num, den) in _PCT_OF.items():
        if pct in wanted and num in wanted and den in wanted:
            recomputed = F.when(F.col(den) > 0, F.round(F.lit(100.0) * F.col(num) / F.col(den)))
            grouped = grouped.withColumn(
                pct, F.when(F.col("_rows") == 1, F.col(pct)).otherwise(recomputed).cast(types[pct]))
    return grouped.drop("_rows")
