"""What a page's URL alone says about its kind: URL families, file-name kind markers, and the
two uses SOUrCe makes of them — merging structural clusters that one URL kind holds
(:func:`merge_by_url_kind`) and the target crawl's example family (``target.example_family``).

A generator writes one kind of page to one place: a folder (Django's ``releases/``), or a
file-name prefix inside a folder (rustdoc's ``struct.*``, javadoc's ``package-*``). Nothing here
splits a cluster by URL: a kind spread over many folders (javadoc classes over packages, rustdoc
structs over modules) is one kind, so the URL may only join what the structure split.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np

# the URL family says nothing about a kind of page when (nearly) the whole sample is in it (a
# site generated into one folder: gtk-doc, Doxygen, texinfo)
FAMILY_MAX_SHARE = 0.9
# "mostly" in the URL-kind rules: the share of a cluster's (or a kind's) sample pages that must
# agree (merge_by_url_kind; target._kind_in_whole_site_folder)
MOSTLY = 2 / 3
# a file-name prefix is a kind marker in a folder when at least this many of the folder's sample
# pages, and at least this share of them, carry it (kind_markers)
KIND_MIN_PAGES = 3
KIND_MIN_SHARE = 0.1


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
_NAME_SUFFIX = re.compile(r".[._:-]([A-Za-z]+)$")


def name_prefix(url: str) -> str:
    """The file name's leading word when more of the name follows it: ``struct`` in
    ``struct.Foo.html``, ``class`` in ``class_foo.html``, ``package`` in ``package-summary.html``,
    ``Category`` in MediaWiki's ``Category:Physics``, ``os`` in ``os.path.html``; '' for
    ``os.html``, ``index.html``, ``1.2.html``, ``t/123``.

    The letters run up to the first ``.``, ``_``, ``-`` or ``:`` of the name without its extension.
    Generators that write several kinds of page into one folder tell them apart this way; a
    prefix is only a *candidate* kind marker, since dotted and hyphenated names (``xml.dom``,
    ``asyncio-task``) look the same — :func:`kind_markers` decides from how often it recurs.
    """
    m = _NAME_PREFIX.match(_stem(url))
    return m.group(1) if m else ""


def name_suffix(url: str) -> str:
    """The file name's trailing word when more of the name precedes it: ``members`` in Doxygen's
    ``class_json_1_1_value-members.html``, ``source`` in ``json_8h_source.html``; '' for
    ``release-2.0.0.html`` (not letters), ``index.html``. Like :func:`name_prefix`, only a
    candidate kind marker: generators that name a kind by a suffix (Doxygen's member lists and
    source listings beside the class pages they belong to) make it recur on a real part of the
    folder, a name's last word seldom does (:func:`kind_markers`)."""
    m = _NAME_SUFFIX.search(_stem(url))
    return m.group(1) if m else ""


def _stem(url: str) -> str:
    """The URL's file name without its extension ('' for a URL that does not parse)."""
    try:
        name = urlsplit(url).path.rsplit("/", 1)[-1]
    except ValueError:
        return ""
    return name.rsplit(".", 1)[0]


def url_family_counts(urls) -> dict[str, dict[str, int]]:
    """{URL family: {file-name prefix: pages}} of a sample: what a crawler needs to decide, for an
    example page, whether its folder and its file-name prefix single out a kind of page."""
    return prefix_counts(url_kind_clusters(urls, itertools.repeat(0)))


def prefix_counts(kind_clusters: dict[str, dict[str, dict[int, int]]]) -> dict[str, dict[str, int]]:
    """{URL family: {file-name prefix: pages}} from :func:`url_kind_clusters`' counts."""
    return {family: {prefix: sum(by_cluster.values()) for prefix, by_cluster in prefixes.items()}
            for family, prefixes in kind_clusters.items()}


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


def url_kinds(urls) -> list[tuple[str, str, str] | None]:
    """Per URL of a sample, its (URL family, leading kind marker, trailing kind marker) — the
    kind of page its URL alone names — or None when it names none.

    In a folder of part of the site the folder names the kind, split by the leading marker
    (rustdoc's ``struct.*`` beside ``fn.*``; javadoc's ``package-*`` beside the class pages); the
    trailing marker is '' there. In a folder that holds more than ``FAMILY_MAX_SHARE`` of the
    sample the folder names no kind (the whole site is in it), but a marker still does:
    gi-docgen writes every page of a library to one folder and names the kind first
    (``method.*``, ``class.*``, ``enum.*``), Doxygen adds it last (``class_*-members.html``
    beside ``class_*.html``), and the trailing marker keeps kinds apart that share the leading
    one. A page there without either marker has no kind. The trailing marker is read in such a
    folder only: elsewhere a name's last word is a slug's (a forum's ``t/123-how-to-fix``),
    which would split a folder's one kind."""
    parts = [(url_family(url), name_prefix(url), name_suffix(url)) for url in urls]
    leading: dict[str, Counter] = {}
    trailing: dict[str, Counter] = {}
    for family, prefix, suffix in parts:
        leading.setdefault(family, Counter())[prefix] += 1
        trailing.setdefault(family, Counter())[suffix] += 1
    whole_site = {f: sum(c.values()) > FAMILY_MAX_SHARE * len(parts) for f, c in leading.items()}
    markers = {f: (kind_markers(leading[f]), kind_markers(trailing[f]) if whole_site[f] else frozenset())
               for f in leading}
    out: list[tuple[str, str, str] | None] = []
    for family, prefix, suffix in parts:
        first, last = markers[family]
        kind = (family, marked_kind(prefix, first), marked_kind(suffix, last))
        out.append(None if whole_site[family] and not (kind[1] or kind[2]) else kind)
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


def merge_by_url_kind(labels: np.ndarray, urls: Sequence[str], share: float = MOSTLY) -> np.ndarray:
    """Clusters whose sample pages lie, each for at least ``share``, in one and the same URL
    kind (:func:`url_kinds`: folder, depth, query keys and file-name kind markers) are
    one cluster; labels are renumbered 0..k-1 in order of first cluster, outliers stay -1.

    Why: a generator writes one kind of page to one place, but renders it with optional
    sections — pytest's release announcements range from a one-line bug-fix note to long
    contributor lists, a forum's threads from one post to eight — and the structural clustering
    splits such a kind by length and markup into clusters that all sit in one folder. Only
    merging is done, never splitting by URL: a kind of page spread over many folders (javadoc
    classes over packages, rustdoc structs over modules) must stay one cluster, and a folder
    that holds the whole site (``FAMILY_MAX_SHARE``) names a kind only by a file-name marker
    (gi-docgen's method pages split by signature shape: parameters, return value, both)."""
    if len(urls) != len(labels):
        raise ValueError(f"merge_by_url_kind: {len(labels)} labels for {len(urls)} URLs")
    kinds = url_kinds(urls)
    members: dict[int, Counter] = {}
    for kind, label in zip(kinds, labels.tolist()):
        if label != -1:
            members.setdefault(int(label), Counter())[kind] += 1
    first_of_kind: dict[tuple, int] = {}
    into: dict[int, int] = {}
    for label in sorted(members):
        kind, pages = members[label].most_common(1)[0]
        named = kind is not None and pages >= share * sum(members[label].values())
        into[label] = first_of_kind.setdefault(kind, label) if named else label
    number = {old: new for new, old in enumerate(sorted(set(into.values())))}
    return np.array([-1 if c == -1 else number[into[c]] for c in labels.tolist()], dtype=int)
