"""``crawlplan index build`` writes Common Crawl's flat URL index exactly: the columns, order, types
and nullability of cc-index-table's ``cc-index-schema-flat.json``; ``url_surtkey`` as Common
Crawl's CDX writer makes it (``surt.surt``) on every URL of the shared real WARC files; the host,
redirect, digest and truncation columns; captures routed to warc / crawldiagnostics / robotstxt;
the crawl from Common Crawl's names, else the setting; rows sorted by ``url_surtkey`` within each
partition, across the files of the partition."""

from __future__ import annotations

import glob
from collections import Counter
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import surt
from ccindex_support import capture, write_warc

from crawlplan.ccindex import columns as cols
from crawlplan.ccindex.build import build_index, iter_index_rows
from crawlplan.cli import main

# cc-index-table src/main/resources/schema/cc-index-schema-flat.json (main branch): name, type, nullable
FLAT_SCHEMA = [
    ("url_surtkey", "string", False), ("url", "string", False), ("url_host_name", "string", False),
    ("url_host_tld", "string", True), ("url_host_2nd_last_part", "string", True),
    ("url_host_3rd_last_part", "string", True), ("url_host_4th_last_part", "string", True),
    ("url_host_5th_last_part", "string", True), ("url_host_registry_suffix", "string", True),
    ("url_host_registered_domain", "string", True), ("url_host_private_suffix", "string", True),
    ("url_host_private_domain", "string", True), ("url_host_name_reversed", "string", True),
    ("url_protocol", "string", False), ("url_port", "integer", True), ("url_path", "string", False),
    ("url_query", "string", True), ("fetch_time", "timestamp", False), ("fetch_status", "short", False),
    ("fetch_redirect", "string", True), ("content_digest", "string", True), ("content_mime_type", "string", True),
    ("content_mime_detected", "string", True), ("content_charset", "string", True),
    ("content_languages", "string", True), ("content_truncated", "string", True),
    ("warc_filename", "string", False), ("warc_record_offset", "integer", False),
    ("warc_record_length", "integer", False), ("warc_segment", "string", False),
    ("crawl", "string", False), ("subset", "string", False),
]
SPARK_NAMES = {"int": "integer"}
NON_NULL = [name for name, _, nullable in FLAT_SCHEMA if not nullable and name not in ("crawl", "subset")]


def test_the_schema_file_and_the_parquet_schema_are_the_flat_schema():
    declared = [(c["name"], SPARK_NAMES.get(c["type"], c["type"]), c["nullable"]) for c in cols.index_columns()]
    assert declared == FLAT_SCHEMA
    arrow = cols.arrow_schema()
    assert arrow.names == [n for n, _, _ in FLAT_SCHEMA[:-2]]          # crawl, subset: the folders
    assert arrow.field("fetch_time").type == pa.timestamp("ms", tz="UTC")
    assert arrow.field("fetch_status").type == pa.int16()
    assert {arrow.field(n).type for n in ("url_port", "warc_record_offset", "warc_record_length")} == {pa.int32()}
    assert [f.name for f in arrow if not f.nullable] == NON_NULL


@pytest.mark.parametrize("url, key", [
    ("https://commoncrawl.org/faq/", "org,commoncrawl)/faq"),                      # the example
    ("https://www.example.com/path/index.html", "com,example)/path/index.html"),  # the schema's example
    ("http://www1.Example.com:8080/a%7Eb?z=1&a=2", "com,example:8080)/a~b?a=2&z=1"),
    ("https://example.com:443/", "com,example)/"),
])
def test_surt_keys_of_published_examples(url, key):
    assert cols.url_surtkey(url) == key


def test_host_columns_of_the_schemas_examples():
    www = cols.host_columns("www.example.com")
    assert (www["url_host_tld"], www["url_host_2nd_last_part"], www["url_host_3rd_last_part"]) == ("com", "example", "www")
    assert www["url_host_name_reversed"] == "com.example.www" and www["url_host_registered_domain"] == "example.com"
    assert cols.host_columns("bbc.co.uk")["url_host_2nd_last_part"] == "co"
    assert cols.host_columns("bbc.co.uk")["url_host_registry_suffix"] == "co.uk"
    assert cols.host_columns("host1.subdomain.example.com")["url_host_4th_last_part"] == "host1"
    assert cols.host_columns("host1.sub2.subdomain.example.com")["url_host_5th_last_part"] == "host1"
    blog = cols.host_columns("myblog.blogspot.com")
    assert (blog["url_host_registry_suffix"], blog["url_host_registered_domain"]) == ("com", "blogspot.com")
    assert (blog["url_host_private_suffix"], blog["url_host_private_domain"]) == ("blogspot.com", "myblog.blogspot.com")
    bucket = cols.host_columns("mypublicbucket.s3.amazonaws.com")
    assert bucket["url_host_private_domain"] == "mypublicbucket.s3.amazonaws.com"
    ip = cols.host_columns("192.168.0.1")
    assert ip["url_host_name"] == "192.168.0.1" and all(v is None for k, v in ip.items() if k != "url_host_name")


def _partition_files(out):
    by_partition = {}
    for path in sorted(glob.glob(f"{out}/crawl=*/subset=*/*.parquet")):
        by_partition.setdefault(path.rsplit("/", 1)[0], []).append(path)
    return by_partition


def _assert_sorted_within_partitions(out) -> int:
    """Keys ascend through each partition's files in name order (so each file's range follows the
    previous one's, as in Common Crawl's partitions); the partitions' count."""
    partitions = _partition_files(out)
    for files in partitions.values():
        keys = [k for f in files for k in pq.read_table(f, columns=["url_surtkey"]).column(0).to_pylist()]
        assert keys == sorted(keys)
    return len(partitions)


@pytest.mark.slow   # every URL of the shared WARC files: 3 s
def test_every_url_of_the_shared_warc_files_is_keyed_as_common_crawl_keys_it(shared_data, tmp_path):
    files = sorted(glob.glob(f"{shared_data}/warc/**/*.warc.gz", recursive=True)
                   + glob.glob(f"{shared_data}/warc/*.arc.gz")) + [f"{shared_data}/realpages/realpages.warc.gz"]
    summary = build_index(files, str(tmp_path / "idx"), base=str(shared_data), jobs=2)
    rows = list(iter_index_rows(str(tmp_path / "idx")))
    assert len(rows) == sum(s["rows"] for s in summary) > 2500
    assert [r["url"] for r in rows if r["url_surtkey"] != surt.surt(r["url"])] == []
    for name in NON_NULL + ["crawl", "subset"]:
        assert all(r[name] is not None for r in rows), name
    # Common Crawl's own files carry their crawl in warcinfo's isPartOf; the others get index.crawl
    crawls = {s["warc_file"].rsplit("/", 1)[-1]: (s["crawl"], s["crawl_from"]) for s in summary}
    assert crawls["resiliparse-warcfile.warc.gz"] == ("CC-MAIN-2020-34", "warcinfo")
    assert crawls["whirlwind.warc.gz"] == ("CC-MAIN-2024-22", "warcinfo")
    assert crawls["realpages.warc.gz"] == ("local", "setting")
    # ClueWeb's WARC-Date does not parse (2008-10-294T...): the HTTP Date header stands in, counted
    quirk = next(s for s in summary if s["warc_file"].endswith("resiliparse-clueweb-quirk.warc.gz"))
    assert quirk["fetch_time_fallbacks"] == {"http_date": quirk["rows"]} and quirk["rows"] == 29
    assert all(isinstance(r["fetch_time"], datetime) and r["fetch_time"].tzinfo is not None for r in rows)
    # routing: robots.txt to robotstxt, HTTP 200 responses to warc, all else to crawldiagnostics
    for r in rows:
        robots = r["url_path"] == "/robots.txt" and r["url_query"] is None
        expected = "robotstxt" if robots else "warc" if r["fetch_status"] == 200 and \
            r["content_mime_type"] != "warc/revisit" else "crawldiagnostics"
        assert r["subset"] == expected, r["url"]
    subsets = Counter(r["subset"] for r in rows)
    assert subsets["crawldiagnostics"] > 0 and subsets["robotstxt"] > 0
    assert {r["fetch_status"] for r in rows if r["subset"] == "crawldiagnostics"} >= {404, 302, 301, 204}
    redirects = [r for r in rows if cols.is_redirect(r["fetch_status"]) and r["fetch_redirect"]]
    assert redirects and all(r["fetch_redirect"].startswith(("http://", "https://")) for r in redirects)
    assert all(r["content_digest"] and not r["content_digest"].startswith("sha1:")
               for r in rows if "resiliparse-warcfile" in r["warc_filename"])
    assert _assert_sorted_within_partitions(tmp_path / "idx") == len({(r["crawl"], r["subset"]) for r in rows})


def test_captures_of_other_crawlers_get_common_crawls_columns_and_partitions(tmp_path, capsys):
    site = "https://www.site.example"
    first = write_warc(tmp_path / "warcs" / "a.warc.gz", [
        capture(f"{site}/", warc_headers={"WARC-Identified-Payload-Type": "text/html"}, language="eng"),
        capture(f"{site}/old", 301, b"", headers=[("Location", "/new?b=2")]),
        capture(f"{site}/not-modified", 304, b""),
        capture(f"{site}/missing", 404), capture(f"{site}/empty", 204, b""),
        capture(f"{site}/robots.txt", 200, b"User-agent: *\nDisallow:\n", "text/plain"),
        capture(f"{site}/cut", warc_headers={"WARC-Truncated": "length"}),
        capture(f"{site}/", revisit=True),
        capture("https://zeta.example/z", warc_headers={"WARC-Date": "2008-10-294T05:21:46-0700"},
                headers=[("Date", "Wed, 28 Jan 2009 17:05:56 GMT")]),
    ])
    second = write_warc(tmp_path / "warcs" / "b.warc.gz", [
        capture("https://alpha.example/b?z=1&a=2"), capture("https://mid.example:8443/x"),
        capture("https://www.site.example/away", 302, b"", headers=[("Location", "https://other.example/")]),
    ])
    out = tmp_path / "idx"
    assert main(["index", "build", "--warc", str(first), str(second), "--out", str(out), "--base", str(tmp_path),
                 "--crawl", "MY-CRAWL-1", "--set", "index.rows_per_file=2", "--set", "index.merge_batch_rows=1"]) == 0
    printed = capsys.readouterr().out
    assert "crawl=MY-CRAWL-1/subset=warc: 5" in printed and "http_date for 1" in printed
    rows = {(r["url"], r["content_mime_type"]): r for r in iter_index_rows(str(out))}
    by_url = {url: r for (url, mime), r in rows.items() if mime != "warc/revisit"}
    assert {r["crawl"] for r in rows.values()} == {"MY-CRAWL-1"}
    assert {u: r["subset"] for u, r in by_url.items() if r["subset"] != "warc"} == {
        f"{site}/old": "crawldiagnostics", f"{site}/not-modified": "crawldiagnostics",
        f"{site}/missing": "crawldiagnostics", f"{site}/empty": "crawldiagnostics",
        f"{site}/robots.txt": "robotstxt", "https://www.site.example/away": "crawldiagnostics"}
    revisit = rows[(f"{site}/", "warc/revisit")]
    assert revisit["subset"] == "crawldiagnostics" and revisit["content_digest"] == "AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH"
    home = by_url[f"{site}/"]
    assert home["url_surtkey"] == "example,site)/" and home["url_host_name_reversed"] == "example.site.www"
    assert home["content_mime_type"] == "text/html" and home["content_mime_detected"] == "text/html"
    assert home["content_languages"] == "eng" and home["content_charset"] == "UTF-8"
    assert len(home["content_digest"]) == 32 and home["warc_segment"] == "a" and home["warc_filename"] == "warcs/a.warc.gz"
    assert home["fetch_time"].microsecond == 0 and home["fetch_time"].tzinfo is not None
    assert by_url[f"{site}/old"]["fetch_redirect"] == f"{site}/new?b=2"
    assert by_url["https://www.site.example/away"]["fetch_redirect"] == "https://other.example/"
    assert by_url[f"{site}/not-modified"]["fetch_redirect"] is None       # 304 is no redirect
    assert by_url[f"{site}/cut"]["content_truncated"] == "length" and home["content_truncated"] is None
    assert by_url["https://zeta.example/z"]["fetch_time"] == datetime(2009, 1, 28, 17, 5, 56, tzinfo=UTC)
    alpha, mid = by_url["https://alpha.example/b?z=1&a=2"], by_url["https://mid.example:8443/x"]
    assert alpha["url_surtkey"] == "example,alpha)/b?a=2&z=1" and alpha["url_query"] == "z=1&a=2"
    assert alpha["url_port"] is None and mid["url_port"] == 8443 and mid["url_path"] == "/x"
    assert by_url[f"{site}/robots.txt"]["content_mime_detected"] == "text/plain"
    # the warc partition's 5 rows from both files: files of 2, 2 and 1 rows, keys ascending through them
    files = _partition_files(out)[f"{out}/crawl=MY-CRAWL-1/subset=warc"]
    assert [pq.read_metadata(f).num_rows for f in files] == [2, 2, 1]
    _assert_sorted_within_partitions(out)
    assert not (out / "_build").exists()


def test_the_crawl_comes_from_common_crawls_layout_else_warcinfo(tmp_path):
    layout = "crawl-data/CC-MAIN-2025-13/segments/1741234567890.12/crawldiagnostics/CC-MAIN-20250315-00000.warc.gz"
    cc = write_warc(tmp_path / layout, [capture("https://a.example/gone", 404), capture("https://a.example/")])
    renamed = write_warc(tmp_path / "renamed.warc.gz", [capture("https://b.example/")], is_part_of="CC-MAIN-2020-34")
    summary = build_index([str(cc), str(renamed)], str(tmp_path / "idx"), base=str(tmp_path))
    assert [(s["crawl"], s["segment"], s["subsets"], s["crawl_from"]) for s in summary] == [
        ("CC-MAIN-2025-13", "1741234567890.12", {"crawldiagnostics": 2}, "path"),     # the path decides, as there
        ("CC-MAIN-2020-34", "renamed", {"warc": 1}, "warcinfo")]
