"""The extract node on real WARC files: the accounting invariant and trafilatura equality."""

import pytest
from settings_support import extract_section, extract_settings, read_limits, remote_section

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job
from crawlplan.extract.decode import decode_html
from crawlplan.extract.records import ExtractSettings, process_warc_file
from crawlplan.extract.text import extract_trafilatura
from crawlplan.warc.reader import FileOutcome, iter_records

pytestmark = pytest.mark.spark


def _run_extract(spark, inputs, out, overrides=()):
    conf = load_conf("local", overrides=list(overrides))
    pipeline = load_pipeline("main")
    return run_single_job(spark, conf, pipeline, "extract", inputs, str(out), force=True, echo=lambda *_: None)


def test_extract_job_on_all_shared_warcs_keeps_the_invariant(spark, shared_data, tmp_path):
    inputs = [str(shared_data / "warc/*.gz"), str(shared_data / "warc/servo/*.gz")]
    result = _run_extract(spark, inputs, tmp_path, ["extract.extractor=resiliparse"])
    docs = spark.read.parquet(str(tmp_path / "documents"))
    rejects = spark.read.parquet(str(tmp_path / "rejects"))
    files = spark.read.parquet(str(tmp_path / "warc_files"))
    totals = files.selectExpr("sum(responses) r", "sum(documents) d", "sum(rejected) x", "count(*) n").first()
    file_level = rejects.where("offset is null").count()
    assert totals.n == 28
    assert docs.count() == totals.d == result["rows"]["documents"]
    assert rejects.count() == totals.x
    assert totals.d + totals.x - file_level == totals.r
    assert files.where("status != 'ok'").count() == 0
    # documents carry all three host key forms, consistently
    for row in docs.select("host", "surt_host_name", "rev_host").limit(50).collect():
        assert row.rev_host.replace(".", ",") == row.surt_host_name


def test_document_text_equals_trafilatura_on_the_same_html(shared_data):
    settings = extract_settings()
    path = str(shared_data / "warc/resiliparse-warcfile.warc.gz")
    docs = [r for r in process_warc_file(path, settings) if r["kind"] == "doc"]
    assert len(docs) >= 10
    records = {r.offset: r for r in iter_records(path, FileOutcome(path), limits=read_limits())}
    for doc in docs:
        rec = records[doc["offset"]]
        html, _ = decode_html(rec.payload, rec.declared_charset)
        assert doc["text"] == extract_trafilatura(html, settings.trafilatura).strip()


def test_realpages_mostly_become_documents(shared_data):
    path = str(shared_data / "realpages/realpages.warc.gz")
    rows = []
    for row in process_warc_file(path, extract_settings(reader="fastwarc", extractor="resiliparse")):
        rows.append(row)
    file_row = rows[-1]
    assert file_row["responses"] == 1171
    assert file_row["documents"] + file_row["rejected"] == 1171
    assert file_row["documents"] > 1000
    langs = {r["language"] for r in rows if r["kind"] == "doc"}
    assert {"en", "de"} <= langs


def test_wrong_charset_declarations_are_survived():
    from crawlplan.extract.decode import decode_html

    text = "Grüße aus Köln – naïve café"
    html = f"<html><head><meta charset='utf-8'></head><body><p>{text}</p></body></html>"
    decoded, used = decode_html(html.encode("cp1252"), declared="utf-8")
    assert "Köln" in decoded and used != "utf-8"
    decoded, used = decode_html(html.encode("utf-8"), declared="iso-8859-1")
    assert "Köln" in decoded and used == "utf-8"  # valid UTF-8 wins over a wrong latin-1 declaration
    sjis = "日本語のページ".encode("shift_jis")
    decoded, used = decode_html(b"<html><body><p>" + sjis + b"</p></body></html>", declared="shift_jis")
    assert "日本語" in decoded


def test_time_limit_fires_inside_spark_python_workers(spark):
    """The per-record limit relies on SIGALRM, which only works on a worker's main thread."""

    def probe(batches):
        import time

        import pyarrow as pa

        from crawlplan.extract.text import ExtractionTimeout, time_limit

        for batch in batches:
            outcome = []
            for _ in batch.column("id").to_pylist():
                try:
                    with time_limit(0.2):
                        time.sleep(5)
                    outcome.append("finished")
                except ExtractionTimeout:
                    outcome.append("timeout")
            yield pa.RecordBatch.from_pydict({"outcome": outcome})

    rows = spark.range(2).mapInArrow(probe, "outcome string").collect()
    assert [r.outcome for r in rows] == ["timeout", "timeout"]


def test_hanging_extraction_becomes_a_reject(monkeypatch):
    import time

    from crawlplan.extract import text as text_module
    from crawlplan.extract.records import record_to_row
    from crawlplan.warc.reader import RawRecord

    monkeypatch.setitem(text_module.EXTRACTORS, "trafilatura", lambda html, opts: time.sleep(5) or "x")
    rec = RawRecord(warc_file="f", offset=0, record_type="response", record_id="<id>", url="http://a.com/",
                    date=None, http_status=200, http_headers={"content-type": "text/html"},
                    payload=b"<html><body><p>hello</p></body></html>")
    row = record_to_row(rec, extract_settings(timeout_s=0.2))
    assert row["kind"] == "reject" and row["reason"] == "extraction_timeout"


@pytest.mark.parametrize("key, value, message", [
    ("extractor", "resiliparze", "unknown extract.extractor 'resiliparze'; choose one of trafilatura, resiliparse"),
    ("language_id", "cld3", "unknown extract.language_id 'cld3'; choose one of cld2, fasttext, none"),
    ("reader", "warcat", "unknown extract.reader 'warcat'"),
    ("timeout_s", "30s", "extract.timeout_s must be a number >= 0, got '30s'"),
    ("max_payload_bytes", -1, "extract.max_payload_bytes must be a whole number >= 0"),
    ("max_payload_bytes", 2.5, "extract.max_payload_bytes must be a whole number >= 0"),
    ("min_text_chars", "inf", "extract.min_text_chars must be a whole number >= 0"),
])
def test_bad_extract_settings_fail_before_any_record_is_read(key, value, message):
    with pytest.raises(ValueError, match=message):
        ExtractSettings.from_params(extract_section(**{key: value}), remote=remote_section())


def test_whole_numbers_written_as_floats_or_exponents_are_taken_as_ints():
    settings = ExtractSettings.from_params(extract_section(max_payload_bytes="1e7", min_text_chars=25.0, timeout_s=0),
                                           remote=remote_section())
    assert settings.max_payload_bytes == 10_000_000 and isinstance(settings.max_payload_bytes, int)
    assert settings.min_text_chars == 25 and isinstance(settings.min_text_chars, int)
    assert settings.timeout_s == 0.0                          # 0 = no time limit


def test_a_record_that_breaks_extraction_is_a_reject_and_the_file_goes_on(shared_data, monkeypatch):
    from crawlplan.extract import records

    real = records.record_to_row
    broken = {}

    def flaky(rec, settings):
        if not broken:
            broken["url"] = rec.url
            raise KeyError("a bug nobody foresaw")
        return real(rec, settings)

    monkeypatch.setattr(records, "record_to_row", flaky)
    rows = list(process_warc_file(str(shared_data / "warc" / "dolma-sample-0000.warc.gz"), extract_settings()))
    *records_out, file_row = rows
    bad = [r for r in records_out if r.get("reason") == "internal_error"]
    assert len(bad) == 1 and bad[0]["url"] == broken["url"] and "KeyError" in bad[0]["detail"]
    assert file_row["file_status"] == "ok"
    assert file_row["responses"] == file_row["documents"] + file_row["rejected"] == len(records_out)


def test_cld2_ignores_control_characters_and_lone_surrogates():
    from crawlplan.extract.language import detect_cld2

    text = ("The quick brown fox jumps over the lazy dog while the farmer watches from the old "
            "wooden fence near the river. ") * 5
    noisy = "\x00\x01\x0b\x1f".join(text.split(" ")) + "\ud800"
    clean_lang, clean_conf = detect_cld2(text)
    assert clean_lang == "en" and clean_conf > 0.5
    assert detect_cld2(noisy)[0] == "en"
    assert detect_cld2("\x00\x01\ud800") == ("unknown", 0.0)


def test_cld2_survives_del_c1_controls_and_noncharacters():
    """CLD2 refuses the whole text for one DEL, C1 control (a cp1252 quote decoded as Latin-1)
    or Unicode noncharacter; such a document used to get language 'unknown'."""
    from crawlplan.extract.language import detect_cld2

    text = ("The quick brown fox jumps over the lazy dog while the farmer watches from the old "
            "wooden fence near the river. ") * 5
    for odd in ("\x7f", "\x85", "\x93", "\ufdd0", "\ufffe", "\U0010ffff"):
        assert detect_cld2(text + odd + text)[0] == "en", repr(odd)


@pytest.mark.quick
def test_cross_file_duplicates_leave_documents_without_shuffling_the_text(spark, tmp_path):
    import pyarrow as pa

    from crawlplan.extract.spark import ARROW_SCHEMA, WIDE_SCHEMA, saved_wide, split_outputs

    def doc(path, offset, rid):
        return {"kind": "doc", "warc_file": path, "offset": offset, "record_id": rid, "url": f"http://a.org/{rid}",
                "host": "a.org", "text": f"text {rid}", "text_length": 6 + len(rid), "extractor": "resiliparse"}

    def file_row(path, documents):
        return {"kind": "file", "warc_file": path, "file_status": "ok", "records": documents,
                "records_by_type_json": f'{{"response": {documents}}}', "responses": documents,
                "documents": documents, "rejected": 0}

    rows = [doc("a.warc.gz", 0, "r1"), doc("a.warc.gz", 10, "r2"), doc("b.warc.gz", 0, "r2"),
            doc("b.warc.gz", 10, "r3"), file_row("a.warc.gz", 2), file_row("b.warc.gz", 2)]
    # through mapInArrow and saved, as in the job (extract_wide_in_waves)
    wide = spark.range(1, numPartitions=1).mapInArrow(
        lambda _: iter([pa.RecordBatch.from_pylist(rows, schema=ARROW_SCHEMA)]), WIDE_SCHEMA)
    outs = split_outputs(saved_wide(spark, wide, str(tmp_path / "wide"), "snappy"))
    docs = {(r.warc_file, r.offset, r.record_id) for r in outs["documents"].collect()}
    assert docs == {("a.warc.gz", 0, "r1"), ("a.warc.gz", 10, "r2"), ("b.warc.gz", 10, "r3")}
    rejects = [r.asDict() for r in outs["rejects"].collect()]
    assert [(r["warc_file"], r["offset"], r["reason"], r["detail"]) for r in rejects] == [
        ("b.warc.gz", 0, "duplicate_record_id", "first kept: a.warc.gz@10")]
    files = {r.warc_file: (r.documents, r.rejected) for r in outs["warc_files"].collect()}
    assert files == {"a.warc.gz": (2, 0), "b.warc.gz": (1, 1)}
    plan = outs["documents"]._jdf.queryExecution().executedPlan().toString()
    assert "BroadcastHashJoin" in plan and "hashpartitioning(warc_file" not in plan  # no shuffle of the text
    spark.catalog.clearCache()


def test_spread_rows_gives_consecutive_rows_per_partition_like_parallelize(spark):
    """extract_wide's listing: N WARC paths in ``slices`` tasks of consecutive paths, in order and
    evenly sized, as ``parallelize(rows, numSlices)`` gave, built without an RDD (Spark Connect has
    none)."""
    from pyspark.sql import functions as F

    from crawlplan.spark import spread_rows

    rows = [(f"s3://bucket/f{i:03d}.warc.gz", i) for i in range(23)]
    frame = spread_rows(spark, rows, "warc_file string, n long", 5)
    assert frame.columns == ["warc_file", "n"]
    parts = frame.select(F.spark_partition_id().alias("p"), "warc_file", "n").collect()
    by_part: dict[int, list[int]] = {}
    for r in parts:
        by_part.setdefault(r.p, []).append(r.n)
    assert sorted(by_part) == list(range(5))
    assert {len(v) for v in by_part.values()} <= {4, 5}                       # 23 rows in 5 even slices
    assert all(v == list(range(v[0], v[0] + len(v))) for v in by_part.values())   # consecutive rows
    assert [(r.warc_file, r.n) for r in parts] == rows
    assert spread_rows(spark, [], "warc_file string", 3).count() == 0
