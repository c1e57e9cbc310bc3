"""The target crawl's link score: what a link found under one (cluster, Apath) row is worth to a
crawl that wants pages of one kind (SOUrCe section 4.3), and the example page's URL family.

Four scores (``target_score``): the paper's blend of P(C_t | row) and a HITS hub score, the
same blend with hubs by the distinct target links a page yields, ``rate`` (the default until
issue 30) — the targets gained per page fetched, which puts a hub page and a likely target on one
scale — and ``likely_first`` (the default since issue 30's round 11): the paper's blend for the
links whose row mostly leads to the target, and ``rate`` for the rest, after them.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass

from crawlplan.source import navigation as nav
from crawlplan.source.kinds import UNITS
from crawlplan.source.listings import example_listing
from crawlplan.source.name_cuts import sought_parts
from crawlplan.source.url_kinds import (
    FAMILY_MAX_SHARE,
    MOSTLY,
    kind_markers,
    marked_kind,
    name_prefix,
    url_family,
)

TARGET_SCORES = ("paper", "yield", "rate", "likely_first")
# what a target crawl seeks (target_unit): the example's structural cluster, every cluster of its
# kind, or the part of its cluster that the example's file name falls in (TargetFeedback.other_part)
TARGET_UNITS = UNITS + ("name_part", "split_kind")
# split_kind: the example's cluster is a piece of its kind when it holds less than this share of
# the kind's sample pages (design: GnuCash's guide, 22 of its kind's 96 in 12 clusters, 0.23; the
# other design sites whose kind spans several clusters: 0.45-0.89, and Django's 0.12, whose crawl
# seeks its example's URL family instead)
SPLIT_KIND_SHARE = 1 / 3
# added to the score of a link in the example's family: it ranks before every link outside it
# (those score at most 1, at most 2 with likely_first)
FAMILY_FIRST = 1.0
# likely_first: a link whose row leads to the target at least this often (url_kinds.MOSTLY) is a
# likely target; added to its score, it ranks before every link that is not (scored by rate, <= 1)
LIKELY = 1.0


class TargetFeedback:
    """The target crawl's link score per (cluster, Apath) row, learned online.

    The paper scores a row once, from the sample: alpha P(C_t | C_i, x) + (1 - alpha)
    sum_j P(C_j | C_i, x) h_j (``target_score`` paper; ``yield``: the same with
    :func:`hub_worth`'s yields for h; ``rate``, the default until issue 30: :meth:`value`). A sample of a few
    hundred pages sees each row a few times, so a row that leads to the target cluster
    *sometimes* (a Sphinx toctree, a forum's sidebar) keeps outranking hub pages that lead there
    reliably. Here P(C_t | row) is a Beta-style estimate:
    the table's value weighted as ``target_feedback`` pages, plus the crawler's own fetches
    through that row, classified by the sitemap (no page types involved). With 0 the score is
    fixed at enqueue time (the paper's, with ``target_score`` paper).

    With ``target_url`` ``family`` the example page's URL family (:func:`example_family`: its
    folder and depth, narrowed to its file-name kind where the folder mixes kinds) is a second
    sign of the target: a link in that family is a sure target link (P(C_t) = 1) whatever its
    row says and is fetched before any link outside the family, and a fetched page in it counts
    as a hit. The family is the sharper sign: the example's cluster may hold other kinds of
    page of the same template (git's concept pages beside its commands), which a row leading
    into the cluster would otherwise rank level with the family. Templates shared by several
    kinds of page (Sphinx prose: release notes, topics, how-tos) put them in one cluster; the
    folder a generator writes them to still tells them apart. Not used when more than
    ``FAMILY_MAX_SHARE`` of the training sample is in the family (one folder for the whole site).

    When the family holds most (``MOSTLY``) of the target cluster's sample pages, the family *is*
    the target (``family_is_target``): the cluster's other pages are other kinds sharing the
    template (a forum's search results beside its threads, Python's tutorial beside its library
    modules), so a page outside the family is no hit and a link outside it is worth only the way
    on it gives (the hub term). Where the family is a small part of the cluster (javadoc: the
    classes of the example's package among all classes) the cluster still defines the target.
    """

    def __init__(self, learner, rows: dict, target: int, example: str | None = None, *,
                 example_kind: int | None = None, resolve: Callable[[str], str | None] | None = None):
        self.rows, self.target = rows, target
        self.targets = target_clusters(learner, target)
        self.alpha = learner.alpha_target
        self.mode = learner.target_score_
        self.prior_weight = getattr(learner, "target_feedback_", 0.0)
        self.learns = self.prior_weight > 0
        self._prior: dict[tuple, tuple[float, float]] = {}
        self.fetched: Counter = Counter()
        self.hits: Counter = Counter()
        self._name_part, self.part = None, None
        if getattr(learner, "target_unit_", "cluster") in ("name_part", "split_kind") and example and target != -1:
            section = learner.section_part(target, example)
            cuts = getattr(learner, "marker_cuts_", None) or {}
            if section in cuts:   # else its one part is the cluster
                self._name_part = functools.partial(_sought_part, learner, section, sought_parts(cuts[section]))
                self.part = self._name_part(example)
        self.family = example_family(learner, example, self.targets)
        # where the URL names no family, the sample's index of the example's kind may (target_listing)
        self.listing = example_listing(getattr(learner, "listings_", ()), example, example_kind) \
            if self.family is None and example else None
        self._resolve = resolve
        self.family_is_target = _family_holds_target(learner, self.family, self.targets)
        family = self.family if self.family_is_target else None
        self.hubs = hub_worth(learner, self.targets, family, normalise=self.mode != "rate")
        # likely_first scores the links that are not likely targets by rate, from the yields in
        # links; rate's own hubs are those yields already
        self.yields = hub_worth(learner, self.targets, family, basis="yields", normalise=False) \
            if self.mode == "likely_first" else None

    def in_family(self, url: str | None) -> bool:
        """Whether the page at ``url`` is in the example's family: its URL family, or where the
        URL names none, the sample's listing of the example's kind (``listing``)."""
        if url is None or self.other_part(url):
            return False
        if self.listing is not None:
            return ((self._resolve(url) if self._resolve else None) or url) in self.listing
        return self.family is not None and url in self.family

    def other_part(self, url: str | None) -> bool:
        """Whether the page at ``url`` — fetched or not — is of another part than the example's
        where the cut by file name parted the example's cluster (``target_unit: name_part``):
        then it is no target, wherever the structure puts it. The cut reads the URL alone, so a
        link is judged before it is fetched. A section part is not read: two sections of one
        kind that the cut by section parted (a javadoc's packages, issue 30's round 16) are one
        target."""
        return self._name_part is not None and url is not None and self._name_part(url) != self.part

    def prior(self, row: tuple) -> tuple[float, float, float]:
        """(P(C_t | row), sum_j P(C_j | row) h_j, sum_j P(C_j | row) Y_j) from the navigation
        table: the hub term of the score and the target links a page behind the row is expected
        to reveal (with ``rate`` the two are one; only ``likely_first`` reads the third apart)."""
        if row not in self._prior:
            probs = self.rows.get(row) or {}
            hub = sum(p * self.hubs.get(c, 0.0) for c, p in probs.items())
            links = hub if self.yields is None else sum(p * self.yields.get(c, 0.0) for c, p in probs.items())
            self._prior[row] = (sum(probs.get(t, 0.0) for t in self.targets), hub, links)
        return self._prior[row]

    def is_hit(self, cluster: int, url: str | None = None) -> bool:
        if self.family_is_target:
            return self.in_family(url)
        return (cluster in self.targets and not self.other_part(url)) or self.in_family(url)

    def observe(self, row: tuple, cluster: int, url: str | None = None) -> None:
        self.fetched[row] += 1
        self.hits[row] += self.is_hit(cluster, url)

    def value(self, p_target: float, hub: float) -> float:
        """A link's worth from its chance of being a target and the hub term behind it.

        ``rate``: (p + Y) / (1 + Y), Y the target links the page is expected to reveal — the
        targets per page fetched if the crawler takes the page and then the targets it lists.
        A likely target (p near 1) and a hub listing many new targets (large Y) both approach
        1; a link that is a target three times in ten (0.3) loses to a package page listing seven
        classes (0.875). The blends weigh a hub score that sums to 1 over the clusters by
        1 - alpha = 0.2, so no hub ever beats a row that leads to the target one time in four."""
        if self.mode == "rate":
            return _rate(p_target, hub)
        return self.alpha * p_target + (1 - self.alpha) * hub

    def score(self, row: tuple, url: str | None = None) -> float:
        hub = self.prior(row)[1]
        if self.in_family(url):
            # P = 1, and ranked before every link outside the family; the hub term breaks ties
            first = FAMILY_FIRST + (LIKELY if self.mode == "likely_first" else 0.0)
            return first + self.value(1.0, 0.0) + self.value(0.0, hub)
        # outside the family where the family is the target, or in another part: only the way on counts
        p_target = 0.0 if self.family_is_target or self.other_part(url) else self._p_target(row)
        if self.mode != "likely_first":
            return self.value(p_target, hub)
        if p_target >= MOSTLY:
            return LIKELY + self.value(p_target, hub)
        # Why a second band: the paper's blend weighs a hub by 1 - alpha, so no hub outranks a row
        # that leads to the target one time in four, and once the rows that lead to targets are
        # used up the crawl follows rows that led to a target *sometimes* (a Doxygen or javadoc
        # class page's links to source listings) while the class lists that would reveal the
        # rest are never fetched (SFML's API, a design site: harvest 0.786, BFS's, against a
        # ceiling of 0.990). rate alone takes such hubs early, before likely targets, which the
        # validation sites did not take (docs/source.md, issue 30's round 1); here a hub waits
        # until no likely target is left.
        return _rate(p_target, self.prior(row)[2])

    def _p_target(self, row: tuple) -> float:
        """P(C_t | row): the table's, or with ``target_feedback`` its online estimate."""
        p_target = self.prior(row)[0]
        if self.learns:
            m = self.prior_weight
            p_target = (self.hits[row] + m * p_target) / (self.fetched[row] + m)
        return p_target

    def expected_hit(self, row: tuple | None, url: str | None = None) -> float | None:
        """The chance that the page behind a link is a hit (:meth:`is_hit`), before fetching it:
        1 in the example's family, 0 outside it where the family is the target, else
        P(C_t | row) as :meth:`score` takes it; None for a row that neither the table nor the
        crawl has seen (the BFS guard then takes BFS's own yield, ``guard.BfsShadow``)."""
        if self.in_family(url):
            return 1.0
        if self.family_is_target or self.other_part(url):
            return 0.0
        if row is None or (row not in self.rows and not self.fetched[row]):
            return None
        return self._p_target(row)


def _sought_part(learner, section: int, sought: dict[int, int], url: str) -> int:
    """The part of ``section`` a target crawl counts a page at ``url`` in (:func:`sought_parts`)."""
    part = learner.name_part(section, url)
    return sought.get(part, part)


def target_clusters(learner, target: int) -> frozenset[int]:
    """The structural clusters a target crawl seeks for an example in cluster ``target``: that
    cluster alone (``target_unit`` cluster, ``name_part``), or with ``kind`` every cluster whose
    sample pages are mostly of the same kind as its own (each cluster's most common
    ``kind_labels_``); with ``split_kind`` those only where ``target`` holds less than
    ``SPLIT_KIND_SHARE`` of their sample pages (the structure split the kind, and the example's
    cluster is a piece of it), else ``target`` alone.

    Why: the structure splits one kind of page into several clusters by small differences (a
    DocBook guide's sections with and without sub-sections, tables or figures), which the kinds
    join again (``kinds.fit_kinds``). A crawl that seeks the example's cluster alone counts the
    kind's other clusters as misses, spends its budget on hubs to reach its one cluster, and its
    BFS guard judges BFS by that narrow verdict too (GnuCash's guide: 83 sections in 12
    clusters; docs/source.md, "Never below BFS")."""
    unit = getattr(learner, "target_unit_", "cluster")
    kind_of = learner.cluster_kinds() if unit in ("kind", "split_kind") else {}
    if target not in kind_of:   # the paper's unit, an outlier example, or a cluster of no kind
        return frozenset({target})
    kin = frozenset(c for c, k in kind_of.items() if k == kind_of[target])
    if unit == "split_kind":
        sizes = learner.cluster_sizes_
        if sizes.get(target, 0) >= SPLIT_KIND_SHARE * sum(sizes.get(c, 0) for c in kin):
            return frozenset({target})
    return kin


def _as_set(target: int | Collection[int]) -> frozenset[int]:
    return frozenset(target) if isinstance(target, Collection) else frozenset({target})


def _rate(p_target: float, links: float) -> float:
    """Targets per page fetched: (P + Y) / (1 + Y) (:meth:`TargetFeedback.value`)."""
    return (p_target + links) / (1.0 + links)


def hub_worth(learner, target: int | Collection[int], family: ExampleFamily | None = None, *,
              basis: str | None = None, normalise: bool = True) -> dict[int, float]:
    """Each cluster's worth as a hub for a target crawl of ``target`` (a cluster, or the clusters
    of :func:`target_clusters`) by ``basis`` (by default what ``learner.target_score_`` uses):
    ``hits``, the paper's HITS hub on the target column (the target clusters' columns as one), or
    ``yields``, the distinct target links one page of the cluster yields in the sample
    (``cluster_yield_``; with a ``family`` that is the target, the links into that family,
    counted by URL in ``kind_yield_``) — summing to 1 with ``normalise``, as links per page
    without."""
    if basis is None:
        basis = "hits" if learner.target_score_ in ("paper", "likely_first") else "yields"
    if basis == "hits":
        A = nav.adjacency(learner.navigation_, learner.clusters_)
        return nav.hits(A, learner.clusters_, target=_as_set(target))[0]
    # a learner put together without a sample (no yields) has no hub worth: Y = 0, links rank by P
    if family is None:
        yields = getattr(learner, "cluster_yield_", None) or {}
        worth = {c: sum(yields.get(c, {}).get(t, 0.0) for t in sorted(_as_set(target))) for c in learner.clusters_}
    else:
        yields = getattr(learner, "kind_yield_", None) or {}
        worth = {c: sum(links for prefix, links in yields.get(c, {}).get(family.family, {}).items()
                        if family.has_prefix(prefix))
                 for c in learner.clusters_}
    total = sum(worth.values())
    if not normalise or total <= 0:
        return worth
    return {c: v / total for c, v in worth.items()}


@dataclass(frozen=True)
class ExampleFamily:
    """The pages a target crawl takes for the example's kind by their URL alone: the example's
    URL family (folder, depth, query keys) and, when the folder mixes kinds of page, only those
    of the example's kind — ``kind`` is the example's marker, or '' for the folder's pages that
    carry none of ``markers``; ``kind`` None is the whole folder."""
    family: str
    kind: str | None = None
    markers: frozenset = frozenset()

    def __contains__(self, url: str) -> bool:
        return url_family(url) == self.family and self.has_prefix(name_prefix(url))

    def has_prefix(self, prefix: str) -> bool:
        """Whether a page of the family's folder with this file-name prefix is of the kind."""
        return self.kind is None or marked_kind(prefix, self.markers) == self.kind


def _family_holds_target(learner, family: ExampleFamily | None, targets: frozenset[int]) -> bool:
    """Whether the example's family holds ``MOSTLY`` of the target clusters' sample pages."""
    if family is None or -1 in targets:   # an outlier example: no cluster to weigh the family against
        return False
    sizes = getattr(learner, "cluster_sizes_", None) or {}
    size = sum(sizes.get(t, 0) for t in targets)
    in_family = _clusters_of(learner, family)
    return size > 0 and sum(in_family[t] for t in targets) >= MOSTLY * size


def _clusters_of(learner, family: ExampleFamily) -> Counter:
    """{cluster: sample pages} of the family's kind (``url_kind_clusters_``: where the sample's
    URL kinds fell)."""
    clusters: Counter = Counter()
    kinds = (getattr(learner, "url_kind_clusters_", None) or {}).get(family.family, {})
    for prefix, by_cluster in kinds.items():
        if family.has_prefix(prefix):
            clusters.update(by_cluster)
    return clusters


def example_family(learner, example: str | None, targets: Collection[int] | None = None) -> ExampleFamily | None:
    """The example page's URL family when the learner uses it (``target_url`` family) and it
    narrows the site: at most ``FAMILY_MAX_SHARE`` of the training sample in the folder.

    Within the folder the family keeps the example's kind only (:func:`kind_markers` of the
    folder's sample pages): the pages carrying the example's marker, or, for an example without
    one (a javadoc class page beside ``package-summary.html``), the pages carrying none. It
    stays the whole folder when the folder has no marker, or when the example's kind covers
    nearly all of it (more than ``FAMILY_MAX_SHARE``: pytest's ``release-*`` beside the folder's index),
    so a folder of names — Python's ``library/``, Django's ``releases/`` — is not narrowed.
    In a folder holding more than ``FAMILY_MAX_SHARE`` of the sample the folder names nothing,
    but the example's kind may (:func:`_kind_in_whole_site_folder`, needs the ``targets``)."""
    if getattr(learner, "target_url_", "off") != "family" or not example:
        return None
    families = getattr(learner, "url_families_", None) or {}
    family = url_family(example)
    folder = families.get(family, {})
    total, in_folder = sum(sum(p.values()) for p in families.values()), sum(folder.values())
    if not total:
        return None
    if in_folder / total > FAMILY_MAX_SHARE:   # a flat site: the folder names nothing, a marker may
        if not getattr(learner, "markers_in_flat_target_", True):
            return None
        return _kind_in_whole_site_folder(learner, family, folder, example, targets)
    if not getattr(learner, "markers_in_target_", True):   # the folder alone names the kind
        return ExampleFamily(family)
    markers, kind, of_kind = _example_kind(folder, example)
    if not markers or of_kind > FAMILY_MAX_SHARE * in_folder:
        return ExampleFamily(family)
    return ExampleFamily(family, kind, markers)


def _example_kind(folder: dict[str, int], example: str) -> tuple[frozenset, str, int]:
    """The folder's kind markers, the example's kind among them, and the folder's sample pages
    of that kind."""
    markers = kind_markers(folder)
    kind = marked_kind(name_prefix(example), markers)
    return markers, kind, sum(n for p, n in folder.items() if marked_kind(p, markers) == kind)


def _kind_in_whole_site_folder(learner, family: str, folder: dict[str, int], example: str,
                               targets: Collection[int] | None) -> ExampleFamily | None:
    """The example's file-name kind in a folder that holds the whole site, when the kind is one
    kind of page: it carries a kind marker, it is not nearly the whole folder, and the structure
    agrees — ``MOSTLY`` of the kind's sample pages are in the target clusters.

    git writes every man page to ``docs/``: ``git-*.html`` commands and ``git*.html`` concepts
    share one template, so the target cluster holds both, and only the file name tells them
    apart (commands: 93% in the target cluster). Doxygen writes ``class_*.html`` and
    ``class_*-members.html`` to one folder: the ``class`` marker spans two templates (half its
    pages in each cluster), so it names no kind and the crawl is left to the structure."""
    if targets is None:
        return None
    markers, kind, of_kind = _example_kind(folder, example)
    if not kind or of_kind > FAMILY_MAX_SHARE * sum(folder.values()):
        return None
    candidate = ExampleFamily(family, kind, markers)
    clusters = _clusters_of(learner, candidate)
    if not clusters or sum(clusters[t] for t in targets) < MOSTLY * sum(clusters.values()):
        return None
    return candidate
