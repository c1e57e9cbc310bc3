"""Wrong inputs for the extract node, caught before any Spark work: a WARC where a listing is
expected, listings whose entries do not exist, globs that match nothing. Each stops with one
clear line naming the input (``crawlplan`` prints it and exits 2), or, for a missing WARC
named in a listing, becomes a per-file ``missing`` status (tests/reliability/test_faults_extract.py)."""

from __future__ import annotations

import gzip
import shutil

import pytest
from warcgen import html_page, write_warc

from crawlplan.dag.arguments import friendly_errors
from crawlplan.warc.listing import ListingError, resolve_inputs


@pytest.fixture()
def warc(tmp_path):
    return write_warc(tmp_path / "one.warc.gz", [dict(url="http://a.example.com/", body=html_page("a"))])


def test_warc_passed_as_listing_names_the_file(tmp_path, warc):
    disguised = tmp_path / "warc.paths.gz"
    shutil.copy(warc, disguised)
    with pytest.raises(ListingError) as err:
        resolve_inputs(str(disguised))
    assert str(disguised) in str(err.value) and "is a WARC file, not a path listing" in str(err.value)
    plain = tmp_path / "listing.txt"
    plain.write_bytes(gzip.decompress(warc.read_bytes()))  # uncompressed WARC named .txt
    with pytest.raises(ListingError, match="listing.txt is a WARC file"):
        resolve_inputs(str(plain))


def test_the_cli_prints_one_line_and_exits_2(tmp_path, warc, capsys):
    disguised = tmp_path / "warc.paths.gz"
    shutil.copy(warc, disguised)
    assert friendly_errors(lambda: resolve_inputs(str(disguised))) == 2
    err = capsys.readouterr().err
    assert err.startswith("crawlplan: error: ") and str(disguised) in err and err.count("\n") == 1


def test_listing_entries_that_do_not_exist_are_kept_for_per_file_accounting(tmp_path, warc):
    listing = tmp_path / "warc.paths.gz"
    with gzip.open(listing, "wt") as fh:
        fh.write("one.warc.gz\nnot-there.warc.gz\n\n# comment\n")
    paths = resolve_inputs(str(listing))
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["one.warc.gz", "not-there.warc.gz"]


def test_inputs_that_name_nothing(tmp_path):
    with pytest.raises(ListingError, match="no files match"):
        resolve_inputs(str(tmp_path / "*.warc.gz"))
    with pytest.raises(ListingError, match="does-not-exist.paths.gz does not exist"):
        resolve_inputs(str(tmp_path / "does-not-exist.paths.gz"))
    binary = tmp_path / "model.paths"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(ListingError, match="binary"):
        resolve_inputs(str(binary))
