"""The cut by file name (``marker_cut``): a cluster whose pages' file names say they are
several kinds of page is cut into one part per kind, unless the names are namespaces of one
kind. What a name says is read by :func:`cut_key`: its leading kind marker (``markers``), the
case pattern of a dotted name (``shapes``), and the number of words of a short dotted name where
the folder shows member pages (``shapes_members``), whether a name recurs from folder to folder
(``shapes_recurring``), or both (``shapes_recurring_members``); and, with ``unmarked_names:
cut``, whether a name carries the leading kind marker most of its cluster carries. Only the URL
is read, so a page the sample never saw, or a link not fetched yet, is placed in its part all
the same (``learner.part_of``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from crawlplan.source.url_kinds import (
    MOSTLY,
    NAMESPACE_ALPHA,
    cut_into_parts,
    file_stem,
    name_prefix,
    namespace_parts,
    pages_by_key,
    recurring_names,
    url_kinds,
)

# _member_clusters: the share of a cluster's sample pages that two-word member names must hold
# before the number of words cuts it (the design sites: fpdoc's members 39%; Python's dotted
# modules 17%, javadoc's nested classes 7-12%)
MEMBER_MIN_SHARE = 0.25

MARKER_CUTS = ("off", "markers", "shapes", "shapes_members", "shapes_recurring",
               "shapes_recurring_members")
# the modes that read a cluster's recurring names (_recurring_names), and those that read the
# number of words of its short dotted names where it shows member pages (_member_clusters)
RECURRING_CUTS = ("shapes_recurring", "shapes_recurring_members")
MEMBER_CUTS = ("shapes_members", "shapes_recurring_members")
# shapes_recurring: the keys of a cluster's two parts, its names that recur from folder to folder
# and the rest (in ``marker_cuts_`` each recurring name also maps to its part, as ``=name``; a
# file name holds no "/", so a page named recurring.html is no part key)
RECURRING, OTHER_NAMES = "=/recurring", "=/other"
# what a UCC crawl takes a page among a cluster's recurring names for (ucc_recurring)
UCC_RECURRING = ("cluster", "hub")
# what the cut by name does with a marked cluster's names that carry no marker (unmarked_names),
# and the keys of the two parts it makes of one (``=/marked:git``; a file name holds no "/")
UNMARKED_NAMES = ("keep", "cut")
MARKED, UNMARKED = "=/marked:", "=/unmarked"
_DOTTED_WORD = re.compile(r"_*[A-Za-z][A-Za-z0-9_]*$")


def _dotted_words(url: str) -> list[str] | None:
    """The words of a file name of dotted identifiers (``pkg.mod.Class``), None for any other
    name: what :func:`name_shape` and :func:`member_words` read."""
    words = file_stem(url).split(".")
    return words if all(_DOTTED_WORD.match(w) for w in words) else None


def name_shape(url: str) -> str:
    """The case pattern of a dotted name's last two words, for a file name of three or more
    dotted identifiers: ``ll`` for ``statsmodels.tsa.stattools.acf``, ``lU`` for
    ``...linear_model.OLS``, ``Ul`` for ``...OLS.fit`` (leading underscores ignored); '' for any
    other name. API generators name a page by the object's qualified name, and the naming
    conventions of most languages write a type's name with a capital and a function's, a
    module's or a member's without, so the case of the last two words tells a function from a
    type from a type's member where one template renders them all into one folder."""
    words = _dotted_words(url)
    if words is None or len(words) < 3:
        return ""
    return "".join("U" if w.lstrip("_")[:1].isupper() else "l" for w in words[-2:])


def member_words(url: str) -> str:
    """``1w`` or ``2w`` for a file name of one or two dotted identifiers (fpdoc's ``tcontrol``
    and ``tcontrol.align``), '' for any other name (three or more words have a
    :func:`name_shape`). A reference that gives each member of a type a page of its own names
    it ``type.member`` beside ``type``; where the case does not tell them apart (lower-cased
    names), the number of words does -- but only where the folder shows member pages
    (:func:`_member_clusters`): a module ``os.path`` beside ``os`` is named the same way."""
    words = _dotted_words(url)
    if words is None or len(words) > 2:
        return ""
    return f"{len(words)}w"


def cut_key(url: str, by: str) -> str:
    """What a cut by marker (``marker_cut``) reads off a URL: its file name's leading word
    (``markers``; a kind marker when the sample's folder says so), its name shape (``shapes``,
    :func:`name_shape`), or the shape and else the number of words of a short dotted name
    (``shapes_members``, :func:`member_words`), or the shape and else the name itself
    (``shapes_recurring`` and ``shapes_recurring_members``, ``=name``: :func:`_recurring_names`
    says which names recur, :func:`_member_clusters` where the number of words is read)."""
    if by == "shapes_members":
        return name_shape(url) or member_words(url)
    if by in RECURRING_CUTS:
        return name_shape(url) or f"={file_stem(url)}"
    return name_shape(url) if by == "shapes" else name_prefix(url)


def _member_clusters(labels: np.ndarray, urls: Sequence[str], words: Sequence[str], known, min_pts: int) -> set[int]:
    """The clusters whose two-word names are member pages: at least ``min_pts`` sample pages
    of one word and of two, most (``MOSTLY``) of the two-word ones named after a page the site
    links in their folder (``type.member`` beside ``type``), and at least ``MEMBER_MIN_SHARE`` of
    the cluster. A type has many members, so where a generator gives each a page they are a
    large part of the pages; sub-namespaces (Python's ``os.path``, ``xml.dom``: 17% of its
    library modules) and nested types (javadoc's ``Outer.Inner``: 7-12%) are the exception.
    ``words``: the pages' :func:`member_words`."""
    stems: dict[str, set[str]] = {}
    for url in known:
        stems.setdefault(url.rpartition("/")[0], set()).add(file_stem(url))
    out = set()
    for label in set(labels.tolist()) - {-1}:
        members = np.flatnonzero(labels == label)
        counts = Counter(words[i] for i in members)
        if counts["1w"] < min_pts or counts["2w"] < min_pts or counts["2w"] < MEMBER_MIN_SHARE * len(members):
            continue
        two = [urls[i] for i in members if words[i] == "2w"]
        named = sum(file_stem(u).split(".")[0] in stems.get(u.rpartition("/")[0], ()) for u in two)
        if named >= MOSTLY * len(two):
            out.add(label)
    return out


def _recurring_names(labels: np.ndarray, urls: Sequence[str], min_pts: int) -> dict[int, set[str]]:
    """{cluster: the file names that recur in its folders} for the clusters whose pages are of
    two sorts by name: a few names, each in at least ``min_pts`` folders, that together are in
    at least half of the cluster's folders, and at least ``min_pts`` other pages, most (``MOSTLY``)
    named as no other page of the cluster is. A generator that writes a folder per package or
    unit gives each its own hub under one fixed name (fpdoc's and Sphinx's ``index``), beside
    pages named after what they document, and one template may render both (the LCL: 13 unit
    indexes in one cluster with 54 identifiers and members). Names that recur in only a few of
    the folders are names of the documented things (Django's ``base`` and ``fields`` modules),
    and a cluster whose other names recur as well is a series (Haddock's ``doc-index-A``...)."""
    out: dict[int, set[str]] = {}
    for label in set(labels.tolist()) - {-1}:
        members = np.flatnonzero(labels == label)
        recurring, folders_of, rest, unique = recurring_names(
            [file_stem(urls[i]) for i in members], [urls[i].rpartition("/")[0] for i in members], min_pts)
        if not recurring:
            continue
        covered = set().union(*(folders_of[stem] for stem in recurring))
        folders = set().union(*folders_of.values())
        if 2 * len(covered) >= len(folders) and unique >= min_pts and unique >= MOSTLY * rest:
            out[label] = recurring
    return out


def _shape_parted(labels: np.ndarray, keys: Sequence[str], min_pts: int) -> set[int]:
    """The clusters whose sample holds at least ``min_pts`` pages of each of two or more name
    shapes (``keys``: :func:`cut_key`'s; a name shape is one without a leading ``=``): those a
    cut by shapes alone could part. Elsewhere ``shapes_recurring`` reads a shaped name as a name:
    one shape beside unshaped names is no kind of its own (Python's dotted library modules,
    ``xml.dom.minidom``, beside ``json``), and a cut by recurring names must not part it off."""
    counts = pages_by_key([key if key and not key.startswith("=") else None for key in keys], labels)
    return {label for label, shapes in counts.items() if sum(n >= min_pts for n in shapes.values()) >= 2}


def _marked_clusters(labels: np.ndarray, urls: Sequence[str], keys: Sequence[str], min_pts: int) -> dict[int, str]:
    """{cluster: its marker} for the clusters no other cut by name parts (every ``keys`` entry
    '') whose sample pages mostly (``MOSTLY``) carry one leading kind marker (:func:`url_kinds`),
    beside at least ``min_pts`` pages without it whose names are mostly their own: no leading
    word that another of them carries too. A generator that names one kind by a common first
    word (git's ``git-add``, ``git-commit``; pytest's ``release-*``) names the pages of another
    kind one by one (``gitglossary``, ``gitignore``, ``user-manual``): the structure puts them in
    one cluster, the names tell them apart. Names without the marker that share first words
    among themselves are the marker's siblings (gi-docgen's ``ctor.*`` and ``func.*`` beside
    ``method.*``, Doxygen's ``struct*`` beside ``class*``, each under the kind-marker share):
    kinds of one family, which the cut leaves together."""
    marks = [marker_key(kind) for kind in url_kinds(urls, markers=True)]
    prefixes = [name_prefix(url) for url in urls]
    out: dict[int, str] = {}
    for label in set(labels.tolist()) - {-1}:
        members = np.flatnonzero(labels == label)
        if any(keys[i] for i in members):
            continue
        counts = Counter(marks[i] for i in members if marks[i])
        if len(counts) != 1:
            continue
        marker = next(iter(counts))
        rest = [prefixes[i] for i in members if prefixes[i] != marker]
        if len(members) - len(rest) < MOSTLY * len(members) or len(rest) < min_pts:
            continue
        shared = Counter(p for p in rest if p)
        own = sum(not p or shared[p] == 1 for p in rest)
        if own >= MOSTLY * len(rest):
            out[label] = marker
    return out


def cut_by_marker(labels: np.ndarray, urls: Sequence[str], min_pts: int, alpha: float = NAMESPACE_ALPHA,
                  namespaces: str = "all_clusters", by: str = "markers",
                  known: Sequence[str] | None = None,
                  unmarked: str = "keep") -> tuple[np.ndarray, dict[int, dict[str, int]]]:
    """A cluster holding at least ``min_pts`` sample pages of each of two or more leading kind
    markers of one folder (:func:`url_kinds`; with ``by: shapes`` two or more name shapes,
    :func:`name_shape`; with ``shapes_recurring`` also a cluster's recurring names and its others,
    :func:`_recurring_names`) is cut into one cluster per marker — unless the
    other clusters say the markers are namespaces of one kind (:func:`namespace_parts`, the
    test :func:`cut_by_folder` makes of sections). Returns the labels (parts numbered after the
    existing clusters; the largest marker keeps the label, unmarked pages and markers under
    ``min_pts`` pages stay with it) and ``{cluster: {marker key: cluster}}`` for each cluster
    cut, keyed by the marker (:func:`marker_key`), so a new page is placed by its own.

    Why: a generator can render several kinds of page with one template into one folder and
    name each by its file name's first word (a reference whose modules are ``r.*``, ``v.*``,
    ``db.*`` by what they work on); the structure cannot tell them apart, the file name can.
    A first word that names a namespace instead (Haddock's ``Data-*``, ``GHC-*`` module pages
    beside their ``src/`` listings) recurs in every kind in like proportions, which the
    namespace test sees; a prefix beside unmarked pages (Doxygen's ``class*`` member lists
    beside ``struct*`` ones under the kind-marker share) is one marker, so nothing is cut.
    ``known``: every URL the sample knows (its pages and their links), for the member cuts'
    test of member names (:func:`_member_clusters`); the sample's URLs when None.
    ``unmarked`` (``unmarked_names``): ``cut`` parts a cluster that mostly carries one kind
    marker from its pages without it, where their names are their own
    (:func:`_marked_clusters`; not with ``by: markers``, whose keys are the markers)."""
    if len(urls) != len(labels):
        raise ValueError(f"cut_by_marker: {len(labels)} labels for {len(urls)} URLs")
    if by not in MARKER_CUTS[1:]:
        raise ValueError(f"cut_by_marker: by must be one of {MARKER_CUTS[1:]}, got {by!r}")
    if unmarked not in UNMARKED_NAMES:
        raise ValueError(f"cut_by_marker: unmarked must be one of {UNMARKED_NAMES}, got {unmarked!r}")
    keys = [marker_key(kind) for kind in url_kinds(urls, markers=True)] if by == "markers" else \
        [cut_key(url, by) for url in urls]
    shown: set[int] = set()   # the number of words is read only where the cluster shows members
    if by in MEMBER_CUTS:
        shown = _member_clusters(labels, urls, [member_words(url) for url in urls],
                                 urls if known is None else known, min_pts)
    if by == "shapes_members":
        keys = [key if key not in ("1w", "2w") or label in shown else ""
                for key, label in zip(keys, labels.tolist())]
    recurring: dict[int, set[str]] = {}
    if by in RECURRING_CUTS:   # a name is read only where the cluster shows recurring names
        recurring = _recurring_names(labels, urls, min_pts)
        shaped = _shape_parted(labels, keys, min_pts)
        keys = [_recurring_key(key, url, label, shaped, recurring, shown)
                for key, url, label in zip(keys, urls, labels.tolist())]
    if unmarked == "cut" and by != "markers":
        marked = _marked_clusters(labels, urls, keys, min_pts)
        keys = [_marked_key(marked[label], url) if label in marked else key
                for key, url, label in zip(keys, urls, labels.tolist())]
    counts = pages_by_key([key or None for key in keys], labels)
    out = labels.copy()
    fresh = int(labels.max()) + 1 if len(labels) else 0
    cuts: dict[int, dict[str, int]] = {}
    for label in sorted(counts):
        big = [k for k, n in counts[label].most_common() if n >= min_pts]
        if len(big) < 2:
            continue
        parts = namespace_parts(label, big, counts, min_pts, alpha, namespaces)
        if len(parts) >= 2:
            members = np.flatnonzero(labels == label)
            fresh = cut_into_parts(out, cuts, label, parts, counts[label], members, keys, fresh)
            if RECURRING in cuts[label]:   # a new page is placed by its own name
                cuts[label].update({f"={stem}": cuts[label][RECURRING] for stem in recurring[label]})
    return out, cuts


def _recurring_key(key: str, url: str, label: int, shaped: set[int], recurring: dict[int, set[str]],
                   shown: set[int]) -> str:
    """What the recurring cuts part a sample page by: its name shape where its cluster holds two
    shapes (:func:`_shape_parted`), else, where the cluster shows recurring names, whether its
    name is one of them; the others are one part, or with ``shapes_recurring_members`` parted by
    their number of words where the cluster shows members (:func:`_member_clusters`). '' leaves
    the page with its cluster's largest part."""
    if not key.startswith("=") and label in shaped:
        return key
    if label in recurring and file_stem(url) in recurring[label]:
        return RECURRING
    if label in shown:
        return member_words(url) or (OTHER_NAMES if label in recurring else "")
    return OTHER_NAMES if label in recurring else ""


def _marked_key(marker: str, url: str) -> str:
    """The part of a marked cluster (:func:`_marked_clusters`) a page at ``url`` falls in: its
    marker's or the unmarked names'. The name alone decides, so a page the sample never saw is
    placed the same way (:func:`part_key`)."""
    return f"{MARKED}{marker}" if name_prefix(url) == marker else UNMARKED


def part_key(parts: dict[str, int], url: str, by: str) -> str | None:
    """The key under which a cluster cut by file name (its ``marker_cuts_`` entry, ``parts``)
    holds a page at ``url``; None for a name the cut did not part. With ``shapes_recurring`` a
    name (or a shape the cut did not part) that is not one of the cluster's recurring names is
    one of the others; with ``shapes_recurring_members`` a short dotted name is first placed by
    its number of words where the cut parted them; in a marked cluster cut from its unmarked
    names (``unmarked_names: cut``) a page is placed by whether its name carries the marker."""
    if UNMARKED in parts:
        marked = next((key for key in parts if key.startswith(MARKED)), None)
        if marked is not None:
            return _marked_key(marked[len(MARKED):], url)
    key = cut_key(url, by)
    if key in parts:
        return key
    words = member_words(url) if by == "shapes_recurring_members" else ""
    if words and words in parts:   # a short dotted name has no shape: cut_key read it as a name
        return words
    if OTHER_NAMES not in parts:
        return None
    name = f"={file_stem(url)}"   # a shape the cut did not part is read as a name (_shape_parted)
    return name if name in parts else OTHER_NAMES


def name_part_of(parts: dict[str, int], url: str, by: str) -> int | None:
    """The part of a cluster cut by file name that a page at ``url`` falls in (:func:`part_key`);
    None for a name the cut did not part."""
    key = part_key(parts, url, by)
    return None if key is None else parts[key]


def sought_parts(parts: dict[str, int]) -> dict[int, int]:
    """{part: the part a target crawl counts it as} for a cluster cut by file name (its
    ``marker_cuts_`` entry): each part is its own, but a cluster's recurring names and its other
    names (``shapes_recurring``) are one. Why: the recurring names are the hubs of the folders
    whose other pages they list (fpdoc's and Sphinx's ``index``), a kind of their own for the
    sitemap, yet a crawl for the listed pages that counts them as another kind's pages ranks the
    way to its targets as a miss (the design sites: Python's library modules, harvest 0.994 ->
    0.978 when it did, round 18). Where the cut parts the others by their number of words
    (``shapes_recurring_members``) the hubs are one with the one-word names: a unit's ``index``
    lists its types, and each type lists its members."""
    listed = "1w" if "1w" in parts else OTHER_NAMES
    joined = [parts[key] for key in (RECURRING, listed) if key in parts]
    out = {part: part for part in parts.values()}
    out.update({part: min(joined) for part in joined})
    return out


def is_recurring(parts: dict[str, int], url: str, by: str) -> bool:
    """Whether a cluster cut by file name (its ``marker_cuts_`` entry) holds a page at ``url``
    among its recurring names (``RECURRING_CUTS``): one of the folders' hubs."""
    return RECURRING in parts and name_part_of(parts, url, by) == parts[RECURRING]


def marker_key(kind: tuple[str, str, str] | None) -> str:
    """A URL kind's leading marker, '' for a page whose file name carries none. The word alone,
    not its folder: a namespace's word recurs in every folder of a kind's pages (Haddock's
    ``Data-*`` module pages and their ``src/Data-*`` listings), and the namespace test must see
    it in both."""
    return kind[1] if kind and kind[1] else ""
