"""The WARC reader on real files and on damaged copies of them: it never raises mid-file."""

import gzip
import random

import pytest
from settings_support import extract_settings, read_limits

from crawlplan.extract.records import process_warc_file
from crawlplan.warc.listing import ListingError, resolve_inputs
from crawlplan.warc.payload import dechunk, decode_body
from crawlplan.warc.reader import FileOutcome, iter_records

FAST = extract_settings(extractor="resiliparse")


def _all_warc_files(shared_data):
    files = sorted((shared_data / "warc").glob("*.gz")) + sorted((shared_data / "warc" / "servo").glob("*.gz"))
    assert len(files) >= 25
    return files


def _check_accounting(rows):
    file_row = rows[-1]
    assert file_row["kind"] == "file"
    docs = sum(r["kind"] == "doc" for r in rows)
    rejects = [r for r in rows if r["kind"] == "reject"]
    assert file_row["documents"] == docs
    assert file_row["rejected"] == len(rejects)
    record_rejects = sum(r["offset"] is not None for r in rejects)
    assert docs + record_rejects == file_row["responses"]
    for r in rejects:
        assert r["reason"] and r["stage"]
    return file_row


@pytest.mark.slow   # every shared WARC file, both readers: 12 s
@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_every_real_file_keeps_the_invariant(shared_data, reader):
    for path in _all_warc_files(shared_data):
        rows = list(process_warc_file(str(path), extract_settings(reader=reader, extractor="resiliparse")))
        file_row = _check_accounting(rows)
        assert file_row["file_status"] == "ok", (path, file_row["error"])


def test_brotli_bodies_are_decoded(shared_data):
    outcome = FileOutcome("facebook")
    decoded = [r for r in iter_records(str(shared_data / "warc/servo/Facebook.warc.gz"), outcome, limits=read_limits())
               if r.http_headers.get("content-encoding") == "br" and r.payload is not None]
    assert decoded, "expected brotli-encoded bodies in the servo Facebook capture"
    assert all(r.payload_error is None for r in decoded)


def test_arc_files_are_read(shared_data):
    rows = list(process_warc_file(str(shared_data / "warc/aut-example.arc.gz"), FAST))
    file_row = _check_accounting(rows)
    assert file_row["responses"] == 299 and file_row["documents"] > 50


@pytest.fixture()
def damaged(tmp_path, shared_data):
    data = (shared_data / "warc/ukwa-govuk-BL-20140325121225068.warc.gz").read_bytes()
    mid = len(data) // 2
    files = {
        "truncated": data[:mid],
        "corrupt": data[:mid] + b"\x00" * 5000 + data[mid + 5000:],
        "zero": b"",
        # seeded: a random draw can start with bytes warcio reads as one record before it fails,
        # which is accounted for (a file row with the error) but is not the zero-record case here
        "garbage": random.Random(0).randbytes(20000),
    }
    for name, blob in files.items():
        (tmp_path / f"{name}.warc.gz").write_bytes(blob)
    return tmp_path


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_damaged_files_give_status_and_rejects_not_errors(damaged, reader):
    settings = extract_settings(reader=reader, extractor="resiliparse")
    expected = {"truncated": "truncated", "corrupt": "corrupt", "zero": "corrupt", "garbage": "corrupt",
                "missing": "missing"}
    for name, status in expected.items():
        rows = list(process_warc_file(str(damaged / f"{name}.warc.gz"), settings))
        file_row = _check_accounting(rows)
        assert file_row["file_status"] == status, (name, file_row)
        if name in ("zero", "garbage", "missing"):
            assert any(r["kind"] == "reject" and r["stage"] == "read" for r in rows)
    corrupt = list(process_warc_file(str(damaged / "corrupt.warc.gz"), settings))
    # records after the damaged member are still read
    assert corrupt[-1]["records"] > 150


def test_payload_decoding_helpers():
    assert dechunk(b"4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n") == b"Wikipedia"
    body, err = decode_body(gzip.compress(b"<html>x</html>"), {"content-encoding": "gzip"}, 1000)
    assert body == b"<html>x</html>" and err is None
    # mislabelled: says gzip, is plain HTML
    body, err = decode_body(b"<html>plain</html>", {"content-encoding": "gzip"}, 1000)
    assert body == b"<html>plain</html>" and err is None
    body, err = decode_body(random.Random(1).randbytes(64) + b"\x00" * 10, {"content-encoding": "gzip"}, 1000)
    assert body is None and err.startswith("decode_error")
    assert decode_body(b"x" * 20, {}, 10) == (None, "oversize")


def test_listing_resolution(tmp_path, shared_data):
    warc = shared_data / "warc/whirlwind.warc.gz"
    listing = tmp_path / "warc.paths.gz"
    with gzip.open(listing, "wt") as fh:
        fh.write("crawl-data/CC-MAIN-2024-22/segments/1/warc/a.warc.gz\n")
    assert resolve_inputs(str(listing), base="s3://commoncrawl/") == [
        "s3://commoncrawl/crawl-data/CC-MAIN-2024-22/segments/1/warc/a.warc.gz"]
    assert resolve_inputs(str(listing), base="https://data.commoncrawl.org/")[0].startswith(
        "https://data.commoncrawl.org/crawl-data/")
    # a WARC where a listing is expected: a clear message
    fake_listing = tmp_path / "warc.paths.gz"
    fake_listing.write_bytes(warc.read_bytes())
    with pytest.raises(ListingError, match="is a WARC file, not a path listing"):
        resolve_inputs(str(fake_listing))
    # globs of WARC files are fine, and a missing WARC stays in the list (reported as missing)
    got = resolve_inputs([str(shared_data / "warc/whirlwind.warc*.gz"), str(tmp_path / "gone.warc.gz")])
    assert str(warc) in got and str(tmp_path / "gone.warc.gz") in got
    with pytest.raises(ListingError, match="no files match"):
        resolve_inputs(str(tmp_path / "*.nothing.warc.gz"))


def test_garbage_that_parses_as_one_record_then_fails_is_accounted(tmp_path):
    """Random bytes that warcio takes for one record before 'Unknown archive format': the record
    is a counted reject and the file row says corrupt with the error."""
    path = tmp_path / "g.warc.gz"
    path.write_bytes(random.Random(20).randbytes(20000))
    rows = list(process_warc_file(str(path), extract_settings(reader="warcio", extractor="resiliparse")))
    file_row = _check_accounting(rows)
    assert file_row["file_status"] == "corrupt" and file_row["error"]
    assert all(r["kind"] in ("reject", "file") for r in rows)
