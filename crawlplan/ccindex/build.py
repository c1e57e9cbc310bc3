"""Write a columnar URL index in Common Crawl's flat schema for any WARC files (``crawlplan index build``).

Common Crawl publishes one for each crawl (cc-index-table); files that are not Common Crawl's, or
the demo crawl, need one written from the files themselves before the sampled extract (or any
reader of Common Crawl's table, such as cc-pyspark's ``CCIndexWarcSparkJob``) can read them by byte
range. The table is Common Crawl's exactly: every column of ``schemas/cc_index.yaml`` (the flat
schema) with its published type, each computed as Common Crawl computes it
(:mod:`crawlplan.ccindex.columns`), partitioned ``crawl=/subset=`` and sorted by ``url_surtkey``
within each partition, so it can be read next to Common Crawl's partitions (``mergeSchema``) and
joined with them on the key.

Two passes, Spark-free, each in a process pool:

1. Each WARC file is scanned once: every ``response`` and ``revisit`` record becomes a row whose
   ``warc_record_offset`` / ``warc_record_length`` are the record's own gzip member (offset of the
   next record minus its own), so a range read at those bytes yields exactly that record (tested).
   The ``metadata`` record Common Crawl writes after each response supplies ``content_languages``
   and ``content_charset``; the ``warcinfo`` record's ``isPartOf`` names the crawl of a Common Crawl
   file that was renamed. The file's rows are sorted and written as one run per partition in a
   scratch folder ``<out>/_build/`` (one file's rows in memory at a time, per process).
2. Each partition's runs are merged (a k-way merge reading ``index.merge_batch_rows`` rows of each
   run at a time) into ``part-NNNNN.parquet`` files of at most ``index.rows_per_file`` rows, whose
   key ranges follow each other as in Common Crawl's partitions. A partition written is replaced
   whole; the scratch folder is removed.
"""

from __future__ import annotations

import heapq
import os
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from crawlplan import hosts
from crawlplan.ccindex import columns as cols
from crawlplan.conf import load_conf, section, settings_from
from crawlplan.warc.reader import FileOutcome, ReadLimits, iter_records, url_problem

ROW_TYPES = ("response", "revisit")          # the captures Common Crawl's CDX writer indexes
SCRATCH = "_build"                           # readers skip folders starting with "_"
_INT32 = 2**31 - 1


@dataclass(frozen=True)
class IndexSettings:
    crawl: str                   # crawl partition of files that name none (conf index.crawl)
    rows_per_file: int
    merge_batch_rows: int
    compression: str
    limits: ReadLimits           # conf extract's read bounds (a capture's URL, header blocks, payloads)

    @classmethod
    def from_params(cls, params: dict, **derived) -> IndexSettings:
        settings = settings_from(cls, params, "index", **derived)
        if not settings.crawl or "/" in settings.crawl or settings.rows_per_file < 1 or settings.merge_batch_rows < 1:
            raise ValueError("index.crawl must be a folder name; index.rows_per_file and merge_batch_rows >= 1")
        return settings

    @classmethod
    def from_conf(cls, conf: dict | None = None) -> IndexSettings:
        conf = conf if conf is not None else load_conf()
        return cls.from_params(section(conf, "index"), limits=ReadLimits.from_params(section(conf, "extract")))


def _sort_key(row: dict) -> tuple:
    # url_surtkey first (Common Crawl's order); Python's code point order is Spark's UTF-8 byte order
    return row["url_surtkey"], row["fetch_time"], row["warc_filename"], row["warc_record_offset"]


def _row(rec, length: int, warc_filename: str, rejects: Counter, max_url_bytes: int) -> dict | None:
    url = rec.url or ""
    parts, host = cols.url_parts(url), hosts.host_of(url)
    key = cols.url_surtkey(url) if parts and host else None
    if url_problem(url, max_url_bytes) or parts is None or not host:
        rejects["bad_url"] += 1
        return None
    if key is None:
        rejects["bad_surt"] += 1
        return None
    if rec.offset > _INT32 or length > _INT32:
        rejects["offset_over_int32"] += 1          # the published type of offset and length is int32
        return None
    status = rec.http_status if rec.http_status is not None and 0 <= rec.http_status <= 32767 else -1
    revisit, warc = rec.record_type == "revisit", rec.warc_headers
    mime = "warc/revisit" if revisit else cols.clean_mime(rec.http_headers.get("content-type"))
    identified = (warc.get("warc-identified-payload-type") or "").strip() or None
    return {
        "url_surtkey": key, "url": url, **cols.host_columns(host), **parts,
        "fetch_time": cols.parse_time(rec.date), "fetch_status": status,
        "fetch_redirect": cols.redirect_of(status, rec.http_headers.get("location"), url),
        "content_digest": cols.digest_of(warc.get("warc-payload-digest")), "content_mime_type": mime,
        "content_mime_detected": None if revisit else identified or cols.detect_mime(rec.payload, mime),
        "content_charset": rec.declared_charset, "content_languages": None,
        "content_truncated": (warc.get("warc-truncated") or "").strip() or None,
        "warc_filename": warc_filename, "warc_record_offset": rec.offset, "warc_record_length": length,
        "warc_segment": None, "subset": cols.subset_of(rec.record_type, status, parts["url_path"], parts["url_query"]),
        "_http_date": rec.http_headers.get("date"),
    }


def index_rows(path: str, warc_filename: str | None = None, rejects: Counter | None = None,
               warcinfo: dict | None = None, *, limits: ReadLimits) -> tuple[list[dict], FileOutcome]:
    """The index rows of one WARC file (``warc_filename``: the name written, default ``path``),
    before the file-level columns (``warc_segment``, the crawl, a missing ``fetch_time``) are set.

    A record's length is the next record's offset minus its own (the last one ends at the end of
    the file), so with one gzip member per record, as Common Crawl writes, the range is exactly
    that member. A capture whose URL has no valid host, is too long or not UTF-8 (``bad_url``),
    that ``surt`` cannot key (``bad_surt``), or whose framing is wrong (``bad_length``,
    ``bad_header``) gets no row and is counted in ``rejects``. ``warcinfo`` receives the first
    warcinfo record's ``isPartOf`` and ``date``."""
    outcome = FileOutcome(warc_file=path)
    rows: list[dict] = []
    rejects = rejects if rejects is not None else Counter()
    warcinfo = warcinfo if warcinfo is not None else {}
    previous = None

    def close(rec, end):
        if rec.fault:
            rejects[rec.fault] += 1
            return
        row = _row(rec, end - rec.offset, warc_filename or path, rejects, limits.max_url_bytes)
        if row is not None:
            rows.append(row)

    wanted = ("response", "metadata", "warcinfo")
    for rec in iter_records(path, outcome, limits=limits, read_payload=lambda r: r.record_type in wanted):
        if rec.record_type == "warcinfo" and "date" not in warcinfo:
            text = (rec.payload or b"").decode("utf-8", "replace")
            warcinfo["date"] = cols.parse_time(rec.date)
            warcinfo["is_part_of"] = next((line.partition(":")[2].strip() for line in text.splitlines()
                                           if line.lower().startswith("ispartof:")), None)
        if previous is not None and previous.record_type in ROW_TYPES:
            close(previous, rec.offset)
            if rec.record_type == "metadata" and rec.url == previous.url and rows \
                    and rows[-1]["warc_record_offset"] == previous.offset:
                languages, charset = cols.metadata_fields(rec.payload)
                rows[-1]["content_languages"] = languages
                rows[-1]["content_charset"] = charset or rows[-1]["content_charset"]
        previous = rec
    if previous is not None and previous.record_type in ROW_TYPES:
        close(previous, _file_end(path, outcome))
    return rows, outcome


def _file_end(path: str, outcome: FileOutcome) -> int:
    local = path.removeprefix("file://")
    return os.path.getsize(local) if os.path.exists(local) else outcome.bytes


def file_partition(warc_filename: str, warcinfo: dict, settings: IndexSettings) -> tuple[str, str, str | None, str]:
    """(crawl, segment, subset of every row or None, where the crawl came from) of one file:
    Common Crawl's layout (``crawl-data/<crawl>/segments/<segment>/<subset>/``) gives all three, as
    Common Crawl's table takes them; otherwise the crawl is the ``CC-MAIN-YYYY-WW`` of the warcinfo
    ``isPartOf`` (a Common Crawl file renamed), then of the path, then ``index.crawl``; the segment
    is the file's name and each row's subset follows Common Crawl's routing rule."""
    layout = cols.cc_layout(warc_filename)
    if layout:
        return layout[0], layout[1], layout[2], "path"
    segment = cols.segment_of(warc_filename)
    for source, text in (("warcinfo", warcinfo.get("is_part_of")), ("name", warc_filename)):
        if cols.crawl_id(text):
            return cols.crawl_id(text), segment, None, source
    return settings.crawl, segment, None, "setting"


def _fill_fetch_time(rows: list[dict], warcinfo: dict, path: str) -> Counter:
    """A fetch time for rows whose WARC-Date does not parse: the HTTP Date header, else the
    warcinfo record's date, else the file's modification time; counted by source."""
    used: Counter = Counter()
    local = path.removeprefix("file://")
    mtime = datetime.fromtimestamp(int(os.path.getmtime(local)), UTC) if os.path.exists(local) else None
    for row in rows:
        http = row.pop("_http_date")
        if row["fetch_time"] is not None:
            continue
        for source, value in (("http_date", cols.http_date(http)), ("warcinfo", warcinfo.get("date")),
                              ("file_mtime", mtime), ("epoch", datetime.fromtimestamp(0, UTC))):
            if value is not None:
                row["fetch_time"] = value
                used[source] += 1
                break
    return used


def _scan_one(job: tuple[int, str, str, str, IndexSettings]) -> dict:
    number, path, warc_filename, scratch, settings = job
    rejects: Counter = Counter()
    warcinfo: dict = {}
    rows, outcome = index_rows(path, warc_filename, rejects, warcinfo, limits=settings.limits)
    crawl, segment, subset, crawl_from = file_partition(warc_filename, warcinfo, settings)
    fallbacks = _fill_fetch_time(rows, warcinfo, path)
    by_subset: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        row["warc_segment"] = segment
        by_subset[subset or row["subset"]].append(row)
        del row["subset"]
    schema = cols.arrow_schema()
    for name, part in by_subset.items():
        part.sort(key=_sort_key)
        target = os.path.join(scratch, f"crawl={crawl}", f"subset={name}", f"run-{number:05d}.parquet")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        pq.write_table(pa.Table.from_pylist(part, schema=schema), target, compression="none")
    return {"warc_file": path, "status": outcome.status, "error": outcome.error, "rows": len(rows),
            "records": outcome.records, "rejects": dict(rejects), "crawl": crawl, "crawl_from": crawl_from,
            "segment": segment, "subsets": {k: len(v) for k, v in sorted(by_subset.items())},
            "fetch_time_fallbacks": dict(fallbacks)}


def _run_rows(path: str, batch_rows: int) -> Iterator[dict]:
    for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_rows):
        yield from batch.to_pylist()


def _merge_partition(job: tuple[list[str], str, IndexSettings]) -> dict:
    """Merge one partition's sorted runs into ``part-NNNNN.parquet`` files (replacing the old ones)."""
    runs, target_dir, settings = job
    os.makedirs(target_dir, exist_ok=True)
    for old in os.listdir(target_dir):
        if old.endswith(".parquet"):
            os.remove(os.path.join(target_dir, old))
    schema = cols.arrow_schema()
    merged = heapq.merge(*(_run_rows(r, settings.merge_batch_rows) for r in runs), key=_sort_key)
    writer, files, in_file, total, batch = None, 0, 0, 0, []

    def flush():
        nonlocal writer, files, in_file
        if writer is None:
            writer = pq.ParquetWriter(os.path.join(target_dir, f"part-{files:05d}.parquet"), schema,
                                      compression=settings.compression)
            files += 1
        writer.write_table(pa.Table.from_pylist(batch, schema=schema))
        in_file += len(batch)
        batch.clear()
        if in_file >= settings.rows_per_file:
            writer.close()
            writer, in_file = None, 0

    for row in merged:
        batch.append(row)
        total += 1
        if len(batch) >= min(settings.merge_batch_rows, settings.rows_per_file - in_file):
            flush()
    if batch:
        flush()
    if writer is not None:
        writer.close()
    return {"partition": target_dir, "rows": total, "files": files, "runs": len(runs)}


def relative_name(path: str, base: str) -> str:
    """The name an index row carries: the path below ``base`` (as Common Crawl's are below
    ``s3://commoncrawl/``), or the path as given."""
    if base:
        local, root = os.path.abspath(path.removeprefix("file://")), os.path.abspath(base)
        if local.startswith(root.rstrip("/") + "/"):
            return os.path.relpath(local, root)
    return path


def _pool_map(fn, work: list, jobs: int) -> list:
    if jobs <= 1 or len(work) <= 1:
        return [fn(w) for w in work]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, work))


def build_index(paths: list[str], out: str, base: str = "", jobs: int = 1,
                settings: IndexSettings | None = None) -> list[dict]:
    """Index ``paths`` into ``out`` (``crawl=/subset=`` partitions, each sorted by ``url_surtkey``);
    one summary dict per file. ``settings``: conf section ``index`` (default: conf/defaults.yaml)."""
    settings = settings or IndexSettings.from_conf()
    scratch = os.path.join(out, SCRATCH)
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        summary = _pool_map(_scan_one, [(i, p, relative_name(p, base), scratch, settings)
                                        for i, p in enumerate(paths)], jobs)
        runs: dict[str, list[str]] = defaultdict(list)
        for crawl_dir in sorted(os.listdir(scratch)) if os.path.isdir(scratch) else []:
            for subset_dir in sorted(os.listdir(os.path.join(scratch, crawl_dir))):
                folder = os.path.join(scratch, crawl_dir, subset_dir)
                runs[os.path.join(out, crawl_dir, subset_dir)] = [os.path.join(folder, f) for f in sorted(os.listdir(folder))]
        _pool_map(_merge_partition, [(r, target, settings) for target, r in sorted(runs.items())], jobs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return summary


def iter_index_rows(out: str) -> Iterator[dict]:
    """Every row of an index folder written by :func:`build_index` (tests, small indexes)."""
    yield from ds.dataset(out, format="parquet", partitioning="hive").to_table().to_pylist()
