"""Rows of the sitemap datasets for one site: ``sitemaps``, ``page_clusters``, ``site_eval``,
``crawl_curves``, ``host_plans``. Built from plain Python so the CLI writes exactly what the Spark node writes."""

from __future__ import annotations

import json
import time
from collections import Counter

import numpy as np

from crawlplan.source.experiment import (
    SitemapSettings,
    SiteSpec,
    cluster_ucc_share,
    evaluate_site,
    host_plan,
    train_site,
)
from crawlplan.source.kinds import cluster_kinds, joined
from crawlplan.source.mirror import Mirror

MIN_SITE_PAGES = 2


def site_tables(mirror: Mirror, settings: SitemapSettings, spec: SiteSpec | None) -> dict[str, list[dict]]:
    """Learn the site's sitemap and classify every mirror page; evaluate where labels exist.

    A site too small to cluster (fewer than two pages) yields no sitemap row, only a note in
    ``error`` of its one summary row, so one odd host never fails the whole job.
    """
    site = mirror.site
    if len(mirror) < MIN_SITE_PAGES:
        return {"sitemaps": [empty_sitemap(site, len(mirror), "fewer than 2 HTML pages")],
                "page_clusters": [], "site_eval": [], "crawl_curves": [], "host_plans": []}
    started = time.perf_counter()
    learner, sample = train_site(mirror, settings)
    train_s = time.perf_counter() - started
    urls = list(mirror.pages)
    in_train = set(sample)
    labels = learner.predict([mirror.pages[u] for u in urls])
    sample_label = dict(zip(sample, learner.labels_.tolist()))
    # every cluster of the labels, section parts included; the scores are the structural cluster's
    sizes = Counter(learner.labels_.tolist())
    kind_of = cluster_kinds(learner.labels_, learner.kind_labels_)
    clusters = [{"cluster": int(c), "part_of": int(s), "kind": int(kind_of[c]),
                 "size": int(sizes[c]), "dsim": float(learner.dsim_.get(s, 0.0)),
                 "hub": float(learner.hubs_.get(s, 0.0)), "authority": float(learner.authorities_.get(s, 0.0)),
                 "example_url": next((u for u in sample if sample_label[u] == c), "")}
                for c, s in zip(sorted(sizes), learner.structural(sorted(sizes)).tolist())]
    nav_rows = [{"cluster": int(ci), "apath": x, "to_cluster": int(cj), "weight": float(w)}
                for (ci, x), row in sorted(learner.navigation_.items()) for cj, w in sorted(row.items())]
    A = learner.adjacency_
    adjacency = [{"from_cluster": int(learner.clusters_[i]), "to_cluster": int(learner.clusters_[j]),
                  "weight": float(A[i, j])} for i, j in zip(*np.nonzero(A))]
    sitemap = {
        "site": site, "pages": len(mirror), "train_pages": len(sample), "method": learner.method,
        "eps": None if np.isnan(learner.eps_) else float(learner.eps_), "eps_source": learner.eps_source_,
        "n_features": int(learner.n_features_), "n_clusters": int(learner.n_clusters_),
        "outlier_share": float(learner.outlier_share_), "nav_entropy": float(learner.nav_entropy_),
        "clusters": clusters, "navigation": nav_rows, "adjacency": adjacency,
        "train_seconds": float(train_s), "model_json": learner.to_json(), "error": None,
    }
    page_label = [int(c if u not in sample_label else sample_label[u]) for u, c in zip(urls, labels)]
    sample_kind = dict(zip(sample, learner.kind_labels_.tolist()))
    # without a kind model a page's kind is its cluster's (joined): the clusters predicted above serve
    kinds = (learner.predict_kind([mirror.pages[u] for u in urls]) if learner.kind_model_ is not None
             else joined(labels, learner.kind_joins_))
    page_kind = [int(k if u not in sample_kind else sample_kind[u]) for u, k in zip(urls, kinds)]
    page_clusters = [{"site": site, "url": u, "cluster": c, "part_of": s, "kind": k, "in_training": u in in_train}
                     for u, c, s, k in zip(urls, page_label, learner.structural(page_label).tolist(), page_kind)]
    evals: list[dict] = []
    curves: list[dict] = []
    if spec is not None and spec.page_types:
        for r in evaluate_site(mirror, learner, sample, spec, settings, curves=curves):
            evals.append({"site": site, "method_config": learner.method, **r})
        curves = [{"site": site, "method_config": learner.method, **r} for r in curves]
    wanted = cluster_ucc_share(sample, learner.structural(learner.labels_).tolist(), spec) if spec else None
    plans = [{"site": site, **r} for r in host_plan(learner, cluster_wanted=wanted, top=settings.plan_top)]
    return {"sitemaps": [sitemap], "page_clusters": page_clusters, "site_eval": evals, "crawl_curves": curves,
            "host_plans": plans}


def empty_sitemap(site: str, pages: int, error: str) -> dict:
    return {"site": site, "pages": pages, "train_pages": 0, "method": None, "eps": None, "eps_source": None,
            "n_features": 0, "n_clusters": 0, "outlier_share": None, "nav_entropy": None, "clusters": [],
            "navigation": [], "adjacency": [], "train_seconds": 0.0, "model_json": None, "error": error}


def sitemap_json(row: dict) -> str:
    """The crawler-facing file for one site: the learner plus its summary."""
    return json.dumps({"site": row["site"], "summary": {k: row[k] for k in ("pages", "train_pages", "eps",
                                                                           "n_clusters", "outlier_share")},
                       "model": json.loads(row["model_json"]) if row["model_json"] else None})
