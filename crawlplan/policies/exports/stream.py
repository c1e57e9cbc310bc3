"""The budget export as a Spark job, in memory bounded by a setting, not by the rows.

``export.write`` renders a pandas frame whole: right for the small frames of the tests and the
crawl loop, tens of GB on the driver at a Common Crawl crawl (46M budget rows). Here the rows
never reach the driver: Spark reads them, formats each row with the same per-row formatter as
the pandas export (``mapInPandas``, one Arrow batch at a time), sorts the formatted fragments into
the file's order (rank then host; a sheet's or a domain's own order where a format groups hosts),
writes them as text parts, and ``storage.concat_text`` streams the parts in order into the one
file between its header and its footer. What a format aggregates - hosts' positions in rank order
(Heritrix precedence bands, Nutch scores), the Heritrix sheets, Common Crawl's per-domain limits -
is a Spark aggregation; the driver collects one count per partition and a few numbers. The output
is byte-for-byte the pandas export's (tests/test_policies_export.py compares both).

A crawler format first marks each row it can write safely (``safety.writable``, a pandas UDF over
Arrow batches): it carries only those, and Spark counts the others (``Exported.skipped_unsafe``).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.conf import Settings
from crawlplan.policies.export import (
    CRAWLER_FORMATS,
    FILE_SUFFIXES,
    FORMATS,
    PLAN_COLUMN,
    TABLE_FILES,
    csv_line,
    floor_budget,
    json_line,
)
from crawlplan.policies.exports import heritrix, nutch, urlfrontier
from crawlplan.policies.exports.safety import writable
from crawlplan.policies.exports.within_host import budgets_frame, parent, typed

POSITION = "position"       # 1-based place of a host among the rows a crawler format carries
_COLUMNS = ["f", "k1", "k2", "k3", "k4", "s", "text"]
FRAGMENTS = "f int, k1 long, k2 long, k3 long, k4 long, s string, text string"
_KEYS = ["k1", "k2", "k3", "k4", "s"]
_LAST = 2 ** 62             # a sheet's closing lines sort after every host position


@dataclass(frozen=True)
class StreamSettings(Settings):
    """Conf section ``policies.export`` (values and meaning: conf/defaults.yaml)."""
    SECTION: ClassVar[str] = "policies.export"
    part_rows: int
    copy_buffer_bytes: int

    def __post_init__(self):
        if self.part_rows < 1 or self.copy_buffer_bytes < 1:
            raise ValueError("policies.export.part_rows and copy_buffer_bytes must be >= 1")


@dataclass(frozen=True)
class Exported:
    """One format's export: the file or folder written, the rows it carries (a table: every row;
    a crawler format: the hosts with pages it could write safely) and the rows with pages a
    crawler format skipped because a value could not be written safely (a table skips none:
    its writer quotes or escapes any text)."""
    path: str
    rows: int
    skipped_unsafe: int


def export_budgets(spark: SparkSession, budgets: str | DataFrame, fmt: str, out: str, settings,
                   stream: StreamSettings, *, plans: str | None = None, page_clusters: str | None = None,
                   sitemaps: str | None = None, top: int = 5) -> Exported:
    """Write one format of a budgets dataset (a path, its plans found beside it as ``budgets_frame``
    does, or a frame from ``budgets_frame``) to ``out``: a file for a table format (a folder gets the
    default file name), a folder for a crawler format. ``settings`` is an ``export.ExportSettings``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format '{fmt}'; known: {', '.join(FORMATS)}")
    if isinstance(budgets, DataFrame):
        frame = typed(budgets)
    else:
        frame, _ = budgets_frame(spark, str(budgets), plans=plans, page_clusters=page_clusters, sitemaps=sitemaps,
                                 top=top)
    out = str(out).rstrip("/") or "/"
    if fmt in CRAWLER_FORMATS:
        there = storage.exists(spark, out)
        if (there and not storage.is_dir(spark, out)) or (not there and any(out.endswith(s) for s in FILE_SUFFIXES)):
            raise ValueError(f"--format {fmt} writes a folder of files; {out} is (or names) a file")
    elif storage.is_dir(spark, out):
        out = storage.join(out, TABLE_FILES[fmt])
    work = storage.join(parent(out), f"._export-{uuid.uuid4().hex[:12]}")
    job = _Job(spark, stream, work)
    try:
        if fmt == "parquet":
            job.parquet(frame, out)
        elif fmt in ("csv", "jsonl"):
            job.table(frame, fmt, out)
        else:
            job.crawler(frame, fmt, out, settings)
    finally:
        storage.delete(spark, work)
    return Exported(out, job.rows, job.skipped)


def _frame(rows: list[tuple]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=_COLUMNS)
    return df.astype({"f": "int32", **{k: "int64" for k in _KEYS[:4]}})


def _table_fragments(fmt: str):
    def run(batches):
        for pdf in batches:
            columns = list(pdf.columns)
            line = (lambda rec, cols=columns: csv_line(rec, cols)) if fmt == "csv" else json_line
            yield _frame([(0, int(r["rank"]), 0, 0, 0, r["surt_host_name"], line(r))
                          for r in pdf.to_dict("records")])
    return run


def _heritrix_fragments(n: int, settings):
    def run(batches):
        for pdf in batches:
            out = []
            for row in pdf.itertuples(index=False):
                pos = int(getattr(row, POSITION))
                (pages, prec), values, uri, seeds, queue = heritrix.host_entry(row, pos, n, settings)
                out.append((0, 0, prec, -pages, pos, "", "\n".join(values)))
                out += [(0, 1, rank, 0, pos, "", "\n".join(lines)) for rank, lines in uri.items()]
                out.append((0, 2, 0, 0, pos, "", "\n".join(queue)))     # after every shared sheet
                out.append((1, 0, 0, 0, pos, "", "\n".join(seeds)))
            yield _frame(out)
    return run


def _sheet_fragments(settings):
    """The opening and closing lines of each shared sheet, around its hosts' lines."""
    def run(batches):
        for pdf in batches:
            out = []
            for k1, k2, k3 in zip(pdf.k1, pdf.k2, pdf.k3):
                head, tail = (heritrix.budget_sheet(-int(k3), int(k2), settings) if k1 == 0
                              else heritrix.uri_sheet(int(k2)))
                out += [(0, int(k1), int(k2), int(k3), 0, "", "\n".join(head)),
                        (0, int(k1), int(k2), int(k3), _LAST, "", "\n".join(tail))]
            yield _frame(out)
    return run


def _nutch_fragments(n: int, settings, domains: bool):
    def run(batches):
        for pdf in batches:
            out = []
            for row in pdf.itertuples(index=False):
                pos = int(getattr(row, POSITION))
                out.append((0, pos, 0, 0, 0, "", "\n".join(nutch.host_seed_lines(row, pos, n, settings))))
                if domains:   # the row a domain's limits are summed from
                    out.append((1, int(row.allocated_pages), int(row.rank), 0, 0,
                                nutch.limit_domain(row.surt_host_name, row.registered_domain), ""))
            yield _frame(out)
    return run


def _limits_fragments(settings):
    def run(batches):
        for pdf in batches:
            yield _frame([(0, int(r.first_rank), 0, 0, 0, r.domain,
                           nutch.limits_line(r.domain, r.total, r.largest, r.hosts, settings))
                          for r in pdf.itertuples(index=False)])
    return run


def _urlfrontier_fragments(settings):
    def run(batches):
        for pdf in batches:
            out = []
            for row in pdf.itertuples(index=False):
                pos = int(getattr(row, POSITION))
                puts, limit = urlfrontier.host_lines(row, settings)
                out += [(0, pos, 0, 0, 0, "", "\n".join(puts)), (1, pos, 0, 0, 0, "", limit)]
            yield _frame(out)
    return run


class _Job:
    """One export's Spark steps; every intermediate goes under ``work`` (removed afterwards)."""

    def __init__(self, spark: SparkSession, stream: StreamSettings, work: str):
        self.spark, self.stream, self.work = spark, stream, work
        self.parts = 1
        self.rows = self.skipped = 0

    def _sized(self, rows: int) -> None:
        self.rows = rows
        self.parts = max(1, math.ceil(rows / self.stream.part_rows))

    def parquet(self, frame: DataFrame, out: str) -> None:
        """One Parquet file in canonical order: range-sorted parts written by one task in order."""
        self._sized(frame.count())
        folder = storage.join(self.work, "parquet")
        (frame.repartitionByRange(self.parts, "rank", "surt_host_name").sortWithinPartitions("rank", "surt_host_name")
         .coalesce(1).write.option("compression", "zstd").parquet(folder))
        (part,) = storage.part_files(self.spark, folder)
        head, _, name = part.rpartition("/")
        storage.delete(self.spark, storage.join(head, f".{name}.crc"))   # else the local file system moves it along
        storage.move(self.spark, part, out)

    def table(self, frame: DataFrame, fmt: str, out: str) -> None:
        self._sized(frame.count())
        lines = frame.mapInPandas(_table_fragments(fmt), FRAGMENTS)
        head = ",".join(frame.columns) + "\n" if fmt == "csv" else ""
        self._file(lines, out, head=head)

    def _file(self, fragments: DataFrame, path: str, *, head: str = "", tail: str = "", empty: str = "") -> None:
        """Sort the fragments (``_KEYS``), write their text as parts, stream them into ``path``."""
        folder = storage.join(self.work, f"text-{uuid.uuid4().hex[:8]}")
        (fragments.repartitionByRange(self.parts, *_KEYS).sortWithinPartitions(*_KEYS).select("text")
         .write.text(folder))
        storage.concat_text(self.spark, folder, path, head=head, tail=tail, empty=empty,
                            buffer_bytes=self.stream.copy_buffer_bytes)
        storage.delete(self.spark, folder)

    def _positioned(self, frame: DataFrame, fmt: str) -> tuple[DataFrame, int]:
        """The rows a crawler format carries (hosts with pages it can write safely, the others
        counted), each with its ``position`` in canonical order: rows range-sorted into parts and
        numbered within each part, written once (so every later step sees the same numbering); a
        part's offset is the rows before it (one count per part on the driver)."""
        marked = frame.where(F.col("allocated_pages") > 0).withColumn("_ok", _writable(frame, fmt))
        counts = marked.agg(F.count(F.when(F.col("_ok"), 1)).alias("ok"),
                            F.count(F.when(~F.col("_ok"), 1)).alias("unsafe")).first()
        self._sized(int(counts["ok"]))
        self.skipped = int(counts["unsafe"])
        crawl = marked.where(F.col("_ok")).drop("_ok")
        folder = storage.join(self.work, "rows")
        (crawl.repartitionByRange(self.parts, "rank", "surt_host_name").sortWithinPartitions("rank", "surt_host_name")
         .withColumn("_id", F.monotonically_increasing_id()).write.parquet(folder))
        rows = self.spark.read.parquet(folder).withColumn("_part", F.shiftright("_id", 33))
        counts = sorted((int(r["_part"]), int(r["count"])) for r in rows.groupBy("_part").count().collect())
        offsets, before = [], 0
        for part, count in counts:
            offsets.append((part, before))
            before += count
        starts = self.spark.createDataFrame(offsets, "_part long, _offset long")
        within = F.col("_id") - F.shiftleft(F.col("_part"), 33)
        positioned = (rows.join(F.broadcast(starts), "_part")
                      .withColumn(POSITION, F.col("_offset") + within + 1).drop("_part", "_offset", "_id"))
        return positioned, before

    @staticmethod
    def _floor(rows: DataFrame, n: int, settings) -> int:
        """``export.floor_budget`` of the carried rows: one aggregate, only when the setting is 0."""
        if settings.outside_max_count > 0 or not n:
            return floor_budget(pd.DataFrame({"allocated_pages": []}), settings)
        return int(rows.agg(F.min("allocated_pages")).first()[0])

    def _fragments(self, rows: DataFrame, run) -> DataFrame:
        folder = storage.join(self.work, "fragments")
        rows.mapInPandas(run, FRAGMENTS).write.parquet(folder)
        return self.spark.read.parquet(folder)

    def crawler(self, frame: DataFrame, fmt: str, out: str, settings) -> None:
        rows, n = self._positioned(frame, fmt)
        if fmt == "heritrix":
            frags = self._fragments(rows, _heritrix_fragments(n, settings))
            beans = frags.where(F.col("f") == 0)
            keys = beans.where(F.col("k1") < 2).select("k1", "k2", "k3").distinct()
            sheets = keys.agg(F.count(F.when(F.col("k1") == 0, 1)).alias("budget"),
                              F.count(F.when(F.col("k1") == 1, 1)).alias("uri")).first()
            heads = keys.mapInPandas(_sheet_fragments(settings), FRAGMENTS)
            preamble = heritrix.preamble(n, int(sheets["budget"]), int(sheets["uri"]), settings)
            self._file(beans.unionByName(heads), storage.join(out, heritrix.BEANS),
                       head="\n".join(preamble) + "\n", tail=heritrix.FOOTER + "\n")
            self._file(frags.where(F.col("f") == 1), storage.join(out, heritrix.SEEDS), empty="\n")
        elif fmt in ("nutch", "cc-nutch"):
            cc = fmt == "cc-nutch"
            frags = self._fragments(rows, _nutch_fragments(n, settings, domains=cc))
            self._file(frags.where(F.col("f") == 0), storage.join(out, nutch.SEEDS), empty="\n")
            if cc:
                domains = frags.where(F.col("f") == 1).groupBy(F.col("s").alias("domain")).agg(
                    F.sum("k1").alias("total"), F.max("k1").alias("largest"), F.count(F.lit(1)).alias("hosts"),
                    F.min("k2").alias("first_rank"))
                self._file(domains.mapInPandas(_limits_fragments(settings), FRAGMENTS),
                           storage.join(out, nutch.LIMITS), head="\n".join(nutch.limits_head(settings)) + "\n")
                storage.write_text(self.spark, storage.join(out, nutch.SITE_XML),
                                   nutch.cc_properties(self._floor(rows, n, settings), settings))
                storage.write_text(self.spark, storage.join(out, nutch.COMMANDS), nutch.cc_commands(settings))
            else:
                storage.write_text(self.spark, storage.join(out, nutch.SITE_XML),
                                   nutch.apache_properties(self._floor(rows, n, settings), settings))
                storage.write_text(self.spark, storage.join(out, nutch.HOST_COUNT_RULES), nutch.host_count_rules())
                storage.write_text(self.spark, storage.join(out, nutch.COMMANDS), nutch.apache_commands(settings))
        else:
            frags = self._fragments(rows, _urlfrontier_fragments(settings))
            self._file(frags.where(F.col("f") == 0), storage.join(out, urlfrontier.PUT))
            self._file(frags.where(F.col("f") == 1), storage.join(out, urlfrontier.LIMITS))


def _writable(frame: DataFrame, fmt: str):
    """A boolean column: whether ``fmt`` can write the row safely (``safety.writable``, per batch)."""
    plan = F.col(PLAN_COLUMN) if PLAN_COLUMN in frame.columns else F.lit("")

    @F.pandas_udf("boolean")
    def ok(hosts: pd.Series, domains: pd.Series, pages: pd.Series, plans: pd.Series) -> pd.Series:
        return pd.Series([writable(fmt, *values) for values in zip(hosts, domains, pages, plans)], dtype=bool)

    return ok(F.col("surt_host_name"), F.col("registered_domain"), F.col("allocated_pages"), plan)


def summary(frame: DataFrame) -> tuple[int, int, int]:
    """(rows, hosts with pages, hosts with a within-host plan) of a budgets frame, in one job."""
    planned = F.col(PLAN_COLUMN) != "" if PLAN_COLUMN in frame.columns else F.lit(False)
    row = frame.agg(F.count(F.lit(1)).alias("rows"), F.count(F.when(F.col("allocated_pages") > 0, 1)).alias("hosts"),
                    F.count(F.when(planned, 1)).alias("planned")).first()
    return int(row["rows"]), int(row["hosts"]), int(row["planned"])
