"""Helpers shared by the demo tests: one default demo per test session, WARC record iteration."""

from __future__ import annotations

import gzip
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator


def default_demo(tmp_path_factory) -> Path:
    """The default demo (300 hosts, seed 0), generated once per session and reused (``_SUCCESS``)."""
    from crawlplan.demo.crawl import ensure_demo

    root = tmp_path_factory.getbasetemp() / "demo-h300-s0"
    ensure_demo(root, hosts=300, seed=0, echo=lambda *_: None)
    return root


def sampled_host_table(demo: Path):
    """Every third page of each demo host (URL order) as the allocator's input rows: surt_host_name,
    registered_domain, tld, language, n_pages, hq_pages (the sample) and cap_known (the host's size)."""
    import pandas as pd

    pages = pd.read_parquet(demo / "ground_truth" / "pages.parquet").sort_values("url")
    hosts = pd.read_parquet(demo / "ground_truth" / "hosts.parquet")
    sample = pages.groupby("surt_host_name").nth(slice(None, None, 3))
    agg = sample.groupby("surt_host_name").agg(n_pages=("url", "size"), hq_pages=("is_hq", "sum")).reset_index()
    info = hosts[["surt_host_name", "registered_domain", "tld", "language", "n_pages"]]
    table = agg.merge(info.rename(columns={"n_pages": "cap_known"}), on="surt_host_name")
    return table[["surt_host_name", "registered_domain", "tld", "language", "n_pages", "hq_pages", "cap_known"]]


def warc_paths(root: Path) -> list[Path]:
    with gzip.open(root / "warc.paths.gz", "rt") as fh:
        return [root / line.strip() for line in fh if line.strip()]


def iter_records(path: Path):
    """(offset, length, record, payload bytes) for every record of a WARC file."""
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            payload = record.content_stream().read()
            offset = it.get_record_offset()
            it.read_to_end(record)
            yield offset, it.get_record_length(), record, payload
