"""Files an extract run could not read in full: how many a run may lose, what it says about them,
and how a later run re-reads only those.

A run over 90,000 remote WARC files always meets some faults; most are saved by the reader's
retries, a few are not. Below ``extract.max_failed_files`` the run goes on and says what it lost
(node notes, hence the report). Past it the job fails -- a wrong ``inputs.warc_base``, missing
credentials or an outage make every file fail, and downstream statistics over the few survivors
would be quietly wrong -- but it writes its outputs first, so ``--retry-failed`` can complete them
without reading the files that were fine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.conf import number_setting
from crawlplan.extract.spark import (
    DOC_COLUMNS,
    WIDE_SCHEMA,
    assemble_outputs,
    cross_file_duplicates,
    file_rows,
)


class TooManyFailedFiles(ValueError):
    """More files failed than ``extract.max_failed_files`` allows (a ValueError: one clear CLI line, exit 2)."""


def allowed_failures(setting, listed: int) -> int:
    """How many failed files ``extract.max_failed_files`` allows out of ``listed``.

    A whole number >= 1 is a count; a number below 1 or a percentage (``"1%"``) is a share of the
    files listed, rounded down (so 1 % of 50 files allows none).
    """
    text = str(setting).strip()
    if text.endswith("%"):
        share = number_setting("extract.max_failed_files", text[:-1].strip(), integer=False) / 100
    else:
        share = number_setting("extract.max_failed_files", text, integer=False)
        if share >= 1:
            return number_setting("extract.max_failed_files", text, integer=True)
    if share > 1:
        raise ValueError(f"extract.max_failed_files: a share must be at most 100%, got {setting!r}")
    return math.floor(share * listed + 1e-9)


@dataclass
class Losses:
    listed: int
    failed: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    top_errors: list[tuple[str, int]] = field(default_factory=list)
    records_read_from_failed: int = 0
    documents_from_failed: int = 0
    mean_records_per_ok_file: float | None = None
    recovered: int = 0                    # files that met a fault and still ended ok (retries)
    example: str | None = None            # one failed file, to try by hand

    def lost_records_text(self) -> str:
        unread = sum(self.by_status.get(status, 0) for status in ("unreachable", "missing", "refused"))
        text = f"{self.records_read_from_failed:,} records were read from the failed files " \
               f"({self.documents_from_failed:,} documents)"
        if unread and self.mean_records_per_ok_file:
            text += f"; the {unread:,} never read held about " \
                    f"{unread * self.mean_records_per_ok_file:,.0f} records (estimated from the complete files' mean)"
        return text

    def status_text(self) -> str:
        return ", ".join(f"{n:,} {status}" for status, n in sorted(self.by_status.items(), key=lambda kv: -kv[1]))


# Byte offsets, sizes and URLs differ from file to file; the kind of error (and its status code) does not.
_NUMBERS = r"\d{1,3}(?:,\d{3})+|\d{4,}"
_URLS = r"[a-z0-9]+://\S+"


def summarize(files: DataFrame) -> Losses:
    """The losses of a run from its ``warc_files`` rows (one small Spark job)."""
    failed = F.col("status") != "ok"
    totals = files.agg(
        F.count(F.lit(1)).alias("listed"), F.sum(failed.cast("int")).alias("failed"),
        F.sum(F.when(failed, F.col("records")).otherwise(0)).alias("records_failed"),
        F.sum(F.when(failed, F.col("documents")).otherwise(0)).alias("documents_failed"),
        F.avg(F.when(~failed, F.col("records"))).alias("mean_ok"),
        F.sum(((~failed) & (F.col("attempts") > 1)).cast("int")).alias("recovered"),
        F.min(F.when(failed, F.col("warc_file"))).alias("example")).first()
    losses = Losses(listed=int(totals["listed"] or 0), failed=int(totals["failed"] or 0),
                    records_read_from_failed=int(totals["records_failed"] or 0),
                    documents_from_failed=int(totals["documents_failed"] or 0),
                    mean_records_per_ok_file=totals["mean_ok"], recovered=int(totals["recovered"] or 0),
                    example=totals["example"])
    if not losses.failed:
        return losses
    bad = files.where(failed)
    losses.by_status = {r["status"]: int(r["n"]) for r in bad.groupBy("status").agg(F.count(F.lit(1)).alias("n")).collect()}
    kind = F.regexp_replace(F.regexp_replace(F.coalesce("last_error", "error", F.lit("?")), _URLS, "<url>"),
                            _NUMBERS, "N")
    top = bad.groupBy(F.concat_ws(": ", "status", F.substring(kind, 1, 160)).alias("kind")) \
        .agg(F.count(F.lit(1)).alias("n")).orderBy(F.desc("n"), "kind").limit(3).collect()
    losses.top_errors = [(r["kind"], int(r["n"])) for r in top]
    return losses


def check_losses(losses: Losses, setting, base: str) -> tuple[str | None, str | None]:
    """``(note, failure)``: a line for the node's notes when files were lost within the limit, or
    the message the job fails with when they are past it."""
    if not losses.failed:
        if losses.recovered:
            return f"extract: all {losses.listed:,} files read in full; {losses.recovered:,} of them after retries", None
        return None, None
    allowed = allowed_failures(setting, losses.listed)
    limit = f"extract.max_failed_files={setting} ({allowed:,} of {losses.listed:,} files)"
    share = losses.failed / max(1, losses.listed)
    head = f"{losses.failed:,} of {losses.listed:,} WARC files ({share:.2%}) were not read in full " \
           f"({losses.status_text()})"
    if losses.failed <= allowed:
        return (f"extract: {head}; {losses.lost_records_text()}. Within {limit}; "
                f"re-read them with --retry-failed"), None
    errors = "; ".join(f"{kind} ({n:,} files)" for kind, n in losses.top_errors)
    return None, (
        f"extract failed: {head}, more than {limit} allows.\n"
        f"  commonest errors: {errors}\n"
        f"  inputs.warc_base: {base or '(none: paths as listed)'}; e.g. {losses.example}\n"
        f"  {losses.lost_records_text()}.\n"
        f"  The outputs were written without a completion marker: fix the cause (base URL, credentials, "
        f"network), then re-read only the failed files with --retry-failed; or raise extract.max_failed_files.")


def stage_and_merge(spark, previous: dict[str, DataFrame], fresh_wide: DataFrame | None, failed: list[str],
                    work_dir: str) -> dict[str, DataFrame]:
    """The earlier outputs with the rows of the ``failed`` files replaced by ``fresh_wide`` (their re-read).

    The re-read, the new cross-file duplicates and the merged outputs are written under
    ``work_dir`` first: the merged outputs replace the earlier ones, so nothing returned may read
    from those (it costs one more write of the documents; the WARC files are what is expensive). Record ids stay unique: the re-read records meet the kept
    documents in one :func:`cross_file_duplicates` pass.
    """
    fresh_path, dups_path = storage.join(work_dir, "retry-wide"), storage.join(work_dir, "retry-dups")
    if fresh_wide is None:                     # nothing failed: the earlier outputs, staged as they are
        fresh = spark.createDataFrame([], WIDE_SCHEMA)
    else:
        fresh_wide.write.mode("overwrite").parquet(fresh_path)
        fresh = spark.read.schema(WIDE_SCHEMA).parquet(fresh_path)
    failed_df = F.broadcast(spark.createDataFrame([(p,) for p in failed], "warc_file string"))

    def kept(df: DataFrame) -> DataFrame:
        return df.join(failed_df, "warc_file", "left_anti")

    docs = kept(previous["documents"]).select(*DOC_COLUMNS) \
        .unionByName(fresh.where(F.col("kind") == "doc").select(*DOC_COLUMNS))
    # only the re-read records can be new duplicates; the kept documents are unique among themselves
    cross_file_duplicates(docs.select("record_id", "warc_file", "offset", "url")) \
        .write.mode("overwrite").parquet(dups_path)
    dups = spark.read.parquet(dups_path)
    rejects = kept(previous["rejects"]).select(*previous["rejects"].columns).unionByName(
        fresh.where(F.col("kind") == "reject").select(*previous["rejects"].columns))
    files = kept(previous["warc_files"]).select(*previous["warc_files"].columns) \
        .unionByName(file_rows(fresh).select(*previous["warc_files"].columns))
    merged = assemble_outputs(docs, rejects, files, dups)
    # staged whole: every output (and what the node derives from them, e.g. host_population) must
    # read the staged copy, never the folders the runner is about to replace
    staged = {}
    for name, frame in merged.items():
        path = storage.join(work_dir, f"retry-{name}")
        frame.write.mode("overwrite").parquet(path)
        staged[name] = spark.read.parquet(path).select(*frame.columns)
    return staged
