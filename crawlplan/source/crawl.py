"""Samplers and the crawl simulator on a mirror (the site's WARC records are the whole web).

Both samplers and all crawlers share one rule: a link whose page the mirror lacks is
unavailable, costs nothing and yields nothing. Redirects resolve inside the mirror; a page
reached twice (two URLs, one redirect target) is crawled once.
"""

from __future__ import annotations

import functools
import heapq
import random
from collections import Counter, deque
from dataclasses import dataclass

from crawlplan.source import navigation as nav
from crawlplan.source.features import links_by_apath
from crawlplan.source.guard import BfsShadow
from crawlplan.source.mirror import Mirror
from crawlplan.source.target import TargetFeedback

MODES = ("bfs", "ucc", "target")
FRONTIER_CAP = 3000


def sample_apath(mirror: Mirror, n: int, *, seed: int, start: str | None = None,
                 refill_to: int = 0) -> list[str]:
    """SOUrCe's sampler: BFS that enqueues one random unseen link per (page, Apath).

    All links stay on the pages (U(p, x) is what the navigation table learns from); only the
    fetch queue is thinned, so one pagination row or one list of 50 threads costs one fetch.
    A queue that runs dry while the sample holds fewer than ``refill_to`` pages is filled again:
    every page fetched so far, in fetch order, enqueues one more unseen link per Apath, round
    after round. Without it a site whose entry page lists every manual under one Apath, and
    whose first manual links only back, is sampled by two pages, too few to cluster
    (``sample_floor``); refilled up to ``n`` (``sampler: apath_refill``) it samples what the
    thinned queue would not reach on sites that do not starve.
    """
    rng = random.Random(seed)

    def one_per_apath(url, seen):
        for _, targets in links_by_apath(mirror.pages[url].links).items():
            fresh = [t for t in targets if t not in seen]
            if fresh:
                yield rng.choice(fresh)

    def one_more_per_apath(fetched, seen):
        for url in fetched:
            yield from one_per_apath(url, seen)

    return _breadth_first(mirror, n, start, one_per_apath, one_more_per_apath, refill_to)


def sample_bfs(mirror: Mirror, n: int, *, start: str | None = None) -> list[str]:
    def every_link(url, seen):
        for _, target in mirror.pages[url].links:
            if target not in seen:
                yield target

    return _breadth_first(mirror, n, start, every_link)


def _breadth_first(mirror: Mirror, n: int, start: str | None, expand, refill=None, refill_to: int = 0) -> list[str]:
    """The fetch loop both samplers share; ``expand(url, seen)`` yields the links to enqueue
    (``seen`` grows between yields, so a link is enqueued once), and ``refill(fetched, seen)``
    the links to enqueue when the queue runs dry before ``min(n, refill_to)`` pages."""
    start = start or mirror.entry
    queue, seen, out, done = deque([start]), {start}, [], set()
    while len(out) < n:
        if not queue:
            for target in refill(out, seen) if refill is not None and len(out) < refill_to else ():
                seen.add(target)
                queue.append(target)
            if not queue:
                break
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
    bfs: bool = False     # fetched as BFS's next page by the guard (crawl_guard: bfs)


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
        # a UCC crawl's test of a hub page (ucc_recurring: hub), None where every page is content
        self._is_hub = learner.is_hub if getattr(learner, "ucc_recurring_", "cluster") == "hub" else None

    def target_cluster(self, example: str) -> int:
        url = self.mirror.resolve(example)
        if url is None:
            raise ValueError(f"example page {example} is not in the mirror of {self.mirror.site}")
        return self.cluster_of[url]

    def run(self, mode: str, budget: int, *, example: str | None = None, scoring: str = "full",
            start: str | None = None) -> list[Step]:
        """The crawl of ``mode`` within ``budget`` fetches. A SOUrCe crawl (``ucc``, ``target``)
        under ``crawl_guard: bfs`` takes BFS's next page whenever its own verdict on what it has
        gained falls behind what BFS is expected to have gained by then (:mod:`guard`)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        feedback: TargetFeedback | None = None
        if mode == "target":
            if not example:
                raise ValueError("a target crawl needs an example page URL")
            page = self.mirror.resolve(example)
            feedback = TargetFeedback(self.learner, self.rows, self.target_cluster(example), example=page,
                                      example_kind=int(self.learner.predict_kind([self.mirror.pages[page]])[0]),
                                      resolve=self.mirror.resolve)
        start = start or self.mirror.entry
        counts: Counter = Counter()
        values = worth = states = None
        if mode == "ucc":   # the guard's verdict on a page: its cluster's worth without Balance
            states = self._ucc_states
            worth = states.worth(scoring)
            values = self._ucc_values(states, counts, scoring)
        # (-score, order, url, the (cluster, Apath) row the link was found under)
        heap: list[tuple[float, int, str, tuple | None]] = [(0.0, 0, start, None)]
        seen, steps, seq = {start}, [], 1
        fetched: dict[str, tuple[int, float]] = {}    # page -> (cluster, gain by the crawl's own verdict)
        gained = 0.0
        shadow = None
        if mode != "bfs" and getattr(self.learner, "crawl_guard_", "off") == "bfs":
            def promised(row, url):
                if feedback is not None:
                    return feedback.expected_hit(row, url)
                probs = self._content_rows(row, url) if row is not None else None
                return nav.score_row(probs, worth) if probs else None
            shadow = BfsShadow(self.mirror, start, self.frontier_cap, promised, self.learner.crawl_guard_slack)
        while len(steps) < budget:
            entry = self._pop(heap, feedback, fetched)
            picked = None if entry is None else (self.mirror.resolve(entry[2]), entry[3], -entry[0], False)
            if shadow is not None:
                shadow.advance(fetched)
                # the scored frontier's pick as its row promises it, against BFS after as many fetches
                if shadow.head() is not None and (picked is None or shadow.behind(
                        len(steps) + 1, gained + shadow.promise(picked[1], picked[0]), fetched)):
                    picked = self._bfs_next(shadow)
                    if entry is not None:   # the scored frontier's pick waits its turn
                        heapq.heappush(heap, entry)
            if picked is None:
                break
            page_url, row, score, via_bfs = picked
            ci = self.cluster_of[page_url]
            hit = feedback is not None and feedback.is_hit(ci, page_url)
            # the crawl's own verdict: a hit, or the page's cluster's worth to a UCC crawl
            gain = float(hit) if feedback is not None else 0.0 if worth is None or \
                (self._is_hub is not None and self._is_hub(ci, page_url)) else worth.get(ci, 0.0)
            fetched[page_url] = (ci, gain)
            gained += gain
            steps.append(Step(len(steps), page_url, ci, score, hit, via_bfs))
            if ci != -1:
                counts[ci] += 1
            if feedback is not None and row is not None:
                feedback.observe(row, ci, page_url)
            if mode == "ucc":
                values = self._ucc_values(states, counts, scoring)
            for apath, target in self.mirror.pages[page_url].links:
                if target in seen:
                    continue
                seen.add(target)
                key = (ci, apath)
                score = 0.0
                if feedback is not None:
                    score = feedback.score(key, target)
                elif values is not None:
                    probs = self._content_rows(key, target)
                    score = nav.score_row(probs, values) if probs else 0.0
                heapq.heappush(heap, (-score, seq, target, key))
                seq += 1
            if len(heap) > self.frontier_cap:
                heap[:] = heapq.nsmallest(self.frontier_cap, heap)
                heapq.heapify(heap)
        return steps

    def _content_rows(self, row: tuple, url: str) -> dict[int, float] | None:
        """P(C_j | row) for a UCC crawl's link to ``url``, less the clusters in which the URL
        would be a hub (``ucc_recurring: hub``): a page that only lists others (a unit's
        ``index``) is worth the links it yields, which are scored when it is fetched. Where one
        template renders the hubs and what they list into one cluster, the row cannot tell a
        link to a hub from a link to a page it lists; the URL's name can (the LCL: about 100 unit
        indexes fetched before the first identifiers, UCC recall 0.038 below BFS)."""
        probs = self.rows.get(row)
        if not probs or self._is_hub is None:
            return probs
        return {c: p for c, p in probs.items() if not self._is_hub(c, url)}

    @functools.cached_property
    def _ucc_states(self) -> nav.UccStates:
        """The learner's UCC units, computed once for every UCC crawl of this simulator (with
        ``ucc_unit: kind`` a HITS run and the kinds' dispersions)."""
        return self.learner.ucc_states()

    def _ucc_values(self, states: nav.UccStates, counts: Counter, scoring: str) -> dict:
        """The UCC score's factor per destination cluster, Balance as the crawl stands."""
        return states.values(counts, scoring, getattr(self.learner, "balance_weight_", 1.0))

    def _bfs_next(self, shadow: BfsShadow) -> tuple[str, tuple | None, float, bool]:
        """BFS's next page (not fetched yet: ``BfsShadow.advance`` walked past those)."""
        url, row = shadow.head()
        return self.mirror.resolve(url), row, 0.0, True

    def _pop(self, heap: list, feedback: TargetFeedback | None, fetched: dict) -> tuple | None:
        """The frontier's best entry (-score, order, URL, row) whose page is not fetched yet."""
        while heap:
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
            if page_url is None or page_url in fetched:
                continue
            return neg, order, url, row
        return None
