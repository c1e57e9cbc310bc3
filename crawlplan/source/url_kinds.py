"""What a page's URL alone says about its kind: URL families, file-name kind markers, and the
three uses SOUrCe makes of them — merging structural clusters that one URL kind holds
(:func:`merge_by_url_kind`), cutting a cluster by the site's sections (:func:`cut_by_folder`),
and the target crawl's example family (``target.example_family``). The cut by file name, which
shares the namespace test (:func:`namespace_parts`), is :mod:`name_cuts`.

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
# cut_by_folder with section_copies apart: the part key of a page at a path other sections
# hold too (a section name has no "/", so no section is read as one)
COPY_KEY = "copy/"


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


def cut_by_folder(labels: np.ndarray, urls: Sequence[str], min_pts: int, alpha: float = NAMESPACE_ALPHA,
                  root: str | None = None, *, markers: bool, unmarked_sections: bool = False,
                  namespaces: str = "all_clusters", copies_apart: bool = False,
                  ) -> tuple[np.ndarray, dict[int, dict[str, int]]]:
    """A cluster holding at least ``min_pts`` sample pages in each of two or more sections of the
    site (:func:`top_folder` below :func:`folder_root`) is cut into one cluster per section —
    unless the file names or the other clusters say the sections are namespaces of one kind.
    Returns the labels (cut parts numbered after the existing clusters; the largest section
    keeps the label, sections under ``min_pts`` pages and pages outside the root stay with it)
    and ``{cluster: {section: cluster}}`` for each cluster cut, so
    :meth:`SitemapLearner.predict` can place a new page by its section.

    Why: a site renders several kinds of page with one template (Sphinx: Python's tutorial,
    library reference and what's-new; scrapy's topics and intro) and writes each kind to its
    own section; the structure puts them in one cluster, and only the section tells them apart.
    Two guards keep a kind that spans sections whole:

    * the file name names the kind: ``MOSTLY`` of the cluster's pages carry a leading kind
      marker (rustdoc's ``struct.*`` in every module, gi-docgen's ``method.*``);
    * the sections are namespaces: javadoc writes its class, class-use and package pages to
      ``org/`` and ``junit/`` alike, so another cluster holds the same two sections in the same
      proportions. Two sections stay together when some other cluster holds ``min_pts`` pages of
      each and a chi-square test of the 2 x 2 table does not reject equal proportions at
      ``alpha``; the cut keeps sections linked this way in one part. Sections that differ in
      kind have no such twin (Python's ``tutorial/`` is nowhere but in the prose cluster),
      or a twin in other proportions (Django's ``releases/`` is 98% of one cluster, 70% of the
      other it shares with ``ref/``).

    ``root``: the sample's :func:`folder_root`, when the caller has it already (the learner keeps
    it to place new pages by the same sections). ``namespaces``: how the second guard tests
    (:func:`namespace_parts`). ``markers`` False: the first guard is off.
    ``unmarked_sections`` (``folder_cut: unmarked_sections``): the first guard keeps only the
    sections whose pages carry the markers together; a section where the file names name no
    kind is cut from them as any other section would be (pytest's release announcements,
    ``announce/release-*``, share the prose template with the root folder's pages, which are
    not announcements).
    ``copies_apart`` (``section_copies: apart``): the pages at paths that many sections hold
    (:func:`section_copies`: fpdoc's ``index-2.html`` in every unit) are one part, keyed
    ``copy/<path>``, and the cluster's other pages are cut by the rule and guards above; a cluster
    that is one series over its sections (:func:`is_series`) is not cut. Without it those pages
    are cut section by section, and a unit's hubs go with its identifiers."""
    if len(urls) != len(labels):
        raise ValueError(f"cut_by_folder: {len(labels)} labels for {len(urls)} URLs")
    root = folder_root(urls) if root is None else root
    sections = [top_folder(u, root) for u in urls]
    inner = [path_in_section(u, root) for u in urls] if copies_apart else None
    marked = [bool(kind and kind[1]) for kind in url_kinds(urls, markers=markers)]
    counts = pages_by_key(sections, labels)
    out = labels.copy()
    fresh = int(labels.max()) + 1 if len(labels) else 0
    cuts: dict[int, dict[str, int]] = {}
    for label in sorted(counts):
        members = np.flatnonzero(labels == label)
        copies = section_copies(members, sections, inner, min_pts) if copies_apart else set()
        if not copies and copies_apart and is_series(members, sections, inner):
            continue
        if not copies:
            parts = _section_parts(label, members, counts, sections, marked, min_pts, alpha,
                                   unmarked_sections, namespaces)
            if len(parts) >= 2:
                fresh = cut_into_parts(out, cuts, label, parts, counts[label], members, sections, fresh)
            continue
        # the copies are one part; the rest is cut as any cluster would be, its largest part
        # keeping the label, so that a page of a section the sample never saw goes with it
        keys = list(sections)
        for i in members:
            if inner[i] in copies:
                keys[i] = COPY_KEY + inner[i]
        others = [i for i in members if inner[i] not in copies]
        rest = Counter(sections[i] for i in others)
        parts = _section_parts(label, others, {**counts, label: rest}, sections, marked, min_pts, alpha,
                               unmarked_sections, namespaces)
        parts = sorted(parts, key=lambda part: -sum(rest[k] for k in part)) if len(parts) >= 2 else [list(rest)]
        parts[0] += [s for s in rest if not any(s in part for part in parts)]
        parts.append(sorted(COPY_KEY + p for p in {inner[i] for i in members if inner[i] in copies}))
        fresh = cut_into_parts(out, cuts, label, parts, Counter(keys[i] for i in members), members, keys, fresh,
                               by_size=False)
    return out, cuts


def _section_parts(label: int, pages, counts: dict[int, Counter], sections: list, marked: list[bool],
                   min_pts: int, alpha: float, unmarked_sections: bool, namespaces: str) -> list[list[str]]:
    """The groups of sections that :func:`cut_by_folder`'s rule and guards cut cluster ``label``
    into (fewer than two: no cut), read on its sample ``pages`` (all of its pages, or those that
    are no section copies), whose sections ``counts[label]`` counts."""
    big = [s for s, n in counts[label].most_common() if n >= min_pts]
    if len(big) < 2:
        return []
    named = []
    if sum(marked[i] for i in pages) >= MOSTLY * len(pages):
        if not unmarked_sections:
            return []
        named = [s for s in big if _marked_share(pages, sections, marked, s) >= MOSTLY]
        big = [s for s in big if s not in named]
        if not big:
            return []
    return ([named] if named else []) + namespace_parts(label, big, counts, min_pts, alpha, namespaces)


def is_series(members, sections: list, inner: list) -> bool:
    """Whether a cluster (its ``members``) is one series written into every section: most
    (``MOSTLY``) of its pages at a path below the section (``inner``) that another section holds
    too (Haddock's ``doc-index-A.html`` ... in every package, fpdoc's ``index-2.html`` ... in every
    unit). Its sections are copies of one layout, not kinds: :func:`cut_by_folder` keeps it whole."""
    held: dict[str, set] = {}
    for i in members:
        if inner[i] is not None:
            held.setdefault(inner[i], set()).add(sections[i])
    return sum(len(held.get(inner[i], ())) >= 2 for i in members) >= MOSTLY * len(members)


def section_copies(members, sections: list, inner: list | None, min_pts: int) -> set[str]:
    """The paths below the section (``inner``) that at least ``min_pts`` sections of a cluster
    (its ``members``) each hold, where the cluster's other pages are mostly (``MOSTLY``) named as
    no other of its pages is: the pages a generator writes into every unit folder under fixed
    names (fpdoc's ``index-2.html``, a Sphinx section's ``index.html``), beside pages named after
    what they document. A path in a few sections is a topic's name (Python's
    ``howto/logging.html`` beside ``library/logging.html``); a cluster whose other names recur as
    well is a series (Haddock's ``doc-index-A.html`` ... in every package). Empty where the
    cluster shows none."""
    if inner is None:
        return set()
    held: dict[str, set] = {}
    named = Counter(inner[i] for i in members if inner[i] is not None)
    for i in members:
        if inner[i] is not None:
            held.setdefault(inner[i], set()).add(sections[i])
    paths = {p for p, where in held.items() if len(where) >= min_pts}
    rest = [i for i in members if inner[i] not in paths]
    if not paths or not rest:
        return set()
    unique = sum(inner[i] is not None and named[inner[i]] == 1 for i in rest)
    return paths if unique >= MOSTLY * len(rest) else set()


def path_in_section(url: str, root: str) -> str | None:
    """The URL's path below its section (:func:`top_folder`): ``models/fields.html`` for
    ``/en/3.2/ref/models/fields.html`` under ``/en/3.2/``; None outside the root, or for a page
    in the root folder itself."""
    try:
        path = urlsplit(url).path or "/"
    except ValueError:
        return None
    if not path.startswith(root):
        return None
    rest = path[len(root):].split("/", 1)
    return rest[1] if len(rest) == 2 else None


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


def _marked_share(members, sections: list, marked: list[bool], section: str) -> float:
    inside = [marked[i] for i in members if sections[i] == section]
    return sum(inside) / len(inside)


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
