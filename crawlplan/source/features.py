"""Bag-of-XPaths features and Apath links of one HTML page (SOUrCe section 3.2).

A page is described by the XPaths (tag names from the root, no positional indices) of its leaf
elements, counted; its links by the Apath of each intra-site anchor. The paper adds the anchor's
``class`` (falling back to ``id``) on the leaf of an Apath so that, e.g., result links and ad
links inside one table no longer share a path.

``xpath_classes`` picks the leaf-XPath variant:
- ``none``: the paper's features (tag names only);
- ``leaf``: the leaf element's first class token is appended, the same as Apaths;
- ``all``: every step carries its first class token. This is what makes Sphinx pages (one shared
  layout) separable: ``div.section`` vs ``dl.class`` vs ``div.highlight`` are content structure;
- ``elements``: as ``all``, but *every* element is counted, not only leaves. Leaf paths lose
  the containers whose children vary (a ``dl[py]`` API entry holds ``dt``/``dd`` children whose
  leaves are shared with prose); counting inner elements keeps that ancestor context. This is
  the ``default`` method's feature set (measured best on every real site, docs/source.md).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
from lxml import etree

XPATH_CLASS_MODES = ("none", "leaf", "all", "elements")
_SKIP_TAGS = {"script", "style", "noscript", "template"}
_SKIP_HREF = re.compile(r"^\s*(javascript:|mailto:|tel:|data:|#)", re.IGNORECASE)
_CLASS_CLEAN = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class PageFeatures:
    """What the learner and the crawler need from one page."""

    url: str
    xpaths: Counter = field(default_factory=Counter)
    links: list[tuple[str, str]] = field(default_factory=list)  # (apath, absolute url), in page order
    error: str | None = None


def _first_class(el, fallback_id: bool) -> str:
    cls = (el.get("class") or "").split()
    if cls:
        return _CLASS_CLEAN.sub("", cls[0])[:40]
    if fallback_id:
        return _CLASS_CLEAN.sub("", el.get("id") or "")[:40]
    return ""


def xpath_step(el, with_class: bool, fallback_id: bool = False) -> str:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if not with_class:
        return tag
    label = _first_class(el, fallback_id)
    return f"{tag}[{label}]" if label else tag


def normalise_url(url: str) -> str:
    """Fragment dropped; ``/`` path for a bare host: two spellings of one page are one node."""
    url, _ = urldefrag(url.strip())
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and not parts.path:
        url = parts._replace(path="/").geturl()
    return url


def parse_html(html: bytes | str):
    """An lxml root, or None for empty or unparsable documents (counted by the caller)."""
    if html is None:
        return None
    if isinstance(html, str):
        html = html.encode("utf-8", "replace")
    if not html.strip():
        return None
    try:
        parser = lxml.html.HTMLParser(recover=True, remove_comments=True, remove_pis=True)
        root = lxml.html.document_fromstring(html, parser=parser)
    except (etree.ParserError, ValueError):
        return None
    return root


def extract(url: str, html: bytes | str, *, xpath_classes: str = "none", site_of=None) -> PageFeatures:
    """Leaf-XPath counts and intra-site (Apath, URL) links of one page.

    ``site_of`` maps a URL to its site key (default: lower-cased host); links whose site differs
    from the page's are dropped, as the paper only follows links within the site.
    """
    if xpath_classes not in XPATH_CLASS_MODES:
        raise ValueError(f"xpath_classes must be one of {XPATH_CLASS_MODES}, got {xpath_classes!r}")
    out = PageFeatures(url=url)
    root = parse_html(html)
    if root is None:
        out.error = "unparsable or empty HTML"
        return out
    site_of = site_of or _host
    own_site = site_of(url)
    base = url
    base_el = root.find(".//base[@href]")
    if base_el is not None:
        try:
            base = urljoin(url, base_el.get("href"))
        except ValueError:  # e.g. an unclosed IPv6 host "http://[::1": links resolve against the page
            base = url
    # fast path for the common case: a link under the page's own origin is in the site
    own_prefix = url.split("/", 3)[:3]
    own_prefix = "/".join(own_prefix) + "/" if len(own_prefix) == 3 and site_of is _host else "\x00"
    all_classes = xpath_classes in ("all", "elements")
    every_element = xpath_classes == "elements"
    for el, tag, prefix, _plain, feat in walk_elements(root, all_classes):
        if every_element:
            out.xpaths[feat] += 1
        elif not any(isinstance(c.tag, str) for c in el):
            leaf = f"{prefix[1]}/{xpath_step(el, True)}" if xpath_classes == "leaf" else feat
            out.xpaths[leaf] += 1
        if tag == "a":
            href = el.get("href")
            if not href or _SKIP_HREF.match(href):
                continue
            href = href.split("#", 1)[0].strip()   # fragments name the same page: better cache hits
            target = _resolve(base, href) if href else None
            if target is None:
                continue
            if not target.startswith(own_prefix) and site_of(target) != own_site:
                continue
            out.links.append((f"{prefix[0]}/{xpath_step(el, True, fallback_id=True)}", target))
    return out


def walk_elements(root, with_classes: bool):
    """Every element outside skipped subtrees (scripts, styles), in document order, as
    ``(element, lower-case tag, parent's (tag path, feature path), tag path, feature path)``.

    The feature path spells each step with its class tokens when ``with_classes``, else it is
    the tag path. Paths are built from the parent's, so a page costs one pass.
    """
    # element -> (tag-only path, feature path); None marks a skipped subtree
    paths: dict = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        parent = el.getparent()
        prefix = paths.get(parent, ("", "")) if parent is not None else ("", "")
        tag = el.tag.lower()
        if tag in _SKIP_TAGS or prefix is None:
            paths[el] = None
            continue
        plain = f"{prefix[0]}/{tag}"
        feat = f"{prefix[1]}/{xpath_step(el, True)}" if with_classes else plain
        paths[el] = (plain, feat)
        yield el, tag, prefix, plain, feat


@functools.lru_cache(maxsize=200_000)
def _resolve(base: str, href: str) -> str | None:
    """Absolute, normalised http(s) URL of a link; cached because navigation bars repeat the
    same hrefs on every page of a site (URL parsing dominated extraction time)."""
    try:
        target = normalise_url(urljoin(base, href))
    except ValueError:
        return None
    return target if target.startswith(("http://", "https://")) else None


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""


def url_family(url: str) -> str:
    """A URL's family: host, folder, depth and query keys (``docs.x.org/en/3.2/releases/|4|``).
    Pages a site generates from one listing usually sit side by side in one folder; the target
    crawl may use the example page's family as a second sign of the target (``target_url``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    segs = parts.path.split("/")
    keys = ",".join(sorted({kv.split("=", 1)[0] for kv in parts.query.split("&") if kv}))
    return f"{(parts.hostname or '').lower()}{'/'.join(segs[:-1])}/|{len(segs)}|{keys}"


_NAME_PREFIX = re.compile(r"([A-Za-z]+)[._:-].")


def name_prefix(url: str) -> str:
    """The file name's leading word when more of the name follows it: ``struct`` in
    ``struct.Foo.html``, ``class`` in ``class_foo.html``, ``package`` in ``package-summary.html``,
    ``Category`` in MediaWiki's ``Category:Physics``, ``os`` in ``os.path.html``; '' for
    ``os.html``, ``index.html``, ``1.2.html``, ``t/123``.

    The letters run up to the first ``.``, ``_``, ``-`` or ``:`` of the name without its extension.
    Generators that write several kinds of page into one folder tell them apart this way; a
    prefix is only a *candidate* kind marker, since dotted and hyphenated names (``xml.dom``,
    ``asyncio-task``) look the same — ``crawl.example_family`` decides from how often it recurs.
    """
    try:
        name = urlsplit(url).path.rsplit("/", 1)[-1]
    except ValueError:
        return ""
    m = _NAME_PREFIX.match(name.rsplit(".", 1)[0])
    return m.group(1) if m else ""


def url_family_counts(urls) -> dict[str, dict[str, int]]:
    """{URL family: {file-name prefix: pages}} of a sample: what a crawler needs to decide, for an
    example page, whether its folder and its file-name prefix single out a kind of page."""
    out: dict[str, dict[str, int]] = {}
    for url in urls:
        prefixes = out.setdefault(url_family(url), {})
        prefix = name_prefix(url)
        prefixes[prefix] = prefixes.get(prefix, 0) + 1
    return out


# the URL family says nothing about a kind of page when (nearly) the whole sample is in it (a
# site generated into one folder: gtk-doc, Doxygen, texinfo)
FAMILY_MAX_SHARE = 0.9
# "mostly" in the URL-kind rules: the share of a cluster's (or a kind's) sample pages that must
# agree (learner.merge_by_url_kind, crawl.example_family)
MOSTLY = 2 / 3
# a file-name prefix is a kind marker in a folder when at least this many of the folder's sample
# pages, and at least this share of them, carry it (kind_markers)
KIND_MIN_PAGES = 3
KIND_MIN_SHARE = 0.1


def kind_markers(prefixes: dict[str, int]) -> frozenset:
    """The file-name prefixes that mark a kind of page in one folder ({prefix: sample pages}):
    carried by at least ``KIND_MIN_PAGES`` pages and ``KIND_MIN_SHARE`` of the folder.

    A generator that writes several kinds into one folder names them by kind (rustdoc's
    ``struct.*``, ``fn.*``, ``trait.*``; javadoc's ``package-*`` beside the class pages;
    Doxygen's ``class_*``, ``struct_*``): a few prefixes, each on a real part of the folder. A
    prefix that is part of a name (Python's ``asyncio-*``, ``email.*``: 5% of ``library/`` each)
    recurs too, but on a small part of a folder of many names."""
    pages = sum(prefixes.values())
    return frozenset(p for p, n in prefixes.items()
                     if p and n >= KIND_MIN_PAGES and n >= KIND_MIN_SHARE * pages)


def marked_kind(prefix: str, markers) -> str:
    """A page's kind inside its folder: its file-name prefix when that is a kind marker, else ''
    (the folder's unmarked pages, e.g. javadoc's class pages beside ``package-*``)."""
    return prefix if prefix in markers else ""


def url_kinds(urls) -> list[tuple[str, str] | None]:
    """Per URL of a sample, its (URL family, kind marker) — the kind of page its URL alone
    names — or None when its folder holds more than ``FAMILY_MAX_SHARE`` of the sample (the
    folder then names no kind: the whole site is in it)."""
    urls = list(urls)
    families = url_family_counts(urls)
    markers = {f: kind_markers(p) for f, p in families.items()}
    out: list[tuple[str, str] | None] = []
    for url in urls:
        family = url_family(url)
        if sum(families[family].values()) > FAMILY_MAX_SHARE * len(urls):
            out.append(None)
        else:
            out.append((family, marked_kind(name_prefix(url), markers[family])))
    return out


def url_kind_clusters(urls, labels) -> dict[str, dict[str, dict[int, int]]]:
    """{URL family: {file-name prefix: {cluster: sample pages}}}: where the structure put each
    URL kind of the sample, so a crawler can tell a file-name kind that is one kind of page
    (git's ``git-*.html`` commands, one cluster) from a prefix shared by several (Doxygen's
    ``class_*.html`` and ``class_*-members.html``, two clusters)."""
    out: dict[str, dict[str, dict[int, int]]] = {}
    for url, label in zip(urls, labels):
        by_cluster = out.setdefault(url_family(url), {}).setdefault(name_prefix(url), {})
        by_cluster[int(label)] = by_cluster.get(int(label), 0) + 1
    return out


def links_by_apath(links: list[tuple[str, str]]) -> dict[str, list[str]]:
    """U(p, x): the page's distinct links grouped by Apath, first-seen order kept."""
    out: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for apath, url in links:
        if (apath, url) in seen:
            continue
        seen.add((apath, url))
        out.setdefault(apath, []).append(url)
    return out
