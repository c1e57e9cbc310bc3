"""Samplers and the crawl simulator on a mirror (the site's WARC records are the whole web).

Both samplers and all crawlers share one rule: a link whose page the mirror lacks is
unavailable, costs nothing and yields nothing. Redirects resolve inside the mirror; a page
reached twice (two URLs, one redirect target) is crawled once.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter, deque
from dataclasses import dataclass

from crawlplan.source import navigation as nav
from crawlplan.source.features import links_by_apath
from crawlplan.source.mirror import Mirror
from crawlplan.source.target import TargetFeedback

MODES = ("bfs", "ucc", "target")
FRONTIER_CAP = 3000


def sample_apath(mirror: Mirror, n: int, *, seed: int, start: str | None = None) -> list[str]:
    """SOUrCe's sampler: BFS that enqueues one random unseen link per (page, Apath).

    All links stay on the pages (U(p, x) is what the navigation table learns from); only the
    fetch queue is thinned, so one pagination row or one list of 50 threads costs one fetch.
    """
    rng = random.Random(seed)

    def one_per_apath(url, seen):
        for _, targets in links_by_apath(mirror.pages[url].links).items():
            fresh = [t for t in targets if t not in seen]
            if fresh:
                yield rng.choice(fresh)

    return _breadth_first(mirror, n, start, one_per_apath)


def sample_bfs(mirror: Mirror, n: int, *, start: str | None = None) -> list[str]:
    def every_link(url, seen):
        for _, target in mirror.pages[url].links:
            if target not in seen:
                yield target

    return _breadth_first(mirror, n, start, every_link)


def _breadth_first(mirror: Mirror, n: int, start: str | None, expand) -> list[str]:
    """The fetch loop both samplers share; ``expand(url, seen)`` yields the links to enqueue
    (``seen`` grows between yields, so a link is enqueued once)."""
    start = start or mirror.entry
    queue, seen, out, done = deque([start]), {start}, [], set()
    while queue and len(out) < n:
        url = mirror.resolve(queue.popleft())
        if url is None or url in done:
            continue
        done.add(url)
        out.append(url)
        for target in expand(url, seen):
            seen.add(target)
            queue.append(target)
    return out


@dataclass
class Step:
    step: int
    url: str
    cluster: int
    score: float
    hit: bool = False     # target crawl: the crawler's own verdict (target cluster or example family)


def check_features(mirror: Mirror, learner) -> None:
    """A learner scoring bags of another XPath variant would match almost no vocabulary and put
    every page in one cluster without any error: refuse instead."""
    want = getattr(learner, "xpath_classes_", mirror.xpath_classes)
    if want != mirror.xpath_classes:
        raise ValueError(f"mirror of {mirror.site} holds {mirror.xpath_classes!r} XPath bags but the sitemap "
                         f"uses {want!r}: build the mirror with experiment.feature_mode(params)")


class CrawlSimulator:
    """BFS, SOUrCe UCC and SOUrCe target crawls on one mirror with one learned sitemap.

    Every mirror page is classified once up front (the kNN answer for a page never changes),
    which is what a crawler would compute page by page, and navigated by its structural cluster
    (``SitemapLearner.structural``).
    """

    def __init__(self, mirror: Mirror, learner, *, frontier_cap: int = FRONTIER_CAP):
        check_features(mirror, learner)
        self.mirror = mirror
        self.learner = learner
        self.frontier_cap = frontier_cap
        urls = list(mirror.pages)
        # the crawl navigates between structural clusters (a section part counts as its cluster)
        labels = learner.structural(learner.predict([mirror.pages[u] for u in urls])) if urls else []
        self.cluster_of = {u: int(c) for u, c in zip(urls, labels)}
        self.rows = {k: nav.row_probabilities(v) for k, v in getattr(learner, "navigation_", {}).items()}

    def target_cluster(self, example: str) -> int:
        url = self.mirror.resolve(example)
        if url is None:
            raise ValueError(f"example page {example} is not in the mirror of {self.mirror.site}")
        return self.cluster_of[url]

    def run(self, mode: str, budget: int, *, example: str | None = None, scoring: str = "full",
            start: str | None = None) -> list[Step]:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        feedback: TargetFeedback | None = None
        if mode == "target":
            if not example:
                raise ValueError("a target crawl needs an example page URL")
            feedback = TargetFeedback(self.learner, self.rows, self.target_cluster(example),
                                      example=self.mirror.resolve(example))
        elif mode == "ucc":
            info_c = nav.info(self.learner.hubs_, self.learner.authorities_, self.learner.alpha_ucc)
        start = start or self.mirror.entry
        counts: Counter = Counter()
        # (-score, order, url, the (cluster, Apath) row the link was found under)
        heap: list[tuple[float, int, str, tuple | None]] = [(0.0, 0, start, None)]
        seen, crawled, steps, seq = {start}, set(), [], 1
        while heap and len(steps) < budget:
            neg, order, url, row = heapq.heappop(heap)
            if feedback is not None and feedback.learns and row is not None:
                # lazy re-scoring: a row's value changes as its fetches are classified; an entry
                # whose row lost value goes back unless it still beats the best waiting one
                now = -feedback.score(row, url)
                if now > neg + 1e-12 and heap and now > heap[0][0]:
                    heapq.heappush(heap, (now, order, url, row))
                    continue
                neg = now
            page_url = self.mirror.resolve(url)
            if page_url is None or page_url in crawled:
                continue
            crawled.add(page_url)
            ci = self.cluster_of[page_url]
            steps.append(Step(len(steps), page_url, ci, -neg,
                              feedback is not None and feedback.is_hit(ci, page_url)))
            if ci != -1:
                counts[ci] += 1
            if feedback is not None and row is not None:
                feedback.observe(row, ci, page_url)
            values = (nav.ucc_cluster_values(info_c, self.learner.dsim_, counts, scoring,
                                             getattr(self.learner, "balance_weight_", 1.0))
                      if mode == "ucc" else None)
            for apath, target in self.mirror.pages[page_url].links:
                if target in seen:
                    continue
                seen.add(target)
                key = (ci, apath)
                score = 0.0
                if feedback is not None:
                    score = feedback.score(key, target)
                elif values is not None:
                    probs = self.rows.get(key)
                    score = nav.score_row(probs, values) if probs else 0.0
                heapq.heappush(heap, (-score, seq, target, key))
                seq += 1
            if len(heap) > self.frontier_cap:
                heap = heapq.nsmallest(self.frontier_cap, heap)
                heapq.heapify(heap)
        return steps
