"""One capture's columns of Common Crawl's flat URL index, computed as Common Crawl computes them.

Common Crawl's table (cc-index-table, ``CCIndex2Table``) is converted from the CDX lines its
crawler writes next to each WARC file (``WarcCdxWriter`` of Common Crawl's Nutch), so each column
follows one of those two programs; the facts this module follows:

- ``url_surtkey``: webarchive-commons' ``WaybackURLKeyMaker`` in SURT mode, whose Python port is the
  ``surt`` package's ``surt.surt(url)`` with its default options (Google and IA canonicalisation:
  lower case, ``www``/``www\\d+`` stripped, default port dropped, query arguments sorted, escapes
  normalised, the trailing slash of a path dropped, scheme left out). A URL it cannot key gets no row
  (the CDX writer skips it too).
- host columns (``HostName``): the host lower case, IDNA A-labels, no trailing dot; its labels
  last to 5th last, the reversed name with ``www`` kept; suffixes and domains from the public
  suffix list, ICANN section and with the private one (``hosts.host_suffixes``). All are null for
  an IP address.
- URL parts (``WarcUri``, ``java.net.URL``): the scheme, the port only when the URL writes one, the
  path as written ('' when none), the query null when the URL has no ``?``.
- ``fetch_time``: WARC-Date to whole seconds in UTC (the CDX's ``yyyyMMddHHmmss``).
- ``fetch_redirect``: the ``Location`` of a 3xx response other than 304, resolved against the URL.
- ``content_digest``: WARC-Payload-Digest without its ``sha1:`` prefix; ``content_truncated``:
  WARC-Truncated; ``content_mime_type``: Content-Type cut at ``;`` or a space, ``unk`` when none,
  ``warc/revisit`` for a revisit record; ``content_mime_detected``: WARC-Identified-Payload-Type.
- partitions (``CCWarcFilenameParser``): crawl, segment and subset from
  ``crawl-data/<crawl>/segments/<segment>/<subset>/``. Common Crawl's crawler writes a capture to
  ``warc`` when the fetch succeeded (HTTP 200), to ``robotstxt`` when it is a robots.txt fetch and to
  ``crawldiagnostics`` otherwise (redirects, 404s, other statuses, not-modified revisits); files
  that are not in that layout are routed by the same rule (:func:`subset_of`).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

import pyarrow as pa
import surt

from crawlplan import hosts
from crawlplan.conf import load_yaml
from crawlplan.extract.records import looks_html
from crawlplan.paths import resource_dir

PARTITION_COLUMNS = ("crawl", "subset")
SUBSETS = ("warc", "crawldiagnostics", "robotstxt")
_ARROW_TYPES = {"string": pa.string(), "short": pa.int16(), "int": pa.int32(),
                "timestamp": pa.timestamp("ms", tz="UTC")}
_CC_PATH = re.compile(r"(?:^|/)crawl-data/([^/]+)/segments/([^/]+)/(crawldiagnostics|robotstxt|warc)/")
_CRAWL_ID = re.compile(r"CC-MAIN-\d{4}-\d{2}")
_MAGIC = ((b"%PDF-", "application/pdf"), (b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG", "image/png"),
          (b"GIF8", "image/gif"), (b"PK\x03\x04", "application/zip"))


def index_columns() -> list[dict]:
    """The columns of ``schemas/cc_index.yaml`` (name, type, nullable), partition columns included."""
    return list(load_yaml(resource_dir("schemas") / "cc_index.yaml")["columns"])


def arrow_schema() -> pa.Schema:
    """The Parquet schema of one partition's files: every column but the partition columns (they
    are the folder names, as Spark's ``partitionBy`` writes them), with the published types."""
    return pa.schema([pa.field(c["name"], _ARROW_TYPES[c["type"]], nullable=bool(c.get("nullable", True)))
                      for c in index_columns() if c["name"] not in PARTITION_COLUMNS])


def url_surtkey(url: str) -> str | None:
    """The SURT key Common Crawl's index carries, or None when the URL cannot be keyed."""
    try:
        return surt.surt(url)
    except Exception:   # surt raises many kinds on malformed URLs; such a capture gets no row, as in the CDX writer
        return None


def host_columns(host: str) -> dict:
    """The eleven ``url_host_*`` columns of a host (``url_host_name`` included)."""
    name = hosts.ascii_host(host) or host
    ip = hosts.is_ip(name)
    labels = [] if ip else name.split(".")[::-1]
    registry, registered, private, private_domain = hosts.host_suffixes(name)
    parts = ("tld", "2nd_last_part", "3rd_last_part", "4th_last_part", "5th_last_part")
    row = {"url_host_name": name}
    row.update({f"url_host_{p}": labels[i] if i < len(labels) else None for i, p in enumerate(parts)})
    row.update({"url_host_registry_suffix": registry, "url_host_registered_domain": registered,
                "url_host_private_suffix": private, "url_host_private_domain": private_domain,
                "url_host_name_reversed": None if ip else ".".join(labels)})
    return row


def url_parts(url: str) -> dict | None:
    """Protocol, port, path and query of a URL as ``java.net.URL`` gives them; None if unparsable."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    return {"url_protocol": parts.scheme, "url_port": port, "url_path": parts.path,
            "url_query": parts.query if "?" in url.split("#", 1)[0] else None}


def parse_time(value: str | None) -> datetime | None:
    """A WARC-Date (ISO 8601, or the 14 digits of an ARC header) in UTC, to whole seconds."""
    if not value:
        return None
    text = value.strip()
    try:
        if text.isdigit() and len(text) == 14:
            found = datetime.strptime(text, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        else:
            found = datetime.fromisoformat(text.replace("Z", "+00:00"))
            found = found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
    except ValueError:
        return None
    return found.replace(microsecond=0)


def http_date(value: str | None) -> datetime | None:
    """The HTTP ``Date`` header in UTC, to whole seconds (a fetch time when WARC-Date is unreadable)."""
    if not value:
        return None
    try:
        found = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    found = found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
    return found.replace(microsecond=0)


def clean_mime(content_type: str | None) -> str:
    """Content-Type up to the first ``;`` or space, ``unk`` when there is none (the CDX's ``mime``)."""
    mime = (content_type or "").strip()
    for delimiter in (";", " "):
        mime = mime.split(delimiter, 1)[0]
    return mime or "unk"


def detect_mime(body: bytes | None, declared: str | None) -> str | None:
    """A MIME type sniffed from the payload, for records without WARC-Identified-Payload-Type."""
    declared = declared.lower() if declared and declared != "unk" else None
    if body:
        if looks_html(body):
            return "application/xhtml+xml" if declared == "application/xhtml+xml" else "text/html"
        for magic, mime in _MAGIC:
            if body.startswith(magic):
                return mime
    return declared


def is_redirect(status: int) -> bool:
    return 300 <= status < 400 and status != 304


def redirect_of(status: int, location: str | None, url: str) -> str | None:
    """``fetch_redirect``: a 3xx (not 304) response's Location resolved against the URL; None when
    there is none or it does not resolve to an absolute URL without blanks."""
    if not is_redirect(status) or not location or not location.strip():
        return None
    try:
        target = urljoin(url, location.strip())
        valid = urlsplit(target)
    except ValueError:
        return None
    return target if valid.scheme and valid.netloc and not re.search(r"\s", target) else None


def digest_of(payload_digest: str | None) -> str | None:
    if not payload_digest or not payload_digest.strip():
        return None
    value = payload_digest.strip()
    return value[5:] if value.startswith("sha1:") else value


def is_robots_txt(url_path: str, url_query: str | None) -> bool:
    return url_path == "/robots.txt" and url_query is None


def subset_of(record_type: str, status: int, url_path: str, url_query: str | None) -> str:
    """The subset Common Crawl's crawler writes a capture to: robots.txt fetches to ``robotstxt``,
    successful fetches (HTTP 200 responses) to ``warc``, everything else (redirects, 404s, other
    statuses, revisits) to ``crawldiagnostics``."""
    if is_robots_txt(url_path, url_query):
        return "robotstxt"
    return "warc" if record_type == "response" and status == 200 else "crawldiagnostics"


def cc_layout(warc_filename: str) -> tuple[str, str, str] | None:
    """(crawl, segment, subset) of a file in Common Crawl's layout, else None."""
    match = _CC_PATH.search(warc_filename)
    return (match.group(1), match.group(2), match.group(3)) if match else None


def crawl_id(text: str | None) -> str | None:
    """A ``CC-MAIN-YYYY-WW`` crawl id in ``text`` (a path, a warcinfo ``isPartOf``), else None. File
    names such as ``CC-MAIN-20200808165417-...`` carry a timestamp, not the crawl, and do not match."""
    match = _CRAWL_ID.search(text or "")
    return match.group(0) if match else None


def segment_of(warc_filename: str) -> str:
    """``warc_segment`` for a file outside Common Crawl's layout: its name without extensions (each
    such file is its own fetch segment)."""
    name = warc_filename.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"(\.(warc|arc))?(\.gz)?$", "", name, flags=re.IGNORECASE) or name


def metadata_fields(fields: bytes | None) -> tuple[str | None, str | None]:
    """``languages-cld2`` (as ISO-639-3 codes) and ``charset-detected`` of Common Crawl's metadata record."""
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
