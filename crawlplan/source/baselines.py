"""Baselines the paper compares against, as the authors rebuilt them (source-method-notes.md).

- MDL (Crescenzi et al. 2005): clustering by link schemas (the set of a page's Apaths).
- TPM (Vidal et al. 2006): URL navigation patterns from root to target pages, then a crawl that
  follows only links matching them (with the authors' "jump to the target pattern" change).
iRobot (Cai et al. 2008), whose repetitive-region wrapper needs the pages' DOM rather than their
bags, is in ``crawlplan/source/irobot.py``.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from urllib.parse import urlsplit

from crawlplan.source.mirror import Mirror

MDL_DT = 0.20
_IN, _OUT, _MISSING = 0.8, 1.0, 2.0


def _jaccard_distance(a: frozenset, b: frozenset) -> float:
    union = len(a | b)
    return 1.0 - (len(a & b) / union if union else 1.0)


def _cost(page: frozenset, schema: frozenset) -> float:
    """Bits (in the authors' unit costs) to encode a page's paths with a model schema."""
    inside = len(page & schema)
    return inside * _IN + (len(page) - inside) * _OUT + len(schema - page) * _MISSING


class MDLClustering:
    """Crescenzi's link-schema clustering: identical schemas group; a group joins a larger one
    when their Jaccard distance < dt; then an MDL pass merges a group into another when encoding
    its pages with the other's schema costs no more than its own cost plus its schema's."""

    def __init__(self, dt: float = MDL_DT):
        self.dt = dt

    def fit(self, schemas: list[frozenset]) -> MDLClustering:
        groups: dict[frozenset, list[int]] = {}
        for i, s in enumerate(schemas):
            groups.setdefault(s, []).append(i)
        order = sorted(groups, key=lambda s: (-len(groups[s]), sorted(s)))
        merged: dict[frozenset, list[int]] = {}
        for s in order:
            target = next((m for m in merged if _jaccard_distance(s, m) < self.dt), None)
            merged.setdefault(target if target is not None else s, []).extend(groups[s])
        changed = True
        while changed:
            changed = False
            keys = sorted(merged, key=lambda s: len(merged[s]))
            for small in keys:
                own = sum(_cost(schemas[i], small) for i in merged[small]) + len(small)
                best = None
                for big in keys:
                    if big is small or len(merged[big]) < len(merged[small]):
                        continue
                    cost = sum(_cost(schemas[i], big) for i in merged[small])
                    if cost <= own and (best is None or cost < best[0]):
                        best = (cost, big)
                if best is not None:
                    merged[best[1]].extend(merged.pop(small))
                    changed = True
                    break
        self.schemas_ = list(merged)
        self.labels_ = [0] * len(schemas)
        for c, s in enumerate(self.schemas_):
            for i in merged[s]:
                self.labels_[i] = c
        return self

    def predict(self, schemas: list[frozenset]) -> list[int]:
        return [min(range(len(self.schemas_)), key=lambda c: _jaccard_distance(s, self.schemas_[c]))
                for s in schemas]


def link_schema(links: list[tuple[str, str]]) -> frozenset:
    return frozenset(a for a, _ in links)


# -- TPM ----------------------------------------------------------------------------------------

def _segments(url: str) -> list[str]:
    parts = urlsplit(url)
    segs = [s for s in parts.path.split("/") if s != ""] or [""]
    if parts.query:
        segs.append("?" + parts.query)
    return segs


def _generalise(urls: list[str]) -> list[re.Pattern]:
    """Group URLs with equal segment counts differing in at most two segments; one regex per
    group with the differing segments as wildcards."""
    groups: list[list[list[str]]] = []
    for url in urls:
        segs = _segments(url)
        for g in groups:
            rep = g[0]
            if len(rep) == len(segs) and sum(a != b for a, b in zip(rep, segs)) <= 2:
                g.append(segs)
                break
        else:
            groups.append([segs])
    out = []
    for g in groups:
        cols = list(zip(*g))
        pat = []
        for col in cols:
            if len(set(col)) == 1:
                pat.append(re.escape(col[0]))
            else:
                pat.append(r"\?[^/]*" if col[0].startswith("?") else r"[^/?]+")
        path = "/".join(p for p in pat if not p.startswith(r"\?"))
        query = next((p for p in pat if p.startswith(r"\?")), "")
        out.append(re.compile(r"^https?://[^/]+/" + path + query + "$"))
    return out


class TPMCrawler:
    """Learn per-level URL patterns on the BFS paths from the entry page to target pages, then
    crawl by following only links that match the next level's pattern or the target pattern."""

    def __init__(self, mirror: Mirror, is_target, sample_size: int = 1000):
        self.mirror = mirror
        parent: dict[str, str | None] = {mirror.entry: None}
        queue, order = deque([mirror.entry]), []
        while queue and len(order) < sample_size:
            url = queue.popleft()
            order.append(url)
            for _, t in mirror.pages[url].links:
                t = mirror.resolve(t)
                if t is not None and t not in parent:
                    parent[t] = url
                    queue.append(t)
        levels: dict[int, list[str]] = {}
        targets = [u for u in order if is_target(u)]
        for t in targets:
            path, u = [], t
            while u is not None:
                path.append(u)
                u = parent[u]
            for depth, url in enumerate(reversed(path)):
                levels.setdefault(depth, []).append(url)
        self.target_patterns = _best(_generalise(targets), targets)
        self.level_patterns = {d: _best(_generalise(us), us) for d, us in levels.items() if d > 0}

    def run(self, budget: int) -> list[str]:
        start = self.mirror.entry
        queue, seen, out, done = deque([(start, 0)]), {start}, [], set()
        while queue and len(out) < budget:
            url, depth = queue.popleft()
            page = self.mirror.resolve(url)
            if page is None or page in done:
                continue
            done.add(page)
            out.append(page)
            allowed = self.level_patterns.get(depth + 1, []) + self.target_patterns
            for _, t in self.mirror.pages[page].links:
                if t not in seen and any(p.match(t) for p in allowed):
                    seen.add(t)
                    queue.append((t, depth + 1))
        return out


def _best(patterns: list[re.Pattern], urls: list[str]) -> list[re.Pattern]:
    """The pattern matching the most of ``urls`` (TPM keeps one group per level)."""
    if not patterns:
        return []
    counts = Counter()
    for p in patterns:
        counts[p] = sum(1 for u in urls if p.match(u))
    return [counts.most_common(1)[0][0]]
