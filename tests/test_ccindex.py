"""The columnar URL index: ``index build`` offsets that really point at records, the k-per-host
draw in Spark, byte-range reads (local and loopback HTTP) and the sampled extract, whose rows
equal a full extract's rows for the same records."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from faultserver import FaultServer
from settings_support import extract_settings, read_limits, retry_policy, sample_settings
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawlplan import hosts
from crawlplan.ccindex.build import build_index, iter_index_rows
from crawlplan.extract.records import process_warc_file, process_warc_ranges
from crawlplan.warc.ranges import RecordRange, parse_member, parse_ranges
from crawlplan.warc.reader import FileOutcome
from crawlplan.warc.remote import read_range

CRAWL_PATH = "crawl-data/CC-MAIN-2025-13/segments/1741234567890.12/warc/CC-MAIN-20250315-00000.warc.gz"
SITES = {"www.alpha.example": 7, "beta.example": 2, "gamma.example.org": 4}
LANG = {"www.alpha.example": ("en", "eng"), "beta.example": ("de", "deu"), "gamma.example.org": ("fr", "fra")}


def _page(host: str, i: int) -> bytes:
    words = " ".join(f"{host.split('.')[-2]} word{j} sentence about topic {i}." for j in range(30))
    return f"<!doctype html><html><head><title>{host} {i}</title></head><body><p>{words}</p></body></html>".encode()


def _write_warc(path: Path) -> None:
    """Common Crawl's layout: per fetch a request, a response, a metadata record with languages-cld2."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        fetches = [(h, f"/{'a/' * (i % 3)}p{i}.html", 200, "text/html", _page(h, i))
                   for h, n in SITES.items() for i in range(n)]
        fetches += [("www.alpha.example", "/logo.jpg", 200, "image/jpeg", b"\xff\xd8\xff\xe0" + bytes(300)),
                    ("beta.example", "/gone", 404, "text/html", b"<html><body>not here</body></html>")]
        for host, urlpath, status, mime, body in fetches:
            url = f"https://{host}{urlpath}"
            req = writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=StatusAndHeaders(
                f"GET {urlpath} HTTP/1.1", [("Host", host)], is_http_request=True))
            writer.write_record(req)
            headers = StatusAndHeaders(f"{status} X", [("Content-Type", mime), ("Content-Length", str(len(body)))],
                                       protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                          http_headers=headers))
            two, three = LANG[host]
            cld2 = {"languages": [{"code": two, "code-iso-639-3": three, "text-covered": 0.99}]}
            fields = f"fetchTimeMs: 12\r\nlanguages-cld2: {json.dumps(cld2)}\r\n".encode()
            writer.write_record(writer.create_warc_record(url, "metadata", payload=io.BytesIO(fields),
                                                          warc_content_type="application/warc-fields"))


@pytest.fixture(scope="module")
def tiny_crawl(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("tinycrawl")
    _write_warc(root / CRAWL_PATH)
    build_index([str(root / CRAWL_PATH)], str(root / "cc_index"), base=str(root))
    return root, root / "cc_index"


def test_index_rows_point_at_their_records(tiny_crawl):
    root, index = tiny_crawl
    rows = list(iter_index_rows(str(index)))
    assert len(rows) == sum(SITES.values()) + 2                # responses only
    assert {(r["crawl"], r["subset"]) for r in rows} == {("CC-MAIN-2025-13", "warc")}
    for row in rows:
        assert row["warc_filename"] == CRAWL_PATH             # relative, as Common Crawl's are
        data = read_range(str(root / row["warc_filename"]), row["warc_record_offset"], row["warc_record_length"])
        rec, outcome = parse_member(data, CRAWL_PATH, row["warc_record_offset"], max_payload_bytes=10**6,
                                    read_payload=None, max_header_bytes=read_limits().max_header_bytes)
        assert rec is not None and rec.record_type == "response" and rec.url == row["url"]
        assert outcome.status == "ok"                         # the range is one whole gzip member
        assert row["url_host_registered_domain"] == hosts.registered_domain(row["url_host_name"])
    by_url = {r["url"]: r for r in rows}
    assert by_url["https://www.alpha.example/logo.jpg"]["content_mime_detected"] == "image/jpeg"
    assert by_url["https://beta.example/gone"]["fetch_status"] == 404
    assert by_url["https://beta.example/p0.html"]["content_languages"] == "deu"
    assert by_url["https://www.alpha.example/p0.html"]["url_surtkey"] == "example,alpha)/p0.html"


def test_a_range_over_loopback_http_equals_the_local_bytes(tiny_crawl):
    root, index = tiny_crawl
    row = next(r for r in iter_index_rows(str(index)) if r["url"].endswith("p3.html"))
    with FaultServer(root=str(root)) as server:     # no faults queued: a plain server that honours Range
        remote = read_range(f"{server.url}/{CRAWL_PATH}", row["warc_record_offset"], row["warc_record_length"],
                            retry_policy(allow_private_addresses=True))    # the server is on 127.0.0.1
    assert remote == read_range(str(root / CRAWL_PATH), row["warc_record_offset"], row["warc_record_length"])


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_sampled_rows_equal_full_rows_for_the_same_records_and_bad_ranges_are_rejects(tiny_crawl, reader):
    root, index = tiny_crawl
    settings = extract_settings(reader=reader, extractor="resiliparse", language_id="none")
    path = str(root / CRAWL_PATH)
    full = {r["offset"]: r for r in process_warc_file(path, settings) if r["kind"] != "file"}
    rows = [r for r in iter_index_rows(str(index)) if r["fetch_status"] == 200][:7]
    wanted = [{"offset": r["warc_record_offset"], "length": r["warc_record_length"], "url": r["url"]} for r in rows[:5]]
    wanted[4]["url"] = "https://stale.example/"              # the index names another URL than the record
    wanted.append({"offset": rows[6]["warc_record_offset"] + 7, "length": 100, "url": "https://x.example/"})
    wanted.append(dict(wanted[0]))                           # listed twice
    wanted.append({"offset": wanted[1]["offset"] + 5, "length": 10, "url": None})   # inside another range
    out = list(process_warc_ranges(path, wanted, settings, max_gap=10_000))
    records = {r["offset"]: r for r in out if r["kind"] != "file"}
    for w in wanted[:4]:
        assert records[w["offset"]] == full[w["offset"]]     # same record id, text, or reject reason
    assert records[wanted[4]["offset"]]["reason"] == "index_mismatch"
    assert records[wanted[5]["offset"]]["reason"] == "not_a_record"
    assert [r["reason"] for r in out if r.get("reason") == "bad_range"] == ["bad_range"] * 2
    (file_row,) = [r for r in out if r["kind"] == "file"]
    assert file_row["documents"] + file_row["rejected"] == len(out) - 1 == 8
    # one merged block: the bytes read span the selected records and the gaps between them
    span = max(w["offset"] + w["length"] for w in wanted[:6]) - min(w["offset"] for w in wanted[:6])
    assert file_row["bytes"] == span


def test_ranges_parsed_together_give_what_each_gives_alone(tiny_crawl, monkeypatch):
    """fastwarc parses a batch of ranges through one iterator over their joined bytes; a range
    that is not one whole record (junk, cut short, running into the next record) must not change
    its own result nor its neighbours'."""
    root, index = tiny_crawl
    path = str(root / CRAWL_PATH)
    data = (root / CRAWL_PATH).read_bytes()
    rows = sorted(iter_index_rows(str(index)), key=lambda r: r["warc_record_offset"])
    whole = [RecordRange(r["warc_record_offset"], r["warc_record_length"], r["url"]) for r in rows]
    odd = [whole[0], whole[1], RecordRange(whole[2].offset + 7, 90),                  # junk
           whole[3], RecordRange(whole[4].offset, whole[4].length - 40, whole[4].url),  # cut short
           RecordRange(whole[5].offset, whole[6].offset - whole[5].offset),           # runs into the next records
           RecordRange(whole[7].offset, whole[7].length, "https://stale.example/"), whole[8], whole[9]]
    options = {"max_payload_bytes": 10**6, "read_payload": None, "max_header_bytes": read_limits().max_header_bytes}

    def parse(batch, reader, one_by_one=False):
        outcome = FileOutcome(warc_file=path)
        pairs = [(r, data[r.offset:r.offset + r.length]) for r in batch]
        chunks = [[p] for p in pairs] if one_by_one else [pairs]
        results = [x for chunk in chunks for x in parse_ranges(chunk, path, outcome, reader=reader, **options)]
        return results, (outcome.records, dict(outcome.records_by_type))

    for batch in (whole, odd):
        together = parse(batch, "fastwarc")
        assert together == parse(batch, "fastwarc", one_by_one=True)
        assert [x.error for x in together[0]] == [x.error for x in parse(batch, "warcio")[0]]
    assert [x.error for x in parse(odd, "fastwarc")[0]] == [None, None, "not_a_record", None, None, None,
                                                          "index_mismatch", None, None]
    assert all(x.record.payload for x in parse(whole, "fastwarc")[0])
    # the joined parse really carries the batch: whole records need no range parsed alone
    import crawlplan.warc.ranges as ranges

    alone = []
    monkeypatch.setattr(ranges, "parse_member", lambda data, *a, **kw: alone.append(1) or parse_member(data, *a, **kw))
    parse(whole, "fastwarc")
    assert alone == []
    parse(odd, "fastwarc")
    assert 0 < len(alone) < len(odd)


@pytest.mark.parametrize("max_gap", [0, 10**6])
def test_ranges_read_before_a_failed_read_are_still_parsed(tiny_crawl, max_gap):
    root, index = tiny_crawl
    path = str(root / CRAWL_PATH)
    settings = extract_settings(reader="fastwarc", extractor="resiliparse", language_id="none")
    full = {r["offset"]: r for r in process_warc_file(path, settings) if r["kind"] != "file"}
    rows = sorted(iter_index_rows(str(index)), key=lambda r: r["warc_record_offset"])[:2]
    wanted = [{"offset": r["warc_record_offset"], "length": r["warc_record_length"], "url": r["url"]} for r in rows]
    size = (root / CRAWL_PATH).stat().st_size
    wanted.append({"offset": size - 10, "length": 100, "url": None})        # runs past the end of the file
    out = list(process_warc_ranges(path, wanted, settings, max_gap=max_gap))
    assert [r["offset"] for r in out[:3]] == [w["offset"] for w in wanted]
    assert out[:2] == [full[w["offset"]] for w in wanted[:2]]
    assert out[2]["reason"] == "range_read_error" and out[3]["kind"] == "file"


@pytest.mark.spark   # not quick: 20 s (the package's quick Spark test is test_ccindex_spark_readers)
def test_k_per_host_drawn_in_spark_is_seeded_nested_and_counts_the_population(spark, tiny_crawl):
    from crawlplan.ccindex.sample import read_cc_index, select_sample

    _, index_root = tiny_crawl

    def draw(**kw):
        index, crawl = read_cc_index(spark, str(index_root), sample_settings(**kw))
        selected, population = select_sample(index, sample_settings(**kw))
        return crawl, selected.toPandas(), population.toPandas().set_index("surt_host_name")

    crawl, five, pop = draw(k=5, seed=1)
    three = five[five.draw_rank <= 3]
    assert crawl == "CC-MAIN-2025-13"
    assert three.groupby("surt_host_name").size().to_dict() == {"example,alpha": 3, "example,beta": 2,
                                                                "org,example,gamma": 3}
    assert not five.url.str.contains("logo|gone").any()      # only successful HTML captures
    assert pop.loc["example,alpha"].tolist()[1:] == [8, 7, 5] and pop.loc["example,beta"].tolist()[1:] == [3, 2, 2]
    # seeded and nested: a draw at k = 3 is the first three of the draw at k = 5
    assert set(draw(k=3, seed=1)[1].url) == set(three.url)
    # depth strata: alpha's 7 pages have 0, 1, 2 path segments (3, 2, 2 pages): 3 draws take one of each
    strat = draw(k=3, seed=1, strata=("depth",))[1]
    alpha = strat[strat.surt_host_name == "example,alpha"].url.str.count("/a").tolist()
    assert sorted(alpha) == [0, 1, 2]


@pytest.mark.spark
def test_the_extract_node_in_sampled_mode(spark, tiny_crawl, tmp_path):
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    _, index_root = tiny_crawl
    conf = load_conf("local", overrides=["extract.mode=sampled", "extract.sample.k=2", "extract.extractor=resiliparse",
                                         "extract.language_id=none", f"inputs.cc_index={index_root}"])
    pipeline = load_pipeline("main")
    result = run_single_job(spark, conf, pipeline, "extract", [], str(tmp_path), echo=lambda *_: None)
    docs = spark.read.parquet(str(tmp_path / "documents")).toPandas()
    assert docs.groupby("surt_host_name").size().to_dict() == {"example,alpha": 2, "example,beta": 2,
                                                               "org,example,gamma": 2}
    pop = spark.read.parquet(str(tmp_path / "host_population")).toPandas().set_index("surt_host_name")
    assert pop.loc["example,alpha", "sampling_fraction"] == pytest.approx(2 / 7)
    assert set(pop["mode"]) == {"sampled"} and result["rows"]["documents"] == 6


@pytest.mark.slow   # builds the demo crawl: 8 s
def test_the_demo_crawl_carries_its_columnar_index(tmp_path_factory):
    """Every HTML page of the demo is in its cc_index at the offset and length the generator wrote."""
    import pandas as pd
    from demo_support import default_demo

    root = default_demo(tmp_path_factory)
    index = pd.DataFrame(list(iter_index_rows(str(root / "cc_index"))))
    pages = pd.read_parquet(root / "ground_truth" / "pages.parquet")
    both = pages.merge(index, on="url", suffixes=("_truth", ""))
    assert len(both) == len(pages) and set(index.crawl) == {"CC-MAIN-2024-10"}
    assert (both.warc_record_offset_truth == both.warc_record_offset).all()
    assert (both.warc_record_length_truth == both.warc_record_length).all()
    assert (both.content_mime_detected == "text/html").all() and both.content_languages.notna().all()


def test_the_run_checks_the_input_its_extract_mode_needs_before_it_starts():
    from crawlplan.conf import load_conf
    from crawlplan.dag.context import InputError
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import plan_run

    main = load_pipeline("main")
    sampled = load_conf("local", overrides=["extract.mode=sampled", "inputs.warc_paths=x/warc.paths.gz"])
    with pytest.raises(InputError, match="inputs.cc_index: needed by extract"):
        plan_run(main, sampled, until=["extract"])
    full = load_conf("local", overrides=["inputs.cc_index=x/cc_index"])
    with pytest.raises(InputError, match="inputs.warc_paths: needed by extract"):
        plan_run(main, full, until=["extract"])
    assert plan_run(main, load_conf("local", overrides=["extract.mode=sampled", "inputs.cc_index=x/cc_index"]),
                    until=["allocate"])[0] == ["extract", "classify", "allocate"]
