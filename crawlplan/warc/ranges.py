"""Read chosen records of a WARC file by byte range: what the sampled extract fetches.

The columnar index gives each capture's WARC file, offset and length. The ranges of one file go
to :func:`crawlplan.warc.remote.read_ranges` (the same retrying, resuming reader as whole files:
local, http(s), S3), which sorts them, merges neighbours at most ``max_gap`` bytes apart into one
request and hands back each range's bytes. Common Crawl writes every record as its own gzip
member, so each range can be parsed alone; with fastwarc, ranges read one after another are
parsed together, their bytes joined into one stream, so that a record does not pay an
iterator's setup of its own (about 30% of the reading of the demo's small records), with every record
checked to start and end on its own range. Only the selected records are parsed; gap bytes are
read but never parsed. Every range ends as a record or as a reason, never silently lost.
"""

from __future__ import annotations

import io
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass

from crawlplan.warc.fast import iter_fastwarc
from crawlplan.warc.framing import sniff_format
from crawlplan.warc.reader import NOT_AN_ARCHIVE, FileOutcome, RawRecord, ReadLimits, iter_warcio
from crawlplan.warc.remote import NotFound, RemoteError, RetryPolicy, Unreachable, merge_ranges, read_ranges

BATCH_BYTES = 4 << 20     # read ranges parsed together (see parse_ranges); bounds the memory held


@dataclass(frozen=True)
class RecordRange:
    offset: int
    length: int
    url: str | None = None          # the index's URL: checked against the record's


@dataclass
class RangeResult:
    """One selected range: the record parsed from it, or why there is none."""
    range: RecordRange
    record: RawRecord | None
    error: str | None = None        # range_read_error | not_a_record | index_mismatch | bad_range
    detail: str | None = None


def parse_member(data: bytes, path: str, offset: int, *, max_payload_bytes: int, read_payload,
                 reader: str = "warcio", max_header_bytes: int) -> tuple[RawRecord | None, FileOutcome]:
    """The first record of one gzip member (bytes of a range), with its offset in the file."""
    outcome = FileOutcome(warc_file=path)
    source = io.BytesIO(data)
    known, gzipped = sniff_format(data[:4096])
    if path.endswith((".arc", ".arc.gz")):
        known = "arc"
    if known is None:
        outcome.status, outcome.error = "corrupt", NOT_AN_ARCHIVE
        return None, outcome
    options = {"max_payload_bytes": max_payload_bytes, "read_payload": read_payload, "max_header_bytes": max_header_bytes}
    if reader == "fastwarc" and gzipped and known == "warc":
        records = iter_fastwarc(source, path, outcome, **options)
    else:
        records = iter_warcio(source, path, outcome, known_format=known, **options)
    for rec in records:
        rec.offset = offset
        return rec, outcome
    return None, outcome


def _valid(ranges: list[RecordRange]) -> tuple[list[RecordRange], list[RangeResult]]:
    """An index listing one capture twice, a range inside another one or a nonsense range is a
    reject, never lost (in file order, the first of two overlapping ranges is read)."""
    clean: list[RecordRange] = []
    bad: list[RangeResult] = []
    end = -1
    for r in sorted(ranges, key=lambda r: (r.offset, -r.length)):
        if r.length <= 0 or r.offset < 0:
            bad.append(RangeResult(r, None, "bad_range", f"offset {r.offset}, length {r.length}"))
        elif r.offset < end:
            bad.append(RangeResult(r, None, "bad_range", f"overlaps the range at {clean[-1].offset}"))
        else:
            clean.append(r)
            end = r.offset + r.length
    return clean, bad


def _failed(outcome: FileOutcome, exc: Exception) -> str:
    outcome.status = "missing" if isinstance(exc, (NotFound, FileNotFoundError)) else \
        "unreachable" if isinstance(exc, Unreachable) else "corrupt"
    detail = f"{type(exc).__name__}: {exc}"[:500]
    outcome.error = detail
    if isinstance(exc, RemoteError):
        outcome.attempts = max(outcome.attempts, exc.attempts)
        outcome.last_error = exc.last_error
    return detail


def iter_ranges(path: str, ranges: list[RecordRange], outcome: FileOutcome, *, max_gap: int, limits: ReadLimits,
                read_payload=None, reader: str = "warcio", remote: RetryPolicy | None = None) -> Iterator[RangeResult]:
    """One :class:`RangeResult` per selected range of ``path``, in offset order; the file's
    accounting (bytes read, records parsed, status) goes into ``outcome``. ``limits`` bound each
    record as a whole-file read does; ``max_gap``: conf ``extract.sample.merge_gap_bytes``. A span that cannot be
    read rejects its unread ranges (``range_read_error``) and the next span is tried."""
    started = time.time()
    clean, bad = _valid(ranges)
    yield from bad
    # one read_ranges call for the whole file (one open of a local file, one request per span of a
    # remote one); when a span fails, its unread ranges are rejected and the next spans are read anew
    spans = merge_ranges([(r.offset, r.length) for r in clean], max_gap)
    options = {"max_payload_bytes": limits.max_payload_bytes, "read_payload": read_payload, "reader": reader,
               "max_header_bytes": limits.max_header_bytes}
    try:
        while spans:
            wanted = [clean[j] for _, _, members in spans for j in members]
            ends = list(itertools.accumulate(len(members) for _, _, members in spans))
            span = done = 0                 # the span being read; how many of ``wanted`` are read
            batch: list[tuple[RecordRange, bytes]] = []     # read, not parsed yet
            batch_bytes = 0
            try:
                for i, data in read_ranges(path, [(r.offset, r.length) for r in wanted], remote, max_gap=max_gap):
                    batch.append((wanted[i], data))
                    batch_bytes += len(data)
                    done = i + 1
                    if done == ends[span]:
                        outcome.bytes += spans[span][1] - spans[span][0]
                        span += 1
                    if batch_bytes >= BATCH_BYTES:
                        yield from parse_ranges(batch, path, outcome, **options)
                        batch, batch_bytes = [], 0
                yield from parse_ranges(batch, path, outcome, **options)
                spans = []
            except Exception as exc:  # noqa: BLE001 - network, permissions, a short file: the span's ranges are rejects
                detail = _failed(outcome, exc)
                yield from parse_ranges(batch, path, outcome, **options)     # what was read before the fault
                lost = wanted[done:ends[span]]
                outcome.bytes += sum(r.length for r in wanted[ends[span - 1] if span else 0:done])
                yield from (RangeResult(r, None, "range_read_error", detail) for r in lost)
                spans = spans[span + 1:]
    finally:
        outcome.seconds = time.time() - started


def parse_ranges(batch: list[tuple[RecordRange, bytes]], path: str, outcome: FileOutcome, *, reader: str,
                 **options) -> list[RangeResult]:
    """The records of ``batch`` (ranges of ``path`` in file order, with their bytes).

    With fastwarc, the ranges go through one iterator over their bytes joined end to end (each
    range is whole gzip members, so the join is a valid WARC stream): the iterator's setup, which
    a record alone pays in full, is paid once per batch. A record is taken only where it starts
    exactly at its range and the next record starts exactly at the next range (so it read none
    of its neighbour's bytes; the last range ends with the bytes). From the first range where
    that fails, ranges are parsed one by one (:func:`parse_member`) until the joined parse can
    start again, so every range gives the record, or the reason, it gives alone."""
    if reader != "fastwarc" or path.endswith((".arc", ".arc.gz")):
        return [_parse(r, data, path, outcome, reader=reader, **options) for r, data in batch]
    results: list[RangeResult] = []
    while len(results) < len(batch):
        rest = batch[len(results):]
        taken = _parse_joined(rest, path, outcome, **options) if len(rest) > 1 else []
        results.extend(taken)
        # alone: the range the joined parse stopped at, and the next one, which it may have run into
        results.extend(_parse(r, data, path, outcome, reader=reader, **options)
                       for r, data in rest[len(taken):len(taken) + 2])
    return results


def _parse_joined(batch: list[tuple[RecordRange, bytes]], path: str, outcome: FileOutcome, *,
                  max_payload_bytes: int, read_payload, max_header_bytes: int) -> list[RangeResult]:
    """The leading ranges of ``batch`` whose records one fastwarc iterator over the joined bytes
    parses cleanly (see :func:`parse_ranges`); possibly none."""
    starts = list(itertools.accumulate((len(data) for _, data in batch), initial=0))
    scratch = FileOutcome(warc_file=path)
    records = iter_fastwarc(io.BytesIO(b"".join(data for _, data in batch)), path, scratch,
                            max_payload_bytes=max_payload_bytes, read_payload=read_payload,
                            max_header_bytes=max_header_bytes)
    taken: list[RangeResult] = []
    pending: RawRecord | None = None        # the last record, taken once the next one starts on time
    try:
        for rec in records:
            j = len(taken) + (pending is not None)      # the range this record should start
            if scratch.status != "ok" or j >= len(batch) or rec.offset != starts[j]:
                break
            if pending is not None:
                taken.append(_taken(batch[j - 1][0], pending, outcome))
            pending = rec
            if j == len(batch) - 1:                     # the last range: its bytes end the stream
                taken.append(_taken(batch[j][0], rec, outcome))
                break
    finally:
        records.close()
    return taken


def _parse(r: RecordRange, data: bytes, path: str, outcome: FileOutcome, **options) -> RangeResult:
    rec, parsed = parse_member(data, path, r.offset, **options)
    if rec is None:
        return RangeResult(r, None, "not_a_record", parsed.error or "no WARC record at this offset")
    return _taken(r, rec, outcome)


def _taken(r: RecordRange, rec: RawRecord, outcome: FileOutcome) -> RangeResult:
    rec.offset = r.offset
    outcome.records += 1
    outcome.records_by_type[rec.record_type] += 1
    if r.url and rec.url != r.url:
        return RangeResult(r, None, "index_mismatch", f"index says {r.url}, record is {rec.url}")
    return RangeResult(r, rec)
