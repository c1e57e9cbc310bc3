"""The demo's host-level web graph release, in Common Crawl's published layout and formats.

Harmonic centrality and PageRank are computed on the demo's own host link graph (the links in
its pages plus the graph-only hosts), exactly as defined by Common Crawl's webgraph tools:
HC(v) = sum over u != v of 1 / d(u, v) on the directed graph (distance into v), PageRank with
damping 0.85 and dangling mass spread uniformly. Scores are written as cc-webgraph's
``JoinSortRanks`` prints them: harmonic centrality a Java ``float``, PageRank a Java ``double``
(``Float.toString`` / ``Double.toString``). The vertices and edges listings name their parts
relative to the bucket (``projects/hyperlinkgraph/<release>/host/vertices/part-00000.txt.gz``)
as Common Crawl's do, while the parts sit in the release folder: the layout of a release copied
by a download script that drops the bucket prefix.
"""

from __future__ import annotations

import gzip
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from crawlplan.demo.web import GRAPH_ONLY_HOSTS, Web
from crawlplan.hosts import rev_host

RELEASE = "cc-main-2023-24-demo"
PREVIOUS_RELEASE = "cc-main-2023-14-demo"   # the release before, for rank stability (Table 2)
DAMPING = 0.85
# How the host graph changed between the two releases: hosts that are new in RELEASE, hosts that
# were gone by then, and the share of host links that were not there yet or have since gone.
NEW_HOST_SHARE = 0.05
GONE_HOSTS = 12
EDGE_CHURN = 0.2


@dataclass
class Graph:
    vertices: list[str]              # rev_host, sorted; index = vertex id
    edges: np.ndarray                # (m, 2) int64 from_id, to_id, sorted, unique
    hc: np.ndarray
    pr: np.ndarray

    def ranks(self) -> dict[str, tuple[float, float]]:
        return {v: (float(self.hc[i]), float(self.pr[i])) for i, v in enumerate(self.vertices)}


def java_float(x: float) -> str:
    """``Float.toString`` of a float32: decimal in [1e-3, 1e7), else ``d.dddE±n`` (e.g. 3.4626736E7)."""
    return _java_decimal(np.float32(x))


def java_double(x: float) -> str:
    """``Double.toString`` of a float64 (e.g. 0.005384977821460953, 1.0E-5): the same layout as
    ``java_float`` with the shortest digits that read back to the double."""
    return _java_decimal(np.float64(x))


def _java_decimal(f) -> str:
    if f == 0:
        return "0.0"
    a = abs(float(f))
    if 1e-3 <= a < 1e7:
        s = np.format_float_positional(f, unique=True, trim="-")
        return s if "." in s else s + ".0"
    s = np.format_float_scientific(f, unique=True, trim="-", exp_digits=1)
    mantissa, exp = s.split("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exp)}"


def harmonic_centrality(n: int, edges: np.ndarray) -> np.ndarray:
    """HC(v) = sum_{u != v} 1/d(u, v), d along directed edges from u to v."""
    if n == 0:
        return np.zeros(0)
    adj = csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n)) if len(edges) else \
        csr_matrix((n, n))
    dist = shortest_path(adj, method="D", directed=True, unweighted=True)
    with np.errstate(divide="ignore"):
        inv = np.where(np.isfinite(dist) & (dist > 0), 1.0 / dist, 0.0)
    return inv.sum(axis=0)


def pagerank(n: int, edges: np.ndarray, damping: float = DAMPING, tol: float = 1e-13,
             max_iter: int = 1000) -> np.ndarray:
    """Power iteration; dangling vertices spread their mass uniformly. Sums to 1."""
    if n == 0:
        return np.zeros(0)
    out_deg = np.bincount(edges[:, 0], minlength=n).astype(float) if len(edges) else np.zeros(n)
    weights = 1.0 / out_deg[edges[:, 0]] if len(edges) else np.zeros(0)
    m = csr_matrix((weights, (edges[:, 1], edges[:, 0])), shape=(n, n)) if len(edges) else csr_matrix((n, n))
    dangling = out_deg == 0
    pr = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        new = damping * (m @ pr + pr[dangling].sum() / n) + (1.0 - damping) / n
        if np.abs(new - pr).sum() < tol:
            return new
        pr = new
    return pr


def build_graph(web: Web, seed: int) -> Graph:
    rng = random.Random(f"crawlplan-demo-graph:{seed}")
    crawled = {rev_host(h.host): h for h in web.hosts}
    in_graph = {r for r, h in crawled.items() if h.in_graph} | {rev_host(x) for x in GRAPH_ONLY_HOSTS}
    vertices = sorted(in_graph)
    ids = {v: i for i, v in enumerate(vertices)}
    edge_set = {(ids[a], ids[b]) for a, b in web.host_edges() if a in ids and b in ids}
    # Graph-only hosts were crawled in other months: they link out to popular crawled hosts.
    popular = sorted((h for h in web.hosts if h.in_graph), key=lambda h: (-h.popularity, h.host))[:40]
    for g in GRAPH_ONLY_HOSTS:
        for t in rng.sample(popular, min(len(popular), rng.randint(2, 6))):
            edge_set.add((ids[rev_host(g)], ids[rev_host(t.host)]))
    edges = np.array(sorted(edge_set), dtype=np.int64).reshape(-1, 2)
    n = len(vertices)
    return Graph(vertices=vertices, edges=edges, hc=harmonic_centrality(n, edges), pr=pagerank(n, edges))


def build_previous_graph(graph: Graph, seed: int) -> Graph:
    """The release before ``graph``: some of today's hosts did not exist yet, some hosts of then are
    gone, and a share of the host links differs. Old links go to hosts that were popular then, in
    proportion to their in-degree, as the web's own preferential attachment. Centralities are
    recomputed, so rank stability between the two releases is measured, not planted."""
    rng = np.random.default_rng([seed, 2314])
    n = len(graph.vertices)
    new = set(rng.choice(n, size=int(round(NEW_HOST_SHARE * n)), replace=False).tolist()) if n else set()
    kept = [i for i in range(n) if i not in new]
    gone = [f"org.gone-demo-host-{k:02d}" for k in range(GONE_HOSTS)]
    vertices = sorted([graph.vertices[i] for i in kept] + gone)
    ids = {v: k for k, v in enumerate(vertices)}
    old_id = {i: ids[graph.vertices[i]] for i in kept}
    edges = [(old_id[a], old_id[b]) for a, b in graph.edges.tolist()
             if a in old_id and b in old_id and rng.random() >= EDGE_CHURN]
    in_deg = np.bincount([b for _, b in edges], minlength=len(vertices)).astype(float) + 1.0
    sources = rng.integers(0, len(vertices), size=int(EDGE_CHURN * len(graph.edges)) + 4 * GONE_HOSTS)
    targets = rng.choice(len(vertices), size=len(sources), p=in_deg / in_deg.sum())
    gone_ids = [ids[g] for g in gone]
    sources[: 4 * GONE_HOSTS] = np.repeat(gone_ids, 4)      # gone hosts linked out, as everybody
    edge_set = set(edges) | {(int(a), int(b)) for a, b in zip(sources, targets) if a != b}
    arr = np.array(sorted(edge_set), dtype=np.int64).reshape(-1, 2)
    m = len(vertices)
    return Graph(vertices=vertices, edges=arr, hc=harmonic_centrality(m, arr), pr=pagerank(m, arr))


def _write_gz_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write("".join(line + "\n" for line in lines).encode())


def _parts(items: list[str], n_parts: int) -> list[list[str]]:
    size = -(-len(items) // n_parts) if items else 0
    return [items[i * size:(i + 1) * size] for i in range(n_parts)]


BUCKET_PREFIX = "projects/hyperlinkgraph/{release}/host"   # what Common Crawl's listings put before vertices/...


def write_graph(graph: Graph, out_dir: Path, release: str = RELEASE) -> dict[str, str]:
    """Ranks, vertices and edges (each in two gzip parts, listed by ``*.paths.gz`` relative to the
    bucket) under ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    n = len(graph.vertices)
    # Ranks: positions by descending score, ties broken by host name (deterministic).
    hc_order = sorted(range(n), key=lambda i: (-graph.hc[i], graph.vertices[i]))
    pr_order = sorted(range(n), key=lambda i: (-graph.pr[i], graph.vertices[i]))
    pr_pos = {i: k + 1 for k, i in enumerate(pr_order)}
    lines = ["#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"]
    for k, i in enumerate(hc_order):
        lines.append(f"{k + 1}\t{java_float(graph.hc[i])}\t{pr_pos[i]}\t{java_double(graph.pr[i])}\t{graph.vertices[i]}")
    ranks = out_dir / f"{release}-host-ranks.txt.gz"
    _write_gz_lines(ranks, lines)

    vertex_lines = [f"{i}\t{v}" for i, v in enumerate(graph.vertices)]
    edge_lines = [f"{a}\t{b}" for a, b in graph.edges.tolist()]
    listings = {}
    for kind, items in (("vertices", vertex_lines), ("edges", edge_lines)):
        rels = []
        for k, chunk in enumerate(_parts(items, 2)):
            rel = f"{kind}/part-{k:05d}.txt.gz"
            _write_gz_lines(out_dir / rel, chunk)
            rels.append(f"{BUCKET_PREFIX.format(release=release)}/{rel}")
        listing = out_dir / f"{release}-host-{kind}.paths.gz"
        _write_gz_lines(listing, rels)
        listings[kind] = str(listing)
    return {"ranks": str(ranks), **listings}
