"""WARC files for the columnar index tests, written with warcio in Common Crawl's record layout
(warcinfo, then per fetch: request, response or revisit, metadata)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

REASONS = {200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
           403: "Forbidden", 404: "Not Found"}


def html(title: str) -> bytes:
    words = " ".join(f"{title} word{j} about a topic." for j in range(20))
    return f"<!doctype html><html><head><title>{title}</title></head><body><p>{words}</p></body></html>".encode()


def capture(url: str, status: int = 200, body: bytes | None = None, mime: str = "text/html; charset=utf-8",
            headers: tuple = (), warc_headers: dict | None = None, revisit: bool = False,
            language: str | None = None) -> dict:
    return {"url": url, "status": status, "body": html(url) if body is None else body, "mime": mime,
            "headers": list(headers), "warc_headers": dict(warc_headers or {}), "revisit": revisit,
            "language": language}


def write_warc(path: Path, captures: list[dict], is_part_of: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        info = {"software": "crawlplan tests", "format": "WARC File Format 1.1"}
        if is_part_of:
            info["isPartOf"] = is_part_of
        writer.write_record(writer.create_warcinfo_record(path.name, info))
        for c in captures:
            url, urlpath = c["url"], "/" + c["url"].split("/", 3)[-1]
            writer.write_record(writer.create_warc_record(url, "request", payload=io.BytesIO(b""),
                                http_headers=StatusAndHeaders(f"GET {urlpath} HTTP/1.1", [("Host", "x")],
                                                              is_http_request=True)))
            http = StatusAndHeaders(f"{c['status']} {REASONS.get(c['status'], 'X')}",
                                    [("Content-Type", c["mime"]), ("Content-Length", str(len(c["body"]))),
                                     *c["headers"]], protocol="HTTP/1.1")
            if c["revisit"]:
                record = writer.create_revisit_record(url, "sha1:AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH", url,
                                                      "2025-03-14T10:00:00Z", http_headers=http)
            else:
                record = writer.create_warc_record(url, "response", payload=io.BytesIO(c["body"]), http_headers=http,
                                                   warc_headers_dict=c["warc_headers"])
            writer.write_record(record)
            if c["language"]:
                cld2 = {"languages": [{"code": c["language"][:2], "code-iso-639-3": c["language"], "text-covered": 0.9}]}
                fields = f"charset-detected: UTF-8\r\nlanguages-cld2: {json.dumps(cld2)}\r\n".encode()
                writer.write_record(writer.create_warc_record(url, "metadata", payload=io.BytesIO(fields),
                                                              warc_content_type="application/warc-fields"))
    return path
