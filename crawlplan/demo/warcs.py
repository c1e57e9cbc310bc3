"""WARC files of the demo crawl, laid out and written as Common Crawl's Nutch writes them.

Each fetch is a ``request`` / ``response`` / ``metadata`` triple (response concurrent to the
request, metadata concurrent to the response), each record its own gzip member, each file opened
by a ``warcinfo`` record. Payloads are stored decoded with the original ``Content-Encoding``
renamed to ``X-Crawler-Content-Encoding``, as Common Crawl does. Record ids and dates come from
the seed, never from the clock, so the same (hosts, seed) gives byte-identical files.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawlplan.demo.html import render
from crawlplan.demo.pages import Host, Page, bfs_order
from crawlplan.demo.web import Web

CRAWL = "CC-MAIN-2024-10"
SEGMENTS = ("1707947473347.44", "1707947474171.98", "1707947475203.41")
FILES_PER_SEGMENT = (3, 3, 2)
CRAWL_START = datetime(2024, 2, 20, 21, 40, 12, tzinfo=UTC)
_USER_AGENT = "CCBot/2.0 (https://commoncrawl.org/faq/)"
_CLD2 = {"en": ("eng", "ENGLISH"), "de": ("deu", "GERMAN"), "fr": ("fra", "FRENCH"), "es": ("spa", "SPANISH"),
         "it": ("ita", "ITALIAN"), "nl": ("nld", "DUTCH"), "ja": ("jpn", "Japanese"), "ru": ("rus", "RUSSIAN")}
_STATUS_TEXT = {200: "OK", 301: "Moved Permanently", 302: "Found", 404: "Not Found", 500: "Internal Server Error"}


@dataclass
class RecordInfo:
    """Where one fetch landed: the response record's file, offset and compressed length."""
    url: str
    host: str
    warc_file: str
    offset: int
    length: int
    status: int
    mime: str
    kind: str          # html | robots | image | pdf | redirect | not_found | server_error
    page: Page | None


def _uuid(rng: random.Random) -> str:
    return f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"


def _warc_date(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _file_names(seed: int) -> list[tuple[str, str]]:
    """(relative WARC path, file start time) for each file, in Common Crawl's naming."""
    out = []
    k = 0
    for s, (segment, n) in enumerate(zip(SEGMENTS, FILES_PER_SEGMENT)):
        for i in range(n):
            start = CRAWL_START + timedelta(hours=3 * s, minutes=7 * i + seed % 5)
            end = start + timedelta(hours=3)
            name = f"CC-MAIN-{start:%Y%m%d%H%M%S}-{end:%Y%m%d%H%M%S}-{k:05d}.warc.gz"
            out.append((f"crawl-data/{CRAWL}/segments/{segment}/warc/{name}", _warc_date(start)))
            k += 1
    return out


def _fake_binary(rng: random.Random, kind: str) -> bytes:
    noise = bytes(rng.getrandbits(8) for _ in range(rng.randint(600, 2400)))
    if kind == "image":
        return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + noise + b"\xff\xd9"
    return (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\nstream\n" + noise
            + b"\nendstream\n%%EOF\n")


def _extra_payload(h: Host, extra: dict, rng: random.Random) -> tuple[bytes, str, list[tuple[str, str]]]:
    kind = extra["kind"]
    if kind == "robots":
        body = (f"User-agent: *\nDisallow: /admin/\nDisallow: /search\n\nSitemap: {h.base}/sitemap.xml\n").encode()
        return body, "text/plain", []
    if kind in ("image", "pdf"):
        mime = "image/jpeg" if kind == "image" else "application/pdf"
        return _fake_binary(rng, kind), mime, []
    title = {"redirect": "Moved", "not_found": "404 Not Found", "server_error": "500 Internal Server Error"}[kind]
    body = f"<!DOCTYPE html><html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>\n".encode()
    headers = [("Location", extra["location"])] if kind == "redirect" else []
    return body, "text/html", headers


def _fetch_list(h: Host, rng: random.Random) -> list[tuple[str, object]]:
    """The host's fetches in crawl order: robots.txt first, pages in link order, extras mixed in."""
    pages = h.pages if h.site_type == "forum" else _crawl_order(h.pages)
    items: list[tuple[str, object]] = [("page", p) for p in pages]
    for extra in h.extras:
        if extra["kind"] == "robots":
            items.insert(0, ("extra", extra))
        else:
            items.insert(rng.randint(1, len(items)), ("extra", extra))
    return items


def _crawl_order(pages: list[Page]) -> list[Page]:
    reached = bfs_order(pages)
    seen = {p.path for p in reached}
    return reached + [p for p in pages if p.path not in seen]


def write_warcs(web: Web, out_dir: Path, seed: int) -> tuple[list[str], list[RecordInfo]]:
    """Write the WARC files under ``out_dir``; return their relative paths and the response records."""
    rng = random.Random(f"crawlplan-demo-warc:{seed}")
    files = _file_names(seed)
    # Hosts are partitioned over fetcher tasks (files) as Nutch partitions fetch lists by host.
    schedule: dict[int, list[tuple[datetime, Host, str, object]]] = {i: [] for i in range(len(files))}
    for h in web.hosts:
        f = rng.randrange(len(files))
        t = datetime.strptime(files[f][1], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        t += timedelta(seconds=rng.randint(0, 3600))
        for kind, item in _fetch_list(h, rng):
            t += timedelta(seconds=rng.randint(5, 40))   # politeness delay per host
            schedule[f].append((t, h, kind, item))
    ips = {h.host: f"{rng.randint(23, 212)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
           for h in web.hosts}
    titles = {h.host: {p.path: p.data.get("title", p.path) for p in h.pages} for h in web.hosts}

    records: list[RecordInfo] = []
    for f, (rel, start) in enumerate(files):
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        entries = sorted(schedule[f], key=lambda e: e[0])    # stable: per-host order kept on ties
        with open(path, "wb") as fh:
            writer = WARCWriter(fh, gzip=True, warc_version="WARC/1.0")
            info_id = _uuid(rng)
            info = (f"isPartOf: {CRAWL}\r\npublisher: Common Crawl\r\n"
                    f"description: Embedded demo crawl of crawlplan (synthetic web, seed {seed})\r\n"
                    f"operator: crawlplan demo generator\r\nhostname: ip-10-67-{f}-1.ec2.internal\r\n"
                    f"software: Apache Nutch 1.19 (modified, https://github.com/commoncrawl/nutch/)\r\n"
                    f"robots: checked via crawler-commons 1.4 (https://github.com/crawler-commons/crawler-commons)\r\n"
                    f"format: WARC File Format 1.1\r\n"
                    f"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
            rec = writer.create_warc_record("", "warcinfo", payload=io.BytesIO(info.encode()),
                                            warc_content_type="application/warc-fields",
                                            warc_headers_dict={"WARC-Type": "warcinfo", "WARC-Date": start,
                                                               "WARC-Record-ID": info_id, "Content-Length": "0",
                                                               "Content-Type": "application/warc-fields",
                                                               "WARC-Filename": rel.rsplit("/", 1)[1]})
            writer.write_record(rec)
            for t, h, kind, item in entries:
                records.append(_write_fetch(writer, fh, rel, info_id, t, h, kind, item, ips[h.host],
                                            titles[h.host], rng, seed))
    return [rel for rel, _ in files], records


def _ordered(kind: str, date: str, rid: str, info_id: str, concurrent: str | None, ip: str | None,
             url: str) -> dict[str, str]:
    """WARC headers in the order Nutch writes them; warcio replaces the placeholders in place."""
    content_type = "application/warc-fields" if kind == "metadata" else f"application/http; msgtype={kind}"
    headers = {"WARC-Type": kind, "WARC-Date": date, "WARC-Record-ID": rid, "Content-Length": "0",
               "Content-Type": content_type, "WARC-Warcinfo-ID": info_id}
    if concurrent:
        headers["WARC-Concurrent-To"] = concurrent
    if ip:
        headers["WARC-IP-Address"] = ip
    headers["WARC-Target-URI"] = url
    return headers


def _write_fetch(writer: WARCWriter, fh, rel: str, info_id: str, t: datetime, h: Host, kind: str, item,
                 ip: str, titles: dict, rng: random.Random, seed: int) -> RecordInfo:
    if kind == "page":
        page: Page | None = item
        path, status = page.path, 200
        body = render(h, page, titles, seed).encode(h.charset, errors="xmlcharrefreplace")
        mime, content_type, extra_headers, rkind = "text/html", f"text/html; charset={h.charset}", [], "html"
    else:
        page, extra = None, item
        path, status = extra["path"], extra["status"]
        body, mime, extra_headers = _extra_payload(h, extra, rng)
        content_type = mime + ("; charset=UTF-8" if mime.startswith("text/") else "")
        rkind = extra["kind"]
    url = h.base + path
    date = _warc_date(t)
    req_id, resp_id, meta_id = _uuid(rng), _uuid(rng), _uuid(rng)

    req_headers = StatusAndHeaders(f"GET {path} HTTP/1.1", [
        ("User-Agent", _USER_AGENT),
        ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
        ("Accept-Language", "en-US,en;q=0.5"), ("Accept-Encoding", "br,gzip"),
        ("Host", h.host), ("Connection", "Keep-Alive")], is_http_request=True)
    req = writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=req_headers,
                                    warc_headers_dict=_ordered("request", date, req_id, info_id, None, ip, url))
    writer.write_record(req)

    http_date = format_datetime(t - timedelta(seconds=rng.randint(1, 5)), usegmt=True)
    headers = [("Date", http_date), ("Server", rng.choice(("nginx", "Apache", "cloudflare", "Microsoft-IIS/10.0"))),
               ("Content-Type", content_type)] + extra_headers
    if mime.startswith("text/"):
        headers.append(("X-Crawler-Content-Encoding", "gzip"))
    headers.append(("Content-Length", str(len(body))))
    resp_headers = StatusAndHeaders(f"{status} {_STATUS_TEXT[status]}", headers, protocol="HTTP/1.1")
    identified = mime
    resp = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=resp_headers,
                                     warc_headers_dict={**_ordered("response", date, resp_id, info_id, req_id, ip, url),
                                                        "WARC-Identified-Payload-Type": identified})
    offset = fh.tell()
    writer.write_record(resp)
    length = fh.tell() - offset

    fields = f"fetchTimeMs: {rng.randint(40, 2500)}\r\n"
    if kind == "page":
        iso3, name = _CLD2[h.lang]
        cld2 = {"reliable": True, "text-bytes": len(body) // 3,
                "languages": [{"code": h.lang, "code-iso-639-3": iso3, "text-covered": 0.98,
                               "score": float(rng.randint(600, 1800)), "name": name}]}
        fields += f"charset-detected: {h.charset}\r\nlanguages-cld2: {json.dumps(cld2, separators=(',', ':'))}\r\n"
    meta = writer.create_warc_record(url, "metadata", payload=io.BytesIO(fields.encode()),
                                     warc_content_type="application/warc-fields",
                                     warc_headers_dict=_ordered("metadata", date, meta_id, info_id, resp_id, None, url))
    writer.write_record(meta)
    return RecordInfo(url=url, host=h.host, warc_file=rel, offset=offset, length=length, status=status,
                      mime=mime, kind=rkind, page=page)


def write_paths_listing(paths: list[str], target: Path) -> None:
    """``warc.paths.gz``: one relative path per line, gzip without a timestamp (deterministic)."""
    with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write("".join(p + "\n" for p in paths).encode())
