"""Listings are confined (issue 27): a listing's entries are data copied from elsewhere, so each one
must stay under ``inputs.warc_base`` (or the listing's folder); one that does not is refused,
never read, and becomes a ``warc_files`` row with status ``refused`` and the reason. What the
user names directly (globs, files, the demo) keeps working, and ``inputs.allow_absolute_paths``
restores entries as written."""

from __future__ import annotations

import gzip
import os

import pytest
from faultserver import FaultServer
from settings_support import retry_policy
from warcgen import html_page, write_warc

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job
from crawlplan.warc.listing import ListingError, confine_entry, resolve_inputs

CC = "https://data.commoncrawl.org/"
SECRET = b"root:x:0:0:root:/root:/bin/bash\n"

# entry, base -> the words the reason must hold
HOSTILE = {
    "dot-dot relative": ("../../etc/passwd", "", "climbs out"),
    "dot-dot under a base": ("crawl-data/../../../etc/passwd.warc.gz", CC, "climbs out"),
    "dot-dot %-encoded": ("crawl-data/%2e%2e/%2e%2e/x.warc.gz", CC, "climbs out"),
    "absolute path": ("/etc/passwd", "", "absolute"),
    "absolute path, remote base": ("/etc/passwd", CC, "another scheme or host"),
    "file URL": ("file:///etc/passwd", CC, "file://"),
    "file URL, no base": ("file:///etc/passwd", "", "absolute"),
    "metadata address": ("http://169.254.169.254/latest/meta-data/x.warc.gz", CC, "another scheme or host"),
    "another host": ("https://evil.example/crawl-data/x.warc.gz", CC, "another scheme or host"),
    "user-info trick": ("https://data.commoncrawl.org@evil.example/x.warc.gz", CC, "another scheme or host"),
    "http instead of https": ("http://data.commoncrawl.org/crawl-data/x.warc.gz", CC, "another scheme or host"),
    "another bucket": ("s3://other-bucket/crawl-data/x.warc.gz", "s3://commoncrawl/", "another scheme or host"),
    "another scheme": ("ftp://data.commoncrawl.org/x.warc.gz", CC, "another scheme or host"),
    "outside the base's path": ("https://h.example/other/x.warc.gz", "https://h.example/crawl/", "outside the path"),
    "outside a local base": ("/srv/warcs-old/x.warc.gz", "/srv/warcs", "outside inputs.warc_base"),
    "control characters": ("x\x1b[2J.warc.gz", CC, "control characters"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_each_hostile_entry_is_refused_with_its_reason(tmp_path, case):
    entry, base, words = HOSTILE[case]
    listing = tmp_path / "warc.paths"
    listing.write_text(f"{entry}\ngood.warc.gz\n")
    refused = []
    paths = resolve_inputs(str(listing), base=base, refused=refused)
    assert len(paths) == 1 and paths[0].endswith("good.warc.gz")          # the good entry is kept
    assert len(refused) == 1 and words in refused[0].reason, refused
    assert refused[0].listing == str(listing) and "\x1b" not in refused[0].entry


def test_entries_under_the_base_are_kept_in_any_spelling(tmp_path):
    assert confine_entry("crawl-data/CC-MAIN-2024-22/a.warc.gz", CC, "", False) == f"{CC}crawl-data/CC-MAIN-2024-22/a.warc.gz"
    assert confine_entry(f"{CC}crawl-data/a.warc.gz", CC, "", False) == f"{CC}crawl-data/a.warc.gz"
    assert confine_entry("s3a://commoncrawl/crawl-data/a.warc.gz", "s3://commoncrawl/", "", False) == \
        "s3://commoncrawl/crawl-data/a.warc.gz"
    assert confine_entry("crawl-data/x/../a.warc.gz", CC, "", False) == f"{CC}crawl-data/a.warc.gz"
    base = str(tmp_path / "warcs")
    assert confine_entry(f"{base}/seg/a.warc.gz", base, "", False) == f"{base}/seg/a.warc.gz"
    assert confine_entry(f"file://{base}/seg/a.warc.gz", base, "", False) == f"{base}/seg/a.warc.gz"


def test_allow_absolute_paths_uses_entries_as_written(tmp_path):
    listing = tmp_path / "warc.paths"
    listing.write_text("/data/a.warc.gz\nhttps://mirror.example/b.warc.gz\n../c.warc.gz\n")
    refused = []
    paths = resolve_inputs(str(listing), base="", allow_absolute=True, refused=refused)
    assert refused == [] and paths[:2] == ["/data/a.warc.gz", "https://mirror.example/b.warc.gz"]


def test_the_users_own_inputs_and_a_mirror_layout_keep_working(tmp_path):
    # globs and files named directly are trusted, wherever they are
    warc = write_warc(tmp_path / "one.warc.gz", [dict(url="http://a.example.com/", body=html_page("a"))])
    assert resolve_inputs([str(tmp_path / "*.warc.gz"), str(warc)]) == [str(warc)]
    # a listing inside a Common Crawl mirror: entries resolve at the mirror's root
    crawl = tmp_path / "mirror" / "crawl-data" / "CC-MAIN-2024-22"
    (crawl / "segments").mkdir(parents=True)
    (crawl / "segments" / "a.warc.gz").write_bytes(warc.read_bytes())
    listing = crawl / "warc.paths.gz"
    with gzip.open(listing, "wt") as fh:
        fh.write("crawl-data/CC-MAIN-2024-22/segments/a.warc.gz\n")
    assert resolve_inputs(str(listing)) == [str(crawl / "segments" / "a.warc.gz")]


def test_without_a_list_for_them_refused_entries_stop_with_one_escaped_line(tmp_path):
    listing = tmp_path / "warc.paths"
    listing.write_text("\x1b[31m/etc/" + "x" * 10_000 + "\n")
    with pytest.raises(ListingError) as err:
        resolve_inputs(str(listing))
    message = str(err.value)
    assert "refused" in message and "\x1b" not in message and "\\x1b" in message
    assert len(message) < 600 and "\n" not in message


def test_a_remote_listing_is_confined_to_its_own_crawl_root(tmp_path):
    folder = tmp_path / "served" / "crawl-data" / "CC-MAIN-2024-22"
    folder.mkdir(parents=True)
    (folder / "warc.paths").write_text(
        "crawl-data/CC-MAIN-2024-22/a.warc.gz\nhttp://169.254.169.254/b.warc.gz\n../../../../etc/passwd\n")
    refused = []
    with FaultServer(root=str(tmp_path / "served")) as server:
        # the server is on 127.0.0.1: remote.allow_private_addresses lets the listing be read
        paths = resolve_inputs(f"{server.url}/crawl-data/CC-MAIN-2024-22/warc.paths", refused=refused,
                               policy=retry_policy(allow_private_addresses=True))
    assert paths == [f"{server.url}/crawl-data/CC-MAIN-2024-22/a.warc.gz"]
    assert [r.reason.split(" ")[0] for r in refused] == ["another", "climbs"]


@pytest.mark.spark
def test_extract_makes_refused_rows_reads_no_byte_and_quotes_no_content(spark, tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd.warc.gz").write_bytes(SECRET)      # a readable file a listing points at
    data = tmp_path / "data"
    data.mkdir()
    write_warc(data / "good.warc.gz", [dict(url=f"http://good.example.com/p{i}", body=html_page(f"p{i}"))
                                       for i in range(2)])
    listing = data / "warc.paths"
    listing.write_text("good.warc.gz\n../secret/passwd.warc.gz\n"
                       f"{secret / 'passwd.warc.gz'}\nfile://{secret / 'passwd.warc.gz'}\n"
                       "http://169.254.169.254/latest/x.warc.gz\n")
    conf = load_conf("local", overrides=["extract.extractor=resiliparse", "extract.max_failed_files=100%"])
    out = tmp_path / "out"
    result = run_single_job(spark, conf, load_pipeline("main"), "extract", [str(listing)], str(out),
                            echo=lambda *_: None)
    files = spark.read.parquet(str(out / "warc_files")).toPandas().set_index("warc_file")
    rejects = spark.read.parquet(str(out / "rejects")).toPandas()
    good = str(data / "good.warc.gz")
    assert files.loc[good, "status"] == "ok" and files.loc[good, "documents"] == 2
    refused = files[files["status"] == "refused"]
    assert len(refused) == 4 and set(files.index) == {good, *refused.index}
    assert (refused[["records", "bytes", "attempts", "responses"]] == 0).all().all()    # no byte read
    assert refused["error"].str.startswith("refused: ").all()
    assert sorted(rejects.loc[rejects["reason"] == "refused_file", "warc_file"]) == sorted(refused.index)
    # nothing of the file's content anywhere: rows, rejects, notes
    text = " ".join(files["error"].fillna("")) + " ".join(rejects["detail"].fillna("")) + str(result)
    assert "root:x" not in text
    assert os.path.exists(secret / "passwd.warc.gz")
