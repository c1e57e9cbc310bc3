"""The fastwarc (resiliparse) record loop: about four times warcio's speed, WARC only (no ARC).

fastwarc stops quietly at a corrupt member, so a file that ends before its size is reached is
reported as corrupt rather than silently short.
"""

from __future__ import annotations

import os

from crawlplan.warc.payload import decode_body
from crawlplan.warc.remote import read_exactly


def _type_name(record_type) -> str:
    """fastwarc's enum prints as its bare name (``response``) in the versions we support."""
    text = str(record_type)
    return text.rsplit(".", 1)[-1] if text else "unknown"


class _WholeReads:
    """A network stream as fastwarc needs it: ``read(n)`` returns n bytes unless the bytes end.

    A socket may hand over a few bytes at a time (a slow server); fastwarc takes such a short read
    inside a header for the end of the data and reports an invalid header."""

    def __init__(self, raw):
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        return self.raw.read() if n is None or n < 0 else read_exactly(self.raw, n)

    def __getattr__(self, name):
        return getattr(self.raw, name)


def iter_fastwarc(source, path, outcome, *, max_payload_bytes, read_payload, max_header_bytes):
    """fastwarc's loop over a gzipped WARC. fastwarc reads a Content-Length that runs past its
    member into the next record, so a record is handed on only once the next one parsed (or the
    file ended cleanly); at a fault, warcio's checked loop reads the file again from the record
    not yet handed on (seekable files), so both readers give the same rows."""
    # optional dependency: the fastwarc reader (extract.reader: fastwarc), imported only when chosen
    from fastwarc.warc import ArchiveIterator

    # reader.py imports this module back (the fastwarc reader is optional)
    from crawlplan.warc.reader import FRAMING, RawRecord, damage_or_cut, set_status

    wants = read_payload or (lambda rec: rec.record_type == "response")
    mark = getattr(source, "mark", None)     # a remote stream keeps the last record's bytes for the end check
    last_pos = 0
    pending: RawRecord | None = None
    try:
        stream = source if source.seekable() else _WholeReads(source)
        for record in ArchiveIterator(stream, parse_http=True):
            if pending is not None:
                yield _counted(pending, outcome)
                pending = None
            last_pos = record.stream_pos
            if mark is not None:
                mark(last_pos)
            pending = _record(RawRecord, record, path, wants, max_payload_bytes)
            if pending.fault == "bad_length":
                pending.fault_detail = FRAMING["short"].format(offset=last_pos)
                set_status(outcome, "truncated", pending.fault_detail)
    except Exception as exc:
        if damage_or_cut(source) == "truncated":     # the network ended the bytes mid-record
            set_status(outcome, "truncated", source.failure)
        else:
            outcome.status, outcome.error = "corrupt", f"{type(exc).__name__}: {exc}"[:500]
    local = path.removeprefix("file://")
    if os.path.exists(local):
        outcome.bytes = os.path.getsize(local)
    if not source.seekable():
        if pending is not None:
            yield _counted(pending, outcome)
        return
    # fastwarc stops at a damaged or cut-off member; hand the rest of the file to warcio's resync
    from crawlplan.warc.reader import TAIL_LIMIT, find_member, iter_warcio, members_complete

    source.seek(last_pos)
    if outcome.status in ("ok", "truncated") and members_complete(source.read(TAIL_LIMIT)):
        if pending is not None:
            yield _counted(pending, outcome)
        return
    if pending is not None:         # warcio reads it again, with its member checks
        next_start = last_pos
    else:
        next_start = find_member(source, last_pos + 1) if outcome.records else find_member(source, 0)
    if next_start is None:
        set_status(outcome, "truncated", f"gzip member at offset {last_pos} is incomplete")
        return
    if outcome.status == "corrupt" or next_start != last_pos:
        outcome.status = "corrupt"
        outcome.error = (outcome.error or f"damaged gzip member at offset {last_pos}") + f"; resumed at {next_start}"
    yield from iter_warcio(source, path, outcome, max_payload_bytes=max_payload_bytes,
                            read_payload=read_payload, start=next_start, max_header_bytes=max_header_bytes,
                            known_format="warc")


def _counted(rec, outcome):
    outcome.records += 1
    outcome.records_by_type[rec.record_type] += 1
    return rec


def _record(raw_record, record, path, wants, max_payload_bytes):
    """One fastwarc record as a RawRecord, its body read (when wanted) and the rest drained: a
    block shorter than its Content-Length makes it a ``bad_length`` record."""
    http = record.http_headers if record.is_http else None
    headers = {}
    status = None
    if http is not None:
        for key, value in http.items():
            headers.setdefault(key.lower(), value)
        status = http.status_code
    rec = raw_record(
        warc_file=path, offset=record.stream_pos, record_type=_type_name(record.record_type),
        record_id=record.record_id, url=record.headers.get("WARC-Target-URI"),
        date=record.headers.get("WARC-Date"), http_status=status, http_headers=headers,
        warc_headers={key.lower(): value for key, value in reversed(list(record.headers.items()))},
    )
    got = 0
    if wants(rec):
        raw = record.reader.read(max_payload_bytes + 1)
        got = rec.payload_length = len(raw)
        if len(raw) > max_payload_bytes:
            rec.payload_error = "oversize"
        else:
            rec.payload, rec.payload_error = decode_body(raw, headers, max_payload_bytes)
    while chunk := record.reader.read(1 << 16):
        got += len(chunk)
    if got < record.content_length:
        rec.fault = "bad_length"
    return rec
