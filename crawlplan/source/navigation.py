"""Navigation table, cluster adjacency, HITS and the link-scoring terms of SOUrCe.

Cluster labels are ints, -1 being DBSCAN's outliers (kept as a class of their own). The
navigation counts N[(C_i, x)][C_j] extrapolate the sampled share of an Apath's links to all of
its links (|U(p,x)| / m per sampled destination), so an Apath with 50 links of which one was
sampled weighs 50, not 1.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from crawlplan.source.features import links_by_apath
from crawlplan.source.url_kinds import name_prefix, url_family

NavTable = dict[tuple[int, str], dict[int, float]]
HITS_ITERATIONS = 100
SCORINGS = ("full", "no_dsim", "no_balance", "info_only", "dsim_balance")


def page_rows(labels: list[int], links, resolve=None):
    """(cluster, Apath, U(p, x)) for every sampled page and Apath, links resolved inside the
    mirror (a redirect and its target are one page) and de-duplicated: the rows of the navigation
    table and the sample's listings (:mod:`listings`)."""
    for lab, page_links in zip(labels, links):
        for apath, targets in links_by_apath(page_links).items():
            if resolve is not None:
                targets = list(dict.fromkeys(t2 for t in targets if (t2 := resolve(t) or t)))
            yield int(lab), apath, targets


def navigation_counts(urls: list[str], labels: list[int], links, label_of: dict[str, int],
                      resolve=None) -> NavTable:
    out: dict[tuple[int, str], Counter] = defaultdict(Counter)
    for lab, apath, targets in page_rows(labels, links, resolve):
        known = [label_of[t] for t in targets if t in label_of]
        if not known:
            continue
        weight = len(targets) / len(known)
        row = out[(lab, apath)]
        for c in known:
            row[int(c)] += weight
    return {k: dict(v) for k, v in out.items()}


KindYield = dict[int, dict[str, dict[str, float]]]


def sample_yields(labels: list[int], links, counts: NavTable,
                  resolve=None) -> tuple[dict[int, dict[int, float]], KindYield]:
    """What one more page of a cluster is worth to a target crawl: the *distinct* links a
    sampled page of cluster C_i yields, per page, (a) into each cluster C_j and (b) into each URL
    kind ({family: {file-name prefix: links}}).

    Why: the paper's hub score sums the target links of all sampled pages of a cluster, so a
    cluster with many sampled pages whose links overlap (a forum's tag pages, each listing
    threads the others list too) outranks one whose pages list disjoint targets (the thread
    lists). A crawler fetching one more page gains only the links it has not seen. Per
    (C_i, Apath) row, the links the cluster's pages hold under that Apath are de-duplicated
    across the pages (a sidebar repeated on every page counts once), and the sum over the rows
    is divided by the cluster's sampled pages. (a) scales the navigation table's extrapolated
    counts N[(C_i, x)][C_j] (``counts``, as :func:`navigation_counts` returns them: not row
    probabilities) by the row's distinct share; (b) is exact (a link's URL is known
    without fetching it), for targets named by their URL (the example's family)."""
    pages: Counter = Counter(int(c) for c in labels)
    total: Counter = Counter()
    distinct: dict[tuple[int, str], set] = defaultdict(set)
    for lab, apath, targets in page_rows(labels, links, resolve):
        total[(lab, apath)] += len(targets)
        distinct[(lab, apath)].update(targets)
    clusters: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for (ci, apath), row in counts.items():
        if total[(ci, apath)]:
            share = len(distinct[(ci, apath)]) / total[(ci, apath)]
            for cj, v in row.items():
                clusters[ci][cj] += v * share / pages[ci]
    kinds: KindYield = defaultdict(lambda: defaultdict(lambda: defaultdict(float)))
    for (ci, _apath), targets in distinct.items():
        for t in targets:
            kinds[ci][url_family(t)][name_prefix(t)] += 1.0 / pages[ci]
    return ({ci: dict(row) for ci, row in clusters.items()},
            {ci: {f: dict(p) for f, p in fams.items()} for ci, fams in kinds.items()})


def row_probabilities(row: dict[int, float]) -> dict[int, float]:
    total = sum(row.values())
    return {c: v / total for c, v in row.items()} if total > 0 else {}


def adjacency(table: NavTable, clusters: list[int]) -> np.ndarray:
    """A[i][j] = sum over Apaths of N[(C_i, x)][C_j]; rows/cols in the order of ``clusters``."""
    pos = {c: i for i, c in enumerate(clusters)}
    A = np.zeros((len(clusters), len(clusters)))
    for (ci, _), row in table.items():
        if ci not in pos:
            continue
        for cj, v in row.items():
            if cj in pos:
                A[pos[ci], pos[cj]] += v
    return A


def _l1(v: np.ndarray) -> np.ndarray:
    s = v.sum()
    return v / s if s > 0 else v


def hits(A: np.ndarray, clusters: list[int], target: int | Collection[int] | None = None) -> tuple[dict, dict]:
    """Hub and authority scores on the cluster graph.

    UCC (no target): M = A with the diagonal zeroed, 100 power iterations. Target t: M keeps
    only column t, so a = e_t and h_i is proportional to A[i][t]. Several target clusters (a
    kind, ``target.target_clusters``) are one column, the sum of theirs.
    """
    n = len(clusters)
    if n == 0:
        return {}, {}
    if target is None:
        M = A.copy()
        np.fill_diagonal(M, 0.0)
    else:
        M = np.zeros_like(A)
        columns = [clusters.index(t) for t in sorted(target)] if isinstance(target, Collection) \
            else [clusters.index(target)]
        M[:, columns[0]] = A[:, columns].sum(axis=1)
    a = np.full(n, 1.0 / n)
    h = np.full(n, 1.0 / n)
    for _ in range(HITS_ITERATIONS):
        h = _l1(M @ a)
        a = _l1(M.T @ h)
    return ({c: float(h[i]) for i, c in enumerate(clusters)},
            {c: float(a[i]) for i, c in enumerate(clusters)})


def normalise_dsim(spread: dict[int, float]) -> dict[int, float]:
    """Dispersion normalised to sum 1 over the real clusters; outliers get 0 so UCC ignores them.
    Spreads at floating-point noise level are exactly zero: identical pages must tie, not win."""
    spread = {c: (v if v > 1e-9 else 0.0) for c, v in spread.items()}
    total = sum(v for c, v in spread.items() if c != -1)
    return {c: (0.0 if c == -1 or total <= 0 else v / total) for c, v in spread.items()}


def info(hubs: dict, auths: dict, alpha: float) -> dict[int, float]:
    return {c: alpha * auths.get(c, 0.0) + (1 - alpha) * hubs.get(c, 0.0) for c in set(hubs) | set(auths)}


def balance(counts: Counter, cluster: int, weight: float = 1.0) -> float:
    """The paper's 1 - c_j / (sum c + 1) at ``weight`` 1; (1 - weight) + weight x that below,
    so a leading cluster keeps part of its score (a site of two clusters, one of them not
    content, is not driven into the other as soon as the first leads)."""
    total = sum(v for c, v in counts.items() if c != -1)
    return (1.0 - weight) + weight * (1.0 - counts.get(cluster, 0) / (total + 1))


def ucc_cluster_values(info_c: dict, dsim: dict, counts: Counter, scoring: str = "full",
                       balance_weight: float = 1.0) -> dict[int, float]:
    """Per destination cluster: the factor the UCC link score weighs P(C_j | C_i, x) by."""
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
    out = {}
    for c in set(info_c) | set(dsim):
        i, d, b = info_c.get(c, 0.0), dsim.get(c, 0.0), balance(counts, c, balance_weight)
        out[c] = {"full": i * d * b, "no_dsim": i * b, "no_balance": i * d, "info_only": i,
                  "dsim_balance": d * b}[scoring]
    return out


def structure_worth(info_c: dict, dsim: dict, clusters, scoring: str = "full") -> dict[int, float]:
    """Each cluster's worth to a UCC crawl from the structure alone, the best cluster 1: the
    scoring's cluster factor (:func:`ucc_cluster_values`) without Balance, which only spreads a
    crawl over clusters. What a host plan without page types calls wanted, and what the BFS
    guard counts a UCC crawl's fetches by (``guard.BfsShadow``)."""
    values = ucc_cluster_values(info_c, dsim, Counter(), scoring, balance_weight=0.0)
    worth = {c: values.get(c, 0.0) for c in clusters}
    peak = max(worth.values(), default=0.0)
    return {c: (v / peak if peak > 0 else 0.0) for c, v in worth.items()}


def spread(members) -> float:
    """Dsim's dispersion of a cluster's sample pages (rows of a sparse matrix): the mean
    Euclidean distance to their centroid."""
    centroid = np.asarray(members.mean(axis=0)).ravel()
    return float(np.sqrt(((members.toarray() - centroid) ** 2).sum(axis=1)).mean())


@dataclass(frozen=True)
class UccStates:
    """What a UCC crawl values a page's cluster by (``ucc_unit``): each structural cluster's
    *unit* — the cluster itself (the paper), or with ``kind`` its kind, so the clusters of one
    kind share one Info, one Dsim and one Balance count — and each unit's Info (the HITS blend)
    and Dsim. With units of one cluster each this is the paper's score exactly."""
    unit_of: dict
    info: dict
    dsim: dict

    def values(self, counts: Counter, scoring: str = "full", balance_weight: float = 1.0) -> dict[int, float]:
        """Per destination cluster, the factor the UCC link score weighs P(C_j | row) by, with
        Balance over the pages fetched per unit (:func:`ucc_cluster_values`)."""
        per_unit: Counter = Counter()
        for c, n in counts.items():
            per_unit[self.unit_of.get(c, c)] += n
        by_unit = ucc_cluster_values(self.info, self.dsim, per_unit, scoring, balance_weight)
        return {c: by_unit.get(u, 0.0) for c, u in self.unit_of.items()}

    def worth(self, scoring: str = "full") -> dict[int, float]:
        """Each cluster's worth from the structure alone, the best 1 (:func:`structure_worth`)."""
        by_unit = structure_worth(self.info, self.dsim, list(dict.fromkeys(self.unit_of.values())), scoring)
        return {c: by_unit[u] for c, u in self.unit_of.items()}


def unit_states(A: np.ndarray, clusters: list[int], unit_of: dict, vectors, labels: np.ndarray,
                alpha: float) -> UccStates:
    """:class:`UccStates` of units that join several clusters: HITS on the units' graph (the
    adjacency summed over each unit's clusters; a unit's links to itself are dropped as a
    cluster's are), Dsim of each unit's sample pages together (``vectors`` rows, structural
    ``labels``), the outliers' unit 0."""
    units = list(dict.fromkeys(unit_of[c] for c in clusters))
    pos = {u: i for i, u in enumerate(units)}
    member = np.zeros((len(clusters), len(units)))
    for i, c in enumerate(clusters):
        member[i, pos[unit_of[c]]] = 1.0
    hubs, auths = hits(member.T @ A @ member, list(range(len(units))))
    labels = np.asarray(labels)
    dispersion = {}
    for u, i in pos.items():
        rows = np.isin(labels, [c for c in clusters if unit_of[c] == u and c != -1])
        dispersion[i] = spread(vectors[rows]) if rows.any() else 0.0
    dsim = normalise_dsim(dispersion)
    return UccStates(dict(unit_of), info({u: hubs[i] for u, i in pos.items()}, {u: auths[i] for u, i in pos.items()}, alpha),
                     {u: dsim[i] for u, i in pos.items()})


def score_row(probs: dict[int, float], values: dict[int, float]) -> float:
    return float(sum(p * values.get(c, 0.0) for c, p in probs.items()))


def entropy(counts) -> float:
    values = [v for v in (counts.values() if isinstance(counts, dict) else counts) if v > 0]
    total = sum(values)
    return -sum((v / total) * math.log2(v / total) for v in values) if total else 0.0


def mean_row_entropy(table: NavTable) -> float:
    """The authors' quality check: mean entropy (bits) of navigation-table rows."""
    if not table:
        return 0.0
    return float(np.mean([entropy(row) for row in table.values()]))


def navigation_to_rows(table: NavTable) -> list[dict]:
    return [{"cluster": ci, "apath": x, "to": {str(cj): v for cj, v in row.items()}}
            for (ci, x), row in sorted(table.items(), key=lambda kv: (kv[0][0], kv[0][1]))]


def navigation_from_rows(rows: list[dict]) -> NavTable:
    return {(int(r["cluster"]), r["apath"]): {int(k): float(v) for k, v in r["to"].items()} for r in rows}
