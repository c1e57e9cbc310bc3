"""Turn the extract node's input into WARC paths.

Accepted: a Common Crawl path listing (``warc.paths.gz``: one path per line relative to a base
such as ``s3://commoncrawl/`` or ``https://data.commoncrawl.org/``), a plain-text listing, a
local glob of WARC files, a single WARC file, or a list of any of these. A WARC file handed in
where a listing was named (the classic cc-pyspark mistake) is caught by sniffing its bytes.
"""

from __future__ import annotations

import glob
import gzip
import io
import os

from crawlplan.warc.remote import open_stream

WARC_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc", ".warc.wet.gz", ".warc.wat.gz")
LISTING_SUFFIXES = (".paths.gz", ".paths", ".txt", ".txt.gz", ".lst", ".list")


class ListingError(ValueError):
    pass


def _is_warc_name(path: str) -> bool:
    return path.lower().endswith(WARC_SUFFIXES)


def _sniff(path: str) -> bytes:
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as fh:
                return fh.read(4096)
        except (OSError, EOFError):
            return b""
    return head


def _looks_like_warc(head: bytes) -> bool:
    return head.startswith((b"WARC/", b"filedesc://"))


def read_listing(path: str, base: str = "") -> list[str]:
    """Entries of a path listing, resolved against ``base`` (or the listing's folder and its parents)."""
    head = _sniff(path)
    if _looks_like_warc(head):
        raise ListingError(
            f"{path} is a WARC file, not a path listing. Pass WARC files as a glob or by name "
            f"(e.g. --input 'data/*.warc.gz'), or pass the crawl's warc.paths.gz listing."
        )
    if b"\x00" in head:
        raise ListingError(f"{path} is binary, not a path listing (one WARC path per line)")
    with open(path, "rb") as fh:
        opener = gzip.open if fh.read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        entries = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    return [resolve_entry(entry, base, os.path.dirname(os.path.abspath(path))) for entry in entries]


def resolve_entry(entry: str, base: str, listing_dir: str) -> str:
    if "://" in entry or os.path.isabs(entry):
        return entry
    if base:
        return base.rstrip("/") + "/" + entry
    folder = listing_dir
    while True:
        candidate = os.path.join(folder, entry)
        if os.path.exists(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.join(listing_dir, entry)
        folder = parent


def resolve_inputs(value, base: str = "") -> list[str]:
    """All WARC paths named by ``value`` (str or list), in order, duplicates removed."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out: list[str] = []
    for item in items:
        item = str(item).strip()
        if not item:
            continue
        local = item.removeprefix("file://")
        if "://" in local:
            out.extend(_remote(local, base))
            continue
        if any(ch in local for ch in "*?["):
            matches = sorted(glob.glob(local))
            if not matches:
                raise ListingError(f"no files match {item}")
            for m in matches:
                out.extend(_local(m, base))
            continue
        out.extend(_local(local, base))
    seen: set[str] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def _local(path: str, base: str) -> list[str]:
    if os.path.isdir(path):
        return sorted(os.path.join(dp, f) for dp, _, files in os.walk(path) for f in files if _is_warc_name(f))
    if not os.path.exists(path):
        if _is_warc_name(path):
            return [path]  # reported per file as status 'missing'
        raise ListingError(f"input {path} does not exist")
    if _is_warc_name(path):
        return [path]
    return read_listing(path, base)


def _remote(path: str, base: str) -> list[str]:
    if _is_warc_name(path):
        return [path]
    with open_stream(path) as src:          # retried and resumed like the WARC files themselves
        data = src.read()
        if not getattr(src, "complete", lambda: True)():
            raise ListingError(f"could not read the whole listing {path}: {src.failure}")
    if data[:2] == b"\x1f\x8b":
        data = gzip.GzipFile(fileobj=io.BytesIO(data)).read()
    if _looks_like_warc(data[:16]):
        raise ListingError(f"{path} is a WARC file, not a path listing")
    default_base = base or (path.split("crawl-data/")[0] if "crawl-data/" in path else "")
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
    return [resolve_entry(ln, default_base, "") for ln in lines]
