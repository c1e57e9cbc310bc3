"""The fastwarc (resiliparse) record loop: about four times warcio's speed, WARC only (no ARC).

fastwarc stops quietly at a corrupt member, so a file that ends before its size is reached is
reported as corrupt rather than silently short.
"""

from __future__ import annotations

import os

from crawlplan.warc.payload import decode_body


def _type_name(record_type) -> str:
    """fastwarc's enum prints as its bare name (``response``) in the versions we support."""
    text = str(record_type)
    return text.rsplit(".", 1)[-1] if text else "unknown"


def iter_fastwarc(source, path, outcome, *, max_payload_bytes, read_payload):
    # optional dependency: the fastwarc reader (extract.reader: fastwarc), imported only when chosen
    from fastwarc.warc import ArchiveIterator

    # reader.py imports this module back (the fastwarc reader is optional)
    from crawlplan.warc.reader import RawRecord

    wants = read_payload or (lambda rec: rec.record_type == "response")
    mark = getattr(source, "mark", None)     # a remote stream keeps the last record's bytes for the end check
    last_pos = 0
    try:
        for record in ArchiveIterator(source, parse_http=True):
            last_pos = record.stream_pos
            if mark is not None:
                mark(last_pos)
            http = record.http_headers if record.is_http else None
            headers = {}
            status = None
            if http is not None:
                for key, value in http.items():
                    headers.setdefault(key.lower(), value)
                status = http.status_code
            rec = RawRecord(
                warc_file=path, offset=record.stream_pos, record_type=_type_name(record.record_type),
                record_id=record.record_id, url=record.headers.get("WARC-Target-URI"),
                date=record.headers.get("WARC-Date"), http_status=status, http_headers=headers,
            )
            outcome.records += 1
            outcome.records_by_type[rec.record_type] += 1
            if wants(rec):
                raw = record.reader.read(max_payload_bytes + 1)
                rec.payload_length = len(raw)
                if len(raw) > max_payload_bytes:
                    rec.payload_error = "oversize"
                else:
                    rec.payload, rec.payload_error = decode_body(raw, headers, max_payload_bytes)
            yield rec
    except Exception as exc:
        outcome.status, outcome.error = "corrupt", f"{type(exc).__name__}: {exc}"[:500]
    local = path.removeprefix("file://")
    if os.path.exists(local):
        outcome.bytes = os.path.getsize(local)
    if not source.seekable():
        return
    # fastwarc stops at a damaged or cut-off member; hand the rest of the file to warcio's resync
    from crawlplan.warc.reader import TAIL_LIMIT, find_member, iter_warcio, members_complete

    source.seek(last_pos)
    if outcome.status == "ok" and members_complete(source.read(TAIL_LIMIT)):
        return
    next_start = find_member(source, last_pos + 1) if outcome.records else find_member(source, 0)
    if next_start is None:
        if outcome.status == "ok":
            outcome.status, outcome.error = "truncated", f"gzip member at offset {last_pos} is incomplete"
        return
    outcome.status = "corrupt"
    outcome.error = (outcome.error or f"damaged gzip member at offset {last_pos}") + f"; resumed at {next_start}"
    yield from iter_warcio(source, path, outcome, max_payload_bytes=max_payload_bytes,
                            read_payload=read_payload, start=next_start)

