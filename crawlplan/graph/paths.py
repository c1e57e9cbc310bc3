"""Entries of Common Crawl's ``*.paths.gz`` listings (a graph release's vertices and edges, the
host index's ``v2.paths.gz``), resolved to files under a base.

Common Crawl writes every entry relative to the bucket root (``projects/hyperlinkgraph/<release>/
host/vertices/part-00000.txt.gz``, ``projects/host-index-testing/v2/crawl=CC-MAIN-2025-13/
part-00000.parquet``). A copy on disk keeps that prefix (``cc-downloader download v2.paths.gz
.``, ``wget -x``) or drops it (a download script that writes the release's files into the
folder it runs in), but the listing it copies still carries the full prefix. So an entry
resolves under the base (``inputs.web_graph_base`` / ``inputs.host_index_base``, else the
listing's own folder) as written, else with its leading folders dropped, one at a time, until
a file exists there; the number dropped is found on the first entry and used for every entry
of the listing (one probe per listing, not per file).

Entries are data: each is confined to the base by ``crawlplan.security`` (no ``..`` out, an
absolute entry only when it lies under the base), so no entry names a file outside it.
"""

from __future__ import annotations

import os

from pyspark.sql import SparkSession

from crawlplan import storage
from crawlplan.security import EntryRefused, relative_inside, url_inside


class ListingError(ValueError):
    pass


def listing_entries(spark: SparkSession, listing: str) -> list[str]:
    """The non-empty, non-comment lines of a listing (gzip or plain text, any file system)."""
    # Spark's text source decompresses .gz and reaches s3a/hdfs alike; a listing is a few
    # thousand short lines, so collecting it is cheap.
    if not storage.exists(spark, listing):
        raise ListingError(f"listing not found: {listing}")
    lines = [str(r.value).strip() for r in spark.read.text(listing).collect()]
    entries = [line for line in lines if line and not line.startswith("#")]
    if not entries:
        raise ListingError(f"listing {listing} names no files")
    return entries


def _is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _inside(entry: str, root: str, setting: str) -> str:
    """``entry`` as a path relative to ``root``; :class:`EntryRefused` when it leaves it."""
    if "\x00" in entry or any(ord(ch) < 32 for ch in entry):
        raise EntryRefused("control characters in the entry")
    if "://" in entry or entry.startswith(("/", "\\", "~")):
        if _is_url(root):
            return url_inside(entry, root, setting)
        local = entry.removeprefix("file://")
        if "://" in local or not local.startswith("/"):
            raise EntryRefused(f"another scheme than {setting} (a local folder)")
        inside = os.path.relpath(os.path.normpath(local), os.path.normpath(os.path.abspath(root.removeprefix("file://"))))
        if inside == os.pardir or inside.startswith(os.pardir + os.sep):
            raise EntryRefused(f"outside {setting}")
        return relative_inside(inside)
    return relative_inside(entry)


def _exists(spark: SparkSession, path: str) -> bool | None:
    """Whether ``path`` exists; None when its file system cannot say (no client for the scheme)."""
    try:
        return storage.exists(spark, path)
    except Exception:  # noqa: BLE001 -- a file system Hadoop has no client for: resolve as written
        return None


def _dropped(spark: SparkSession, root: str, relative: str) -> int:
    """How many leading folders of ``relative`` the copy under ``root`` lacks (0: kept as written)."""
    parts = relative.split("/")
    for drop in range(len(parts)):
        found = _exists(spark, storage.join(root, *parts[drop:]))
        if found is None:
            return 0
        if found:
            return drop
    return -1


def resolve_listing(spark: SparkSession, listing: str, base: str | None, setting: str) -> list[str]:
    """Full paths of ``listing``'s entries, each under ``base`` (else the listing's folder), as
    written or with the prefix the copy dropped; ``setting`` names the base in messages."""
    entries = listing_entries(spark, listing)
    root = (base or "").rstrip("/") or listing.rstrip("/").rsplit("/", 1)[0]
    where = setting if base else f"the listing's folder ({setting} is not set)"
    relative = []
    for entry in entries:
        try:
            relative.append(_inside(entry, root, where))
        except EntryRefused as why:
            raise ListingError(f"listing {listing}: entry {entry[:200]!r} refused: {why}") from None
    drop = _dropped(spark, root, relative[0])
    if drop < 0:
        raise ListingError(
            f"listing {listing}: its first entry {entries[0][:200]!r} is under {root} neither as written nor "
            f"with leading folders dropped; set {setting} to the folder that holds the files (or the "
            f"bucket root the entries are relative to, e.g. s3://commoncrawl/)")
    out = []
    for entry, rel in zip(entries, relative):
        parts = rel.split("/")
        if drop >= len(parts):
            raise ListingError(f"listing {listing}: entry {entry[:200]!r} is shorter than the prefix the copy "
                               f"dropped ({drop} folders)")
        out.append(storage.join(root, *parts[drop:]))
    return out
