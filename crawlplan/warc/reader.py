"""Read WARC (and legacy ARC) files record by record without ever raising mid-file.

Real crawls are messy: gzip members corrupt in the middle, files cut short, brotli bodies that
warcio 1.8.1 cannot decode, chunked bodies, wrong charset declarations. A reader that raises
loses every record after the fault, so this one turns each fault into a value: records carry
``payload_error``; file-level faults end in a :class:`FileOutcome` with status
``ok | truncated | corrupt | missing | unreachable``. After a corrupt gzip member in a local file
it scans forward to the next member and carries on.

Remote files come through :mod:`crawlplan.warc.remote`, which retries and resumes by byte range;
what it could not save shows here: ``unreachable`` (no byte could be read after the retries) and
``truncated`` (the bytes ended before the file's Content-Length, or its last gzip member is cut).
"""

from __future__ import annotations

import dataclasses
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from crawlplan import hosts
from crawlplan.conf import Settings, number_setting, settings_from
from crawlplan.warc.framing import (
    FRAMING,
    NOT_AN_ARCHIVE,
    HeaderTooLong,
    bounded_iterator,
    check_framing,
    declared_length_problem,
    fault_text,
    find_member,
    format_begun,
    head_of,
    partial_headers,
    resync,
    set_status,
    sniff_format,
    target_uri,
)
from crawlplan.warc.payload import decode_body
from crawlplan.warc.remote import NotFound, RemoteError, RetryPolicy, open_stream

_CRAWL_RE = re.compile(r"(CC-MAIN-\d{4}-\d{2})")


@dataclass(frozen=True)
class ReadLimits(Settings):
    """The bounds of every WARC read (extract, site pages, the index build): the keys
    ``max_payload_bytes``, ``max_header_bytes`` and ``max_url_bytes`` of conf section ``extract``
    (values and meaning: conf/defaults.yaml). Counts may be written 1e7 or 1000.0."""
    SECTION = "extract"
    max_payload_bytes: int
    max_header_bytes: int
    max_url_bytes: int

    @classmethod
    def from_params(cls, params: dict, **derived) -> ReadLimits:
        numbers = {f.name: number_setting(f"{cls.SECTION}.{f.name}", params[f.name], True)
                   for f in dataclasses.fields(cls) if f.name in params}
        return settings_from(cls, params, cls.SECTION, **numbers, **derived)


def url_problem(url: str | None, max_url_bytes: int) -> str | None:
    """Why a record's URL cannot become a row keyed by its host, or None: bytes that were not
    UTF-8 (the readers make them U+FFFD), more than ``max_url_bytes``, or no valid host
    (:func:`crawlplan.hosts.valid_host`). The URL is the crawled site's to write."""
    if not url:
        return "no URL"
    if "\ufffd" in url:
        return "the URL is not UTF-8"
    size = len(url.encode("utf-8", "surrogatepass"))
    if size > max_url_bytes:
        return f"a URL of {size:,} bytes > {max_url_bytes:,}"
    if not hosts.host_of(url):
        return "no valid host"
    return None


def crawl_of(path: str) -> str | None:
    match = _CRAWL_RE.search(path)
    return match.group(1) if match else None


@dataclass
class RawRecord:
    warc_file: str
    offset: int
    record_type: str
    record_id: str | None
    url: str | None
    date: str | None
    http_status: int | None = None
    http_headers: dict[str, str] = field(default_factory=dict)
    # the WARC header block, lower-case names (payload digest, truncation, identified type)
    warc_headers: dict[str, str] = field(default_factory=dict)
    payload: bytes | None = None
    payload_error: str | None = None
    payload_length: int | None = None
    fault: str | None = None            # bad_length | bad_header: the record's framing is wrong
    fault_detail: str | None = None

    @property
    def content_type(self) -> str | None:
        value = self.http_headers.get("content-type")
        if not value:
            return None
        return value.split(";", 1)[0].strip().lower() or None

    @property
    def declared_charset(self) -> str | None:
        value = self.http_headers.get("content-type", "")
        match = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", value, flags=re.IGNORECASE)
        return match.group(1).lower() if match else None


@dataclass
class FileOutcome:
    warc_file: str
    status: str = "ok"
    error: str | None = None
    records: int = 0
    records_by_type: Counter = field(default_factory=Counter)
    bytes: int = 0
    seconds: float = 0.0
    attempts: int = 1               # requests made for the file (1 = no retry)
    last_error: str | None = None   # the last fault met, also when a retry recovered from it


PayloadFilter = Callable[[RawRecord], bool]


def _headers_dict(status_and_headers) -> dict[str, str]:
    if status_and_headers is None:
        return {}
    out: dict[str, str] = {}
    for key, value in status_and_headers.headers:
        out.setdefault(key.lower(), value)
    return out


def _http_status(status_and_headers) -> int | None:
    if status_and_headers is None:
        return None
    try:
        code = status_and_headers.get_statuscode()
        return int(code) if code else None
    except (ValueError, TypeError):
        return None


def members_complete(raw: bytes) -> bool:
    """True when ``raw`` is a run of whole gzip members (each with its trailer) and nothing else."""
    while raw:
        decomp = zlib.decompressobj(31)
        try:
            while not decomp.eof and raw:
                decomp.decompress(raw, 1 << 24)
                raw = decomp.unconsumed_tail
        except zlib.error:
            return False
        if not decomp.eof:
            return False
        raw = decomp.unused_data
    return True


TAIL_LIMIT = 64 << 20   # the last member is read back whole up to this size (larger: left unchecked)


def iter_records(
    path: str,
    outcome: FileOutcome,
    *,
    limits: ReadLimits,
    read_payload: PayloadFilter | None = None,
    reader: str = "warcio",
    remote: RetryPolicy | None = None,
) -> Iterator[RawRecord]:
    """Yield every record of ``path``; fill ``outcome`` with the file's accounting as it goes.

    ``read_payload(record)`` decides, from the headers alone, whether the body is read and
    decoded (default: response records). Bodies over ``limits.max_payload_bytes`` are not read and
    get ``payload_error='oversize'``; a header block over ``limits.max_header_bytes`` is a fault. ``remote`` is the retry policy for http(s) and S3 paths. A file
    whose first bytes are not a WARC or ARC is ``corrupt`` with no record.
    """
    started = time.time()
    try:
        source = open_stream(path, remote)
    except (NotFound, RemoteError) as exc:
        outcome.status = "missing" if isinstance(exc, NotFound) else "unreachable"
        outcome.error, outcome.attempts, outcome.last_error = str(exc)[:500], exc.attempts, exc.last_error
        outcome.seconds = time.time() - started
        return
    except FileNotFoundError as exc:
        outcome.status, outcome.error = "missing", str(exc)
        return
    except OSError as exc:
        outcome.status, outcome.error = "corrupt", f"cannot open: {exc}"
        return
    known, gzipped = None, path.endswith(".gz")
    if source.seekable():
        source.seek(0, 2)
        size = source.tell()
        source.seek(0)
        if size == 0:
            outcome.status, outcome.error = "corrupt", "zero-byte file"
            source.close()
            return
        known, gzipped = sniff_format(source.read(4096))
        source.seek(0)
        if known is None:
            outcome.status, outcome.error = "corrupt", NOT_AN_ARCHIVE
            source.close()
            return
    try:
        if reader == "fastwarc" and gzipped and known != "arc" and not path.endswith((".arc", ".arc.gz")):
            # fast.py imports this module; fastwarc is optional
            from crawlplan.warc.fast import iter_fastwarc

            yield from iter_fastwarc(source, path, outcome, max_payload_bytes=limits.max_payload_bytes,
                                     read_payload=read_payload, max_header_bytes=limits.max_header_bytes)
        else:   # warcio: ARC files, and uncompressed WARC files, whose record boundaries it checks
            yield from iter_warcio(source, path, outcome, max_payload_bytes=limits.max_payload_bytes,
                                    read_payload=read_payload, max_header_bytes=limits.max_header_bytes,
                                    known_format=known)
        if not source.seekable():
            check_stream_end(source, path, outcome)
    finally:
        source.close()
        outcome.seconds = time.time() - started


def check_stream_end(source, path: str, outcome: FileOutcome) -> None:
    """After the last record of a remote stream: was the whole file read, and is its last member whole?

    The reader stops quietly where the bytes stop, so a file cut short would otherwise pass for
    complete. ``source`` is a :class:`~crawlplan.warc.remote.RemoteStream`.
    """
    outcome.attempts, outcome.last_error = source.attempts, source.last_error
    stopped_at = source.tell()
    left_over = source.read(1) if source.failure is None else b""
    outcome.bytes = max(outcome.bytes, stopped_at)
    if outcome.status == "truncated" and source.failure and source.failure not in (outcome.error or ""):
        outcome.error = f"{source.failure}; {outcome.error}"[:500]    # the cause first, then where it cut
    if outcome.status != "ok":
        return
    if source.failure:
        outcome.status, outcome.error = "truncated", source.failure[:500]
    elif stopped_at == 0:
        outcome.status, outcome.error = "corrupt", "zero-byte file"
    elif left_over:
        outcome.status = "corrupt"
        outcome.error = f"the reader stopped at byte {stopped_at:,} of {source.size or '?'}: damaged data there"
    elif not source.complete():
        outcome.status = "truncated"
        outcome.error = f"the bytes ended at {stopped_at:,} of {source.size or '?'}: {source.failure or 'short read'}"
    elif path.endswith(".gz") and outcome.records:
        tail = source.kept_since_mark()
        if tail is not None and not members_complete(tail):
            outcome.status = "truncated"
            outcome.error = f"the last gzip member (from byte {stopped_at - len(tail):,}) is incomplete"


def damage_or_cut(source) -> str:
    """A fault in a record is damage (``corrupt``), unless the network had already ended the bytes
    (a remote stream's ``failure``): then the record is cut, and the file ``truncated``."""
    return "truncated" if getattr(source, "failure", None) else "corrupt"


def iter_warcio(source, path, outcome, *, max_payload_bytes, read_payload, start: int = 0,
                max_header_bytes: int, known_format: str | None = None) -> Iterator[RawRecord]:
    """warcio's record loop with the checks of :mod:`crawlplan.warc.framing`; after a fault it
    re-synchronises (next gzip member, or next ``WARC/1.`` line of an uncompressed file)."""
    wants = read_payload or (lambda rec: rec.record_type == "response")
    seekable = source.seekable()
    mark = getattr(source, "mark", None)     # a remote stream keeps the last record's bytes for the end check
    base = start
    last_offset: int | None = None
    short_at: int | None = None              # a record whose bytes ended before its declared length
    while True:
        if seekable:
            source.seek(base)
        iterator = bounded_iterator(source, max_header_bytes, known_format)
        if known_format is None:
            head = head_of(iterator)
            known_format = sniff_format(head)[0] or format_begun(head)
            if known_format is None and path.endswith((".arc", ".arc.gz")):
                known_format = "arc"
            if known_format is None:
                if getattr(source, "failure", None):    # the network cut the head short: check_stream_end says so
                    return
                outcome.status, outcome.error = "corrupt", NOT_AN_ARCHIVE if head else "zero-byte file"
                return
            iterator.known_format = known_format
        failed: Exception | None = None
        resync_at: int | None = None
        try:
            for record in iterator:
                # iterator.offset is the record's start; get_record_offset() would read it to the end
                offset = iterator.offset
                last_offset = offset
                if mark is not None:
                    mark(offset)
                if short_at is not None:     # a record after a short one: the length ran past a member
                    set_status(outcome, "corrupt", f"the record at offset {short_at} ends before its declared length")
                    short_at = None
                rec = RawRecord(
                    warc_file=path,
                    offset=offset,
                    record_type=record.rec_type or "unknown",
                    record_id=record.rec_headers.get_header("WARC-Record-ID"),
                    url=target_uri(record, iterator.reader),
                    date=record.rec_headers.get_header("WARC-Date"),
                    http_status=_http_status(record.http_headers),
                    http_headers=_headers_dict(record.http_headers),
                    warc_headers=_headers_dict(record.rec_headers),
                )
                outcome.records += 1
                outcome.records_by_type[rec.record_type] += 1
                fault = iterator.loader.header_fault
                if fault:
                    rec.fault, rec.fault_detail = "bad_header", fault
                    set_status(outcome, damage_or_cut(source), f"the record at offset {offset}: {fault}")
                elif wants(rec):
                    _read_body(record, rec, max_payload_bytes)
                problem = declared_length_problem(record)
                framing = check_framing(iterator, record)
                if problem or framing:
                    rec.fault = "bad_length"
                    rec.fault_detail = problem or FRAMING[framing].format(offset=offset)
                if framing == "short":
                    short_at = offset
                    set_status(outcome, "truncated", rec.fault_detail)
                elif problem or framing:
                    set_status(outcome, damage_or_cut(source), rec.fault_detail)
                yield rec
                if framing == "boundary":    # the declared length is wrong: the next record is found anew
                    resync_at = offset + 1
                    break
        except HeaderTooLong as exc:          # a WARC header over the bound: its record is a counted reject
            failed = exc
            seen = partial_headers(iterator.reader.lines if iterator.reader is not None else [])
            offset = iterator.offset
            rec = RawRecord(warc_file=path, offset=offset, record_type=seen.get("warc-type", "unknown"),
                            record_id=seen.get("warc-record-id"), url=None, date=None,
                            fault="bad_header", fault_detail=f"WARC headers: {exc}")
            outcome.records += 1
            outcome.records_by_type[rec.record_type] += 1
            last_offset = offset
            set_status(outcome, "corrupt", f"the record at offset {offset}: {rec.fault_detail}")
            yield rec
        except Exception as exc:  # corrupt member, bad headers: record it, then try to resync
            failed = exc
        outcome.bytes = max(outcome.bytes, source.tell())
        if failed is not None and damage_or_cut(source) == "truncated":   # the network ended the bytes
            set_status(outcome, "truncated", source.failure)
            return
        if resync_at is not None and seekable:
            base, last_offset = resync(source, resync_at), None
            if base is None:
                return
            continue
        if failed is None and seekable and path.endswith(".gz") and last_offset is not None:
            # warcio ends quietly at a damaged member: tell a cut-off file from a damaged middle
            source.seek(last_offset)
            if not members_complete(source.read(TAIL_LIMIT)):
                next_start = find_member(source, last_offset + 1)
                if next_start is None:
                    set_status(outcome, "truncated", f"gzip member at offset {last_offset} is incomplete")
                    break
                outcome.status = "corrupt"
                outcome.error = f"damaged gzip member at offset {last_offset}; resumed at {next_start}"
                base, last_offset = next_start, None
                continue
        if failed is None and resync_at is None:
            break
        outcome.status = "corrupt"
        if failed is not None:
            outcome.error = fault_text(failed, last_offset if last_offset is not None else base)
        if not seekable:
            return
        resume_from = last_offset + 1 if last_offset is not None else base + 1
        next_start = resync(source, resume_from)
        if next_start is None:
            return
        base, last_offset = next_start, None


def _read_body(record, rec: RawRecord, max_payload_bytes: int) -> None:
    """Read the HTTP body raw (warcio's own decoder raises on brotli) and decode it ourselves."""
    declared = rec.http_headers.get("content-length")
    try:
        if declared is not None and int(declared) > max_payload_bytes:
            rec.payload_error, rec.payload_length = "oversize", int(declared)
            return
    except ValueError:
        pass
    raw = record.raw_stream.read(max_payload_bytes + 1)
    rec.payload_length = len(raw)
    if len(raw) > max_payload_bytes:
        rec.payload_error = "oversize"
        return
    body, error = decode_body(raw, rec.http_headers, max_payload_bytes)
    rec.payload, rec.payload_error = body, error
