"""Evaluation against page types given as URL regex patterns (the paper's ground truth).

Types with fewer than minPts pages are annotation outliers and leave the clustering metrics;
clustering outliers (-1) count as singleton clusters, as the paper does.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np

from crawlplan.source.navigation import entropy


class PageTyper:
    """First matching pattern wins; patterns are searched (not anchored) in the full URL."""

    def __init__(self, patterns: dict[str, str | list[str]]):
        self.rules = []
        for ptype, pats in (patterns or {}).items():
            for pat in ([pats] if isinstance(pats, str) else pats):
                try:
                    self.rules.append((ptype, re.compile(pat)))
                except re.error as exc:
                    raise ValueError(f"page type {ptype!r}: bad URL regex {pat!r}: {exc}") from None

    def __call__(self, url: str) -> str | None:
        for ptype, rx in self.rules:
            if rx.search(url):
                return ptype
        return None

    def __bool__(self) -> bool:
        return bool(self.rules)


def _singletons(clusters: list[int]) -> list:
    """Outliers as singleton clusters: each -1 gets a unique id."""
    return [("o", i) if c == -1 else c for i, c in enumerate(clusters)]


def _kept(types: list, min_pts: int) -> list[int]:
    freq = Counter(t for t in types if t is not None)
    return [i for i, t in enumerate(types) if t is not None and freq[t] >= min_pts]


def clustering_scores(types: list, clusters: list[int], min_pts: int) -> dict:
    """Purity and F (micro, macro) of clusters against page types."""
    idx = _kept(types, min_pts)
    if not idx:
        return {"pages": 0}
    T = [types[i] for i in idx]
    C = _singletons([clusters[i] for i in idx])
    n = len(T)
    joint = Counter(zip(T, C))
    n_t, n_c = Counter(T), Counter(C)
    best_f = {}
    for t in n_t:
        best = 0.0
        for (tt, c), nij in joint.items():
            if tt != t:
                continue
            r, p = nij / n_t[t], nij / n_c[c]
            best = max(best, 2 * p * r / (p + r))
        best_f[t] = best
    majority = {}
    by_c = defaultdict(Counter)
    for (t, c), nij in joint.items():
        by_c[c][t] += nij
    for c, cnt in by_c.items():
        majority[c] = cnt.most_common(1)[0][0]
    correct = [majority[c] == t for t, c in zip(T, C)]
    per_type = defaultdict(list)
    for ok, t in zip(correct, T):
        per_type[t].append(ok)
    return {
        "pages": n, "types": len(n_t), "clusters": sum(1 for c in n_c if not isinstance(c, tuple)),
        "outliers": sum(1 for c in C if isinstance(c, tuple)),
        "micro_f": sum(n_t[t] / n * f for t, f in best_f.items()),
        "macro_f": float(np.mean(list(best_f.values()))),
        "micro_purity": float(np.mean(correct)),
        "macro_purity": float(np.mean([np.mean(v) for v in per_type.values()])),
    }


def cv_precision(make_learner, bags: list, types: list, *, folds: int = 4, seed: int = 0,
                  urls: list | None = None) -> dict:
    """4-fold stratified CV: cluster three folds, kNN-label the fourth, map clusters to their
    majority training type; micro and macro precision over held-out pages. With the pages'
    ``urls`` the training folds are fitted with them and the held-out fold is placed by them, so
    URL-aware options (``url_merge``, ``folder_cut``) count. Types with fewer pages than the
    learner's ``min_pts`` are left out, as in :func:`clustering_scores`."""
    # scikit-learn: heavy, only for the cross-validated precision
    from sklearn.model_selection import StratifiedKFold

    idx = _kept(types, make_learner().min_pts)
    y = [types[i] for i in idx]
    if len(set(y)) < 2 or min(Counter(y).values()) < folds:
        y_strat = [t if Counter(y)[t] >= folds else "_rare" for t in y]
    else:
        y_strat = y
    if min(Counter(y_strat).values()) < folds:
        return {}
    hits, per_type = [], defaultdict(list)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(idx, y_strat):
        learner = make_learner()
        learner.fit([bags[idx[i]] for i in train], urls=None if urls is None else [urls[idx[i]] for i in train])
        by_c = defaultdict(Counter)
        for i, c in zip(train, learner.kind_labels_):
            by_c[int(c)][y[i]] += 1
        mapping = {c: cnt.most_common(1)[0][0] for c, cnt in by_c.items() if c != -1}
        pred = learner.predict_kind([bags[idx[i]] for i in test],
                                    urls=None if urls is None else [urls[idx[i]] for i in test])
        for i, c in zip(test, pred):
            ok = mapping.get(int(c)) == y[i]
            hits.append(ok)
            per_type[y[i]].append(ok)
    return {"micro_precision": float(np.mean(hits)),
            "macro_precision": float(np.mean([np.mean(v) for v in per_type.values()]))}


def _f(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


def ucc_scores(crawled_types: list, valid: set, available_valid: int) -> dict:
    """Valid ratio, recall (against the valid pages the mirror holds), F and type entropy."""
    n = len(crawled_types)
    v = sum(1 for t in crawled_types if t in valid)
    vr = v / n if n else 0.0
    rec = v / available_valid if available_valid else 0.0
    return {"pages": n, "valid": v, "valid_ratio": vr, "recall": rec, "f": _f(vr, rec),
            "entropy": entropy(Counter(t if t is not None else "_unlabelled" for t in crawled_types))}


def target_scores(crawled_types: list, target: str, available: int) -> dict:
    n = len(crawled_types)
    hit = sum(1 for t in crawled_types if t == target)
    hr = hit / n if n else 0.0
    rec = hit / available if available else 0.0
    return {"pages": n, "hits": hit, "harvest_rate": hr, "recall": rec, "f": _f(hr, rec)}


def harvest_ceiling(links_of: dict, is_target, budget: int) -> float:
    """An optimistic harvest rate for a target crawl of ``budget`` pages: non-target pages are
    picked greedily by how many new targets they link, as if every page's type and links were
    known and every picked page were reachable for free (the entry page is not counted).
    Targets linking targets are counted as reachable once any target is. What no crawler can
    beat by much: it tells a method's shortfall from the site's."""
    targets = {u for u in links_of if is_target(u)}
    if not targets or budget <= 0:
        return 0.0
    from_targets = {t for u in targets for t in links_of[u] if t in targets}
    cover = {u: {t for t in links_of[u] if t in targets} for u in links_of if u not in targets}
    got: set = set()
    best, spent = 0.0, 0
    while spent < budget:
        page = max(cover, key=lambda u: len(cover[u] - got), default=None)
        if page is None or not cover[page] - got:
            break
        got |= cover.pop(page)
        spent += 1
        reachable = got | from_targets
        best = max(best, min(budget - spent, len(reachable)) / budget)
    return best



# what "never below BFS" is checked on, per crawl task: the target crawl's harvest rate, the UCC
# crawl's recall (docs/source.md, "Crawls on every labelled site")
GUARDED_METRICS = {"target": "harvest_rate", "ucc": "recall"}


def gaps_to_bfs(curves: list[dict], method: str = "source") -> dict[str, tuple[float, int] | None]:
    """Per crawl task, the worst (lowest) value of ``method``'s curve minus BFS's at the budgets
    both curves have (``experiment.crawl_curve`` rows), with the budget where it is: the target
    crawl's harvest rate and the UCC crawl's recall (``GUARDED_METRICS``); None where a task has
    no curve of both."""
    out: dict[str, tuple[float, int] | None] = {}
    for task, metric in GUARDED_METRICS.items():
        by: dict[str, dict[int, float]] = {}
        for c in curves:
            if c["task"] == task and c["metric"] == metric and c["method"] in (method, "bfs"):
                by.setdefault(c["method"], {})[c["pages"]] = c["value"]
        both = sorted(set(by.get(method, {})) & set(by.get("bfs", {})))
        out[task] = min(((by[method][p] - by["bfs"][p], p) for p in both), default=None)
    return out
