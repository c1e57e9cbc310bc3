"""Hand-made hostile WARC files (issue 27): whoever wrote the file controls every byte of it.

Each case is built here from raw bytes, read by both readers, and checked for its file status,
its reject reasons and the accounting invariant: every response record in the file is in
``documents`` or in ``rejects``.
"""

from __future__ import annotations

import gzip
import tracemalloc
from collections import Counter

import pytest
from settings_support import extract_settings, read_limits

from crawlplan import hosts
from crawlplan.ccindex.build import index_rows
from crawlplan.extract.records import process_warc_file
from crawlplan.source.mirror import iter_site_records
from crawlplan.warc.reader import FileOutcome, iter_records, url_problem

READERS = ["warcio", "fastwarc"]


def page(title: str) -> bytes:
    words = " ".join(f"{title} sentence number {i} about hostile inputs." for i in range(40))
    return f"<!doctype html><html><head><title>{title}</title></head><body><p>{words}</p></body></html>".encode()


def response(url: bytes, *, body: bytes | None = None, http_extra: bytes = b"", length_delta: int = 0,
             length: bytes | None = None, n: int = 0) -> bytes:
    """One WARC response record, raw; ``length_delta`` / ``length`` falsify its Content-Length."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n" + http_extra + b"\r\n" + (
        body if body is not None else page(f"page{n}"))
    declared = length if length is not None else str(len(http) + length_delta).encode()
    return (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n" % n
            + b"WARC-Target-URI: " + url + b"\r\nWARC-Date: 2024-05-01T00:00:00Z\r\n"
            + b"Content-Type: application/http; msgtype=response\r\nContent-Length: " + declared + b"\r\n\r\n"
            + http + b"\r\n\r\n")


def good(n: int) -> bytes:
    return response(b"http://good%d.example.com/" % n, n=n)


def write(tmp_path, name: str, records: list[bytes], gzipped: bool):
    path = tmp_path / (name + (".warc.gz" if gzipped else ".warc"))
    path.write_bytes(b"".join(gzip.compress(r) for r in records) if gzipped else b"".join(records))
    return str(path)


def extract(path: str, reader: str, **overrides):
    rows = list(process_warc_file(path, extract_settings(reader=reader, extractor="resiliparse", **overrides)))
    file_row = rows[-1]
    docs = [r for r in rows if r["kind"] == "doc"]
    rejects = [r for r in rows if r["kind"] == "reject"]
    assert file_row["documents"] == len(docs) and file_row["rejected"] == len(rejects)
    assert file_row["responses"] == len(docs) + sum(r["offset"] is not None for r in rejects)
    return file_row, docs, Counter(r["reason"] for r in rejects), rejects


@pytest.mark.parametrize("gzipped", [True, False])
@pytest.mark.parametrize("reader", READERS)
def test_hostile_urls_are_bad_url_rejects(tmp_path, reader, gzipped):
    hostile = [b"http://x<!--y.com/", b"http://bad\xff\xfeutf8.example.com/", b"http://a_b..example.com/",
               b"http://long.example.com/" + b"a" * 10_000, b"http://-bad-.example.com/"]
    path = write(tmp_path, "urls", [good(0)] + [response(u, n=i + 1) for i, u in enumerate(hostile)] + [good(9)],
                 gzipped)
    file_row, docs, reasons, rejects = extract(path, reader)
    assert file_row["file_status"] == "ok" and file_row["responses"] == 7
    assert reasons == {"bad_url": 5} and len(docs) == 2
    assert {d["host"] for d in docs} == {"good0.example.com", "good9.example.com"}
    details = " | ".join(r["detail"] for r in rejects)
    assert "not UTF-8" in details and "10,024 bytes > 8,192" in details and "no valid host" in details
    assert all(len(r["url"]) <= 8192 for r in rejects)


@pytest.mark.parametrize("reader", READERS)
def test_a_length_past_the_next_records_is_bad_length_and_the_next_records_are_read(tmp_path, reader):
    path = write(tmp_path, "over", [response(b"http://over.example.com/", n=1, length_delta=1500),
                                    good(2), good(3)], gzipped=False)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] == "corrupt" and "Content-Length" in file_row["error"]
    assert file_row["responses"] == 3 and reasons == {"bad_length": 1}
    assert sorted(d["host"] for d in docs) == ["good2.example.com", "good3.example.com"]


@pytest.mark.parametrize("gzipped", [True, False])
@pytest.mark.parametrize("reader", READERS)
def test_a_length_that_stops_short_of_the_record_is_bad_length(tmp_path, reader, gzipped):
    path = write(tmp_path, "under", [good(1), response(b"http://under.example.com/", n=2, length_delta=-700),
                                     good(3)], gzipped)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] == "corrupt" and file_row["responses"] == 3
    assert reasons == {"bad_length": 1}
    assert sorted(d["host"] for d in docs) == ["good1.example.com", "good3.example.com"]


@pytest.mark.parametrize("reader", READERS)
def test_a_length_past_its_gzip_member_is_bad_length(tmp_path, reader):
    path = write(tmp_path, "gover", [response(b"http://over.example.com/", n=1, length_delta=100), good(2), good(3)],
                 gzipped=True)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] == "corrupt" and reasons == {"bad_length": 1} and len(docs) == 2


@pytest.mark.parametrize("gzipped", [True, False])
@pytest.mark.parametrize("reader", READERS)
def test_a_cut_final_record_is_truncated_and_not_a_document(tmp_path, reader, gzipped):
    records = [good(1), good(2), good(3)]
    if gzipped:      # the last member is whole, its record is not: a writer that stopped mid-record
        path = write(tmp_path, "cut", records[:2] + [records[2][:-300]], gzipped=True)
    else:
        path = write(tmp_path, "cut", records, gzipped=False)
        with open(path, "r+b") as fh:
            fh.truncate(len(b"".join(records)) - 300)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] == "truncated" and file_row["responses"] == 3
    assert reasons == {"bad_length": 1} and len(docs) == 2


@pytest.mark.parametrize("reader", READERS)
def test_a_cut_gzip_file_is_truncated_and_its_last_record_a_reject(tmp_path, reader):
    data = b"".join(gzip.compress(good(i)) for i in range(3))
    path = tmp_path / "cut2.warc.gz"
    path.write_bytes(data[:-200])
    file_row, docs, reasons, _ = extract(str(path), reader)
    assert file_row["file_status"] == "truncated" and reasons == {"bad_length": 1} and len(docs) == 2


@pytest.mark.parametrize("length", [b"", b"-5", b"12x"])
@pytest.mark.parametrize("reader", READERS)
def test_a_content_length_that_is_no_length_is_bad_length(tmp_path, reader, length):
    path = write(tmp_path, "nolen", [good(1), response(b"http://nolen.example.com/", n=2, length=length)],
                 gzipped=True)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] != "ok" and file_row["responses"] == 2
    assert len(docs) == 1 and reasons == {"bad_length": 1}


@pytest.mark.parametrize("name", ["notes.warc.gz", "notes.warc", "notes.arc.gz"])
@pytest.mark.parametrize("reader", READERS)
def test_a_text_file_named_like_a_warc_is_corrupt_with_no_records(tmp_path, reader, name):
    path = tmp_path / name
    text = b"".join(b"line %d of a plain text file with some words\n" % i for i in range(500))
    path.write_bytes(gzip.compress(text) if name.endswith(".gz") and "warc" in name else text)
    file_row, docs, reasons, rejects = extract(str(path), reader)
    assert (file_row["file_status"], file_row["records"], file_row["responses"]) == ("corrupt", 0, 0)
    assert reasons == {"read_error": 1} and "not a WARC or ARC file" in rejects[0]["detail"]
    assert "line 1" not in rejects[0]["detail"]          # nothing of the file's content is quoted


@pytest.mark.parametrize("gzipped", [True, False])
@pytest.mark.parametrize("reader", READERS)
def test_a_100kb_url_is_a_bad_header_reject_and_the_file_goes_on(tmp_path, reader, gzipped):
    path = write(tmp_path, "longurl", [good(1), response(b"http://long.example.com/" + b"a" * 100_000, n=2),
                                       good(3)], gzipped)
    file_row, docs, reasons, rejects = extract(path, reader)
    assert file_row["file_status"] == "corrupt" and file_row["responses"] == 3
    assert reasons == {"bad_header": 1} and len(docs) == 2
    assert "32,768 bytes" in rejects[0]["detail"]


@pytest.mark.parametrize("gzipped", [True, False])
@pytest.mark.parametrize("reader", READERS)
def test_an_http_header_over_the_bound_is_a_bad_header_reject(tmp_path, reader, gzipped):
    record = response(b"http://lh.example.com/", n=2, http_extra=b"X-Long: " + b"b" * 100_000 + b"\r\n")
    path = write(tmp_path, "longhttp", [good(1), record, good(3)], gzipped)
    file_row, docs, reasons, _ = extract(path, reader)
    assert file_row["file_status"] == "corrupt" and file_row["responses"] == 3
    assert reasons == {"bad_header": 1} and len(docs) == 2


def test_the_header_bound_is_a_setting(tmp_path):
    record = response(b"http://mid.example.com/", n=2, http_extra=b"X-Mid: " + b"m" * 3000 + b"\r\n")
    path = write(tmp_path, "mid", [good(1), record], gzipped=False)
    assert extract(path, "warcio")[2] == {}
    file_row, docs, reasons, _ = extract(path, "warcio", max_header_bytes=2048)
    assert reasons == {"bad_header": 1} and len(docs) == 1


def test_an_endless_header_line_is_read_in_bounded_memory(tmp_path):
    """A server (or file) that sends a header line without end: warcio's own readline grows it
    forever; the bounded reader stops at extract.max_header_bytes."""
    path = tmp_path / "endless.warc"
    with open(path, "wb") as fh:
        fh.write(good(1) + b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://e.example.com/")
        for _ in range(50):
            fh.write(b"e" * (1 << 20))
    tracemalloc.start()
    try:
        outcome = FileOutcome(str(path))
        records = list(iter_records(str(path), outcome, limits=read_limits()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"peak {peak:,} bytes"
    assert outcome.status == "corrupt" and [r.fault for r in records] == [None, "bad_header"]
    assert records[1].record_type == "response"


@pytest.mark.parametrize("reader", READERS)
def test_an_endless_line_after_a_gzip_record_leaves_the_records_before_it(tmp_path, reader):
    endless = gzip.compress(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://e.example.com/"
                            + b"e" * 5_000_000, 1)
    path = tmp_path / "endless.warc.gz"
    path.write_bytes(gzip.compress(good(1)) + endless)
    file_row, docs, reasons, _ = extract(str(path), reader)
    assert file_row["file_status"] == "corrupt" and len(docs) == 1 and reasons == {"bad_header": 1}


def test_index_build_counts_bad_urls_and_keys_only_valid_hosts(tmp_path):
    path = write(tmp_path, "idx", [good(0), response(b"http://x<!--y.com/", n=1),
                                   response(b"http://bad\xffutf8.example.com/", n=2),
                                   response(b"http://over.example.com/", n=3, length_delta=-50), good(4)],
                 gzipped=True)
    rejects = Counter()
    rows, outcome = index_rows(path, rejects=rejects, limits=read_limits())
    assert rejects == {"bad_url": 2, "bad_length": 1}
    assert sorted(r["url_host_name"] for r in rows) == ["good0.example.com", "good4.example.com"]
    assert all(hosts.valid_host(r["url_host_name"]) for r in rows)


def test_site_pages_count_bad_urls(tmp_path):
    path = write(tmp_path, "sites", [good(0), response(b"http://x<!--y.com/", n=1),
                                     response(b"http://a.example.com/" + b"p" * 9000, n=2)], gzipped=True)
    rejects = Counter()
    sites = [site for site, _, _ in iter_site_records(path, rejects=rejects, limits=read_limits())]
    assert sites == ["good0.example.com"] and rejects == {"bad_url": 2}


def test_url_problem_names_the_reason():
    assert url_problem("http://example.com/", 8192) is None
    assert url_problem("http://x<!--y.com/", 8192) == "no valid host"
    assert url_problem("http://bad\ufffd.example.com/", 8192) == "the URL is not UTF-8"
    assert url_problem("http://example.com/" + "a" * 100, max_url_bytes=50).startswith("a URL of 119 bytes")
    assert url_problem(None, 8192) == "no URL"
