"""Small, hand-made bad inputs for the reliability suite, written with warcio so that every
file is a well-formed WARC except for the fault each test plants on purpose."""

from __future__ import annotations

import gzip
import io
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter


def html_page(title: str, words: int = 60) -> bytes:
    body = " ".join(f"{title.lower()} sentence word{i} about reliable crawling." for i in range(words))
    return (f"<!doctype html><html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            f"<p>{body}</p><p>{body}</p></article></body></html>").encode()


def response(writer: WARCWriter, url: str, body: bytes, *, content_type: str = "text/html; charset=utf-8",
             status: str = "200 OK", record_id: str | None = None) -> None:
    http = StatusAndHeaders(status, [("Content-Type", content_type), ("Content-Length", str(len(body)))],
                            protocol="HTTP/1.1")
    headers = {"WARC-Record-ID": record_id or f"<urn:uuid:{uuid.uuid4()}>"}
    rec = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                    warc_headers_dict=headers)
    writer.write_record(rec)


def write_warc(path: Path, records: list[dict]) -> Path:
    """``records``: dicts of :func:`response` keyword arguments (url, body, ...)."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for spec in records:
            response(writer, **spec)
    return path


def member_offsets(data: bytes) -> list[int]:
    """Start offsets of the gzip members (one per record) of a per-record-gzipped WARC."""
    offsets, pos = [], 0
    while pos < len(data):
        offsets.append(pos)
        d = __import__("zlib").decompressobj(31)
        d.decompress(data[pos:])
        pos = len(data) - len(d.unused_data)
    return offsets


def gzip_bytes(text: bytes) -> bytes:
    return gzip.compress(text)
