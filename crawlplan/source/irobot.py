"""iRobot (Cai et al., WWW 2008), the crawler SOUrCe compares itself with, rebuilt as the SOUrCe
authors ran it: fully automatic, no human review of the traversal path.

Three steps, each with what we had to assume (docs/source.md, "iRobot"):
1. **Repetitive regions** (`repetitive_regions`): a region is a DOM element at depth >= Min_Depth
   (``<html>`` is depth 1)
   whose element children repeat one shape (tag and class, plus the set of their own child steps)
   at least twice and over at least Min_R of the children — the list of threads, of posts, of
   API entries. A page is the set of its region patterns (region path + repeated shape).
2. **Page clustering** (`IRobotClustering`): leader clustering in sample order; a page joins the
   cluster whose representative (region patterns on at least half its pages) is most similar
   by Jaccard, when that similarity is >= Min_Epsilon, else it starts a cluster.
3. **Traversal path** (`IRobotCrawler`): clusters are weighted by informativeness (size x mean
   page size x (1 - duplicate share)); the ones below a share of the best are dropped as
   invalid. A spanning tree of the cluster graph (edges = (cluster, Apath) -> cluster, from
   the sample's links) is grown breadth-first from the entry page's cluster, each cluster
   reached by its strongest edge; the tree is cut to the branches that lead to a kept cluster.
   A crawl follows only links whose (cluster of the page, Apath) is on the tree, plus a kept
   cluster's links back into itself (page flipping, which iRobot found by anchor text we do not
   keep).
Parameters are the paper's sweep values Min_Depth = 3, Min_R = 0.3, Min_Epsilon = 0.5.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, deque

from crawlplan.source.features import parse_html, walk_elements, xpath_step
from crawlplan.source.mirror import Mirror

MIN_DEPTH, MIN_R, MIN_EPSILON = 3, 0.3, 0.5
MIN_INFORMATIVENESS = 0.1     # a cluster below this share of the best cluster's weight is invalid
_SPACE = re.compile(r"\s+")


def _shape(el) -> str:
    children = sorted({xpath_step(c, True) for c in el if isinstance(c.tag, str)})
    return f"{xpath_step(el, True)}({','.join(children)})"


def repetitive_regions(html, *, min_depth: int = MIN_DEPTH, min_r: float = MIN_R) -> frozenset:
    root = parse_html(html)
    if root is None:
        return frozenset()
    out = set()
    for el, _tag, _prefix, _plain, path in walk_elements(root, True):
        if path.count("/") < min_depth:
            continue
        kids = [c for c in el if isinstance(c.tag, str)]
        if len(kids) < 2:
            continue
        shape, count = Counter(_shape(c) for c in kids).most_common(1)[0]
        if count >= 2 and count >= min_r * len(kids):
            out.add(f"{path}/{shape}")
    return frozenset(out)


def page_text_size(html) -> tuple[int, str]:
    """(characters of visible text, hash of it): iRobot's page size and duplicate detection."""
    root = parse_html(html)
    if root is None:
        return 0, ""
    for bad in root.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    text = _SPACE.sub(" ", root.text_content()).strip()
    return len(text), hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def _jaccard(a: frozenset, b: frozenset) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


class IRobotClustering:
    """Leader clustering of region-pattern sets with similarity threshold Min_Epsilon."""

    def __init__(self, min_epsilon: float = MIN_EPSILON):
        self.min_epsilon = min_epsilon

    def fit(self, regions: list[frozenset]) -> IRobotClustering:
        members: list[list[int]] = []
        counts: list[Counter] = []
        self.representatives_: list[frozenset] = []
        self.labels_ = []
        for i, r in enumerate(regions):
            best = self._nearest(r)
            if best is None:
                members.append([])
                counts.append(Counter())
                self.representatives_.append(r)
                best = len(members) - 1
            members[best].append(i)
            counts[best].update(r)
            half = len(members[best]) / 2
            self.representatives_[best] = frozenset(p for p, k in counts[best].items() if k >= half)
            self.labels_.append(best)
        return self

    def _nearest(self, r: frozenset) -> int | None:
        scored = [(_jaccard(r, rep), c) for c, rep in enumerate(self.representatives_)]
        sim, c = max(scored, default=(-1.0, None), key=lambda t: (t[0], -t[1]))
        return c if sim >= self.min_epsilon else None

    def predict(self, regions: list[frozenset]) -> list[int]:
        return [max(range(len(self.representatives_)), key=lambda c: (_jaccard(r, self.representatives_[c]), -c))
                for r in regions]


class IRobotCrawler:
    """Sample -> clusters -> informative clusters -> traversal path; ``run`` crawls the mirror."""

    def __init__(self, mirror: Mirror, html: dict[str, bytes], sample: list[str], *,
                 min_depth: int = MIN_DEPTH, min_r: float = MIN_R, min_epsilon: float = MIN_EPSILON,
                 min_informativeness: float = MIN_INFORMATIVENESS):
        self.mirror, self.html = mirror, html
        self.min_depth, self.min_r = min_depth, min_r
        self._regions: dict[str, frozenset] = {}
        regions = [self.regions(u) for u in sample]
        self.clustering = IRobotClustering(min_epsilon).fit(regions)
        labels = {u: c for u, c in zip(sample, self.clustering.labels_)}
        self.labels_ = list(self.clustering.labels_)
        self.informativeness_ = self._informativeness(sample)
        peak = max(self.informativeness_.values(), default=0.0)
        self.valid_clusters_ = {c for c, w in self.informativeness_.items() if peak > 0 and w >= min_informativeness * peak}
        self.path_ = self._traversal_path(sample, labels)

    def regions(self, url: str) -> frozenset:
        if url not in self._regions:
            self._regions[url] = repetitive_regions(self.html.get(url), min_depth=self.min_depth, min_r=self.min_r)
        return self._regions[url]

    def _informativeness(self, sample: list[str]) -> dict[int, float]:
        sizes: dict[int, list[int]] = {}
        dups: Counter = Counter()
        seen: set[str] = set()
        for u, c in zip(sample, self.labels_):
            size, digest = page_text_size(self.html.get(u))
            sizes.setdefault(c, []).append(size)
            dups[c] += digest in seen
            seen.add(digest)
        return {c: len(s) * (sum(s) / len(s)) * (1 - dups[c] / len(s)) for c, s in sizes.items()}

    def _traversal_path(self, sample: list[str], labels: dict[str, int]) -> set[tuple[int, str]]:
        edges: dict[int, Counter] = {}
        for u in sample:
            for apath, t in self.mirror.pages[u].links:
                t = self.mirror.resolve(t)
                if t in labels:
                    edges.setdefault(labels[u], Counter())[(apath, labels[t])] += 1
        root = labels.get(self.mirror.entry, self.labels_[0] if self.labels_ else 0)
        parent: dict[int, tuple[int, str] | None] = {root: None}
        queue = deque([root])
        while queue:     # breadth-first spanning tree, strongest edge first
            c = queue.popleft()
            for (apath, d), _n in sorted(edges.get(c, Counter()).items(), key=lambda kv: (-kv[1], kv[0])):
                if d not in parent:
                    parent[d] = (c, apath)
                    queue.append(d)
        path: set[tuple[int, str]] = set()
        for c in self.valid_clusters_:
            while parent.get(c) is not None:
                src, apath = parent[c]
                path.add((src, apath))
                c = src
        for c in self.valid_clusters_:   # page flipping: a kept cluster's links back into itself
            for (apath, d), _n in edges.get(c, Counter()).items():
                if d == c:
                    path.add((c, apath))
        return path

    def run(self, budget: int) -> list[str]:
        start = self.mirror.resolve(self.mirror.entry)
        queue, seen, out = deque([start]), {start}, []
        while queue and len(out) < budget:
            url = queue.popleft()
            out.append(url)
            cluster = self.clustering.predict([self.regions(url)])[0]
            for apath, t in self.mirror.pages[url].links:
                if (cluster, apath) not in self.path_:
                    continue
                t = self.mirror.resolve(t)
                if t is not None and t not in seen:
                    seen.add(t)
                    queue.append(t)
        return out
