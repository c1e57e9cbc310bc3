"""Read chosen records of a WARC file by byte range: what the sampled extract fetches.

The columnar index gives each capture's WARC file, offset and length. Records of one file are
sorted by offset and neighbouring ranges merged into one read when the gap between them is at
most ``max_gap`` bytes (fewer requests for a few wasted bytes); each record is then cut out of
its block and parsed alone, since Common Crawl writes every record as its own gzip member. Only
the selected records are parsed; gap bytes are read but never parsed.

``read_byte_range(path, start, length)`` is the single call that fetches bytes: a local file,
``http(s)://`` with a ``Range`` header, or ``s3://`` with a ranged ``GetObject``.
"""

from __future__ import annotations

import io
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field

from crawlplan.warc.reader import FileOutcome, RawRecord, _iter_warcio
from crawlplan.warc.sources import normalise


@dataclass(frozen=True)
class RecordRange:
    offset: int
    length: int
    url: str | None = None          # the index's URL: checked against the record's


@dataclass
class Block:
    start: int
    end: int
    ranges: list[RecordRange] = field(default_factory=list)


def merge_ranges(ranges: list[RecordRange], max_gap: int = 0) -> list[Block]:
    """Sorted ranges grouped into blocks whose members lie at most ``max_gap`` bytes apart
    (a repeated offset and empty ranges are left out; :func:`iter_ranges` rejects them)."""
    blocks: list[Block] = []
    seen: set[int] = set()
    for r in sorted(ranges, key=lambda r: (r.offset, r.length)):
        if r.offset in seen or r.length <= 0 or r.offset < 0:
            continue
        seen.add(r.offset)
        end = r.offset + r.length
        if blocks and r.offset - blocks[-1].end <= max_gap:
            blocks[-1].end = max(blocks[-1].end, end)
            blocks[-1].ranges.append(r)
        else:
            blocks.append(Block(r.offset, end, [r]))
    return blocks


def read_byte_range(path: str, start: int, length: int) -> bytes:
    """Bytes ``[start, start + length)`` of ``path`` (fewer only at the end of the file)."""
    path = normalise(path)
    if path.startswith(("http://", "https://")):
        request = urllib.request.Request(path, headers={"User-Agent": "crawlplan (+https://commoncrawl.org)",
                                                        "Range": f"bytes={start}-{start + length - 1}"})
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 (http(s) only)
            if response.status != 206 and start > 0:
                raise OSError(f"{path}: the server ignored the Range request (HTTP {response.status})")
            return response.read(length)
    if path.startswith(("s3://", "s3a://", "s3n://")):
        return _s3_range(path, start, length)
    with open(path, "rb") as fh:
        fh.seek(start)
        return fh.read(length)


def _s3_range(path: str, start: int, length: int) -> bytes:
    import boto3

    bucket, key = path.split("://", 1)[1].split("/", 1)
    body = boto3.client("s3").get_object(Bucket=bucket, Key=key, Range=f"bytes={start}-{start + length - 1}")["Body"]
    return body.read()


@dataclass
class RangeResult:
    """One selected range: the record parsed from it, or why there is none."""
    range: RecordRange
    record: RawRecord | None
    error: str | None = None        # range_read_error | not_a_record | index_mismatch | bad_range
    detail: str | None = None


def parse_member(data: bytes, path: str, offset: int, *, max_payload_bytes: int, read_payload,
                 reader: str = "warcio") -> tuple[RawRecord | None, FileOutcome]:
    """The first record of one gzip member (bytes of a range), with its offset in the file."""
    outcome = FileOutcome(warc_file=path)
    source = io.BytesIO(data)
    if reader == "fastwarc" and not path.endswith((".arc", ".arc.gz")):
        from crawlplan.warc.fast import iter_fastwarc

        records = iter_fastwarc(source, path, outcome, max_payload_bytes=max_payload_bytes, read_payload=read_payload)
    else:
        records = _iter_warcio(source, path, outcome, max_payload_bytes=max_payload_bytes, read_payload=read_payload)
    for rec in records:
        rec.offset = offset
        return rec, outcome
    return None, outcome


def iter_ranges(path: str, ranges: list[RecordRange], outcome: FileOutcome, *, max_gap: int = 0,
                max_payload_bytes: int = 10_000_000, read_payload=None, reader: str = "warcio") -> Iterator[RangeResult]:
    """One :class:`RangeResult` per distinct selected range of ``path``, in offset order; the file's
    accounting (bytes read, records parsed, status) goes into ``outcome``."""
    started = time.time()
    clean: list[RecordRange] = []
    seen: set[int] = set()
    for r in ranges:        # an index listing one capture twice, or a nonsense range: a reject, never lost
        if r.offset in seen or r.length <= 0 or r.offset < 0:
            yield RangeResult(r, None, "bad_range", "offset listed twice" if r.offset in seen else
                              f"offset {r.offset}, length {r.length}")
            continue
        seen.add(r.offset)
        clean.append(r)
    try:
        for block in merge_ranges(clean, max_gap):
            try:
                data = read_byte_range(path, block.start, block.end - block.start)
            except FileNotFoundError as exc:
                outcome.status, outcome.error = "missing", str(exc)
                yield from (RangeResult(r, None, "range_read_error", f"{type(exc).__name__}: {exc}") for r in block.ranges)
                continue
            except Exception as exc:  # network, permissions: every range of the block is rejected, the file goes on
                outcome.status, outcome.error = "corrupt", f"{type(exc).__name__}: {exc}"[:500]
                yield from (RangeResult(r, None, "range_read_error", f"{type(exc).__name__}: {exc}"[:500])
                            for r in block.ranges)
                continue
            outcome.bytes += len(data)
            for r in block.ranges:
                member = data[r.offset - block.start:r.offset - block.start + r.length]
                if len(member) < r.length:
                    yield RangeResult(r, None, "range_read_error", f"{len(member)} of {r.length} bytes: past the end of the file")
                    continue
                rec, parsed = parse_member(member, path, r.offset, max_payload_bytes=max_payload_bytes,
                                           read_payload=read_payload, reader=reader)
                if rec is None:
                    yield RangeResult(r, None, "not_a_record", parsed.error or "no WARC record at this offset")
                    continue
                outcome.records += 1
                outcome.records_by_type[rec.record_type] += 1
                if r.url and rec.url != r.url:
                    yield RangeResult(r, None, "index_mismatch", f"index says {r.url}, record is {rec.url}")
                    continue
                yield RangeResult(r, rec)
    finally:
        outcome.seconds = time.time() - started
