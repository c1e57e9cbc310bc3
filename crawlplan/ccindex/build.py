"""Write a columnar URL index in Common Crawl's schema for any WARC files (``crawlplan index build``).

Common Crawl publishes one for each crawl (cc-index-table); files that are not Common Crawl's, or
the demo crawl, need one written from the files themselves before the sampled extract can read
them by byte range. One pass over each file: every ``response`` record becomes a row whose
``warc_record_offset`` / ``warc_record_length`` are the record's own gzip member (offset of the
next record minus its own), so a range read at those bytes yields exactly that record
(tested). The ``metadata`` record Common Crawl writes after each response supplies
``content_languages`` (``languages-cld2``), as in Common Crawl's own index; the detected MIME type
is sniffed from the payload (Common Crawl uses Tika), falling back to the declared one.

Spark-free: files are scanned in a process pool and written with pyarrow, one Parquet file per
WARC file under ``crawl=<crawl>/subset=<subset>/``.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from crawlplan import hosts
from crawlplan.extract.records import looks_html
from crawlplan.warc.reader import FileOutcome, crawl_of, iter_records, url_problem

# The flat schema's columns this writer fills (names and types as Common Crawl publishes them).
INDEX_COLUMNS = (
    ("url_surtkey", "string"), ("url", "string"), ("url_host_name", "string"), ("url_host_tld", "string"),
    ("url_host_registered_domain", "string"), ("url_host_name_reversed", "string"), ("url_protocol", "string"),
    ("url_port", "int32"), ("url_path", "string"), ("url_query", "string"), ("fetch_time", "timestamp"),
    ("fetch_status", "int16"), ("content_mime_type", "string"), ("content_mime_detected", "string"),
    ("content_charset", "string"), ("content_languages", "string"), ("warc_filename", "string"),
    ("warc_record_offset", "int32"), ("warc_record_length", "int32"), ("warc_segment", "string"),
)
_SEGMENT_RE = re.compile(r"/segments/([^/]+)/")
_SUBSET_RE = re.compile(r"/segments/[^/]+/(warc|crawldiagnostics|robotstxt)/")
_MAGIC = ((b"%PDF-", "application/pdf"), (b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG", "image/png"),
          (b"GIF8", "image/gif"), (b"PK\x03\x04", "application/zip"))


def subset_of(path: str) -> str:
    """Common Crawl's subset folder in the path; other files count as ``warc``."""
    match = _SUBSET_RE.search(path)
    return match.group(1) if match else "warc"


def detect_mime(body: bytes | None, declared: str | None) -> str | None:
    if body:
        if looks_html(body):
            return "application/xhtml+xml" if declared == "application/xhtml+xml" else "text/html"
        for magic, mime in _MAGIC:
            if body.startswith(magic):
                return mime
    return declared


def _languages(fields: bytes | None) -> tuple[str | None, str | None]:
    """``languages-cld2`` and ``charset-detected`` of a Common Crawl metadata record."""
    if not fields:
        return None, None
    languages = charset = None
    for line in fields.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(":")
        if key == "languages-cld2":
            try:
                found = json.loads(value.strip()).get("languages", [])
                languages = ",".join(x["code-iso-639-3"] for x in found if x.get("code-iso-639-3")) or None
            except (ValueError, AttributeError, TypeError, KeyError):
                languages = None
        elif key == "charset-detected":
            charset = value.strip() or None
    return languages, charset


def _surt_key(parts, host: str) -> str:
    port = f":{parts.port}" if parts.port else ""
    query = f"?{parts.query}" if parts.query else ""
    return f"{hosts.surt_host(host)}{port}){(parts.path or '/').lower()}{query.lower()}"


def _row(rec, length: int, warc_filename: str) -> dict | None:
    try:
        parts = urlsplit(rec.url or "")
        port = parts.port
    except ValueError:
        return None
    host = hosts.host_of(rec.url or "")
    if not host:
        return None
    date = None
    if rec.date:
        try:
            date = datetime.fromisoformat(rec.date.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            date = None
    return {
        "url_surtkey": _surt_key(parts, host), "url": rec.url, "url_host_name": host, "url_host_tld": hosts.tld_of(host),
        "url_host_registered_domain": hosts.registered_domain(host), "url_host_name_reversed": ".".join(reversed(host.split("."))),
        "url_protocol": parts.scheme, "url_port": port, "url_path": parts.path or "/", "url_query": parts.query or None,
        "fetch_time": date, "fetch_status": rec.http_status or 0, "content_mime_type": rec.content_type,
        "content_mime_detected": detect_mime(rec.payload, rec.content_type),
        "content_charset": rec.declared_charset, "content_languages": None, "warc_filename": warc_filename,
        "warc_record_offset": rec.offset, "warc_record_length": length,
        "warc_segment": (_SEGMENT_RE.search(warc_filename) or [None, None])[1],
    }


def index_rows(path: str, warc_filename: str | None = None,
               rejects: Counter | None = None) -> tuple[list[dict], FileOutcome]:
    """The index rows of one WARC file (``warc_filename``: the name written, default ``path``).

    A record's length is the next record's offset minus its own (the last one ends at the end of
    the file), so with one gzip member per record, as Common Crawl writes, the range is exactly
    that member. A response whose URL has no valid host, is too long or not UTF-8 (``bad_url``),
    or whose framing is wrong (``bad_length``, ``bad_header``) gets no row and is counted in
    ``rejects``: index keys are built from valid hosts only."""
    outcome = FileOutcome(warc_file=path)
    rows: list[dict] = []
    rejects = rejects if rejects is not None else Counter()
    previous = None

    def close(rec, end):
        if rec.fault:
            rejects[rec.fault] += 1
            return
        row = None if url_problem(rec.url) else _row(rec, end - rec.offset, warc_filename or path)
        if row is None:
            rejects["bad_url"] += 1
        else:
            rows.append(row)

    for rec in iter_records(path, outcome, read_payload=lambda r: r.record_type in ("response", "metadata")):
        if previous is not None and previous.record_type == "response":
            close(previous, rec.offset)
            if rec.record_type == "metadata" and rec.url == previous.url and rows \
                    and rows[-1]["warc_record_offset"] == previous.offset:
                languages, charset = _languages(rec.payload)
                rows[-1]["content_languages"] = languages
                rows[-1]["content_charset"] = rows[-1]["content_charset"] or charset
        previous = rec
    if previous is not None and previous.record_type == "response":
        close(previous, _file_end(path, outcome))
    return rows, outcome


def _file_end(path: str, outcome: FileOutcome) -> int:
    local = path.removeprefix("file://")
    return os.path.getsize(local) if os.path.exists(local) else outcome.bytes


def _arrow_schema():
    types = {"string": pa.string(), "int32": pa.int32(), "int16": pa.int16(), "timestamp": pa.timestamp("us")}
    return pa.schema([(name, types[kind]) for name, kind in INDEX_COLUMNS])


def _write_one(job: tuple[int, str, str, str]) -> dict:
    number, path, warc_filename, out = job
    rejects: Counter = Counter()
    rows, outcome = index_rows(path, warc_filename, rejects)
    crawl = crawl_of(warc_filename) or "unknown"
    subset = subset_of(warc_filename)
    rows.sort(key=lambda r: (r["url_surtkey"], r["warc_record_offset"]))
    target = os.path.join(out, f"crawl={crawl}", f"subset={subset}", f"part-{number:05d}.parquet")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=_arrow_schema()), target)
    return {"warc_file": path, "status": outcome.status, "error": outcome.error, "rows": len(rows),
            "records": outcome.records, "rejects": dict(rejects), "crawl": crawl, "subset": subset}


def relative_name(path: str, base: str) -> str:
    """The name an index row carries: the path below ``base`` (as Common Crawl's are below
    ``s3://commoncrawl/``), or the path as given."""
    if base:
        local, root = os.path.abspath(path.removeprefix("file://")), os.path.abspath(base)
        if local.startswith(root.rstrip("/") + "/"):
            return os.path.relpath(local, root)
    return path


def build_index(paths: list[str], out: str, base: str = "", jobs: int = 1) -> list[dict]:
    """Index ``paths`` into ``out`` (``crawl=/subset=`` partitions); one summary dict per file."""
    work = [(i, p, relative_name(p, base), out) for i, p in enumerate(paths)]
    if jobs <= 1 or len(work) <= 1:
        return [_write_one(w) for w in work]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_write_one, work))


def iter_index_rows(out: str) -> Iterator[dict]:
    """Every row of an index folder written by :func:`build_index` (tests, small indexes)."""
    yield from ds.dataset(out, format="parquet", partitioning="hive").to_table().to_pylist()
