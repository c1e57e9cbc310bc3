"""The extract stage as DataFrame transforms: one Spark task per group of WARC files.

Each task runs :func:`process_warc_file` and streams rows back as Arrow record batches
(``mapInArrow``: no pandas round trip for the text column). Documents, rejects and file rows travel in one wide intermediate frame,
written once as Parquet under the node's work folder (:func:`extract_wide_in_waves`, :func:`saved_wide`), so
the WARC files are read exactly once for all outputs. Each output reads back only the columns it needs; no
cached copy of the frame is kept (it cost more CPU than the read-back: docs/benchmarks.md, issue 31).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import math
from collections.abc import Iterator

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame, DataFrameWriter, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.window import Window

from crawlplan import storage
from crawlplan.extract.records import ExtractSettings, process_warc_file, process_warc_ranges
from crawlplan.spark import spread_rows
from crawlplan.warc.listing import RefusedEntry, resolve_entry, shown

_WIDE_COLUMNS = [
    ("kind", T.StringType()), ("warc_file", T.StringType()), ("offset", T.LongType()),
    ("record_id", T.StringType()), ("url", T.StringType()), ("host", T.StringType()),
    ("surt_host_name", T.StringType()), ("rev_host", T.StringType()), ("registered_domain", T.StringType()),
    ("tld", T.StringType()), ("crawl", T.StringType()), ("fetch_time", T.TimestampType()),
    ("status", T.IntegerType()), ("content_type", T.StringType()), ("charset", T.StringType()),
    ("language", T.StringType()), ("language_confidence", T.DoubleType()), ("text", T.StringType()),
    ("text_length", T.IntegerType()), ("extractor", T.StringType()), ("stage", T.StringType()),
    ("reason", T.StringType()), ("detail", T.StringType()), ("file_status", T.StringType()),
    ("error", T.StringType()), ("records", T.LongType()), ("records_by_type_json", T.StringType()),
    ("responses", T.LongType()), ("documents", T.LongType()), ("rejected", T.LongType()),
    ("bytes", T.LongType()), ("seconds", T.DoubleType()), ("attempts", T.IntegerType()),
    ("last_error", T.StringType()),
]
WIDE_SCHEMA = T.StructType([T.StructField(n, t, True) for n, t in _WIDE_COLUMNS])
_ARROW_TYPES = {T.StringType: pa.string(), T.LongType: pa.int64(), T.IntegerType: pa.int32(),
                T.DoubleType: pa.float64(), T.TimestampType: pa.timestamp("us")}
ARROW_SCHEMA = pa.schema([(n, _ARROW_TYPES[type(t)]) for n, t in _WIDE_COLUMNS])
_BATCH_ROWS = 256


def _batched(rows: Iterator[dict]) -> Iterator[pa.RecordBatch]:
    buffer: list[dict] = []
    for row in rows:
        buffer.append(row)
        if len(buffer) >= _BATCH_ROWS:
            yield pa.RecordBatch.from_pylist(buffer, schema=ARROW_SCHEMA)
            buffer = []
    if buffer:
        yield pa.RecordBatch.from_pylist(buffer, schema=ARROW_SCHEMA)


def _task_start() -> None:
    """A task starts in a Python worker. pyspark's daemon runs a full ``gc.collect()`` after every
    task of a reused worker, each walking the ~100,000 objects of the imports and the readers'
    tables (25-50 ms in a worker). What is alive as a task starts lives as long as the worker, so it
    is frozen out of the collections: py-spy over the workers of 8 realpages copies found 2.8% of
    their samples in those collections, 0.8% frozen (issue 31)."""
    gc.freeze()


def _extract_partition(settings: ExtractSettings):
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        _task_start()
        yield from _batched(row for batch in batches for path in batch.column("warc_file").to_pylist()
                            for row in process_warc_file(path, settings))

    return run


def extract_wide(spark: SparkSession, paths: list[str], settings: ExtractSettings,
                 files_per_partition: int) -> DataFrame:
    """All rows of all files; WARC files are spread evenly, ``files_per_partition`` per task."""
    slices = max(1, math.ceil(len(paths) / max(1, files_per_partition)))
    files = spread_rows(spark, [(p,) for p in paths], "warc_file string", slices)
    return files.mapInArrow(_extract_partition(settings), WIDE_SCHEMA)


def with_refused(spark: SparkSession, wide: DataFrame, refused: list[RefusedEntry]) -> DataFrame:
    """``wide`` plus, for each listing entry that was refused (never read), a ``refused`` file
    row with the reason and a ``refused_file`` reject, so the entry is accounted for like a
    missing file. One row per listing entry: the driver already holds the listing."""
    rows = []
    for r in refused:
        error = f"refused: {r.reason} (listed in {shown(r.listing)})"[:500]
        rows.append({"kind": "file", "warc_file": r.entry, "file_status": "refused", "error": error, "records": 0,
                     "records_by_type_json": "{}", "responses": 0, "documents": 0, "rejected": 0, "bytes": 0,
                     "seconds": 0.0, "attempts": 0, "last_error": None})
        rows.append({"kind": "reject", "warc_file": r.entry, "stage": "read", "reason": "refused_file",
                     "detail": error})
    if not rows:
        return wide
    table = pa.Table.from_pylist(rows, schema=ARROW_SCHEMA)
    return wide.unionByName(spark.createDataFrame(table.to_pandas(), WIDE_SCHEMA))


def _extract_ranges_partition(settings: ExtractSettings, base: str, index_root: str, max_gap: int):
    def rows(batches: Iterator[pa.RecordBatch]) -> Iterator[dict]:
        for batch in batches:
            for name, ranges in zip(batch.column("warc_filename").to_pylist(), batch.column("ranges").to_pylist()):
                yield from process_warc_ranges(resolve_entry(name, base, index_root), ranges, settings, max_gap)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        _task_start()
        return _batched(rows(batches))

    return run


def extract_sampled_wide(files: DataFrame, settings: ExtractSettings, *, base: str, index_root: str,
                         max_gap: int, files_per_partition: int) -> DataFrame:
    """The wide frame of ``extract_wide`` for the selected records only: ``files`` has one row per
    WARC file (``warc_filename`` as the index names it, ``ranges``: offset, length, url), each
    file's records fetched by byte range in one task. Relative names resolve against ``base``
    (``s3://commoncrawl/``), else against the index's folder and its parents (a local copy)."""
    n = files.count()
    slices = max(1, math.ceil(n / max(1, files_per_partition)))
    spread = files.repartition(slices, "warc_filename") if n else files
    return spread.mapInArrow(_extract_ranges_partition(settings, base, index_root, max_gap), WIDE_SCHEMA)


def _wide_writer(wide: DataFrame, codec: str) -> DataFrameWriter:
    """How the wide frame is saved: with ``extract.wave_compression``'s codec, and without Parquet
    dictionaries: each value is read back once, by the outputs, and a dictionary of mostly distinct
    texts and URLs is built value by value only to be dropped."""
    return wide.write.mode("overwrite").option("parquet.enable.dictionary", "false").option("compression", codec)


def saved_wide(spark: SparkSession, wide: DataFrame, folder: str, codec: str) -> DataFrame:
    """``wide`` written once to ``folder`` and read back, for :func:`split_outputs` (the sampled
    extract's frame; the full one is saved by :func:`extract_wide_in_waves`)."""
    _wide_writer(wide, codec).parquet(folder)
    return spark.read.schema(WIDE_SCHEMA).parquet(folder)


def extract_wide_in_waves(spark: SparkSession, paths: list[str], settings: ExtractSettings, *,
                          wave_files: int, work_dir: str, files_per_partition: int,
                          codec: str) -> tuple[DataFrame, int, int]:
    """``extract_wide`` over ``paths`` in waves of ``wave_files`` files (0: one wave of them all),
    each wave saved under ``work_dir`` as it finishes; waves already saved there are not read again.

    This is the datatrove-style completion marker at a finer grain than the node: when a cluster
    job over thousands of WARC files dies, the relaunch redoes only the unfinished wave. A wave's
    name hashes its settings and file list, so other settings or another listing never reuse it
    (the runner's fingerprint, which names ``work_dir``, covers them too). Returns the
    wide frame read back from all waves, the number of waves and how many were already done.
    """
    step = wave_files or len(paths) or 1
    waves = [paths[i:i + step] for i in range(0, len(paths), step)]
    folders, resumed = [], 0
    recipe = json.dumps(dataclasses.asdict(settings), sort_keys=True, default=str)
    for i, files in enumerate(waves):
        digest = hashlib.sha1("\n".join([recipe, *files]).encode()).hexdigest()[:12]
        folder = storage.join(work_dir, f"wave-{i:05d}-{digest}")
        done = storage.join(work_dir, f"wave-{i:05d}-{digest}.done")
        folders.append(folder)
        if storage.exists(spark, done):
            resumed += 1
            continue
        tmp = storage.join(work_dir, "_tmp", f"wave-{i:05d}-{digest}")
        storage.delete(spark, tmp)
        storage.delete(spark, folder)          # a move the last run did not finish (S3A copies file by file)
        _wide_writer(extract_wide(spark, files, settings, files_per_partition), codec).parquet(tmp)
        storage.move(spark, tmp, folder)
        storage.write_text(spark, done, json.dumps({"files": len(files)}))   # only now is the wave whole
    if not folders:           # every listing entry refused
        return spark.createDataFrame([], WIDE_SCHEMA), 0, 0
    return spark.read.schema(WIDE_SCHEMA).parquet(*folders), len(waves), resumed


def cross_file_duplicates(docs: DataFrame) -> DataFrame:
    """Documents whose WARC-Record-ID already appeared earlier, by (warc_file, offset) order.

    Record ids are unique in ``documents``: the same id read twice (the same file listed under two
    names, a re-packed copy of a crawl segment) is one capture, so the first occurrence is kept and
    every later one becomes a ``duplicate_record_id`` reject. Duplicates inside one file never get
    here (the file's task rejects them). Only the small key columns are shuffled.
    """
    order = Window.partitionBy("record_id").orderBy("warc_file", "offset")
    keys = docs.select("record_id", "warc_file", "offset", "url")
    ranked = keys.withColumn("_rank", F.row_number().over(order)) \
        .withColumn("_first", F.first(F.concat_ws("@", "warc_file", F.col("offset").cast("string"))).over(order))
    return ranked.where(F.col("_rank") > 1).select(
        "warc_file", "offset", "record_id", "url", F.lit("dedupe").alias("stage"),
        F.lit("duplicate_record_id").alias("reason"), F.concat(F.lit("first kept: "), "_first").alias("detail"))


DOC_COLUMNS = ["record_id", "url", "host", "surt_host_name", "rev_host", "registered_domain", "tld", "crawl",
               "warc_file", "offset", "fetch_time", "status", "content_type", "charset", "language",
               "language_confidence", "text", "text_length", "extractor"]
REJECT_COLUMNS = ["warc_file", "offset", "record_id", "url", "stage", "reason", "detail"]


def file_rows(wide: DataFrame) -> DataFrame:
    """The wide frame's file rows in the ``warc_files`` shape, counts before cross-file dedupe."""
    return wide.where(F.col("kind") == "file").select(
        "warc_file", F.col("file_status").alias("status"), "error", "records",
        F.from_json("records_by_type_json", T.MapType(T.StringType(), T.LongType())).alias("records_by_type"),
        "responses", "documents", "rejected", "bytes", "seconds", "attempts", "last_error")


def split_outputs(wide: DataFrame) -> dict[str, DataFrame]:
    """The wide frame -> ``documents``, ``rejects``, ``warc_files`` in their schemas' shapes.

    ``wide`` is read from saved files (:func:`extract_wide_in_waves`, :func:`saved_wide`), never a
    live extraction: each output reads it again."""
    all_docs = wide.where(F.col("kind") == "doc")
    dups = cross_file_duplicates(all_docs).persist(StorageLevel.MEMORY_AND_DISK)
    # Materialised here so that the planner of the writes sees the duplicates' real size: normally a
    # handful of keys, broadcast to the anti-join below, so the documents' text is never shuffled (a
    # sort-merge join would move every document across the cluster); a large set still gets the
    # sort-merge join.
    dups.count()
    return assemble_outputs(all_docs, wide.where(F.col("kind") == "reject"), file_rows(wide), dups)


def assemble_outputs(docs: DataFrame, rejects: DataFrame, files: DataFrame, dups: DataFrame) -> dict[str, DataFrame]:
    """Documents, rejects and file rows, with ``dups`` (from :func:`cross_file_duplicates` over
    ``docs``) moved from documents to rejects and the files' counts moved with them."""
    documents = docs.join(dups.select("warc_file", "offset"), ["warc_file", "offset"], "left_anti").select(*DOC_COLUMNS)
    rejects = rejects.select(*REJECT_COLUMNS).unionByName(dups)
    moved = dups.groupBy("warc_file").agg(F.count(F.lit(1)).alias("_dups"))
    files = files.join(moved, "warc_file", "left").withColumn("_dups", F.coalesce("_dups", F.lit(0)).cast("long")) \
        .withColumn("documents", F.col("documents") - F.col("_dups")) \
        .withColumn("rejected", F.col("rejected") + F.col("_dups")).drop("_dups")
    # the small outputs are rebalanced (AQE merges them into a few tasks): else each WARC file's
    # task writes its own Parquet file of a handful of rows, 90,000 files for one crawl's listing
    return {"documents": documents, "rejects": rejects.hint("rebalance"), "warc_files": files.hint("rebalance")}
