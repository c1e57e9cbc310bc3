"""Rebuild the real-site WARC mirrors of scripts/sites.yaml from Debian documentation packages.

    python scripts/build_sites.py                    # every site -> data/sites/<site>.warc.gz
    python scripts/build_sites.py --sites junit.org --max-pages 30 --out data/sites-slice

Each site is one documentation package: ``apt-get download PKG`` (the only network access: the
Debian archive), ``dpkg-deb -x``, then a breadth-first walk of the HTML files from the doc root's
entry page, following links in document order, as a BFS-mirrored crawl of the live site would.
Every page reached becomes a WARC response record under the site's real base URL, in BFS order,
in the layout of ``../shared/data/sites`` (no warcinfo; HTTP 200, text/html). Record ids and dates
are derived from the URL and the position, so the same package gives the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import re
import subprocess
import sys
import uuid
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import yaml
from lxml import html as lxml_html
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

REPO = Path(__file__).resolve().parents[1]
REGISTRY = Path(__file__).with_name("sites.yaml")
DEFAULT_OUT = REPO / "data" / "sites"
CAPTURE_START = datetime(2026, 11, 1, tzinfo=UTC)
_LINK_ATTRS = (("a", "href"), ("area", "href"), ("frame", "src"), ("iframe", "src"))
_HTML_SUFFIXES = (".html", ".htm")


class PackageUnavailable(RuntimeError):
    """apt could not fetch the package (no archive access): callers may skip, not fail."""


ELSEWHERE = "labelled_elsewhere"   # sites.yaml's list of labelled sites not built from a package
SPLITS = ("design", "validation")


def load_registry(path: Path = REGISTRY) -> dict[str, dict]:
    """The sites built from packages (every entry of sites.yaml but ``labelled_elsewhere``)."""
    sites = yaml.safe_load(path.read_text())
    sites.pop(ELSEWHERE, None)
    for site, spec in sites.items():
        for key in ("package", "doc_root", "base", "page_types", "family", "split"):
            if not spec.get(key):
                raise ValueError(f"{path}: site {site} has no {key}")
        if not spec["base"].endswith("/"):
            raise ValueError(f"{path}: site {site}: base must end with '/'")
        if spec["split"] not in SPLITS:
            raise ValueError(f"{path}: site {site}: split must be one of {SPLITS}")
    return sites


def site_splits(path: Path = REGISTRY) -> dict[str, dict]:
    """{site: {split, family, added}} for every labelled site: the registry's and ``labelled_elsewhere``."""
    elsewhere = yaml.safe_load(path.read_text()).get(ELSEWHERE) or {}
    for site, spec in elsewhere.items():
        if spec.get("split") not in SPLITS or not spec.get("family"):
            raise ValueError(f"{path}: {ELSEWHERE}: {site} needs a family and a split in {SPLITS}")
    every = {**load_registry(path), **elsewhere}
    return {site: {k: spec.get(k) for k in ("split", "family", "added")} for site, spec in every.items()}


def page_type_patterns(spec: dict) -> dict[str, str]:
    """The registry's path patterns as full-URL regexes (the shape of conf/site_types.yaml)."""
    prefix = "^" + re.escape(spec["base"])
    return {name: f"{prefix}(?:{pat})" for name, pat in spec["page_types"].items()}


def site_types(registry: dict | None = None) -> dict[str, dict]:
    """``source.sitemaps.extra_site_types`` for every registry site (page types, UCC, target)."""
    registry = load_registry() if registry is None else registry
    return {site: {"page_types": page_type_patterns(spec), "ucc_types": list(spec.get("ucc_types") or []),
                   "target_type": spec.get("target_type"), "example": spec.get("example")}
            for site, spec in registry.items()}


def fetch_package(package: str, cache: Path) -> Path:
    """``apt-get download`` into ``cache`` (once) and unpack it; the unpacked tree's root."""
    cache.mkdir(parents=True, exist_ok=True)
    unpacked = cache / package
    if (unpacked / ".complete").is_file():
        return unpacked
    debs = sorted(cache.glob(f"{package}_*.deb"))
    if not debs:
        download_packages([package], cache)
        debs = sorted(cache.glob(f"{package}_*.deb"))
        if not debs:
            raise PackageUnavailable(f"apt-get download {package} left no .deb in {cache}")
    tmp = cache / f".{package}.tmp"
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(tmp)], check=True)
    (tmp / ".complete").write_text(debs[-1].name + "\n")
    subprocess.run(["rm", "-rf", str(unpacked)], check=True)
    tmp.rename(unpacked)
    return unpacked


def download_packages(packages: list[str], cache: Path) -> None:
    """``apt-get download`` the packages not yet in ``cache``, in one apt run."""
    cache.mkdir(parents=True, exist_ok=True)
    missing = [p for p in packages if not any(cache.glob(f"{p}_*.deb"))]
    if not missing:
        return

    def download():
        return subprocess.run(["apt-get", "download", "-q", *missing], cwd=cache, capture_output=True, text=True)

    try:
        done = download()
        if done.returncode != 0 and os.geteuid() == 0:   # a fresh machine has no package lists yet
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, text=True)
            done = download()
    except FileNotFoundError as e:
        raise PackageUnavailable(f"apt-get not available: {e}") from e
    if done.returncode != 0:
        raise PackageUnavailable(f"apt-get download {' '.join(missing)} failed: {done.stderr.strip()[-300:]}")


def _links(url: str, body: bytes) -> list[str]:
    try:
        root = lxml_html.fromstring(body)
    except (ValueError, lxml_html.etree.ParserError):
        return []
    base = root.find(".//base[@href]")
    page_base = urljoin(url, base.get("href")) if base is not None else url
    out = []
    for el in root.iter(*(tag for tag, _ in _LINK_ATTRS)):
        attr = dict(_LINK_ATTRS)[el.tag]
        target = (el.get(attr) or "").strip()
        if target and not target.startswith(("javascript:", "mailto:", "data:")):
            try:
                out.append(urldefrag(urljoin(page_base, target))[0])
            except ValueError:   # not a URL (e.g. vim's "http://[user@]host"): a reader's browser ignores it too
                continue
    return out


def _local_file(url: str, base: str, doc_root: Path) -> Path | None:
    """The HTML file behind a URL of the site, or None (outside the site, not HTML, missing,
    or a symlink leaving the package)."""
    if not url.startswith(base):
        return None
    rel = unquote(urlsplit(url[len(base) - 1:]).path).lstrip("/")
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    if ".." in Path(rel).parts or not rel.lower().endswith(_HTML_SUFFIXES):
        return None
    path = doc_root / rel
    try:
        real = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):
        return None
    return path if real.is_file() and real.is_relative_to(doc_root.resolve()) else None


def bfs_pages(doc_root: Path, base: str, entry: str = "index.html", max_pages: int | None = None):
    """(url, body) in BFS order from the entry page over the site's own HTML files."""
    start = base + entry
    seen, queue, n = {start}, deque([start]), 0
    while queue and (max_pages is None or n < max_pages):
        url = queue.popleft()
        path = _local_file(url, base, doc_root)
        if path is None:
            continue
        body = path.read_bytes()
        n += 1
        yield url, body
        for link in _links(url, body):
            if link not in seen and _local_file(link, base, doc_root) is not None:
                seen.add(link)
                queue.append(link)


def write_warc(pages, out: Path) -> int:
    """Response records in the order given; ids and dates derived, so rebuilds are byte-equal."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    n = 0
    with open(tmp, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for n, (url, body) in enumerate(pages, 1):
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                               ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            date = (CAPTURE_START + timedelta(seconds=n - 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
            headers = {"WARC-Date": date, "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>"}
            record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                               warc_headers_dict=headers)
            writer.write_record(record)
    tmp.replace(out)
    return n


def build_site(site: str, spec: dict, out_dir: Path, cache: Path, max_pages: int | None = None) -> dict:
    root = fetch_package(spec["package"], cache)
    doc_root = root / spec["doc_root"]
    if not doc_root.is_dir():
        raise FileNotFoundError(f"{site}: {spec['doc_root']} not in package {spec['package']}")
    out = out_dir / f"{site}.warc.gz"
    pages = bfs_pages(doc_root, spec["base"], spec.get("entry", "index.html"),
                      max_pages=max_pages or spec.get("max_pages"))
    n = write_warc(pages, out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()[:16]
    return {"site": site, "package": (root / ".complete").read_text().strip(), "pages": n, "warc": str(out),
            "sha256": digest}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--cache", type=Path, default=None, help="downloaded .debs and unpacked trees (default OUT/.debs)")
    ap.add_argument("--sites", default="", help="comma-separated subset of the registry")
    ap.add_argument("--max-pages", type=int, default=None, help="a slice: the first N pages in BFS order")
    args = ap.parse_args(argv)
    registry = load_registry()
    names = [s for s in args.sites.split(",") if s] or list(registry)
    unknown = [s for s in names if s not in registry]
    if unknown:
        ap.error(f"not in {REGISTRY.name}: {', '.join(unknown)}")
    cache = args.cache or args.out / ".debs"
    download_packages([registry[s]["package"] for s in names], cache)
    for site in names:
        info = build_site(site, registry[site], args.out, cache, args.max_pages)
        print(f"{info['site']}: {info['pages']} pages from {info['package']} -> {info['warc']} "
              f"(sha256 {info['sha256']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
