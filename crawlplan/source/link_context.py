"""Clusters from what the structure cannot see: where a page is linked from (``link_context``)
and how small a cluster may be (``min_cluster_share``).

A site of one template in one folder (a set of man pages, a manual, an API reference) gives the
bag-of-XPaths nothing to separate: one structural cluster holds nearly the whole sample, though
the site's own navigation keeps its kinds apart — the command list of ``git.html`` links the
commands under one Apath, its guide list the concepts under another. The paper's assumption,
which the navigation table rests on, is that links found under one (cluster, Apath) row lead to
pages of one kind; so the rows that lead to a page are a second description of it, its place in
the navigation graph. :func:`flat_site_labels` re-clusters a cluster holding more than
``FAMILY_MAX_SHARE`` of the sample (nearly the whole site: the threshold the URL rules use for
a folder that holds the whole site) by the bag of the rows of the sampled links into each of its
pages, with the learner's own clustering; the URL-kind merge that follows joins again what this
split inside one URL kind (several lists of commands).

:func:`absorb_small_clusters` is the other way round: a cluster holding less than a share of the
sample is taken for a template variant the structure split off a kind, its pages become noise,
and the noise rule (``noise_radius``) attaches them to the nearest clustered page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from crawlplan.source.features import links_by_apath
from crawlplan.source.url_kinds import FAMILY_MAX_SHARE

LINK_CONTEXT_MODES = ("off", "flat")


def inlink_rows(urls: Sequence[str], labels: np.ndarray, links, resolve=None) -> list[Counter]:
    """Per sample page, the (cluster, Apath) rows of the sampled links that point to it, counted
    once per linking page: ``"<cluster>|<Apath>"`` -> pages (a page's own links to itself left out)."""
    index = {u: i for i, u in enumerate(urls)}
    bags: list[Counter] = [Counter() for _ in urls]
    for source, (label, page_links) in enumerate(zip(labels.tolist(), links)):
        for apath, targets in links_by_apath(page_links).items():
            row = f"{label}|{apath}"
            for target in {(resolve(t) or t) if resolve else t for t in targets}:
                i = index.get(target)
                if i is not None and i != source:
                    bags[i][row] += 1
    return bags


def flat_site_labels(labels: np.ndarray, urls: Sequence[str], links, cluster: Callable[[list[Counter]], np.ndarray],
                     resolve=None) -> tuple[np.ndarray, int]:
    """``labels`` with the cluster that holds more than ``FAMILY_MAX_SHARE`` of the sample (if
    any) re-clustered by :func:`inlink_rows` (``cluster``: the learner's clustering of bags).
    Its largest part keeps the label, the others are numbered after the existing clusters, and
    a page the link clustering leaves as noise stays in the cluster. Returns the labels and how
    many clusters were added."""
    real = labels[labels != -1]
    if not len(real):
        return labels, 0
    top, pages = Counter(real.tolist()).most_common(1)[0]
    if pages <= FAMILY_MAX_SHARE * len(labels):
        return labels, 0
    members = np.flatnonzero(labels == top)
    bags = inlink_rows(urls, labels, links, resolve)
    sub = cluster([bags[i] for i in members.tolist()])
    parts = Counter(int(s) for s in sub.tolist() if s != -1)
    if len(parts) < 2:
        return labels, 0
    out = labels.copy()
    fresh = int(labels.max()) + 1
    for rank, (part, _n) in enumerate(parts.most_common()):
        if rank:
            out[members[sub == part]] = fresh
            fresh += 1
    return out, len(parts) - 1


def absorb_small_clusters(labels: np.ndarray, share: float) -> np.ndarray:
    """``labels`` with every cluster of fewer than ``share`` x the sample's pages made noise
    (-1), for the noise rule to attach; unchanged when that would leave no cluster. Labels are
    renumbered 0..k-1 in order of first cluster, outliers stay -1."""
    sizes = Counter(int(c) for c in labels.tolist() if c != -1)
    keep = {c for c, n in sizes.items() if n >= share * len(labels)}
    if share <= 0 or not keep or len(keep) == len(sizes):
        return labels
    number = {c: k for k, c in enumerate(sorted(keep))}
    return np.array([number.get(int(c), -1) for c in labels.tolist()], dtype=int)
