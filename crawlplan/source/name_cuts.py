"""The cut by file name (``marker_cut``): a cluster whose pages' file names say they are
several kinds of page is cut into one part per kind, unless the names are namespaces of one
kind. What a name says is read by :func:`cut_key`: its leading kind marker (``markers``), the
case pattern of a dotted name (``shapes``), and the number of words of a short dotted name where
the folder shows member pages (``shapes_members``). Only the URL is read, so a page the sample
never saw, or a link not fetched yet, is placed in its part all the same (``learner.part_of``).
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
    url_kinds,
)

# _member_clusters: the share of a cluster's sample pages that two-word member names must hold
# before the number of words cuts it (the design sites: fpdoc's members 39%; Python's dotted
# modules 17%, javadoc's nested classes 7-12%)
MEMBER_MIN_SHARE = 0.25

MARKER_CUTS = ("off", "markers", "shapes", "shapes_members")
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
    (``shapes_members``, :func:`member_words`)."""
    if by == "shapes_members":
        return name_shape(url) or member_words(url)
    return name_shape(url) if by == "shapes" else name_prefix(url)


def _member_clusters(labels: np.ndarray, urls: Sequence[str], keys: Sequence[str], known, min_pts: int) -> set[int]:
    """The clusters whose two-word names are member pages: at least ``min_pts`` sample pages
    of one word and of two, most (``MOSTLY``) of the two-word ones named after a page the site
    links in their folder (``type.member`` beside ``type``), and at least ``MEMBER_MIN_SHARE`` of
    the cluster. A type has many members, so where a generator gives each a page they are a
    large part of the pages; sub-namespaces (Python's ``os.path``, ``xml.dom``: 17% of its
    library modules) and nested types (javadoc's ``Outer.Inner``: 7-12%) are the exception.
    ``keys``: the pages' :func:`cut_key` (``1w`` and ``2w`` are their :func:`member_words`)."""
    stems: dict[str, set[str]] = {}
    for url in known:
        stems.setdefault(url.rpartition("/")[0], set()).add(file_stem(url))
    out = set()
    for label in set(labels.tolist()) - {-1}:
        members = np.flatnonzero(labels == label)
        words = Counter(keys[i] for i in members)
        if words["1w"] < min_pts or words["2w"] < min_pts or words["2w"] < MEMBER_MIN_SHARE * len(members):
            continue
        two = [urls[i] for i in members if keys[i] == "2w"]
        named = sum(file_stem(u).split(".")[0] in stems.get(u.rpartition("/")[0], ()) for u in two)
        if named >= MOSTLY * len(two):
            out.add(label)
    return out


def cut_by_marker(labels: np.ndarray, urls: Sequence[str], min_pts: int, alpha: float = NAMESPACE_ALPHA,
                  namespaces: str = "all_clusters", by: str = "markers",
                  known: Sequence[str] | None = None) -> tuple[np.ndarray, dict[int, dict[str, int]]]:
    """A cluster holding at least ``min_pts`` sample pages of each of two or more leading kind
    markers of one folder (:func:`url_kinds`; with ``by: shapes`` two or more name shapes,
    :func:`name_shape`) is cut into one cluster per marker — unless the
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
    ``known``: every URL the sample knows (its pages and their links), for ``shapes_members``'
    test of member names (:func:`_member_clusters`); the sample's URLs when None."""
    if len(urls) != len(labels):
        raise ValueError(f"cut_by_marker: {len(labels)} labels for {len(urls)} URLs")
    if by not in MARKER_CUTS[1:]:
        raise ValueError(f"cut_by_marker: by must be one of {MARKER_CUTS[1:]}, got {by!r}")
    keys = [marker_key(kind) for kind in url_kinds(urls, markers=True)] if by == "markers" else \
        [cut_key(url, by) for url in urls]
    if by == "shapes_members":   # the number of words is read only where the cluster shows members
        shown = _member_clusters(labels, urls, keys, urls if known is None else known, min_pts)
        keys = [key if key not in ("1w", "2w") or label in shown else ""
                for key, label in zip(keys, labels.tolist())]
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
    return out, cuts


def marker_key(kind: tuple[str, str, str] | None) -> str:
    """A URL kind's leading marker, '' for a page whose file name carries none. The word alone,
    not its folder: a namespace's word recurs in every folder of a kind's pages (Haddock's
    ``Data-*`` module pages and their ``src/Data-*`` listings), and the namespace test must see
    it in both."""
    return kind[1] if kind and kind[1] else ""
