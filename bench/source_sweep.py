"""Sweep of SOUrCe clustering alternatives over every labelled site (item 8 of issue 6).

    .venv/bin/python bench/source_sweep_cache.py      # once: training samples + feature variants
    .venv/bin/python bench/source_sweep.py [--feats ...] [--how ...] --out bench/results/sweepN.json
    .venv/bin/python bench/source_sweep.py --summary bench/results/sweep*.json   # table + leave-one-site-out
    .venv/bin/python bench/source_sweep.py --smoke   # a small cache (20-host demo's forum), sweep, summary

One configuration is scored on all sites at once; the summary ranks configurations by their
worst site and their mean, never by one site. ``oracle`` rows (best DBSCAN eps with the labels
in hand) are an upper bound for reference, not a method. ``--smoke`` builds the cache of the 20-host demo's
forum in memory (source_sweep_cache.build), sweeps two feature variants, both norms and every
clusterer on it into bench/results/smoke/source_sweep.json and summarises that file; checks a row
per combination with scores in [0, 1].
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import sparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results"


def vectors(bags, *, norm="l1", max_df=1.0, min_pts=4, tf="log"):
    n = len(bags)
    df = Counter(p for b in bags for p in b)
    vocab = sorted(p for p, d in df.items() if d >= min_pts and d <= max_df * n)
    index = {p: i for i, p in enumerate(vocab)}
    idf = np.array([math.log2(n / df[p]) for p in vocab])
    rows, cols, vals = [], [], []
    for r, b in enumerate(bags):
        for p, c in b.items():
            j = index.get(p)
            if j is not None:
                rows.append(r)
                cols.append(j)
                vals.append((math.log2(1 + c) if tf == "log" else 1.0) * idf[j])
    M = sparse.csr_matrix((vals, (rows, cols)), shape=(n, len(vocab))).toarray()
    if norm == "l1":
        s = np.abs(M).sum(axis=1, keepdims=True)
    else:
        s = np.sqrt((M ** 2).sum(axis=1, keepdims=True))
    s[s == 0] = 1
    return M / s


def knee_eps(kd):
    """Kneedle on the ascending K-dist curve: the point farthest below the chord."""
    y = np.sort(kd)
    x = np.linspace(0, 1, len(y))
    yn = (y - y[0]) / max(y[-1] - y[0], 1e-12)
    i = int(np.argmax(x - yn))
    return float(y[i])


def small_to_outliers(labels, min_pts=4):
    labels = np.asarray(labels).copy()
    cnt = Counter(labels.tolist())
    for c, k in cnt.items():
        if k < min_pts:
            labels[labels == c] = -1
    uniq = sorted(set(labels.tolist()) - {-1})
    remap = {c: i for i, c in enumerate(uniq)}
    return np.array([remap.get(c, -1) for c in labels])


def sil_score(X, labels):
    from sklearn.metrics import silhouette_score
    m = labels != -1
    if len(set(labels[m].tolist())) < 2:
        return -1.0
    return silhouette_score(X[m], labels[m]) * m.mean() ** 2


def dbscan(X, eps, min_pts=4):
    from sklearn.cluster import DBSCAN
    return DBSCAN(eps=max(eps, 1e-6), min_samples=min_pts).fit_predict(X)


def cluster(X, how, n_feats, types=None, min_pts=4):
    from crawlplan.source.eps import eps_from_histogram, kdist
    kd = kdist(X, min_pts)
    if how == "hist":
        return dbscan(X, eps_from_histogram(kd, n_feats, min_pts))
    if how == "knee":
        return dbscan(X, knee_eps(kd))
    if how == "silq":  # eps over K-dist quantiles by silhouette x share^2 (the current guard's scan)
        best = max(((sil_score(X, labels), labels) for labels in (dbscan(X, float(np.quantile(kd, q)))
                    for q in np.arange(0.5, 0.951, 0.05)) ), key=lambda t: t[0])
        return best[1]
    if how == "guard":  # the current default's guard: histogram eps unless it collapses or shatters
        lab = dbscan(X, eps_from_histogram(kd, n_feats, min_pts))
        few = len(set(lab.tolist()) - {-1}) < 3 and len(lab) >= 40
        if few or np.mean(lab == -1) > 0.25:
            return cluster(X, "silq", n_feats, types, min_pts)
        return lab
    if how == "hsel":  # histogram eps and K-dist quantiles as candidates, silhouette x share^2 picks
        cands = [eps_from_histogram(kd, n_feats, min_pts)] + [float(np.quantile(kd, q)) for q in np.arange(0.5, 0.951, 0.05)]
        return max(((sil_score(X, labels), labels) for labels in (dbscan(X, e) for e in cands)),
                   key=lambda t: t[0])[1]
    if how == "hdbscan":
        from sklearn.cluster import HDBSCAN
        return HDBSCAN(min_cluster_size=min_pts, min_samples=min_pts).fit_predict(X)
    if how == "hdbscan_leaf":
        from sklearn.cluster import HDBSCAN
        return HDBSCAN(min_cluster_size=min_pts, min_samples=min_pts, cluster_selection_method="leaf").fit_predict(X)
    if how.startswith("agg"):  # agglomerative (average linkage), k by silhouette x share^2
        from scipy.cluster.hierarchy import fcluster, linkage
        Z = linkage(X, method="average", metric="euclidean")
        best = None
        for k in range(2, 41):
            lab = small_to_outliers(fcluster(Z, k, criterion="maxclust") - 1, min_pts)
            s = sil_score(X, lab)
            if best is None or s > best[0]:
                best = (s, lab)
        return best[1]
    if how == "oracle":
        from crawlplan.source.evaluate import clustering_scores
        best = None
        for q in np.arange(0.05, 0.99, 0.02):
            lab = dbscan(X, float(np.quantile(kd, q)))
            f = clustering_scores(types, lab.tolist(), min_pts)["micro_f"]
            if best is None or f > best[0]:
                best = (f, lab)
        return best[1]
    raise ValueError(how)


def summary(files: list[str]) -> None:
    """Micro-F per site for every configuration, sorted by mean; then leave-one-site-out: the
    configuration chosen on six sites (by their worst and by their mean micro-F), scored on the
    seventh."""
    from collections import defaultdict

    rows = [r for f in files for r in json.loads(Path(f).read_text())]
    table = defaultdict(dict)
    for r in rows:
        table[(r["feat"], r["norm"], r["max_df"], r["how"])][r["site"]] = r["micro_f"]
    sites = sorted({r["site"] for r in rows})
    table = {k: v for k, v in table.items() if len(v) == len(sites)}
    print("| features | norm | max df | eps / clusterer | " + " | ".join(sites) + " | worst | mean |")
    print("|---|---|---:|---|" + "---:|" * (len(sites) + 2))
    for k, v in sorted(table.items(), key=lambda kv: -sum(kv[1].values())):
        f = [v[s] for s in sites]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | " + " | ".join(f"{x:.3f}" for x in f)
              + f" | {min(f):.3f} | {sum(f) / len(f):.3f} |")
    chosen = {k: v for k, v in table.items() if k[3] != "oracle"}
    if len(sites) < 2:
        print(f"leave-one-site-out: needs two sites or more, {len(sites)} given")
        return
    for crit, agg in (("worst", min), ("mean", lambda xs: sum(xs) / len(xs))):
        held = []
        for s in sites:
            best = max(chosen, key=lambda k: agg([chosen[k][t] for t in sites if t != s]))
            held.append(chosen[best][s])
            print(f"leave-one-site-out ({crit}): held out {s}: chose {' '.join(map(str, best))} -> {chosen[best][s]:.3f}")
        print(f"leave-one-site-out ({crit}): mean held-out micro-F {sum(held) / len(held):.3f}")


def main() -> int:
    from crawlplan.source.evaluate import clustering_scores
    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("--feats", default="tag,cls_leaf,cls_all,elem_tag,elem_cls")
    ap.add_argument("--tf", default="log")
    ap.add_argument("--norms", default="l1,l2")
    ap.add_argument("--max-df", default="1.0,0.9")
    ap.add_argument("--how", default="hist,silq,knee,hdbscan,agg,oracle")
    ap.add_argument("--out", default=str(RESULTS / "source_sweep.json"))
    ap.add_argument("--summary", nargs="+", help="sweep JSON files to summarise (no clustering run)")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return 0
    if args.smoke:
        sys.path.insert(0, str(REPO / "bench"))
        import source_sweep_cache

        data = source_sweep_cache.build(smoke=True)
        args.feats, args.max_df, args.out = "tag,elem_cls", "1.0", str(RESULTS / "smoke" / "source_sweep.json")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    else:
        data = json.loads((RESULTS / "source_sweep_cache.json").read_text())
    rows = []
    for feat in args.feats.split(","):
      for tfw in args.tf.split(","):
        for norm in args.norms.split(","):
            for max_df in map(float, args.max_df.split(",")):
                for site, pages in sorted(data.items()):
                    X = vectors([p["bags"][feat] for p in pages], norm=norm, max_df=max_df, tf=tfw)
                    types = [p["type"] for p in pages]
                    for how in args.how.split(","):
                        lab = cluster(X, how, X.shape[1], types)
                        sc = clustering_scores(types, lab.tolist(), 4)
                        rows.append({"feat": feat if tfw == "log" else feat + "/bin", "norm": norm, "max_df": max_df, "how": how, "site": site,
                                     "micro_f": sc["micro_f"], "macro_f": sc["macro_f"],
                                     "purity": sc["micro_purity"], "clusters": int(lab.max() + 1),
                                     "outliers": float(np.mean(lab == -1))})
                        print(json.dumps(rows[-1]), flush=True)
    Path(args.out).write_text(json.dumps(rows))
    if args.smoke:
        from benchlib import check, ok

        combos = len(args.feats.split(",")) * len(args.norms.split(",")) * len(args.how.split(",")) * len(data)
        check(data and len(rows) == combos, f"{len(rows)} rows for {combos} combinations")
        check(all(0 <= r["micro_f"] <= 1 and 0 <= r["purity"] <= 1 for r in rows), "a score outside [0, 1]")
        summary([args.out])
        return ok(f"{len(rows)} rows ({', '.join(sorted(data))}: {len(next(iter(data.values())))} pages), summary printed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
