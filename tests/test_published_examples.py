"""Common Crawl's own published examples through crawlplan's readers (issue 28, part 4).

The rows are the values Common Crawl shows, copied as facts:
- cc-index-table: the capture of ``TestCCIndex2Table``'s CDX line (``https://commoncrawl.org/faq``,
  CC-MAIN-2026-30) and the ``example`` values of ``cc-index-schema-flat.json`` (an RSS capture of
  CC-MAIN-2017-39, a crawl before ``content_languages``), in the flat schema's column types;
- cc-host-index: the README's two CC-MAIN-2025-13 result tables (Vatican sites and sites over 90%
  LOTE), in ``athena_schema.v2.sql``'s types, opened from a ``v2.paths.gz`` listing;
- cc-webgraph: the first rows of ``cc-main-2024-25-dec-jan-feb-host-ranks.txt.gz`` (HC a Java
  float, PR a Java double, as ``JoinSortRanks`` prints them) and ``TestHostToDomainGraph``'s host
  vertices, in a release folder whose listings are relative to the bucket.
"""

from __future__ import annotations

import gzip

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from settings_support import sample_settings

from crawlplan.ccindex.sample import available_strata, read_cc_index, select_sample
from crawlplan.graph import hostindex, webgraph

pytestmark = pytest.mark.spark


def _gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


# --- cc-index-table ---------------------------------------------------------------------------

FLAT = {"url_surtkey": pa.string(), "url": pa.string(), "url_host_name": pa.string(), "url_host_tld": pa.string(),
        "url_host_registered_domain": pa.string(), "url_path": pa.string(), "fetch_time": pa.timestamp("ms", "UTC"),
        "fetch_status": pa.int16(), "content_digest": pa.string(), "content_mime_type": pa.string(),
        "content_mime_detected": pa.string(), "content_charset": pa.string(), "content_languages": pa.string(),
        "warc_filename": pa.string(), "warc_record_offset": pa.int32(), "warc_record_length": pa.int32(),
        "warc_segment": pa.string()}
FAQ = dict(url_surtkey="org,commoncrawl)/faq", url="https://commoncrawl.org/faq", url_host_name="commoncrawl.org",
           url_host_tld="org", url_host_registered_domain="commoncrawl.org", url_path="/faq", fetch_status=200,
           content_digest="DIGO3UYP5E4RCVMRIJ6A7523DBTXRRGO", content_mime_type="text/html",
           content_mime_detected="text/html", content_charset="UTF-8", content_languages="eng",
           warc_filename="crawl-data/CC-MAIN-2026-30/segments/1783663951473.63/warc/"
                         "CC-MAIN-20260711043148-20260711073148-00793.warc.gz",
           warc_record_offset=129368320, warc_record_length=10201, warc_segment="1783663951473.63")
SCHEMA_EXAMPLE = dict(url_surtkey="com,example)/path/index.html", url="https://www.example.com/path/index.html",
                      url_host_name="www.example.com", url_host_tld="com", url_host_registered_domain="example.com",
                      url_path="/path/index.html", fetch_status=200, content_digest="CH7IV3XAD3M7A42JARKRLJ3T5PGGCGXD",
                      content_mime_type="text/xml", content_mime_detected="application/rss+xml",
                      warc_filename="crawl-data/CC-MAIN-2017-39/segments/1505818689752.21/warc/"
                                    "CC-MAIN-20170923160736-20170923180736-00256.warc.gz",
                      warc_record_offset=397346194, warc_record_length=24662, warc_segment="1505818689752.21")


def _index_partition(root, crawl, row, fetch_time, drop=()):
    import datetime as dt

    fields = [(c, t) for c, t in FLAT.items() if c not in drop]
    table = pa.Table.from_pylist([{**row, "fetch_time": dt.datetime.fromisoformat(fetch_time)}],
                                 schema=pa.schema(fields))
    part = root / f"crawl={crawl}" / "subset=warc"
    part.mkdir(parents=True)
    pq.write_table(table, part / "part-00000.c000.gz.parquet", compression="gzip")


def test_cc_index_table_examples_through_the_sampled_extract_reader(spark, tmp_path):
    root = tmp_path / "cc-index" / "table" / "cc-main" / "warc"
    _index_partition(root, "CC-MAIN-2026-30", FAQ, "2026-07-11T04:57:28+00:00")
    _index_partition(root, "CC-MAIN-2017-39", SCHEMA_EXAMPLE, "2017-10-24T00:14:32+00:00",
                     drop=("content_charset", "content_languages"))    # both "since CC-MAIN-2018-39"

    settings = sample_settings(k=10, strata=("language",))
    index, crawl = read_cc_index(spark, str(root), settings)            # the latest crawl by default
    assert crawl == "CC-MAIN-2026-30"
    selected, population = select_sample(index, settings)
    [row] = selected.collect()
    assert (row.surt_host_name, row.url, row.warc_filename, row.offset, row.length, row.draw_rank) == (
        "org,commoncrawl", "https://commoncrawl.org/faq", FAQ["warc_filename"], 129368320, 10201, 1)
    assert [tuple(r) for r in population.select("surt_host_name", "crawl", "captures", "html_captures").collect()] \
        == [("org,commoncrawl", "CC-MAIN-2026-30", 1, 1)]

    old = sample_settings(k=10, strata=("language",), crawl="CC-MAIN-2017-39")
    absent: list[str] = []
    index, crawl = read_cc_index(spark, str(root), old, absent=absent)
    assert absent == ["content_languages"]
    old, notes = available_strata(old, absent, crawl)
    assert old.strata == () and notes
    selected, population = select_sample(index, old)
    assert selected.count() == 0                                        # an RSS capture: not HTML
    [pop] = population.collect()
    assert (pop.surt_host_name, pop.captures, pop.html_captures, pop.selected) == ("com,example", 1, 0, 0)


# --- cc-host-index ----------------------------------------------------------------------------

# README: crawl, surt_host_name, hcrank10, fetch_200_lote_pct, fetch_200_lote (CC-MAIN-2025-13)
VATICAN = [("va,vaticannews", 5.472, 89, 18872), ("va,vatican", 5.164, 73, 14549), ("va,museivaticani", 4.826, 77, 568),
           ("va,vatican,press", 4.821, 67, 3804), ("va,clerus", 4.813, 79, 68), ("va,osservatoreromano", 4.783, 98, 3305),
           ("va,vaticanstate", 4.738, 73, 509), ("va,migrants-refugees", 4.732, 67, 2055),
           ("va,iubilaeum2025", 4.73, 85, 672), ("va,cultura", 4.724, 67, 80)]
LOTE_90 = [("org,wikipedia,fr", 5.885, 99, 55334), ("org,wikipedia,es", 5.631, 100, 48527),
           ("com,chrome,developer", 5.62, 92, 29298), ("ar,gob,argentina", 5.613, 95, 16580),
           ("fr,ebay", 5.579, 100, 24633), ("org,wikipedia,ja", 5.55, 100, 49008), ("ru,gosuslugi", 5.535, 100, 1560),
           ("org,wikipedia,de", 5.508, 100, 48223), ("com,acidholic", 5.477, 100, 356), ("ph,telegra", 5.455, 92, 57153)]
V2_TYPES = pa.schema([("surt_host_name", pa.string()), ("url_host_tld", pa.string()), ("hcrank10", pa.float64()),
                      ("fetch_200_lote", pa.int32()), ("fetch_200_lote_pct", pa.int32()),
                      ("warc_record_length_av", pa.int32())])


def test_cc_host_index_readme_rows_through_the_host_index_reader(spark, tmp_path):
    from pyspark.sql import functions as F

    rows = [dict(surt_host_name=s, url_host_tld=s.split(",")[0], hcrank10=hc, fetch_200_lote_pct=pct,
                 fetch_200_lote=lote, warc_record_length_av=None) for s, hc, pct, lote in VATICAN + LOTE_90]
    folder = tmp_path / "projects" / "host-index-testing" / "v2" / "crawl=CC-MAIN-2025-13"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=V2_TYPES), folder / "part-00000.gz.parquet")
    # the README's setup: wget .../projects/host-index-testing/v2.paths.gz, entries relative to the bucket
    _gz(tmp_path / "v2.paths.gz", "projects/host-index-testing/v2/crawl=CC-MAIN-2025-13/part-00000.gz.parquet\n")
    hi = hostindex.read_host_index(spark, str(tmp_path / "v2.paths.gz"),
                                   columns=["url_host_tld", "hcrank10", "fetch_200_lote_pct", "fetch_200_lote",
                                            "warc_record_length_av"])
    assert dict(hi.dtypes)["fetch_200_lote_pct"] == "int" and dict(hi.dtypes)["fetch_200_lote"] == "bigint"
    assert "warc_record_length_avg" in hi.columns                 # v2's typo, read under v3's name
    # the README's queries, on what the reader returns: the same rows in the same order
    vatican = hi.where((F.col("url_host_tld") == "va") & (F.col("fetch_200_lote_pct") > 50)).orderBy(
        F.desc("hcrank10")).limit(10)
    assert [(r.surt_host_name_raw, r.hcrank10, r.fetch_200_lote_pct, r.fetch_200_lote) for r in vatican.collect()] \
        == VATICAN
    lote = hi.where(F.col("fetch_200_lote_pct") > 90).orderBy(F.desc("hcrank10")).limit(10)
    assert [(r.surt_host_name, r.hcrank10, r.fetch_200_lote_pct, r.fetch_200_lote) for r in lote.collect()] == LOTE_90
    keys = {r.surt_host_name: r.rev_host for r in hi.collect()}
    assert keys["va,vatican,press"] == "va.vatican.press" and keys["org,wikipedia,fr"] == "org.wikipedia.fr"


# --- cc-webgraph ------------------------------------------------------------------------------

RELEASE = "cc-main-2024-25-dec-jan-feb"
# the first rows of the release's host ranks file, as published (HC Float.toString, PR Double.toString)
RANKS = [(1, "3.4626736E7", 3, "0.005384977821460953", "com.facebook"),
         (2, "3.42356E7", 2, "0.007010813553170503", "com.googleapis.fonts"),
         (3, "3.007577E7", 1, "0.008634952900502719", "com.google"),
         (4, "3.0036014E7", 4, "0.004411782034463272", "com.googletagmanager"),
         (5, "2.9900088E7", 5, "0.0036940035989790525", "com.youtube"),
         (6, "2.9537252E7", 6, "0.0032959808223701", "com.instagram")]
# TestHostToDomainGraph.hostGraphHyphenatedDomains: vertex ids and reversed host names
VERTICES = ["ac.e-bike", "ac.e-bikes", "ac.e-com", "ac.e.subdomain", "ac.eagle", "ac.gov", "ac.gov.ascension",
            "ac.gov.ascension-island", "ac.gov.ascension.mail", "ac.gov.conservation-ascension-island",
            "ac.gov.postoffice"]


def test_cc_webgraph_rows_through_the_ranks_and_vertices_readers(spark, tmp_path):
    folder = tmp_path / RELEASE                       # a download with the bucket prefix dropped
    _gz(folder / f"{RELEASE}-host-ranks.txt.gz", "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
        + "".join("\t".join(map(str, r)) + "\n" for r in RANKS))
    _gz(folder / "vertices" / "part-00000.txt.gz", "".join(f"{i}\t{v}\n" for i, v in enumerate(VERTICES)))
    _gz(folder / f"{RELEASE}-host-vertices.paths.gz",
        f"projects/hyperlinkgraph/{RELEASE}/host/vertices/part-00000.txt.gz\n")

    ranks = {r.rev_host: r for r in webgraph.read_host_ranks(spark, str(folder), convention="stripped").collect()}
    assert set(ranks) == {r[4] for r in RANKS}
    for hc_pos, hc_val, pr_pos, pr_val, host in RANKS:
        got = ranks[host]
        assert (got.harmonicc_pos, got.pr_pos) == (hc_pos, pr_pos)
        assert got.harmonicc_val == float(hc_val) and got.pr_val == float(pr_val)   # the double, every digit
    assert ranks["com.facebook"].surt_host_name == "com,facebook"
    assert webgraph.release_name(spark, str(folder)) == RELEASE

    vertices = webgraph.read_vertices(spark, str(folder), convention="stripped").orderBy("id").collect()
    assert [(r.id, r.host_rev, r.rev_host) for r in vertices] == [(i, v, v) for i, v in enumerate(VERTICES)]
    # too few names to measure (inputs.www_min_names): a 2025 release strips www. by its date
    convention = webgraph.release_convention(spark, str(folder), min_names=1000)
    assert convention.convention == "stripped" and convention.names == len(VERTICES)
