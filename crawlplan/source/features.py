"""Bag-of-XPaths features and Apath links of one HTML page (SOUrCe section 3.2).

A page is described by the XPaths (tag names from the root, no positional indices) of its leaf
elements, counted; its links by the Apath of each intra-site anchor (and frame and image-map
area: ``LINK_ATTRS``, the elements a crawler follows). The paper adds the anchor's
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
# the elements whose attribute names a page the browser goes on to, as a crawler extracts them
# (Heritrix's HTML extractor): anchors and image-map areas by href, frames by src. A frameset
# page (javadoc before JDK 9, many older manuals) has no anchor at all: without its frames a
# crawl that starts there ends there.
LINK_ATTRS = {"a": "href", "area": "href", "frame": "src", "iframe": "src"}
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
        if tag in LINK_ATTRS:
            href = el.get(LINK_ATTRS[tag])
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
