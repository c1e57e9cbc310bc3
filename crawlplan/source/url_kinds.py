"""What a page's URL alone says about its kind: URL families, file-name kind markers, and the
three uses SOUrCe makes of them — merging structural clusters that one URL kind holds
(:func:`merge_by_url_kind`), cutting a cluster by the site's sections
(:func:`folder_cuts.cut_by_folder`), and the target crawl's example family
(``target.example_family``). The cut by file name (:mod:`name_cuts`) and the cut by section
(:mod:`folder_cuts`) share the namespace test (:func:`namespace_parts`) kept here.

A generator writes one kind of page to one place: a folder (Django's ``releases/``), or a
file-name prefix inside a folder (rustdoc's ``struct.*``, javadoc's ``package-*``). A kind
spread over many folders (javadoc classes over packages, rustdoc structs over modules) is still
one kind, so the URL joins what the structure split freely, but cuts what the structure joined
only where the site shows that its sections are not namespaces of one kind.
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
# cut_by_folder: two sections are namespaces of one kind of page when another cluster holds
# both in proportions a chi-square test cannot tell from this one's at this level (the usual 5%)
NAMESPACE_ALPHA = 0.05


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
    m = _NAME_PREFIX.match(file_stem(url))
    return m.group(1) if m else ""


def name_suffix(url: str) -> str:
    """The file name's trailing word when more of the name precedes it: ``members`` in Doxygen's
    ``class_json_1_1_value-members.html``, ``source`` in ``json_8h_source.html``; '' for
    ``release-2.0.0.html`` (not letters), ``index.html``. Like :func:`name_prefix`, only a
    candidate kind marker: generators that name a kind by a suffix (Doxygen's member lists and
    source listings beside the class pages they belong to) make it recur on a real part of the
    folder, a name's last word seldom does (:func:`kind_markers`)."""
    m = _NAME_SUFFIX.search(file_stem(url))
    return m.group(1) if m else ""


def file_stem(url: str) -> str:
    """The URL's file name without its extension ('' for a URL that does not parse)."""
    try:
        name = urlsplit(url).path.rsplit("/", 1)[-1]
    except ValueError:
        return ""
    return name.rsplit(".", 1)[0]


# a file name that numbers one thing's pieces: a word of two letters or more, an optional
# separator, then numbers (index-4, gettext_16, usr_01, release-9-5-3, GEN01)
_NUMBERED_NAME = re.compile(r"^(?P<stem>.*?[A-Za-z]{2,})[-_.]?\d+(?:[-_.]\d+)*$")


def numbered_families(urls: Sequence[str]) -> list[str | None]:
    """Each URL's numbered family: the word its file name numbers (``index`` for
    ``index-4.html``), also for the bare ``index.html`` of a folder that holds numbered
    ``index-N`` pages; None for the rest. The family spans folders: fpdoc writes ``index.html``
    to ``index-8.html`` into every unit's folder.

    Why: a generator numbers the pieces of one thing -- a unit's index split into parts, a
    manual's chapters (texi2html's ``gettext_N``), release notes by version -- and the number
    is the only part of the name that differs; the pieces' structures may differ (a list of
    classes, a list of procedures) while the name says they are one kind of page."""
    places = []
    for url in urls:
        stem = file_stem(url)
        match = _NUMBERED_NAME.match(stem)
        folder = "/".join(folder_parts(url) or ())   # one site's sample: the path names the folder
        places.append((folder, stem, match["stem"] if match else None))
    numbered = {(folder, family) for folder, _stem, family in places if family is not None}
    return [family if family is not None or (folder, stem) not in numbered else stem
            for folder, stem, family in places]


def recurring_names(names: Sequence[str | None], places: Sequence, min_pts: int) -> tuple[set[str], dict, int, int]:
    """Of one cluster's pages, by their ``names`` (None: no name) and the ``places`` they lie in:
    the names that at least ``min_pts`` places each hold, ``{name: its places}``, how many pages
    bear no such name, and how many of those are named as no other page is. Hubs a generator
    writes under one name into every folder stand out against pages named after what they
    document (the cut by file name reads names in folders, the cut by section paths in
    sections)."""
    where: dict = {}
    for name, place in zip(names, places):
        if name is not None:
            where.setdefault(name, set()).add(place)
    recurring = {name for name, held in where.items() if len(held) >= min_pts}
    named = Counter(name for name in names if name is not None)
    rest = [name for name in names if name not in recurring]
    return recurring, where, len(rest), sum(name is not None and named[name] == 1 for name in rest)


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


def url_kinds(urls, *, markers: bool) -> list[tuple[str, str, str] | None]:
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
    which would split a folder's one kind. ``markers`` False (``kind_markers: false``): no
    file-name marker names a kind — the folder alone, and nothing in a whole-site folder."""
    parts = [(url_family(url), name_prefix(url), name_suffix(url)) for url in urls]
    leading: dict[str, Counter] = {}
    trailing: dict[str, Counter] = {}
    for family, prefix, suffix in parts:
        leading.setdefault(family, Counter())[prefix] += 1
        trailing.setdefault(family, Counter())[suffix] += 1
    whole_site = {f: sum(c.values()) > FAMILY_MAX_SHARE * len(parts) for f, c in leading.items()}
    none = frozenset()
    marks = {f: (kind_markers(leading[f]) if markers else none,
                 kind_markers(trailing[f]) if markers and whole_site[f] else none) for f in leading}
    out: list[tuple[str, str, str] | None] = []
    for family, prefix, suffix in parts:
        first, last = marks[family]
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


def merge_by_url_kind(labels: np.ndarray, urls: Sequence[str], share: float = MOSTLY, *,
                      markers: bool) -> np.ndarray:
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
    kinds = url_kinds(urls, markers=markers)
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


def folder_root(urls: Sequence[str]) -> str:
    """The site's root folder in a sample: the deepest folder that holds (at any depth below it)
    more than ``FAMILY_MAX_SHARE`` of the sample's pages — ``/en/3.2/`` for Django's docs, ``/``
    for a forum. A majority, not every page: one stray page outside the docs (the host's home
    page ``/``, an old ``/3/`` link beside ``/3.11/``) must not move the sections up a level."""
    paths = [f for f in (folder_parts(u) for u in urls) if f is not None]
    root: list[str] = []
    while paths:
        below = Counter(tuple(f[:len(root) + 1]) for f in paths if len(f) > len(root))
        if not below:
            break
        deeper, n = below.most_common(1)[0]
        if n <= FAMILY_MAX_SHARE * len(paths):
            break
        root = list(deeper)
    return "/".join(root) + "/"


def top_folder(url: str, root: str) -> str | None:
    """The URL's section: its first folder below the site's ``root`` (``ref`` for
    ``/en/3.2/ref/models/fields.html``), '' for a page in the root folder itself, None for a
    page outside the root (or a URL that does not parse)."""
    folders = folder_parts(url)
    parts = root.split("/")[:-1]
    if folders is None or folders[:len(parts)] != parts:
        return None
    return folders[len(parts)] if len(folders) > len(parts) else ""


def folder_parts(url: str) -> list[str] | None:
    """The URL path's folders, from the root (``['', 'en', '3.2', 'ref']`` for
    ``/en/3.2/ref/index.html``); None for a URL that does not parse."""
    try:
        return (urlsplit(url).path or "/").split("/")[:-1]
    except ValueError:
        return None


def pages_by_key(keys: Sequence[str | None], labels: np.ndarray) -> dict[int, Counter]:
    """{cluster: {key: sample pages}} of the clustered pages (outliers left out) that have a key
    (a section, a marker; None: none) -- what a cut by that key reads a cluster by."""
    counts: dict[int, Counter] = {}
    for key, label in zip(keys, labels.tolist()):
        if label != -1 and key is not None:
            counts.setdefault(int(label), Counter())[key] += 1
    return counts


def cut_into_parts(out: np.ndarray, cuts: dict, label: int, parts: list[list[str]], pages: Counter,
                    members, key_of: list, fresh: int, by_size: bool = True) -> int:
    """Cluster ``label`` cut into ``parts`` (groups of keys: sections, markers) in ``out`` and
    ``cuts``: the part with the most sample ``pages`` (``by_size`` False: the first part) keeps
    the label, the others take fresh labels from ``fresh`` on (a member page goes by its key,
    ``key_of``). Returns the next fresh label."""
    ordered = sorted(parts, key=lambda keys: -sum(pages[k] for k in keys)) if by_size else parts
    cuts[label] = {k: label for k in ordered[0]}
    for keys in ordered[1:]:
        cuts[label].update({k: fresh for k in keys})
        out[[i for i in members if key_of[i] in keys]] = fresh
        fresh += 1
    return fresh


def namespace_parts(label: int, sections: list[str], counts: dict[int, Counter], min_pts: int,
                     alpha: float, test: str) -> list[list[str]]:
    """``sections`` of cluster ``label`` grouped so that two sections another cluster holds in
    proportions the chi-square test does not tell from this cluster's are in one group.

    ``test: all_clusters`` (``namespace_test``) asks more of two sections than one such twin:
    every cluster holding ``min_pts`` of their pages together must hold them in proportions a
    chi-square test of that k x 2 table does not tell apart. Namespaces split every kind alike
    (javadoc's ``org/`` and ``junit/``: 85% to 15% in each of junit's seven clusters, p = 0.88);
    two sections that are kinds of their own share some clusters alike by chance — Django's
    ``ref/`` and ``topics/`` hold six prose clusters in like proportions — but not all of them
    (eleven clusters, p = 0.005: several hold ``ref/`` pages only)."""
    # scipy: heavy, loaded inside the worker that learns a site
    from scipy.stats import chi2_contingency

    group = {s: s for s in sections}

    def root(s: str) -> str:
        while group[s] != s:
            s = group[s]
        return s

    here = counts[label]
    for a, b in itertools.combinations(sections, 2):
        twin = any(other != label and there[a] >= min_pts and there[b] >= min_pts
                   and chi2_contingency([[here[a], here[b]], [there[a], there[b]]])[1] >= alpha
                   for other, there in counts.items())
        if twin and test == "all_clusters":
            twin = chi2_contingency([[c[a], c[b]] for c in counts.values() if c[a] + c[b] >= min_pts])[1] >= alpha
        if twin:
            group[root(a)] = root(b)
    parts: dict[str, list[str]] = {}
    for s in sections:
        parts.setdefault(root(s), []).append(s)
    return list(parts.values())
