"""Helpers shared by the demo tests: one default demo per test session, WARC record iteration."""

from __future__ import annotations

import gzip
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator


def default_demo(tmp_path_factory) -> Path:
    """The default demo (300 hosts, seed 0), generated once per session and reused (``_SUCCESS``)."""
    from crawlplan.demo import ensure_demo

    root = tmp_path_factory.getbasetemp() / "demo-h300-s0"
    ensure_demo(root, hosts=300, seed=0, echo=lambda *_: None)
    return root


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
