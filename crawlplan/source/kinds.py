"""Kinds the structure splits by the page's wrapper (``kind_join``): one kind of page rendered
under different wrapper classes.

A manual's generator wraps each page's body in an element whose class names the page's level:
makeinfo writes ``div.chapter``, ``div.section`` and ``div.subsection`` around the same header,
text and navigation; DocBook writes ``div.chapter``, ``div.sect1``, ``div.sect2``. With a class
token on every step (``xpath_classes: elements``) each level's paths are disjoint from the
others', so the levels of one kind come out as separate clusters however the eps is chosen. Two
kinds that share a wrapper class but differ inside it (Sphinx's API pages and prose, a GTK-Doc
``refentry`` against its chapter lists) are untouched: what is compared is everything *inside*
the wrapper.

The rule, on the kinds only (the crawl's clusters are left as they are): two kinds are one when
the centroids of their pages' wrapper-blind bags (:func:`wrapper_blind`) have a cosine of at
least ``kind_join`` and most of their pages lie in the same section of the site — a cut by
section (``folder_cut``) is the URL's verdict that the pages are different kinds, and it stands.
Designed on the design sites (asymptote's makeinfo manual: three levels, one kind), decided on
the validation sites (docs/source.md, "Kinds split by their wrapper (round 8)").
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from crawlplan.source.name_cuts import part_key
from crawlplan.source.url_kinds import (
    KIND_MIN_PAGES,
    MOSTLY,
    folder_parts,
    folder_root,
    numbered_families,
    top_folder,
)

# the settings under which a learner's clusters are its kinds, nothing joined: a learner fitted
# inside another (the kind model, the link-context clustering) reports no kinds of its own
KINDS_ARE_CLUSTERS = {"kinds": "clusters", "kind_join": 0.0, "kind_cross_join": 0.0, "kind_root_join": 0.0,
                      "kind_wrapper_cut": 0.0, "kind_folder_join": False, "kind_numbered_join": False,
                      "kind_section_join": False, "kind_cluster_join": False}
WRAPPER_SHARE = 0.5   # a wrapper holds more than half of the page's elements: it is the page, not a block in it
KIND_LEVELS = ("collapsed", "as_written")
_LEVEL_NUMBER = re.compile(r"(?<=[a-z])[0-9]+\b")   # sect2 -> sect, toctree-l3 -> toctree-l
_STEP_CLASS = re.compile(r"\[([^\]]*)\]")


def wrapper_blind(bag: Mapping[str, int], share: float = WRAPPER_SHARE) -> dict[str, int]:
    """The bag with the class token dropped from every step that holds more than ``share`` of
    the page's elements (``div[section]`` -> ``div`` on every path below it)."""
    wrappers = _wrappers(bag, share)
    if not wrappers:
        return dict(bag)
    out: dict[str, int] = {}
    for path, n in bag.items():
        steps = path.split("/")
        blind = "/".join(step.split("[", 1)[0] if "/".join(steps[:k + 1]) in wrappers else step
                         for k, step in enumerate(steps))
        out[blind] = out.get(blind, 0) + n
    return out


def _wrappers(bag: Mapping[str, int], share: float = WRAPPER_SHARE) -> set[str]:
    """The path prefixes ending in a classed step that hold more than ``share`` of the page's
    elements (``/html/body/div[refentry]``)."""
    total = sum(bag.values())
    held: dict[str, int] = {}
    for path, n in bag.items():
        steps = path.split("/")
        for k in range(2, len(steps) + 1):
            prefix = "/".join(steps[:k])
            held[prefix] = held.get(prefix, 0) + n
    return {p for p, n in held.items() if n > share * total and "[" in p.rsplit("/", 1)[-1]}


def page_wrapper(bag: Mapping[str, int]) -> str | None:
    """The classed element wrapping most of the page, outermost first (``div[refentry]``), or
    None: the generator's own name for what the page is."""
    wrappers = _wrappers(bag)
    return min(wrappers, key=lambda p: (p.count("/"), p)).rsplit("/", 1)[-1] if wrappers else None


def parted_by_wrapper(labels, bags: Sequence[Mapping[str, int]], min_pts: int, share: float) -> np.ndarray:
    """The kinds with a kind that holds more than ``share`` of the sample's clustered pages parted
    by the pages' wrapper (:func:`page_wrapper`): each wrapper other than the kind's most common
    one that wraps at least ``min_pts`` of its pages becomes a kind (a new label); the rest stay.

    Why (``kind_wrapper_cut``): on a site whose pages share one template and one folder, the kind
    model's one eps can take the whole site for one kind — Csound's manual (a design site, issue
    30's round 28) puts its opcode entries (``div.refentry``) and its overview and chapter pages
    (``div.section``) in one kind of 97 % of the sample. The wrapper is the generator's verdict
    that they are different pages. The levels of one kind that a generator wraps differently
    (``div.chapter`` / ``div.section``) are joined again by ``kind_join``."""
    labels = np.asarray(labels, dtype=int)
    clustered = int((labels != -1).sum())
    out = labels.copy()
    following = int(labels.max()) + 1 if len(labels) else 0
    for kind in sorted(set(labels.tolist()) - {-1}):
        members = np.flatnonzero(labels == kind)
        if len(members) <= share * clustered:
            continue
        wrapper = {int(i): page_wrapper(bags[i]) for i in members}
        counts = Counter(wrapper.values())
        largest = counts.most_common(1)[0][0]
        for name, n in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
            if name == largest or n < min_pts:
                continue
            out[[i for i, w in wrapper.items() if w == name]] = following
            following += 1
    return out


def levels_collapsed(bag: Mapping[str, int]) -> Counter:
    """The bag with every block's nesting level read away: a class token's level number dropped
    (``div[sect2]`` -> ``div[sect]``), then a step that repeats its parent step left out
    (``div[sect]/div[sect]/p`` -> ``div[sect]/p``).

    Why (``kind_levels`` and ``state_levels: collapsed``, how the kind model and the crawl's
    clusters read a page): a manual's section page holds its
    sub-sections as the same block nested one level down (DocBook's ``sect1`` > ``sect2`` >
    ``sect3``, Sphinx's ``section`` in ``section``), so a long section and a short one share
    almost no path below the wrapper and split into kinds by how deep they nest (GnuCash's
    guide, a design site: five section kinds, its sections over nine crawl states). Read away,
    the levels leave the section's own blocks (paragraphs, lists, tables), which the clusters
    compare."""
    out: Counter = Counter()
    for path, n in bag.items():
        out[_path_levels_collapsed(path)] += n
    return out


@functools.lru_cache(maxsize=1 << 16)
def _path_levels_collapsed(path: str) -> str:
    """One path of :func:`levels_collapsed`; cached, since a site's pages repeat the same
    paths page after page (fitting and every ``predict_kind`` call)."""
    steps: list[str] = []
    for step in path.split("/"):
        step = _STEP_CLASS.sub(lambda m: "[" + _LEVEL_NUMBER.sub("", m.group(1)) + "]", step)
        if not (steps and step == steps[-1] and "[" in step):
            steps.append(step)
    return "/".join(steps)


def _centroid(bags: Sequence[Mapping[str, int]]) -> dict[str, float]:
    """Mean of the pages' L2-normalised log-tf vectors, L2-normalised (cosine = dot product)."""
    total: dict[str, float] = {}
    for bag in bags:
        weights = {p: math.log2(1 + n) for p, n in bag.items() if n > 0}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        for p, w in weights.items():
            total[p] = total.get(p, 0.0) + w / norm
    norm = math.sqrt(sum(v * v for v in total.values())) or 1.0
    return {p: v / norm for p, v in total.items()}


def join_wrapper_variants(labels: Sequence[int], bags: Sequence[Mapping[str, int]],
                          sections: Sequence[str | None], threshold: float, across: float = 0.0,
                          into_root: float = 0.0) -> dict[int, int]:
    """{kind: the kind it joins} for every kind (-1, the outliers, excluded): kinds whose
    wrapper-blind centroids have cosine >= ``threshold`` and whose pages mostly lie in one and
    the same section are one kind, named by the smallest label among them; with ``across`` > 0
    (``kind_cross_join``) so are kinds of different sections with cosine >= ``across``; with
    ``into_root`` > 0 (``kind_root_join``) a kind of a section joins a kind of the site's root
    folder (section '') that holds more of the sample's pages, at cosine >= ``into_root``.

    Why the root and the size: a manual that keeps most of its guides in its root folder and a
    few in a folder per topic (an Apache manual's ``rewrite/``, ``vhosts/``) has one kind the
    cut by section split; a site whose sections are its kinds (CMake's ``command/``,
    ``variable/``) keeps few pages in its root, and where a section's kind outnumbers the root's
    (pytest's how-to guides against its root's site pages, one Sphinx template) the section is
    the kind's home and the root's pages are another kind."""
    members: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        if label != -1:
            members.setdefault(int(label), []).append(i)
    kinds = sorted(members)
    centroid = {k: _centroid([wrapper_blind(bags[i]) for i in members[k]]) for k in kinds}
    section = {k: Counter(sections[i] for i in members[k]).most_common(1)[0][0] for k in kinds}

    def limit(a: int, b: int) -> float:
        if section[a] == section[b]:
            return threshold
        root, other = (a, b) if section[a] == "" else (b, a)
        if into_root > 0 and section[root] == "" and len(members[root]) > len(members[other]):
            return min(into_root, across) if across > 0 else into_root
        return across

    def alike(a: int, b: int) -> bool:
        least = limit(a, b)
        if least <= 0:
            return False
        small, large = sorted((centroid[a], centroid[b]), key=len)
        return sum(v * large.get(p, 0.0) for p, v in small.items()) >= least

    return _union(((a, b) for i, a in enumerate(kinds) for b in kinds[i + 1:] if alike(a, b)), kinds)


def _union(pairs, kinds: Sequence[int] = ()) -> dict[int, int]:
    """{kind: the smallest kind joined with it}, the pairs joined transitively; a kind of
    ``kinds`` no pair names maps to itself, one neither names is left out."""
    parent = {k: k for k in kinds}

    def root(k: int) -> int:
        while parent.setdefault(k, k) != k:
            k = parent[k]
        return k

    for a, b in pairs:
        ra, rb = root(a), root(b)
        parent[max(ra, rb)] = min(ra, rb)
    return {k: root(k) for k in parent}


def join_by_folder_name(labels: Sequence[int], urls: Sequence[str]) -> dict[int, int]:
    """{kind: the kind it joins} for the kinds (-1 excluded) that a repeated folder name names:
    kinds that each have at least ``MOSTLY`` of their pages in folders of one name, a name found
    under at least ``KIND_MIN_PAGES`` different parent folders, are one kind (smallest label).

    Why: a generator that writes one kind of page beside every namespace names the folder after
    the kind — javadoc's ``class-use/`` in every package. The folder name then says what the
    file-name markers say elsewhere (``url_kinds``): the pages are one kind, whatever optional
    block (a class used nowhere against one with usage tables) the structure split them by.
    A name under one or two parents is a section's or a module's, and names nothing."""
    names: list[str | None] = []
    parents: dict[str, set] = {}
    for label, url in zip(labels, urls):
        folders = folder_parts(url)
        names.append(folders[-1] if folders and len(folders) >= 2 else None)
        if names[-1] is not None and label != -1:
            parents.setdefault(names[-1], set()).add("/".join(folders[:-1]))
    return _mostly_in_one(labels, names, lambda name: len(parents[name]) >= KIND_MIN_PAGES)


def join_by_numbered_name(labels: Sequence[int], urls: Sequence[str], min_pts: int) -> dict[int, int]:
    """{kind: the kind it joins}: kinds (-1 excluded) more than half of whose pages are pieces of
    one numbered family (:func:`url_kinds.numbered_families`: ``index-4.html``, ``index-8.html``
    in every unit's folder) are one kind (smallest label), a family of at least two kinds' worth
    (2 x ``min_pts``) of the sample's pages.

    Why: the pieces of one numbered thing (fpdoc's unit index, a list of classes in one piece and
    of procedures in the next; gettext's chapters) differ in structure and the kinds split them,
    while the name numbers them as one. A kind that merely holds some of a family's pages
    (Csound's ``GENnn`` among its opcodes) or a family of one class's few pages
    (``tdocktree-4.html``) is not named by it."""
    families = numbered_families(urls)
    size = Counter(f for f, label in zip(families, labels) if f is not None and label != -1)
    return _mostly_in_one(labels, families, lambda family: size[family] >= 2 * min_pts,
                          enough=lambda n, total: n > total / 2)


def join_by_section(labels: Sequence[int], sections: Sequence[str | None],
                    kind_sections: set[str]) -> dict[int, int]:
    """{kind: the kind it joins} for the kinds (-1 excluded) that each have at least ``MOSTLY``
    of their pages in one and the same section of ``kind_sections``: one kind (smallest label).

    Why: where the section cut found the site's sections to be kinds (``kind_sections``: the
    sections a cut gave a part of their own, :func:`section_kinds`), the URL has said what a
    page of the section is; two structures inside one section (Python's ``c-api/`` API pages
    and its few prose pages) are that section's one kind rendered two ways. Sections the cut
    left together as namespaces (javadoc's ``org/`` and ``junit/``) name no kind."""
    return _mostly_in_one(labels, sections, kind_sections.__contains__)


def join_within_clusters(kinds: Sequence[int], clusters: Sequence[int], sections: Sequence[str | None],
                         min_pts: int) -> dict[int, int]:
    """{kind: the kind it joins}: two kinds (-1 excluded) that each hold at least ``min_pts``
    sample pages of one of the crawl's clusters, those pages mostly (``MOSTLY``) in one and the
    same section (the folder below the site's root; files in the root are one place too), are
    one kind (smallest label).

    Why: the kinds come from a second, coarser clustering (smooth idf, levels collapsed), yet
    on a small sample it can part what the crawl's finer clusters hold together — gettext's
    manual chapters, all ``gettext_N.html`` in one folder, in two kinds by the eps its
    silhouette chose. A part of one crawl cluster lying where the other part lies has neither
    the finer structure nor the URL to call it a kind of its own. Parts in different sections
    (Django's ``topics/`` and ``internals/`` pages, one cluster) stay apart: the section is the
    URL's verdict, as in the cut by section."""
    cells: dict[tuple[int, int], Counter] = {}
    for kind, cluster, section in zip(np.asarray(kinds).tolist(), np.asarray(clusters).tolist(), sections):
        if kind != -1 and cluster != -1:
            cells.setdefault((cluster, kind), Counter())[section] += 1
    together: dict[tuple[int, str | None], list[int]] = {}   # (cluster, section) -> the kinds placed there
    for (cluster, kind), counts in cells.items():
        section, n = counts.most_common(1)[0]
        total = sum(counts.values())
        if total >= min_pts and n >= MOSTLY * total:
            together.setdefault((cluster, section), []).append(kind)
    return _union((group[0], other) for group in together.values() for other in group[1:])


def _mostly_in_one(labels: Sequence[int], keys: Sequence[str | None], names_a_kind,
                   enough=lambda n, total: n >= MOSTLY * total) -> dict[int, int]:
    """{kind: the kind it joins}: kinds (-1 excluded) that each have ``enough`` of their pages
    (``MOSTLY``, unless told) under one and the same key, a key ``names_a_kind`` accepts, are
    one (smallest label)."""
    by_label: dict[int, Counter] = {}
    for label, key in zip(labels, keys):
        if label != -1:
            by_label.setdefault(int(label), Counter())[key] += 1
    named: dict[str, list[int]] = {}
    for label, counts in by_label.items():
        key, n = counts.most_common(1)[0]
        if key is not None and names_a_kind(key) and enough(n, sum(counts.values())):
            named.setdefault(key, []).append(label)
    return {k: min(group) for group in named.values() if len(group) > 1 for k in group}


def section_kinds(folder_cuts: Mapping[int, Mapping[str, int]]) -> set[str]:
    """The sections that a cut by section (``folder_cuts_``) gave a part of their own."""
    out: set[str] = set()
    for parts in folder_cuts.values():
        owners = Counter(parts.values())
        out.update(section for section, part in parts.items() if owners[part] == 1)
    return out


def marker_sections(sections: Sequence[str | None], labels, urls: Sequence[str],
                    marker_cuts: Mapping[int, Mapping[str, int]], by: str) -> list[str | None]:
    """The pages' sections, a page of a part that a cut by marker gave it (``marker_cuts_``)
    in a section of its marker's: the cut is the file name's verdict that the parts are kinds,
    and the wrapper join, which joins kinds of one section by their template, must not undo it."""
    parts_of = {part: parts for parts in marker_cuts.values() for part in parts.values()}
    out = list(sections)
    for i, (label, url) in enumerate(zip(np.asarray(labels).tolist(), urls)):
        marker = part_key(parts_of[label], url, by) if label in parts_of else None
        if marker is not None and out[i] is not None:
            out[i] = f"{out[i]}|{marker}"
    return out


def _then(kinds: np.ndarray, joins: dict[int, int], more: dict[int, int]) -> dict[int, int]:
    """``joins`` followed by ``more`` (a join of the already joined kinds), for every kind."""
    if not more:
        return joins
    return {k: more.get(joins.get(k, k), joins.get(k, k)) for k in set(kinds.tolist()) - {-1}}


def joined(kinds, joins: Mapping[int, int] | None) -> np.ndarray:
    """Kinds with ``joins`` (:func:`join_wrapper_variants`) applied; -1 stays the outlier."""
    kinds = np.asarray(kinds, dtype=int)
    if not joins:
        return kinds
    return np.array([joins.get(k, k) for k in kinds.tolist()], dtype=int)


def fit_kinds(learner, X, bags, urls, links, resolve):
    """A fitted learner's kinds: (the kind model or None, the sample's kinds, the joins, the
    structure's joins: the wrapper joins alone, without the joins by URL name, which a UCC
    crawl's units read — :meth:`SitemapLearner.ucc_states`).

    ``kinds: smooth_idf``: the same learner fitted on the same sample with smooth idf is the kind
    model (its clusters are the kinds; the learner's own clusters stay the crawl's states),
    reading the pages' levels by ``kind_levels`` (its own ``state_levels``) and cutting by file
    name by ``kind_marker_cut`` (its own ``marker_cut``), and with ``kind_wrapper_cut`` > 0 a kind
    over that share of the sample parted by the pages' wrapper (:func:`parted_by_wrapper`);
    ``clusters``: every cluster is a kind. ``kind_join`` > 0 then joins the wrapper variants of
    one kind, within a section (the sample's sections below the site's root folder), and
    ``kind_root_join`` > 0 a section's kind to a larger kind of the root folder,
    ``kind_folder_join`` the kinds one repeated folder name names (:func:`join_by_folder_name`),
    ``kind_numbered_join`` the kinds one numbered file name names (:func:`join_by_numbered_name`)
    and ``kind_section_join`` the kinds of one section the cut found a kind
    (:func:`join_by_section`), ``kind_cluster_join`` the kinds that part one of the crawl's
    clusters within one section (:func:`join_within_clusters`)."""
    model = None
    if learner.kinds_ == "smooth_idf":
        coarse = dataclasses.replace(learner.settings, idf="smooth", state_levels=learner.kind_levels_,
                                     marker_cut=learner.kind_marker_cut_, **KINDS_ARE_CLUSTERS)
        model = type(learner)(coarse).fit(X, urls=urls, links=links, resolve=resolve, navigation=False)
        if learner.kind_wrapper_cut_ > 0:
            parted = parted_by_wrapper(model.labels_, bags, learner.min_pts, learner.kind_wrapper_cut_)
            if (parted != model.labels_).any():   # the kind model's clusters are the kinds: it learns the parts
                model.labels_ = parted
                model._learn_from_labels()
    kinds = learner.labels_ if model is None else model.labels_
    joins: dict[int, int] = {}
    root = folder_root(urls) if urls is not None else "/"
    sections = [top_folder(u, root) for u in urls] if urls is not None else [None] * len(bags)
    if urls is not None and getattr(model or learner, "marker_cuts_", None):
        sections = marker_sections(sections, kinds, urls, (model or learner).marker_cuts_,
                                   (model or learner).marker_cut_)
    if learner.kind_join_ > 0 or learner.kind_cross_join_ > 0 or learner.kind_root_join_ > 0:
        joins = join_wrapper_variants(kinds.tolist(), bags, sections, learner.kind_join_, learner.kind_cross_join_,
                                      learner.kind_root_join_)
    structure_joins = dict(joins)
    if learner.kind_folder_join_ and urls is not None:
        joins = _then(kinds, joins, join_by_folder_name(joined(kinds, joins).tolist(), urls))
    if learner.kind_numbered_join_ and urls is not None:
        joins = _then(kinds, joins, join_by_numbered_name(joined(kinds, joins).tolist(), urls, learner.min_pts))
    if learner.kind_section_join_ and urls is not None:
        kind_sections = section_kinds((model or learner).folder_cuts_)
        joins = _then(kinds, joins, join_by_section(joined(kinds, joins).tolist(), sections, kind_sections))
    if learner.kind_cluster_join_ and urls is not None:
        joins = _then(kinds, joins, join_within_clusters(joined(kinds, joins).tolist(), learner.labels_,
                                                         sections, learner.min_pts))
    return model, joined(kinds, joins), joins, structure_joins


# what a crawl takes a structural cluster for (``target_unit``, ``ucc_unit``): itself, or its kind
UNITS = ("cluster", "kind")


def cluster_kinds(labels: Sequence[int], kinds: Sequence[int]) -> dict[int, int]:
    """{cluster: the kind most of its sample pages have}, for the sample's cluster ``labels``
    (structural clusters, or their section parts) and kind labels; a tie goes to the smaller
    kind label, so the map does not depend on the sample's order."""
    counts: dict[int, Counter] = {}
    for c, k in zip(np.asarray(labels).tolist(), np.asarray(kinds).tolist()):
        counts.setdefault(c, Counter())[k] += 1
    return {c: min(n, key=lambda k: (-n[k], k)) for c, n in counts.items()}
