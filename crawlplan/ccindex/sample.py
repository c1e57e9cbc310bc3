"""Choose k captures per host from Common Crawl's columnar index, in Spark.

A plan needs a few pages per host, not every page: the index (one row per capture with its WARC
file, offset and length) lets the extract read only those. Each host's sample is a seeded random
draw of ``k`` successful HTML captures (all of them when the host has fewer): the order is a hash
of (seed, URL, file, offset), so the draw does not depend on partitioning or on the order of the
index, and a larger ``k`` with the same seed keeps every capture a smaller one chose. Optional
strata (``language``: the first of ``content_languages``; ``depth``: path segments 0, 1, 2, 3+)
spread the k captures over a host's strata in proportion to their size.

Columns Common Crawl added later are optional by the flat schema's ``since``
(cc-index-table's ``cc-index-schema-flat.json``, ``SINCE``): a crawl older than a column's
first crawl lacks it, so ``read_cc_index`` reads it as null and names it in ``absent``; the
``language`` stratum needs ``content_languages`` (since CC-MAIN-2018-39), so on older crawls
``available_strata`` drops it with a note and the other strata still apply. A column missing
from a crawl that should have it is still an error: that index is not the flat schema.

Only the columns needed are read (Parquet column pruning) and only the chosen crawl and
subsets (partition pruning), so on Common Crawl's index
(``s3://commoncrawl/cc-index/table/cc-main/warc/``) a sample costs a scan of a few columns.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, replace

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from crawlplan.conf import Settings, number_setting, settings_from
from crawlplan.extract.records import HTML_TYPES
from crawlplan.graph.hostindex import list_crawls
from crawlplan.graph.keys import normalize_rev_host, rev_to_surt

SAMPLE_COLUMNS = ("url", "url_host_name", "url_path", "fetch_status", "content_mime_detected", "content_mime_type",
                  "content_languages", "warc_filename", "warc_record_offset", "warc_record_length")
STRATA = ("language", "depth")
# cc-index-schema-flat.json: the first crawl that has each column added after the table began
SINCE = {"content_charset": "CC-MAIN-2018-39", "content_languages": "CC-MAIN-2018-39",
         "fetch_redirect": "CC-MAIN-2019-47", "content_truncated": "CC-MAIN-2019-47",
         "warc_record_id": "CC-MAIN-2026-30"}
STRATUM_COLUMNS = {"language": "content_languages"}
MODES = ("full", "sampled")
_CRAWL_NAME = re.compile(r"^CC-MAIN-\d{4}-\d{2}$")


@dataclass(frozen=True)
class SampleSettings(Settings):
    """Conf section ``extract.sample`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "extract.sample"
    k: int
    seed: int
    strata: tuple[str, ...]
    crawl: str                             # "" = the index's latest crawl
    subsets: tuple[str, ...]
    merge_gap_bytes: int

    @classmethod
    def from_params(cls, params: dict, **derived) -> SampleSettings:
        """Counts may be written 1e3 or 10.0 (number_setting); a missing key is an error naming it."""
        unknown = sorted(set(params) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"unknown {cls.SECTION} key(s): {', '.join(unknown)}")
        numbers = {key: number_setting(f"{cls.SECTION}.{key}", params[key], integer=True)
                   for key in ("k", "seed", "merge_gap_bytes") if key in params}
        return settings_from(cls, params, cls.SECTION, **numbers, **derived)

    def __post_init__(self):
        bad = [s for s in self.strata if s not in STRATA]
        if bad:
            raise ValueError(f"unknown extract.sample.strata {bad}; choose from {', '.join(STRATA)}")
        if self.k < 1:
            raise ValueError("extract.sample.k must be >= 1")
        if "warc" not in self.subsets:
            raise ValueError("extract.sample.subsets must include 'warc' (the successful captures)")


def extract_mode(params: dict) -> str:
    mode = str(params.get("mode", "full"))
    if mode not in MODES:
        raise ValueError(f"unknown extract.mode '{mode}'; choose one of {', '.join(MODES)}")
    return mode


def _optional(column: str, crawl: str) -> bool:
    """Whether the flat schema lets ``crawl`` lack ``column`` (a crawl before the column's ``since``;
    CC-MAIN-YYYY-WW names sort by date)."""
    since = SINCE.get(column)
    return bool(since) and bool(_CRAWL_NAME.match(crawl)) and crawl < since


def read_cc_index(spark: SparkSession, path: str, settings: SampleSettings,
                  columns: tuple[str, ...] = SAMPLE_COLUMNS, absent: list[str] | None = None) -> tuple[DataFrame, str]:
    """One crawl of the index (``settings.crawl``, else the latest), its chosen subsets, ``columns``
    only. ``path`` is the table root (``.../cc-main/warc/``) or one ``crawl=`` folder. Columns the
    crawl predates (``SINCE``) are read as null and appended to ``absent`` when given."""
    root = path.rstrip("/")
    if root.rsplit("/", 1)[-1].startswith("crawl="):
        crawls = {root.rsplit("=", 1)[1]: root}
        root = root.rsplit("/", 1)[0]
    else:
        crawls = list_crawls(spark, root)
    crawl = settings.crawl or sorted(crawls)[-1]
    if crawl not in crawls:
        raise ValueError(f"crawl '{crawl}' is not in the columnar index {path}; it has: {', '.join(sorted(crawls))}")
    index = spark.read.option("basePath", root).parquet(crawls[crawl])
    missing = [c for c in columns if c not in index.columns]
    required = [c for c in missing if not _optional(c, crawl)]
    if required:
        since = "; ".join(f"{c} is in every crawl since {SINCE[c]}" for c in required if c in SINCE)
        raise ValueError(f"the columnar index {path} lacks column(s) {', '.join(required)} "
                         f"(expected Common Crawl's cc-index-table flat schema{': ' + since if since else ''})")
    if absent is not None:
        absent.extend(missing)
    index = index.where(F.col("subset").isin(*settings.subsets))
    cols = [F.col(c) if c in index.columns else F.lit(None).cast("string").alias(c) for c in columns]
    return index.select(*cols, F.lit(crawl).alias("crawl"), "subset"), crawl


def available_strata(settings: SampleSettings, absent: list[str], crawl: str) -> tuple[SampleSettings, list[str]]:
    """``settings`` without the strata whose column the crawl lacks, and one note per dropped one."""
    dropped = [s for s in settings.strata if STRATUM_COLUMNS.get(s) in absent]
    notes = [f"sampled extract: stratum '{s}' dropped: crawl {crawl} has no {STRATUM_COLUMNS[s]} (the columnar "
             f"index has it since {SINCE[STRATUM_COLUMNS[s]]}); the draw uses "
             f"{'+'.join(x for x in settings.strata if x not in dropped) or 'no strata'}" for s in dropped]
    return replace(settings, strata=tuple(s for s in settings.strata if s not in dropped)), notes


def host_name(col: Column) -> Column:
    """``url_host_name`` as ``hosts.host_of(url)`` gives it (lower case, no trailing dot), without a UDF."""
    return F.regexp_replace(F.lower(F.trim(col)), r"\.+$", "")


def host_key(col: Column) -> Column:
    """``url_host_name`` to the documents' ``surt_host_name`` (``hosts.surt_host(hosts.host_of(url))``)
    without a Python UDF: reversed, then the graph-key expressions of ``crawlplan.graph.keys``."""
    return rev_to_surt(normalize_rev_host(F.array_join(F.reverse(F.split(host_name(col), r"\.")), ".")))


def warc_base(index_root: str, base: str) -> str:
    """Where the index's relative ``warc_filename`` values resolve: ``inputs.warc_base`` when set,
    else the bucket of an index read from Common Crawl's own (``s3://commoncrawl/``), else ""
    (the index's folder and its parents: a local copy)."""
    if not base and index_root.startswith(("s3://commoncrawl/", "s3a://commoncrawl/")):
        return index_root.split("commoncrawl/", 1)[0] + "commoncrawl/"
    return base


def _stratum(settings: SampleSettings) -> Column:
    parts = []
    for name in settings.strata:
        if name == "language":
            parts.append(F.coalesce(F.split(F.col("content_languages"), ",").getItem(0), F.lit("")))
        else:   # depth: non-empty path segments, 3 and more pooled
            segments = F.size(F.array_remove(F.split(F.col("url_path"), "/"), ""))
            parts.append(F.least(segments, F.lit(3)).cast("string"))
    return F.concat_ws("|", *parts) if parts else F.lit("")


def html_captures(index: DataFrame) -> Column:
    """Successful HTML captures: subset ``warc``, HTTP 200, HTML by the detected MIME type (the
    declared one when none was detected)."""
    mime = F.lower(F.coalesce(F.col("content_mime_detected"), F.col("content_mime_type"), F.lit("")))
    return (F.col("subset") == "warc") & (F.col("fetch_status") == 200) & mime.isin(*HTML_TYPES)


def select_sample(index: DataFrame, settings: SampleSettings) -> tuple[DataFrame, DataFrame]:
    """(selected captures: surt_host_name, url, warc_filename, offset, length, draw_rank (1..k, the
    host's draw order: the first j rows are the draw for k = j); per-host population:
    surt_host_name, crawl, captures, html_captures, selected)."""
    keyed = index.withColumn("surt_host_name", host_key(F.col("url_host_name")))
    html = keyed.where(html_captures(keyed)).withColumn("_stratum", _stratum(settings)).withColumn(
        "_draw", F.xxhash64(F.lit(settings.seed), "url", "warc_filename", "warc_record_offset"))
    order_key = ["_draw", "warc_filename", "warc_record_offset"]
    if settings.strata:
        # proportional allocation: the i-th draw of a stratum of n sorts at (i - 0.5) / n
        stratum = Window.partitionBy("surt_host_name", "_stratum")
        html = html.withColumn("_pos", (F.row_number().over(stratum.orderBy(*order_key)) - 0.5)
                               / F.count(F.lit(1)).over(stratum))
        order_key = ["_pos", *order_key]
    ranked = html.withColumn("_rank", F.row_number().over(Window.partitionBy("surt_host_name").orderBy(*order_key)))
    selected = ranked.where(F.col("_rank") <= settings.k).select(
        "surt_host_name", "url", "warc_filename", F.col("warc_record_offset").cast("long").alias("offset"),
        F.col("warc_record_length").cast("long").alias("length"), F.col("_rank").alias("draw_rank"))
    population = keyed.groupBy("surt_host_name").agg(
        F.first("crawl").alias("crawl"), F.count(F.lit(1)).alias("captures"),
        F.sum(html_captures(keyed).cast("long")).alias("html_captures"))
    population = population.withColumn("selected", F.least(F.col("html_captures"), F.lit(settings.k)).cast("long"))
    return selected, population


def ranges_by_file(selected: DataFrame) -> DataFrame:
    """One row per WARC file: its name in the index and its selected ranges."""
    return selected.groupBy("warc_filename").agg(
        F.collect_list(F.struct("offset", "length", "url")).alias("ranges"))
