"""The extract job on a folder of deliberately broken inputs, in one Spark run.

Each file plants one fault from issue 8's list. The job must complete; every response record
read ends in ``documents`` or ``rejects`` with a reason (the accounting invariant, per file and
in total); file-level faults show in ``warc_files.status``; record ids are unique in
``documents``; nothing is left half-written beside the datasets.
"""

from __future__ import annotations

import gzip
import os
import random
import shutil

import pytest
from warcgen import html_page, member_offsets, write_warc

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job

pytestmark = pytest.mark.spark

SHARED_ID = "<urn:uuid:00000000-0000-0000-0000-00000000d0d0>"


def _pages(prefix: str, n: int) -> list[dict]:
    return [dict(url=f"http://{prefix}.example.com/p{i}", body=html_page(f"{prefix} page {i}")) for i in range(n)]


def build_bad_inputs(folder, shared_data):
    """One file per fault; returns {name: expected warc_files status}."""
    expected = {}
    # a corrupt gzip member in the middle: records before and after it survive
    good = write_warc(folder / "_base.warc.gz", _pages("corrupt", 6)).read_bytes()
    offsets = member_offsets(good)
    start, end = offsets[3], offsets[4]
    broken = good[:start + 20] + bytes(b ^ 0x5A for b in good[start + 20:end - 10]) + good[end - 10:]
    (folder / "corrupt-middle.warc.gz").write_bytes(broken)
    expected["corrupt-middle"] = "corrupt"
    # a truncated file: cut inside the last member (its own records: fresh ids)
    other = write_warc(folder / "_base.warc.gz", _pages("truncated", 6)).read_bytes()
    last = member_offsets(other)[5]
    (folder / "truncated.warc.gz").write_bytes(other[: last + (len(other) - last) // 2])
    expected["truncated"] = "truncated"
    os.remove(folder / "_base.warc.gz")
    (folder / "zero-byte.warc.gz").write_bytes(b"")
    expected["zero-byte"] = "corrupt"
    shutil.copy(shared_data / "warc/aut-example.arc.gz", folder / "legacy.arc.gz")
    expected["legacy"] = "ok"
    # non-HTML records, wrong charset declarations, binary garbage typed text/html
    latin = "<html><body><article><p>" + "Grüße aus Köln, naïve café. " * 30 + "</p></article></body></html>"
    write_warc(folder / "mixed.warc.gz", [
        dict(url="http://mixed.example.com/a.pdf", body=b"%PDF-1.4 binary", content_type="application/pdf"),
        dict(url="http://mixed.example.com/a.json", body=b'{"a": 1}', content_type="application/json"),
        dict(url="http://mixed.example.com/img", body=random.Random(1).randbytes(3000), content_type="image/png"),
        dict(url="http://mixed.example.com/404", body=html_page("gone"), status="404 Not Found"),
        dict(url="http://mixed.example.com/latin", body=latin.encode("cp1252"),
             content_type="text/html; charset=utf-8"),
        dict(url="http://mixed.example.com/bogus-charset", body=html_page("bogus"),
             content_type="text/html; charset=x-no-such-charset"),
        dict(url="http://mixed.example.com/garbage", body=random.Random(2).randbytes(20000), content_type="text/html"),
        dict(url="http://mixed.example.com/garbage2", body=bytes(range(256)) * 40, content_type="text/html"),
        dict(url="http://mixed.example.com/deep", content_type="text/html",
             body=b"<html><body>" + b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000 + b"</body></html>"),
    ])
    expected["mixed"] = "ok"
    # duplicate record ids: twice inside one file, and the same id again in another file
    write_warc(folder / "dup-a.warc.gz", [
        dict(url="http://dup.example.com/1", body=html_page("dup one"), record_id=SHARED_ID),
        dict(url="http://dup.example.com/1", body=html_page("dup one"), record_id=SHARED_ID),
        *_pages("dupa", 2)])
    write_warc(folder / "dup-b.warc.gz", [
        dict(url="http://dup.example.com/1", body=html_page("dup one"), record_id=SHARED_ID),
        *_pages("dupb", 2)])
    expected["dup-a"] = expected["dup-b"] = "ok"
    return expected


@pytest.fixture(scope="module")
def bad_run(spark, shared_data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad-warcs")
    expected = build_bad_inputs(folder, shared_data)
    # a 50 MB page, generated on the fly: over the payload cap -> an 'oversize' reject
    big = b"<html><body><p>" + b"lorem ipsum dolor sit amet " * 1_900_000 + b"</p></body></html>"
    assert len(big) > 50_000_000
    write_warc(folder / "huge.warc.gz", [dict(url="http://huge.example.com/", body=big), *_pages("huge", 1)])
    expected["huge"] = "ok"
    listing = folder / "warc.paths.gz"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith((".warc.gz", ".arc.gz")))
    with gzip.open(listing, "wt") as fh:
        fh.write("\n".join(names + ["does-not-exist.warc.gz"]) + "\n")
    expected["does-not-exist"] = "missing"
    out = tmp_path_factory.mktemp("bad-out")
    # every fault here is planted on purpose: the run accepts them all (the limit has its own tests)
    conf = load_conf("local", overrides=["extract.extractor=resiliparse", "extract.timeout_s=20",
                                         "extract.max_failed_files=100%"])
    pipeline = load_pipeline("main")
    result = run_single_job(spark, conf, pipeline, "extract", [str(listing)], str(out), echo=lambda *_: None)
    frames = {name: spark.read.parquet(str(out / name)).toPandas() for name in ("documents", "rejects", "warc_files")}
    return expected, result, frames, out


def _stem(path: str) -> str:
    return os.path.basename(path).split(".")[0]


def test_job_completes_with_a_status_per_file(bad_run):
    expected, result, frames, _ = bad_run
    files = frames["warc_files"]
    got = dict(zip(files["warc_file"].map(_stem), files["status"]))
    assert got == expected
    errors = dict(zip(files["warc_file"].map(_stem), files["error"]))
    assert errors["corrupt-middle"] and errors["zero-byte"] and errors["truncated"]
    assert result["rows"]["warc_files"] == len(expected)


def test_accounting_holds_per_file_and_in_total(bad_run):
    _, result, frames, _ = bad_run
    docs, rejects, files = frames["documents"], frames["rejects"], frames["warc_files"]
    assert rejects["reason"].notna().all() and rejects["stage"].notna().all()
    for row in files.itertuples():
        n_docs = int((docs["warc_file"] == row.warc_file).sum())
        mine = rejects[rejects["warc_file"] == row.warc_file]
        assert n_docs == row.documents, row.warc_file
        assert len(mine) == row.rejected, row.warc_file
        assert n_docs + int(mine["offset"].notna().sum()) == row.responses, row.warc_file
    assert len(docs) == result["rows"]["documents"] and len(rejects) == result["rows"]["rejects"]


def test_records_around_a_corrupt_member_survive(bad_run):
    _, _, frames, _ = bad_run
    docs = frames["documents"]
    urls = set(docs.loc[docs["warc_file"].map(_stem) == "corrupt-middle", "url"])
    # member 3 is damaged; 0-2 before it and 4-5 after it are read
    assert {f"http://corrupt.example.com/p{i}" for i in (0, 1, 2, 4, 5)} <= urls
    truncated = set(docs.loc[docs["warc_file"].map(_stem) == "truncated", "url"])
    assert truncated == {f"http://truncated.example.com/p{i}" for i in range(5)}


def test_each_bad_record_has_its_reason(bad_run):
    _, _, frames, _ = bad_run
    rejects = frames["rejects"]
    reason = dict(zip(rejects["url"].fillna(""), rejects["reason"]))
    assert reason["http://mixed.example.com/a.pdf"] == "non_html"
    assert reason["http://mixed.example.com/a.json"] == "non_html"
    assert reason["http://mixed.example.com/img"] == "non_html"
    assert reason["http://mixed.example.com/404"] == "status"
    assert reason["http://mixed.example.com/garbage"] == "binary_payload"
    assert reason["http://mixed.example.com/garbage2"] == "binary_payload"
    assert reason["http://mixed.example.com/deep"] == "extraction_error"
    assert reason["http://huge.example.com/"] == "oversize"
    missing = rejects[rejects["warc_file"].map(_stem) == "does-not-exist"]
    assert list(missing["reason"]) == ["missing_file"]


def test_wrong_charsets_still_give_text(bad_run):
    _, _, frames, _ = bad_run
    docs = frames["documents"].set_index("url")
    assert "Köln" in docs.loc["http://mixed.example.com/latin", "text"]
    assert "bogus sentence" in docs.loc["http://mixed.example.com/bogus-charset", "text"]


def test_record_ids_are_unique_and_duplicates_are_rejected(bad_run):
    _, _, frames, _ = bad_run
    docs, rejects = frames["documents"], frames["rejects"]
    assert docs["record_id"].is_unique
    kept = docs[docs["record_id"] == SHARED_ID]
    assert len(kept) == 1 and _stem(kept.iloc[0]["warc_file"]) == "dup-a"
    dups = rejects[rejects["reason"] == "duplicate_record_id"]
    assert sorted(dups["warc_file"].map(_stem)) == ["dup-a", "dup-b"]
    assert (dups["record_id"] == SHARED_ID).all()


def test_nothing_half_written_is_visible(bad_run):
    _, _, _, out = bad_run
    visible = sorted(p.name for p in out.iterdir() if not p.name.startswith("_"))
    assert visible == ["documents", "host_population", "rejects", "warc_files"]
    for name in visible:
        assert (out / name / "_SUCCESS").exists()
    leftovers = list((out / "_tmp").iterdir()) if (out / "_tmp").exists() else []
    assert leftovers == []
