"""Spark reads crawlplan's columnar index as it reads Common Crawl's: next to a partition written
in the official types with ``mergeSchema=true`` (which cc-index-table's and cc-pyspark's READMEs
recommend), and the way cc-pyspark's ``CCIndexWarcSparkJob`` does: a Spark SQL query over the
table, then each row's record fetched by ``warc_filename`` + offset + length from a base URL (here
a server on 127.0.0.1 that honours Range) and parsed with warcio as a response of that URL."""

from __future__ import annotations

import io
import shutil
import urllib.request
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ccindex_support import capture, html, write_warc
from faultserver import FaultServer
from warcio.archiveiterator import ArchiveIterator

from crawlplan.ccindex.build import build_index

pytestmark = pytest.mark.spark

CRAWL = "CC-MAIN-2025-13"
LAYOUT = f"crawl-data/{CRAWL}/segments/1741234567890.12/%s/CC-MAIN-20250315000000-20250315030000-0000%d.warc.gz"

# the types of cc-index-schema-flat.json as Spark writes them (string, short, integer, timestamp)
_OFFICIAL = {"string": pa.string(), "short": pa.int16(), "integer": pa.int32()}
OFFICIAL_ROW = {
    "url_surtkey": "com,example)/path/index.html", "url": "https://www.example.com/path/index.html",
    "url_host_name": "www.example.com", "url_host_tld": "com", "url_host_2nd_last_part": "example",
    "url_host_3rd_last_part": "www", "url_host_4th_last_part": None, "url_host_5th_last_part": None,
    "url_host_registry_suffix": "com", "url_host_registered_domain": "example.com",
    "url_host_private_suffix": "com", "url_host_private_domain": "example.com",
    "url_host_name_reversed": "com.example.www", "url_protocol": "https", "url_port": None,
    "url_path": "/path/index.html", "url_query": None, "fetch_time": datetime(2017, 10, 24, 0, 14, 32, tzinfo=UTC),
    "fetch_status": 200, "fetch_redirect": None, "content_digest": "CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD",
    "content_mime_type": "text/html", "content_mime_detected": "text/html", "content_charset": "UTF-8",
    "content_languages": "eng", "content_truncated": None,
    "warc_filename": "crawl-data/CC-MAIN-2017-39/segments/1505818689752.21/warc/"
                     "CC-MAIN-20170923160736-20170923180736-00256.warc.gz",
    "warc_record_offset": 397346194, "warc_record_length": 24662, "warc_segment": "1505818689752.21",
}
_TYPES = {"url_port": "integer", "fetch_status": "short", "warc_record_offset": "integer",
          "warc_record_length": "integer"}


def _write_official(path, int96: bool) -> None:
    """One row in the published types; ``int96``: fetch_time as Spark's default Parquet writer
    stores timestamps, else INT64 milliseconds adjusted to UTC."""
    fields = [pa.field(n, pa.timestamp("ms", tz="UTC") if n == "fetch_time" else _OFFICIAL[_TYPES.get(n, "string")])
              for n in OFFICIAL_ROW]
    table = pa.Table.from_pylist([OFFICIAL_ROW], schema=pa.schema(fields))
    path.parent.mkdir(parents=True)
    pq.write_table(table, path, use_deprecated_int96_timestamps=int96)


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    root = tmp_path_factory.mktemp("cccrawl")
    pages = [capture(f"https://www.alpha.example/p{i}.html", language="eng") for i in range(4)]
    pages += [capture("https://beta.example/logo.png", body=b"\x89PNG\r\n" + bytes(100), mime="image/png"),
              capture("https://beta.example/", language="deu")]
    write_warc(root / (LAYOUT % ("warc", 0)), pages, is_part_of=CRAWL)
    write_warc(root / (LAYOUT % ("warc", 1)), [capture("https://gamma.example/", body=html("gamma"))], is_part_of=CRAWL)
    write_warc(root / (LAYOUT % ("crawldiagnostics", 2)), [capture("https://beta.example/gone", 404)], is_part_of=CRAWL)
    paths = [str(root / (LAYOUT % (subset, i))) for i, subset in enumerate(("warc", "warc", "crawldiagnostics"))]
    build_index(paths, str(root / "cc_index"), base=str(root))
    return root


@pytest.mark.parametrize("int96", [True, False], ids=["int96", "int64-ms-utc"])
def test_merge_schema_reads_our_partition_next_to_an_official_one(spark, crawl, tmp_path, int96):
    table = tmp_path / "table"
    shutil.copytree(crawl / "cc_index" / f"crawl={CRAWL}", table / f"crawl={CRAWL}")
    _write_official(table / "crawl=CC-MAIN-2017-39" / "subset=warc" / "part-00000.parquet", int96)
    df = spark.read.option("mergeSchema", "true").parquet(str(table))
    types = dict(df.dtypes)
    assert types["fetch_time"] == "timestamp" and types["fetch_status"] == "smallint"
    assert types["url_port"] == types["warc_record_offset"] == types["warc_record_length"] == "int"
    assert df.columns[:-2] == list(OFFICIAL_ROW) and df.columns[-2:] == ["crawl", "subset"]
    counts = {r["crawl"]: r["count"] for r in df.groupBy("crawl").count().collect()}
    assert counts == {CRAWL: 8, "CC-MAIN-2017-39": 1}
    official = df.where("crawl = 'CC-MAIN-2017-39'").collect()[0]
    assert official["url_surtkey"] == OFFICIAL_ROW["url_surtkey"]
    ours = df.where(f"crawl = '{CRAWL}' AND url = 'https://gamma.example/'").collect()[0]
    assert ours["url_surtkey"] == "example,gamma)/" and ours["fetch_status"] == 200
    assert ours["fetch_time"] is not None and official["fetch_time"] is not None


def _fetch_and_parse(base: str):
    """What CCIndexWarcSparkJob does per row: a Range request for the record's bytes under the base
    URL, parsed with warcio's ArchiveIterator."""
    def run(rows):
        for row in rows:
            offset, length = int(row["warc_record_offset"]), int(row["warc_record_length"])
            request = urllib.request.Request(f"{base}/{row['warc_filename']}",
                                             headers={"Range": f"bytes={offset}-{offset + length - 1}"})
            with urllib.request.urlopen(request, timeout=30) as response:
                status, data = response.status, response.read()
            records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"), r.http_headers.get_statuscode(),
                        len(r.content_stream().read())) for r in ArchiveIterator(io.BytesIO(data))]
            yield row["url"], status, len(data) == length, records, row["content_charset"]
    return run


@pytest.mark.quick
def test_read_the_way_cc_pyspark_ccindexwarcsparkjob_does(spark, crawl):
    spark.read.format("parquet").load(str(crawl / "cc_index")).createOrReplaceTempView("ccindex")
    query = (f"SELECT url, warc_filename, warc_record_offset, warc_record_length, content_charset FROM ccindex "
             f"WHERE crawl = '{CRAWL}' AND subset = 'warc' AND fetch_status = 200 "
             f"AND content_mime_detected = 'text/html'")
    selected = spark.sql(query)
    with FaultServer(root=str(crawl)) as server:          # 127.0.0.1, honours Range
        fetched = selected.rdd.repartition(2).mapPartitions(_fetch_and_parse(server.url)).collect()
    urls = sorted(f[0] for f in fetched)
    assert urls == sorted([f"https://www.alpha.example/p{i}.html" for i in range(4)]
                          + ["https://beta.example/", "https://gamma.example/"])
    for url, status, whole, records, charset in fetched:
        assert status == 206 and whole
        assert len(records) == 1                           # exactly one record in the range
        rec_type, target, http_status, body = records[0]
        assert (rec_type, target, http_status) == ("response", url, "200") and body > 100
        assert charset.lower() == "utf-8"      # detected (metadata record), else declared
