"""Common Crawl's host index: one row per web host and crawl, Parquet partitioned by
``crawl=CC-MAIN-YYYY-WW`` (``s3://commoncrawl/projects/host-index-testing/v2/``).

Partitions written at different times disagree, and Spark's schema merging refuses their
conflicts:

- integer widths: ``_pct`` columns are int8 on disk in some, int32 in others; counts int32 or
  int64;
- names: ``warc_record_length_av`` (v2, a typo by the index's own README) becomes
  ``warc_record_length_avg`` in v3; ``RENAMED`` maps each old name to the new one, which is the
  name this reader returns whichever one a partition has;
- column sets: v3 adds columns (``content_language_top``, ``content_language_top_pct``,
  ``robots_digest``, ``robots_digest_count_distinct`` are named in the README, more are
  announced); columns this module does not know are read too, typed from the partitions that
  have them (integers as long, other numbers as double);
- the ``www`` label: the index names its hosts as the web graph of its time did, so partitions
  from 2026 on may list ``com,example,www`` next to ``com,example``. The convention is measured
  per partition (``crawlplan.graph.www``) and names are mapped to the project's key under it.

So every partition is read on its own, its columns are selected explicitly and cast to one
schema, absent columns become nulls with a logged note, and the partitions are unioned by name.
"""

from __future__ import annotations

import logging
import re
from functools import reduce

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan import storage
from crawlplan.graph import paths, www
from crawlplan.graph.keys import normalize_surt_host, surt_to_rev
from crawlplan.hosts import WWW_KEPT, WWW_STRIPPED

log = logging.getLogger("crawlplan")

_CRAWL_RE = re.compile(r"^CC-MAIN-\d{4}-\d{2}$")

STRING_COLUMNS = ("surt_host_name", "url_host_registered_domain", "url_host_tld", "content_language_top",
                  "robots_digest")
RANK_COLUMNS = ("hcrank", "prank", "hcrank10", "prank10")
FETCH_COUNTS = ("fetch_200", "fetch_200_lote", "fetch_3xx", "fetch_4xx", "fetch_5xx", "fetch_gone",
                "fetch_notModified", "fetch_other", "fetch_redirPerm", "fetch_redirTemp")
NUTCH_COUNTS = ("nutch_fetched", "nutch_gone", "nutch_notModified", "nutch_numRecords", "nutch_redirPerm",
                "nutch_redirTemp", "nutch_unfetched")
ROBOTS_COUNTS = ("robots_200", "robots_3xx", "robots_4xx", "robots_5xx", "robots_gone", "robots_notModified",
                 "robots_other", "robots_redirPerm", "robots_redirTemp")
PCT_COLUMNS = ("fetch_200_lote_pct", "nutch_fetched_pct", "nutch_gone_pct", "nutch_notModified_pct",
               "nutch_redirPerm_pct", "nutch_redirTemp_pct", "nutch_unfetched_pct", "content_language_top_pct")
LENGTH_COLUMNS = ("warc_record_length_avg", "warc_record_length_median")
COUNT_COLUMNS = FETCH_COUNTS + NUTCH_COUNTS + ROBOTS_COUNTS + LENGTH_COLUMNS
DISTINCT_COUNTS = ("robots_digest_count_distinct",)   # not additive: a merged www row keeps one
RENAMED = {"warc_record_length_av": "warc_record_length_avg"}   # old name -> the name returned


def column_types() -> dict[str, str]:
    """The one schema every partition is cast to (for the columns this module knows)."""
    types = {c: "string" for c in STRING_COLUMNS}
    types.update({c: "double" for c in RANK_COLUMNS})
    types.update({c: "long" for c in COUNT_COLUMNS + DISTINCT_COUNTS})
    types.update({c: "int" for c in PCT_COLUMNS})
    return types


class HostIndexError(ValueError):
    pass


def list_crawls(spark: SparkSession, path: str) -> dict[str, str]:
    """``{crawl: partition folder}`` for every ``crawl=...`` folder under ``path``."""
    if not storage.exists(spark, path):
        raise HostIndexError(f"host index not found: {path}")
    out = {}
    for name, is_folder in storage.list_dir(spark, path):
        if is_folder and name.startswith("crawl="):
            out[name.split("=", 1)[1]] = storage.join(path, name)
    if not out:
        raise HostIndexError(f"no 'crawl=CC-MAIN-YYYY-WW' partitions under {path}")
    return dict(sorted(out.items()))


LISTING_SUFFIXES = (".paths.gz", ".paths")


def _listed_partitions(spark: SparkSession, listing: str, base: str | None) -> dict[str, list[str]]:
    """``{crawl: [Parquet files]}`` from a ``v2.paths.gz`` listing (entries relative to the bucket,
    resolved under ``base`` or the listing's folder by ``crawlplan.graph.paths``)."""
    parts: dict[str, list[str]] = {}
    for file in paths.resolve_listing(spark, listing, base, "inputs.host_index_base"):
        crawl = next((p.split("=", 1)[1] for p in file.split("/") if p.startswith("crawl=")), None)
        if not crawl:
            raise HostIndexError(f"host index listing {listing}: {file} lies in no 'crawl=...' folder")
        parts.setdefault(crawl, []).append(file)
    return dict(sorted(parts.items()))


def _partitions(spark: SparkSession, path: str | list[str], crawls: list[str] | None,
                base: str | None = None) -> dict[str, str | list[str]]:
    roots = [path] if isinstance(path, str) else list(path)
    parts: dict[str, str | list[str]] = {}
    for root in roots:
        if root.rstrip("/").endswith(LISTING_SUFFIXES):
            parts.update(_listed_partitions(spark, root, base))
        elif root.rstrip("/").rsplit("/", 1)[-1].startswith("crawl="):
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
    return parts


def _read_partition(spark: SparkSession, folder: str | list[str]) -> DataFrame:
    files = [folder] if isinstance(folder, str) else list(folder)
    folder = files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} files)"
    try:
        df = spark.read.parquet(*files)
    except Exception as exc:  # empty or non-Parquet partition: name it instead of Spark's bare error
        raise HostIndexError(f"host index partition {folder} is unreadable: "
                             f"{str(exc).splitlines()[0][:200]}") from exc
    if "surt_host_name" not in df.columns:
        raise HostIndexError(f"host index partition {folder} has no surt_host_name column")
    for old, new in RENAMED.items():
        if old in df.columns:  # a partition written during the change may carry both
            df = df.drop(old) if new in df.columns else df.withColumnRenamed(old, new)
    return df


_OUTPUT_KEYS = ("surt_host_name", "rev_host", "crawl", "surt_host_name_raw")   # never read as values


def _widest(dtypes: list[T.DataType]) -> str:
    """One type for a column this module does not know, from the partitions that have it."""
    if all(isinstance(t, T.IntegralType) for t in dtypes):
        return "long"
    if all(isinstance(t, T.NumericType) for t in dtypes):
        return "double"
    if all(isinstance(t, T.BooleanType) for t in dtypes):
        return "boolean"
    return "string"


def _value_types(frames: dict[str, DataFrame], columns: list[str] | None) -> dict[str, str]:
    known = column_types()
    seen: dict[str, list[T.DataType]] = {}
    for df in frames.values():
        for field in df.schema.fields:
            seen.setdefault(field.name, []).append(field.dataType)
    if columns is None:
        wanted = list(known) + [c for c in seen if c not in known and c not in _OUTPUT_KEYS]
    else:
        wanted = list(dict.fromkeys(RENAMED.get(c, c) for c in columns))
        unknown = [c for c in wanted if c not in known and c not in seen]
        if unknown:
            raise HostIndexError(f"host index column(s) {unknown} are in no partition and not among the "
                                 f"known columns: {', '.join(known)}")
    return {c: known.get(c) or _widest(seen[c]) for c in wanted if c not in _OUTPUT_KEYS}


def read_host_index(spark: SparkSession, path: str | list[str], crawls: list[str] | None = None,
                    *, columns: list[str] | None = None, notes: list[str] | None = None,
                    collapse_www: bool = True, www_convention: str | None = www.AUTO, base: str | None = None,
                    www_min_names: int = 0) -> DataFrame:
    """The host index as one DataFrame with a ``crawl`` column, ``rev_host`` and
    ``surt_host_name`` in the project's form (``crawlplan.hosts``) plus the published SURT as
    ``surt_host_name_raw``.

    ``path`` is the index root (``.../v2/``), one ``crawl=`` folder, a ``v2.paths.gz`` listing
    (entries relative to the bucket, resolved under ``base`` -- ``inputs.host_index_base`` -- or
    the listing's folder, with or without the bucket prefix: ``crawlplan.graph.paths``), or a
    list of these. ``crawls`` selects partitions (all when None; an unknown crawl is an error that lists the
    known ones). ``columns`` narrows the value columns read (default: every known column plus
    any other a partition has); an old name (``RENAMED``) selects its new one. Missing columns
    are appended to ``notes`` (when given) and logged, as is each partition's ``www`` convention.

    ``www_convention`` (auto | kept | stripped) says how partitions name ``www.`` hosts; auto
    measures it per partition (the crawl's date decides a partition of fewer than
    ``www_min_names`` names: ``crawlplan.graph.www``). In a www-keeping partition, with ``collapse_www`` (default), the
    rows of ``com,example`` and ``com,example,www`` become one row (counts summed, ranks the
    maximum, ``_pct`` recomputed), since both are the same site for every document-side join;
    without it a join can double-count a host.
    """
    parts = _partitions(spark, path, crawls, base)
    frames = {crawl: _read_partition(spark, folder) for crawl, folder in parts.items()}
    types = _value_types(frames, columns)
    wanted = list(types)
    unioned = []
    for crawl, df in frames.items():
        present = set(df.columns)
        missing = [c for c in wanted if c not in present]
        if missing:
            _note(notes, f"host index {crawl}: columns absent, read as null: {', '.join(missing)}")
        cols = [F.col("surt_host_name").cast("string").alias("surt_host_name_raw")]
        cols += [(F.col(c) if c in present else F.lit(None)).try_cast(types[c]).alias(c) for c in wanted]
        unioned.append(df.select(*cols).withColumn("crawl", F.lit(crawl)))
    out = reduce(DataFrame.unionByName, unioned)
    kept = _kept_crawls(out, list(parts), www_convention, notes, www_min_names)
    key = F.when(F.col("crawl").isin(*kept) if kept else F.lit(False),
                 normalize_surt_host(F.col("surt_host_name_raw"), WWW_KEPT)).otherwise(
        normalize_surt_host(F.col("surt_host_name_raw"), WWW_STRIPPED))
    out = out.select(key.alias("surt_host_name"), "crawl", "surt_host_name_raw", *wanted).where(
        F.col("surt_host_name").isNotNull() & (F.col("surt_host_name") != ""))
    if collapse_www and kept:
        out = _collapse_www(out, wanted, types)
    return out.select("surt_host_name", surt_to_rev(F.col("surt_host_name")).alias("rev_host"), "crawl",
                      "surt_host_name_raw", *wanted)


def _note(notes: list[str] | None, msg: str) -> None:
    log.warning(msg)
    if notes is not None:
        notes.append(msg)


def _kept_crawls(df: DataFrame, crawls: list[str], setting: str | None, notes: list[str] | None,
                 min_names: int = 0) -> list[str]:
    """The crawls whose partitions keep the ``www`` label, measured in one pass when ``auto``."""
    value = www.check_setting(setting)
    if value != www.AUTO:
        return list(crawls) if value == WWW_KEPT else []
    found = www.detect_by(df.withColumn("_rev", surt_to_rev(F.col("surt_host_name_raw"))), "_rev", "crawl",
                          min_names=min_names)
    for crawl in crawls:
        if crawl in found and (found[crawl].www_names or found[crawl].rule == www.DATE_RULE):
            _note(notes, f"host index {crawl}: {found[crawl].describe()}")
    return [c for c, conv in found.items() if conv.kept]


_PCT_OF = {"fetch_200_lote_pct": ("fetch_200_lote", "fetch_200")}
_PCT_OF.update({f"{c}_pct": (c, "nutch_numRecords") for c in NUTCH_COUNTS if f"{c}_pct" in PCT_COLUMNS})


def _collapse_www(df: DataFrame, wanted: list[str], types: dict[str, str]) -> DataFrame:
    aggs = [F.count(F.lit(1)).alias("_rows"), F.min("surt_host_name_raw").alias("surt_host_name_raw")]
    for c in wanted:
        if types[c] in ("string", "boolean"):
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
