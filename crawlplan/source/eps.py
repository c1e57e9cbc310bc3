"""How SOUrCe picks DBSCAN's eps for a site: the paper's K-dist histogram rule and the default's
selection among candidates by silhouette (the learner's ``eps_rule``). Kept apart from the
estimator so the rules can be read, tested and swept (``bench/source_sweep.py``) on their own."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# the paper's w by training-set size (its Table: 100 -> 16, 200 -> 12, 500 -> 6, 1000 -> 4.8)
W_TABLE = ((100, 16.0), (200, 12.0), (500, 6.0), (1000, 4.8))
MIN_EPS = 1e-6   # a zero K-dist quantile (identical pages) still clusters the identical pages
_PRECOMPUTE_MAX = 5000   # pages up to which the eps scan shares one distance matrix (200 MB at 5,000)


def eps_by_silhouette(X, kd: np.ndarray, min_pts: int, fallback: float = 0.10,
                      candidates: Sequence[float] = ()) -> float:
    """eps from ``candidates`` plus K-dist quantiles 0.50..0.95, scored by silhouette on
    clustered pages times the squared clustered share (so dropping hard pages as outliers does
    not pay); the first best candidate wins ties. When no candidate finds two clusters, the one
    clustering the most pages into one (the site is one kind of page). ``candidates`` empty:
    quantiles > 0 only (the guard's scan), and ``fallback`` when none finds two clusters."""
    # scikit-learn: heavy (scipy), loaded inside the worker that learns a site
    from sklearn.cluster import DBSCAN
    from sklearn.metrics import pairwise_distances, silhouette_score

    # one distance matrix for all candidates (each DBSCAN and silhouette would recompute it);
    # training samples are ~1,000 pages, so n^2 doubles stay small
    D = pairwise_distances(X) if X.shape[0] <= _PRECOMPUTE_MAX else None
    best, single = None, None
    scan = [float(c) for c in candidates] + [float(np.quantile(kd, q)) for q in np.arange(0.50, 0.951, 0.05)]
    for eps in scan:
        if candidates:
            eps = max(eps, MIN_EPS)
        elif eps <= 0:
            continue
        if D is None:
            labels = DBSCAN(eps=eps, min_samples=min_pts).fit_predict(X)
        else:
            labels = DBSCAN(eps=eps, min_samples=min_pts, metric="precomputed").fit_predict(D)
        mask = labels != -1
        found = len(set(labels[mask].tolist()))
        if found == 1 and (single is None or mask.mean() > single[0]):
            single = (mask.mean(), eps)
        if found < 2:
            continue
        if D is None:
            sil = silhouette_score(X[mask], labels[mask])
        else:
            sil = silhouette_score(D[np.ix_(mask, mask)], labels[mask], metric="precomputed")
        score = sil * mask.mean() ** 2
        if best is None or score > best[0]:
            best = (score, eps)
    if best is None and single is not None and candidates:
        # no candidate separates two kinds of page: a site of one template (a texinfo manual's
        # chapters) is one cluster, not all noise; the eps clustering the most pages wins
        return single[1]
    return best[1] if best else fallback


def w_for_size(n: int, table=None) -> float:
    """The paper's w by training-set size, linearly interpolated between its four values."""
    pairs = sorted((int(k), float(v)) for k, v in (dict(table) if table else dict(W_TABLE)).items())
    sizes = [s for s, _ in pairs]
    values = [v for _, v in pairs]
    return float(np.interp(n, sizes, values))


def kdist(X, min_pts: int) -> np.ndarray:
    """Distance of every page to its min_pts-th nearest other page."""
    # scikit-learn: heavy (scipy), loaded inside the worker that learns a site
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    k = min(min_pts + 1, n)
    nn = NearestNeighbors(n_neighbors=k).fit(X)
    dist, _ = nn.kneighbors(X)
    return dist[:, k - 1]


def eps_from_histogram(kd: np.ndarray, num_feats: int, min_pts: int, *, num_bins: str = "div",
                       w: float | None = None, fallback: float = 0.10, w_table=None) -> float:
    """The paper's rule: the first histogram bin (small to large K-dist) holding fewer than
    minPts pages once the cumulative count passes half the pages; its left edge is eps."""
    n = len(kd)
    if n == 0:
        return fallback
    w = w if w is not None else w_for_size(n, w_table)
    bins = num_feats / w if num_bins == "div" else num_feats * w
    bins = max(1, int(round(bins)))
    counts, edges = np.histogram(kd, bins=bins)
    cum = 0
    for i, c in enumerate(counts):
        cum += int(c)
        if c < min_pts and cum > 0.5 * n:
            return float(edges[i]) if edges[i] > 0 else fallback
    return fallback

