"""The sampled extract on crawls older than a column (issue 28, part 2): cc-index-table's flat
schema marks ``content_languages`` "since CC-MAIN-2018-39", so an index of an older crawl lacks
it. The reader reads it as null, the ``language`` stratum is dropped with a counted note, and the
other strata still apply; a crawl that should have the column and lacks it is still refused."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from settings_support import sample_settings
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawlplan.ccindex.sample import available_strata, read_cc_index, select_sample

pytestmark = pytest.mark.spark

OLD = "CC-MAIN-2017-39"
WARC = f"crawl-data/{OLD}/segments/1505818689752.21/warc/CC-MAIN-20170923160736-20170923180736-00256.warc.gz"
PAGES = [("www.example.com", p) for p in ("/", "/a", "/a/b", "/a/b/c", "/x", "/x/y")] + [("example.org", "/")]
# the flat schema's columns of a crawl before 2018-39: no content_charset, no content_languages
OLD_SCHEMA = pa.schema([("url", pa.string()), ("url_host_name", pa.string()), ("url_path", pa.string()),
                        ("fetch_status", pa.int16()), ("content_mime_type", pa.string()),
                        ("content_mime_detected", pa.string()), ("warc_filename", pa.string()),
                        ("warc_record_offset", pa.int32()), ("warc_record_length", pa.int32())])


def _body(host: str, path: str) -> bytes:
    words = " ".join(f"{host} {path} sentence number {i} about the topic of this page." for i in range(30))
    return f"<!doctype html><html><head><title>{host}{path}</title></head><body><p>{words}</p></body></html>".encode()


@pytest.fixture(scope="module")
def old_crawl(tmp_path_factory):
    """A WARC file of a 2017 crawl and its index partition, in the layout of Common Crawl's bucket."""
    root = tmp_path_factory.mktemp("oldcrawl")
    warc = root / WARC
    warc.parent.mkdir(parents=True)
    rows = []
    with open(warc, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for host, path in PAGES:
            body = _body(host, path)
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                                       protocol="HTTP/1.1")
            start = fh.tell()
            writer.write_record(writer.create_warc_record(f"https://{host}{path}", "response",
                                                          payload=io.BytesIO(body), http_headers=headers))
            rows.append(dict(url=f"https://{host}{path}", url_host_name=host, url_path=path, fetch_status=200,
                             content_mime_type="text/html", content_mime_detected="text/html", warc_filename=WARC,
                             warc_record_offset=start, warc_record_length=fh.tell() - start))
    part = root / "cc_index" / f"crawl={OLD}" / "subset=warc"
    part.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=OLD_SCHEMA), part / "part-00000.parquet")
    return root, root / "cc_index"


def test_an_old_crawl_is_sampled_without_the_language_stratum(spark, old_crawl):
    _, index_root = old_crawl
    settings = sample_settings(k=3, seed=1, strata=("language", "depth"))
    absent: list[str] = []
    index, crawl = read_cc_index(spark, str(index_root), settings, absent=absent)
    assert crawl == OLD and absent == ["content_languages"]
    assert index.where(index.content_languages.isNotNull()).count() == 0
    kept, notes = available_strata(settings, absent, crawl)
    assert kept.strata == ("depth",) and len(notes) == 1
    assert "stratum 'language' dropped" in notes[0] and "since CC-MAIN-2018-39" in notes[0]
    selected = select_sample(index, kept)[0].toPandas()
    assert selected.groupby("surt_host_name").size().to_dict() == {"com,example": 3, "org,example": 1}
    # depth strata still spread the draw: www.example.com's pages have 0, 1, 1, 2, 2, 3 path segments,
    # and 3 draws in proportion take the two large strata and one of the small ones
    depth = {f"https://www.example.com{p}": len([s for s in p.split("/") if s]) for _, p in PAGES}
    drawn = sorted(depth[u] for u in selected[selected.surt_host_name == "com,example"].url)
    assert drawn in ([0, 1, 2], [1, 2, 3])


def test_a_crawl_that_should_have_the_column_and_lacks_it_is_refused(spark, tmp_path):
    part = tmp_path / "cc_index" / "crawl=CC-MAIN-2019-04" / "subset=warc"
    part.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([], schema=OLD_SCHEMA), part / "part-00000.parquet")
    with pytest.raises(ValueError, match="content_languages is in every crawl since CC-MAIN-2018-39"):
        read_cc_index(spark, str(tmp_path / "cc_index"), sample_settings())


def test_the_extract_node_samples_an_old_crawl_and_says_what_it_dropped(spark, old_crawl, tmp_path):
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    _, index_root = old_crawl
    conf = load_conf("local", overrides=["extract.mode=sampled", "extract.sample.k=2",
                                         "extract.sample.strata=[language, depth]", "extract.extractor=resiliparse",
                                         "extract.language_id=none", f"inputs.cc_index={index_root}"])
    result = run_single_job(spark, conf, load_pipeline("main"), "extract", [], str(tmp_path), echo=lambda *_: None)
    assert result["rows"]["documents"] == 3
    assert result["counters"]["sample_strata_dropped"] == 1
    notes = " | ".join(result["notes"])
    assert f"crawl {OLD}: content_languages absent" in notes and "stratum 'language' dropped" in notes
    assert "strata depth" in notes
