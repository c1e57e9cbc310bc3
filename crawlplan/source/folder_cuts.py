"""The cut by section (``folder_cut``): a cluster one template renders over several sections of
a site is cut by section unless the sections are namespaces of one kind or the file names mark
the kind; the pages every section holds under one path (``section_copies``) are a part of their
own. Split from :mod:`crawlplan.source.url_kinds`, whose URL reading it uses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np

from crawlplan.source.url_kinds import (
    MOSTLY,
    NAMESPACE_ALPHA,
    cut_into_parts,
    folder_root,
    namespace_parts,
    pages_by_key,
    recurring_names,
    top_folder,
    url_kinds,
)

# cut_by_folder with section_copies apart: the part key of a page at a path other sections
# hold too (a section name has no "/", so no section is read as one)
COPY_KEY = "copy/"


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
        rest = Counter(sections[i] for i in others if sections[i] is not None)   # None: outside the root
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
    _, _, alone, _ = recurring_names([inner[i] for i in members], [sections[i] for i in members], 2)
    return len(members) - alone >= MOSTLY * len(members)


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
    paths, _, rest, unique = recurring_names([inner[i] for i in members], [sections[i] for i in members], min_pts)
    return paths if paths and rest and unique >= MOSTLY * rest else set()


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


def _marked_share(members, sections: list, marked: list[bool], section: str) -> float:
    inside = [marked[i] for i in members if sections[i] == section]
    return sum(inside) / len(inside)
