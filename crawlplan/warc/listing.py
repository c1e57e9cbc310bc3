"""Turn the extract node's input into WARC paths.

Accepted: a Common Crawl path listing (``warc.paths.gz``: one path per line relative to a base
such as ``s3://commoncrawl/`` or ``https://data.commoncrawl.org/``), a plain-text listing, a
local glob of WARC files, a single WARC file, or a list of any of these. A WARC file handed in
where a listing was named (the classic cc-pyspark mistake) is caught by sniffing its bytes.

What the user names (``inputs.warc_paths``, ``--input``) is trusted; what a listing *contains*
is data, copied from elsewhere, so each entry is confined (:func:`confine_entry`): it resolves
against ``inputs.warc_base`` (without one: against the listing's folder, or the root of the
Common Crawl mirror the listing sits in) and must stay under it -- no ``..`` out of it, no
absolute path, no ``file://``, no other host, scheme or bucket -- unless
``inputs.allow_absolute_paths`` says the listing is trusted. A refused entry is never read: it
is handed back as a :class:`RefusedEntry` (extract makes it a ``warc_files`` row with status
``refused``). No message here quotes a file's content; an entry is shown escaped and cut.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import re
from dataclasses import dataclass

from crawlplan.security import EntryRefused, relative_inside, url_inside
from crawlplan.warc.remote import RetryPolicy, open_stream

WARC_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc", ".warc.wet.gz", ".warc.wat.gz")
LISTING_SUFFIXES = (".paths.gz", ".paths", ".txt", ".txt.gz", ".lst", ".list")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ENTRY_SHOWN = 200        # characters of a refused entry that messages and rows show


class ListingError(ValueError):
    pass


@dataclass(frozen=True)
class RefusedEntry:
    """A listing entry that was not read: ``entry`` as :func:`shown`, ``reason`` why, ``listing`` where."""
    entry: str
    reason: str
    listing: str


def shown(entry: str) -> str:
    """An entry fit for a message or a row: control characters escaped, at most 200 characters."""
    text = entry[:_ENTRY_SHOWN]
    if _CONTROL.search(text) or not text.isprintable():
        text = repr(text)[1:-1]
    return text + ("..." if len(entry) > _ENTRY_SHOWN else "")


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


def _mirror_roots(listing_dir: str) -> list[str]:
    """Where a relative entry may resolve without a base: the listing's folder, and for a listing
    inside a Common Crawl mirror (``ROOT/crawl-data/CC-MAIN-.../warc.paths.gz``) that ``ROOT``."""
    roots = [listing_dir]
    parts = listing_dir.split(os.sep)
    if "crawl-data" in parts:
        cut = len(parts) - 1 - parts[::-1].index("crawl-data")
        roots.append(os.sep.join(parts[:cut]) or os.sep)
    return roots


def _relative(entry: str) -> str:
    return relative_inside(entry)


def _under_url(entry: str, base: str) -> str:
    """``entry`` (an absolute URL) if it lies under the URL ``base`` (``security.url_inside``)."""
    return base.rstrip("/") + "/" + url_inside(entry, base, "inputs.warc_base")


def confine_entry(entry: str, base: str, listing_dir: str, allow_absolute: bool) -> str:
    """The path a listing entry names, kept under ``base`` (or, without one, the listing's folder
    or its mirror's root); :class:`EntryRefused` says why it is not. ``allow_absolute``
    (``inputs.allow_absolute_paths``): the listing is trusted, entries are used as written."""
    if allow_absolute:
        return resolve_entry(entry, base, listing_dir)
    if _CONTROL.search(entry):
        raise EntryRefused("control characters in the entry")
    local_entry = entry[len("file://"):] if entry.lower().startswith("file://") else None
    if _SCHEME.match(entry) or entry.startswith(("/", "\\", "~")):
        if not base:
            raise EntryRefused("an absolute path or URL, and inputs.warc_base is not set "
                               "(set it to the place the files are under, or inputs.allow_absolute_paths)")
        if "://" in base:
            if local_entry is not None:
                raise EntryRefused("a file:// path, and inputs.warc_base is remote")
            return _under_url(entry, base)
        target = local_entry if local_entry is not None else entry
        if _SCHEME.match(target) or not target.startswith("/"):
            raise EntryRefused("another scheme than inputs.warc_base (a local folder)")
        root = os.path.normpath(os.path.abspath(base))
        inside = os.path.relpath(os.path.normpath(target), root)
        if inside == os.pardir or inside.startswith(os.pardir + os.sep):
            raise EntryRefused("outside inputs.warc_base")
        return os.path.join(root, _relative(inside))
    relative = _relative(entry)
    if base:
        return base.rstrip("/") + "/" + relative if "://" in base else os.path.join(base, relative)
    roots = _mirror_roots(listing_dir)
    for root in roots:
        candidate = os.path.join(root, relative)
        if os.path.exists(candidate):
            return candidate
    return os.path.join(listing_dir, relative)           # reported per file as 'missing'


def resolve_entry(entry: str, base: str, listing_dir: str) -> str:
    """A name the user's own data gives (an index's ``warc_filename``, a trusted listing): used as
    written when absolute, else under ``base``, else the first of ``listing_dir`` and its parents
    that holds it."""
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


def _confined(entries: list[str], base: str, listing_dir: str, listing: str, allow_absolute: bool,
              refused: list[RefusedEntry]) -> list[str]:
    out = []
    for entry in entries:
        try:
            out.append(confine_entry(entry, base, listing_dir, allow_absolute))
        except EntryRefused as why:
            refused.append(RefusedEntry(shown(entry), str(why), listing))
    return out


def read_listing(path: str, base: str = "", *, allow_absolute: bool = False,
                 refused: list[RefusedEntry] | None = None) -> list[str]:
    """Entries of a path listing, confined by :func:`confine_entry`; the refused ones are
    appended to ``refused`` (None: a :class:`ListingError` if there are any)."""
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
    return _collect(entries, base, os.path.dirname(os.path.abspath(path)), path, allow_absolute, refused)


def _collect(entries, base, listing_dir, listing, allow_absolute, refused) -> list[str]:
    found: list[RefusedEntry] = []
    paths = _confined(entries, base, listing_dir, listing, allow_absolute, found)
    if found and refused is None:
        raise ListingError(f"{len(found):,} entries of the listing {listing} are refused, e.g. "
                           f"'{found[0].entry}': {found[0].reason}")
    if refused is not None:
        refused.extend(found)
    return paths


def resolve_inputs(value, base: str = "", *, allow_absolute: bool = False, refused: list[RefusedEntry] | None = None,
                   policy: RetryPolicy | None = None) -> list[str]:
    """All WARC paths named by ``value`` (str or list), in order, duplicates removed.

    ``value`` itself is trusted (globs, files, listings the user named); the entries of listings
    are confined (``allow_absolute``: ``inputs.allow_absolute_paths``). Refused entries go to
    ``refused``; without that list, any refused entry is a :class:`ListingError`. ``policy``
    (the run's conf ``remote``) reads remote listings; without it a remote listing is an error.
    """
    items = value if isinstance(value, (list, tuple)) else [value]
    out: list[str] = []
    found: list[RefusedEntry] = []
    for item in items:
        item = str(item).strip()
        if not item:
            continue
        local = item.removeprefix("file://")
        if "://" in local:
            out.extend(_remote(local, base, allow_absolute, found, policy))
            continue
        if any(ch in local for ch in "*?["):
            matches = sorted(glob.glob(local))
            if not matches:
                raise ListingError(f"no files match {item}")
            for m in matches:
                out.extend(_local(m, base, allow_absolute, found))
            continue
        out.extend(_local(local, base, allow_absolute, found))
    if found and refused is None:
        raise ListingError(f"{len(found):,} listing entries are refused, e.g. '{found[0].entry}' in "
                           f"{found[0].listing}: {found[0].reason}")
    if refused is not None:
        refused.extend(dict.fromkeys(found))
    seen: set[str] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def _local(path: str, base: str, allow_absolute: bool, refused: list[RefusedEntry]) -> list[str]:
    if os.path.isdir(path):
        return sorted(os.path.join(dp, f) for dp, _, files in os.walk(path) for f in files if _is_warc_name(f))
    if not os.path.exists(path):
        if _is_warc_name(path):
            return [path]  # reported per file as status 'missing'
        raise ListingError(f"input {path} does not exist")
    if _is_warc_name(path):
        return [path]
    return read_listing(path, base, allow_absolute=allow_absolute, refused=refused)


def _remote(path: str, base: str, allow_absolute: bool, refused: list[RefusedEntry],
            policy: RetryPolicy | None) -> list[str]:
    if _is_warc_name(path):
        return [path]
    with open_stream(path, policy) as src:          # retried and resumed like the WARC files themselves
        data = src.read()
        if not getattr(src, "complete", lambda: True)():
            raise ListingError(f"could not read the whole listing {path}: {src.failure}")
    if data[:2] == b"\x1f\x8b":
        data = gzip.GzipFile(fileobj=io.BytesIO(data)).read()
    if _looks_like_warc(data[:16]):
        raise ListingError(f"{path} is a WARC file, not a path listing")
    # without a base, entries are relative to the crawl's root (before crawl-data/) or the listing's folder
    default_base = base or (path.split("crawl-data/")[0] if "crawl-data/" in path else path.rsplit("/", 1)[0] + "/")
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines()
             if ln.strip() and not ln.startswith("#")]
    return _collect(lines, default_base, "", path, allow_absolute, refused)
