"""Graph and host index listings as Common Crawl publishes them and as copies on disk lay them out
(issue 28, part 2): entries relative to the bucket resolve under ``inputs.web_graph_base`` /
``inputs.host_index_base`` or the listing's folder, as written or with the bucket prefix the
copy dropped; nothing resolves outside the base; the host index opens from ``v2.paths.gz``; the
``www.`` detector needs ``inputs.www_min_names`` names and otherwise takes the release date."""

from __future__ import annotations

import gzip

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawlplan.graph import hostindex, webgraph, www
from crawlplan.graph.paths import ListingError, resolve_listing
from crawlplan.hosts import WWW_KEPT, WWW_STRIPPED

RELEASE = "cc-main-2024-feb-apr-may"
PREFIX = f"projects/hyperlinkgraph/{RELEASE}/host"
RANKS = ("#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
         "1\t3.0E7\t1\t0.01\tcom.example\n2\t2.0E7\t2\t0.005\torg.example\n")


def _gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


def _release(folder, listing_entries=None):
    """A release folder: the parts under ``folder``, the listings naming them as Common Crawl does."""
    _gz(folder / f"{RELEASE}-host-ranks.txt.gz", RANKS)
    _gz(folder / "vertices" / "part-00000.txt.gz", "0\tcom.example\n1\torg.example\n")
    _gz(folder / "edges" / "part-00000.txt.gz", "0\t1\n1\t0\n")
    for kind in ("vertices", "edges"):
        entries = listing_entries or [f"{PREFIX}/{kind}/part-00000.txt.gz"]
        _gz(folder / f"{RELEASE}-host-{kind}.paths.gz", "".join(e.replace("KIND", kind) + "\n" for e in entries))
    return folder


pytestmark = pytest.mark.spark


def test_a_release_copied_without_the_bucket_prefix_reads_with_and_without_a_base(spark, tmp_path):
    # the download script's layout: the release's files in one folder, listings still bucket-relative
    copy = _release(tmp_path / "my-graphs" / RELEASE)
    for base in (None, str(copy)):
        v = webgraph.read_vertices(spark, str(copy), base, convention="stripped")
        assert sorted(r.rev_host for r in v.collect()) == ["com.example", "org.example"]
        assert webgraph.read_edges(spark, str(copy), base).count() == 2
    # a mirror that keeps the prefix (wget -x, cc-downloader): the bucket root as the base
    mirror = tmp_path / "mirror"
    _release(mirror / PREFIX)
    parts = webgraph.read_paths_listing(spark, str(mirror / PREFIX / f"{RELEASE}-host-edges.paths.gz"), str(mirror))
    assert parts == [f"{mirror}/{PREFIX}/edges/part-00000.txt.gz"]
    # the published release: the bucket root, entries as written (no client for s3:// here: not probed)
    listing = str(copy / f"{RELEASE}-host-edges.paths.gz")
    assert webgraph.read_paths_listing(spark, listing, "s3://commoncrawl/") == [
        f"s3://commoncrawl/{PREFIX}/edges/part-00000.txt.gz"]
    # a base that holds no copy: one clear error naming the setting, not Spark's PATH_NOT_FOUND
    (tmp_path / "empty").mkdir()
    with pytest.raises(webgraph.GraphError, match="inputs.web_graph_base"):
        webgraph.read_paths_listing(spark, listing, str(tmp_path / "empty"))


@pytest.mark.parametrize("entry, words", [
    ("../../secret/part-00000.txt.gz", "climbs out"),
    (f"{PREFIX}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.gz", "climbs out"),
    ("/etc/passwd", "outside"),
    ("file:///etc/passwd", "outside"),
    ("https://evil.example/x.gz", "another scheme"),
])
def test_no_listing_entry_resolves_outside_its_base(spark, tmp_path, entry, words):
    folder = _release(tmp_path / "graph", [entry])
    (tmp_path / "secret").mkdir()
    _gz(tmp_path / "secret" / "part-00000.txt.gz", "0\tcom.secret\n")
    with pytest.raises(webgraph.GraphError, match=words):
        webgraph.read_paths_listing(spark, str(folder / f"{RELEASE}-host-edges.paths.gz"), str(folder))
    with pytest.raises(ListingError, match="refused"):
        resolve_listing(spark, str(folder / f"{RELEASE}-host-edges.paths.gz"), None, "inputs.web_graph_base")


def test_an_absolute_entry_under_the_base_is_kept(spark, tmp_path):
    folder = tmp_path / "graph"
    _release(folder, [f"{tmp_path}/graph/KIND/part-00000.txt.gz"])
    assert webgraph.read_edges(spark, str(folder), str(folder)).count() == 2


V2 = pa.schema([("surt_host_name", pa.string()), ("url_host_tld", pa.string()), ("hcrank10", pa.float64()),
                ("fetch_200", pa.int32()), ("fetch_200_lote_pct", pa.int32())])


def _v2_partition(root, crawl, rows):
    folder = root / "projects" / "host-index-testing" / "v2" / f"crawl={crawl}"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=V2), folder / "part-00000.gz.parquet")
    return f"projects/host-index-testing/v2/crawl={crawl}/part-00000.gz.parquet"


def test_the_host_index_opens_from_its_v2_paths_listing(spark, tmp_path):
    # cc-host-index's README: wget v2.paths.gz; cc-downloader download v2.paths.gz . (keeps the prefix)
    here = tmp_path / "here"
    entries = [_v2_partition(here, "CC-MAIN-2025-08", [dict(surt_host_name="org,commoncrawl", url_host_tld="org",
                                                            hcrank10=5.1, fetch_200=10, fetch_200_lote_pct=0)]),
               _v2_partition(here, "CC-MAIN-2025-13", [dict(surt_host_name="org,commoncrawl", url_host_tld="org",
                                                            hcrank10=5.2, fetch_200=12, fetch_200_lote_pct=1)])]
    _gz(here / "v2.paths.gz", "".join(e + "\n" for e in entries))
    read = hostindex.read_host_index(spark, str(here / "v2.paths.gz"), columns=["fetch_200"])
    assert {(r.crawl, r.fetch_200) for r in read.collect()} == {("CC-MAIN-2025-08", 10), ("CC-MAIN-2025-13", 12)}
    # the files moved elsewhere with the prefix dropped: point inputs.host_index_base at the top folder
    moved = tmp_path / "moved"
    (here / "projects" / "host-index-testing" / "v2").rename(moved)
    one = hostindex.read_host_index(spark, str(here / "v2.paths.gz"), ["CC-MAIN-2025-13"], columns=["hcrank10"],
                                    base=str(moved))
    assert [(r.surt_host_name, r.hcrank10) for r in one.collect()] == [("org,commoncrawl", 5.2)]
    with pytest.raises(ValueError, match="inputs.host_index_base"):
        hostindex.read_host_index(spark, str(here / "v2.paths.gz"), base=str(tmp_path / "nowhere"))


# cc-webgraph's TestHostToDomainGraph.hostGraphWithWwwDomains: 8 names, 5 with a www label
WWW_NAMES = ["name.hiro", "name.hiro.adam", "name.hiro.www", "name.his.forgot.ben.www", "name.his.forgot.never",
             "name.his.prz.www", "name.his.www", "name.hit.www"]


def test_release_dates():
    assert www.release_year("cc-main-2025-26-nov-dec-jan") == 2026
    assert www.release_year("cc-main-2024-25-dec-jan-feb") == 2025
    assert www.release_year("cc-main-2024-feb-apr-may") == 2024
    assert www.release_year("CC-MAIN-2026-04") == 2026 and www.release_year("demo") is None
    assert www.by_date("cc-main-2025-26-nov-dec-jan") == WWW_KEPT
    assert www.by_date("cc-main-2025-oct-nov-dec") == WWW_STRIPPED
    # 1 of 6 names decided it before; now too few names and the date rule decides
    small = www.decide(6, 1, min_names=1000, release="cc-main-2025-oct-nov-dec")
    assert small.convention == WWW_STRIPPED and small.rule == www.DATE_RULE
    assert "release date rule" in small.describe() and "fewer than inputs.www_min_names=1000" in small.describe()
    assert www.decide(6, 1).convention == WWW_KEPT                           # the old answer: measured alone
    undated = www.decide(6, 1, min_names=1000, release="my-graph")
    assert undated.rule == www.MEASURED and "no release year" in undated.describe()


def test_a_small_release_takes_its_www_convention_from_its_date(spark, tmp_path):
    for release, expected in (("cc-main-2024-feb-apr-may", WWW_STRIPPED), ("cc-main-2026-mar-apr-may", WWW_KEPT)):
        folder = tmp_path / release
        _gz(folder / f"{release}-host-ranks.txt.gz", "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
            + "".join(f"{i + 1}\t{10.0 - i}\t{i + 1}\t0.1\t{n}\n" for i, n in enumerate(WWW_NAMES)))
        found = webgraph.release_convention(spark, str(folder), min_names=1000)
        assert (found.convention, found.rule, found.names, found.www_names) == (expected, www.DATE_RULE, 8, 5)
        measured = webgraph.release_convention(spark, str(folder), min_names=8)
        assert (measured.convention, measured.rule) == (WWW_KEPT, www.MEASURED)   # 5 of 8: a share, not a fact
    # host index partitions: the crawl's date, per partition
    root = tmp_path / "hi"
    for crawl in ("CC-MAIN-2025-51", "CC-MAIN-2026-04"):
        folder = root / f"crawl={crawl}"
        folder.mkdir(parents=True)
        rows = [dict(surt_host_name=n.replace(".", ","), url_host_tld="name", hcrank10=1.0, fetch_200=1,
                     fetch_200_lote_pct=0) for n in WWW_NAMES]
        pq.write_table(pa.Table.from_pylist(rows, schema=V2), folder / "part-0.parquet")
    notes: list[str] = []
    read = hostindex.read_host_index(spark, str(root), columns=["fetch_200"], notes=notes, www_min_names=1000)
    keys = {c: sorted(r.surt_host_name for r in read.collect() if r.crawl == c)
            for c in ("CC-MAIN-2025-51", "CC-MAIN-2026-04")}
    assert "name,hiro,www" in keys["CC-MAIN-2025-51"] and len(keys["CC-MAIN-2025-51"]) == 8
    assert keys["CC-MAIN-2026-04"] == ["name,hiro", "name,hiro,adam", "name,his", "name,his,forgot,ben",
                                       "name,his,forgot,never", "name,his,prz", "name,hit"]
    assert any("CC-MAIN-2025-51: www stripped (release date rule" in n for n in notes), notes
