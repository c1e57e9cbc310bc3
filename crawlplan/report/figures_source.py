"""SOUrCe figures: each learned sitemap drawn as a graph (clusters as nodes, arcs weighted by
the cluster adjacency A) and the simulated crawls of each site (curves when the run recorded
them, final harvest rate / recall per method from ``site_eval`` otherwise).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib.patches import FancyArrowPatch

from crawlplan.report.render import Missing, need

MAX_ARCS = 80


def _parse(value) -> list:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, str):
        return json.loads(value) or []
    return list(value)


def sitemap_sites(frames: dict, limit: int = 6) -> list[str]:
    """Sites with a learned sitemap, largest first (the report draws the first few)."""
    df = need(frames, "sitemaps")
    ok = df[df["n_clusters"] > 0]
    if "error" in ok:
        ok = ok[ok["error"].isna()]
    return ok.sort_values(["pages", "site"], ascending=[False, True])["site"].head(limit).tolist()


def circle_layout(clusters: list[int]) -> dict[int, tuple[float, float]]:
    """Clusters on a circle in id order, outliers (-1) in the centre: stable across runs, so two
    reports of the same site can be compared by eye."""
    real = sorted(c for c in clusters if c >= 0)
    pos = {c: (math.cos(2 * math.pi * i / max(1, len(real))), math.sin(2 * math.pi * i / max(1, len(real))))
           for i, c in enumerate(real)}
    if -1 in clusters:
        pos[-1] = (0.0, 0.0)
    return pos


def fig_sitemap_graph(frames: dict, site: str):
    """One site's sitemap: node area ~ cluster size, colour = authority, arc width ~ A[i][j] (a
    section part of a cluster shares that cluster's arcs and is drawn without its own)."""
    df = need(frames, "sitemaps")
    row = df[df["site"] == site]
    if row.empty:
        raise Missing("sitemaps", f"has no row for site {site}")
    row = row.iloc[0]
    clusters = _parse(row.get("clusters_json", row.get("clusters")))
    arcs = _parse(row.get("adjacency_json", row.get("adjacency")))
    if not clusters:
        raise Missing("sitemaps", f"has no clusters for site {site}")
    ids = [int(c["cluster"]) for c in clusters]
    pos = circle_layout(ids)
    fig, ax = plt.subplots(figsize=(6.2, 5.6))
    arcs = sorted((a for a in arcs if a.get("weight")), key=lambda a: -float(a["weight"]))[:MAX_ARCS]
    wmax = max((float(a["weight"]) for a in arcs), default=1.0)
    for a in arcs:
        i, j, w = int(a["from_cluster"]), int(a["to_cluster"]), float(a["weight"])
        if i not in pos or j not in pos:
            continue
        if i == j:
            x, y = pos[i]
            ax.add_patch(plt.Circle((x * 1.12, y * 1.12), 0.07, fill=False, lw=0.5 + 3 * w / wmax,
                                    color="#c0392b", alpha=0.6))
            continue
        ax.add_patch(FancyArrowPatch(pos[i], pos[j], connectionstyle="arc3,rad=0.15", arrowstyle="-|>",
                                     mutation_scale=9, lw=0.4 + 4.0 * w / wmax, color="#34495e",
                                     alpha=0.25 + 0.6 * w / wmax, shrinkA=12, shrinkB=12))
    sizes = np.array([max(1, int(c.get("size") or 1)) for c in clusters], dtype=float)
    auth = np.array([float(c.get("authority") or 0.0) for c in clusters])
    xs = [pos[i][0] for i in ids]
    ys = [pos[i][1] for i in ids]
    sc = ax.scatter(xs, ys, s=60 + 900 * np.sqrt(sizes / sizes.max()), c=auth, cmap="YlOrRd",
                    edgecolors=["#999" if i == -1 else "#222" for i in ids], zorder=3)
    for i, c in zip(ids, clusters):
        part_of = i if c.get("part_of") is None else int(c["part_of"])   # None: a sitemap from before the cut
        name = f"C{i} ({int(c.get('size') or 0)})" + (f", section of C{part_of}" if part_of != i else "")
        ax.annotate("outliers" if i == -1 else name, pos[i],
                    textcoords="offset points", xytext=(0, 14), ha="center", fontsize=7, zorder=4)
    fig.colorbar(sc, ax=ax, label="authority", shrink=0.7)
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"{site}: {len([i for i in ids if i >= 0])} clusters, {int(row['pages']):,} pages", fontsize=10)
    return fig


def fig_crawl_curves(frames: dict, site: str | None = None):
    """Crawl curves: a metric (harvest rate, recall) against pages crawled, one line per method."""
    df = need(frames, "crawl_curves")
    sites = sorted(df["site"].unique()) if site is None else [site]
    sites = sites[:4]
    metrics = sorted(df["metric"].unique())
    fig, axes = plt.subplots(len(sites), len(metrics), figsize=(5.2 * len(metrics), 3.4 * len(sites)),
                             squeeze=False)
    for r, s in enumerate(sites):
        for c, metric in enumerate(metrics):
            ax = axes[r][c]
            sub = df[(df["site"] == s) & (df["metric"] == metric)]
            for (task, method), g in sub.groupby(["task", "method"]):
                g = g.sort_values("pages")
                ax.plot(g["pages"], g["value"], label=f"{method} ({task})")
            ax.set_title(f"{s}: {metric}", fontsize=9)
            ax.set_xlabel("pages crawled")
            ax.legend(fontsize=7)
    return fig


def fig_site_eval(frames: dict):
    """Final crawl results per site and method: UCC and target harvest rate and recall."""
    df = need(frames, "site_eval")
    df = df[df["task"].isin(["ucc", "target"]) & df["metric"].isin(["harvest_rate", "recall"])]
    if df.empty:
        raise Missing("site_eval", "has no crawl results (no site with known page types)")
    keys = sorted(set(zip(df["task"], df["metric"])))
    fig, axes = plt.subplots(1, len(keys), figsize=(4.8 * len(keys), 3.8), squeeze=False)
    for ax, (task, metric) in zip(axes[0], keys):
        sub = df[(df["task"] == task) & (df["metric"] == metric)]
        pivot = sub.pivot_table(index="site", columns="method", values="value", aggfunc="mean")
        pivot.plot.bar(ax=ax, width=0.8, legend=True)
        ax.set_title(f"{task}: {metric}", fontsize=10)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("")
        ax.tick_params(axis="x", rotation=25)
        ax.legend(fontsize=7)
    fig.suptitle("Simulated crawls per site (budget as in conf source.sitemaps)")
    return fig


def sitemap_table(frames: dict) -> pd.DataFrame:
    df = need(frames, "sitemaps")
    cols = [c for c in ["site", "pages", "train_pages", "method", "eps", "eps_source", "n_features", "n_clusters",
                        "outlier_share", "nav_entropy", "train_seconds", "error"] if c in df]
    return df[cols].sort_values(["pages", "site"], ascending=[False, True])
