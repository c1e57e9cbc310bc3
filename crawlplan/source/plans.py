"""Within-host crawl plans for the budget export: which (cluster, Apath) link patterns to follow
first on a host, and the share of wanted pages expected behind each (dataset ``host_plans``)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd
from pyspark.sql import functions as F

from crawlplan.storage import read_dataset

PLAN_COLUMNS = ["site", "rank", "cluster", "apath", "expected_share", "links_seen", "wanted_basis"]


def load_host_plans(source, *, spark=None, top: int | None = None):
    """``host_plans`` as a pandas DataFrame (path) or a Spark DataFrame (``spark`` given).

    ``site`` equals the host when ``source.site_pages.site_key`` is ``host`` (the default), so
    the export joins it on host; ``top`` keeps each site's first ranks.
    """
    if spark is not None:
        df = read_dataset(spark, "host_plans", str(source))
        return df.where(F.col("rank") <= top) if top else df

    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"no host_plans dataset at {path}")
    df = pd.read_parquet(path, columns=PLAN_COLUMNS)
    if top:
        df = df[df["rank"] <= top]
    return df.sort_values(["site", "rank"]).reset_index(drop=True)


_DIGITS = re.compile(r"\d+")


def _segment_shape(segment: str) -> str:
    """A path segment as a regex shape: digit runs generalise, a leading-number slug keeps its form."""
    if segment.isdigit():
        return r"\d+"
    if _DIGITS.match(segment):
        return r"\d+[^/]*"
    return "[^/]+"


def url_shape(url: str) -> str:
    """The regex a crawler can match against a full URL for pages shaped like ``url``.

    The first path segment stays literal (``/t/``, ``/wiki/``: sections are what a site's page
    types differ by), later segments become shapes, query keys stay literal and their values
    generalise. ``https://f.example/t/12-a-b?page=2`` -> ``^https?://f\\.example/t/\\d+[^/]*\\?page=[^&]*$``.
    """
    parts = urlsplit(url)
    segments = parts.path.split("/")[1:]
    out = []
    for i, seg in enumerate(segments):
        if seg == "":
            out.append("")
        elif i == 0 and "." not in seg and not _DIGITS.search(seg):
            out.append(re.escape(seg))
        else:
            out.append(_segment_shape(seg))
    path = "/" + "/".join(out)
    query = ""
    if parts.query:
        keys = [kv.split("=", 1)[0] for kv in parts.query.split("&")]
        query = r"\?" + "&".join(re.escape(k) + "=[^&]*" for k in keys)
    return f"^https?://{re.escape(parts.hostname or '')}{path}{query}$"


def cluster_url_patterns(page_clusters, *, min_precision: float = 0.5, max_shapes: int = 3,
                         seeds: int = 3) -> dict[tuple[str, int], dict]:
    """Per (site, cluster): a URL regex covering the cluster's pages, its precision, seed URLs.

    Crawlers order and filter by URL, not by a page's DOM cluster, so each cluster of a learned
    sitemap (``page_clusters``: site, url, cluster) is described by the URL shapes of its pages:
    the most common shapes covering the cluster, kept while the alternation's precision over the
    site's pages (share of matches that are in the cluster) stays >= ``min_precision`` - by
    default a majority: one page type split over two clusters (long and short threads) still
    gives the larger cluster its URL shape. ``seeds``
    URLs of the cluster (shortest first) let seed-list crawlers start inside it. A cluster with
    no precise pattern gets ``pattern`` None and keeps its seeds.
    """
    out: dict[tuple[str, int], dict] = {}
    page_clusters = page_clusters.assign(site=page_clusters["site"].astype(str))   # partition column: categorical
    for site, rows in page_clusters.groupby("site", sort=True):
        urls = rows["url"].astype(str).tolist()
        shapes = [url_shape(u) for u in urls]
        labels = rows["cluster"].astype(int).tolist()
        for cluster in sorted(set(labels) - {-1}):
            mine = [s for s, c in zip(shapes, labels) if c == cluster]
            kept, covered = [], 0
            for shape, n in Counter(mine).most_common(max_shapes):
                trial = kept + [shape]
                hits = [c for s, c in zip(shapes, labels) if s in trial]
                if sum(c == cluster for c in hits) / len(hits) < min_precision:
                    continue
                kept, covered = trial, covered + n
            members = sorted((u for u, c in zip(urls, labels) if c == cluster), key=lambda u: (len(u), u))
            pattern = precision = None
            if kept:
                pattern = kept[0] if len(kept) == 1 else "^(?:" + "|".join(k[1:-1] for k in kept) + ")$"
                hits = [c for s, c in zip(shapes, labels) if s in kept]
                precision = round(sum(c == cluster for c in hits) / len(hits), 4)
            out[(str(site), int(cluster))] = {"url_pattern": pattern, "pattern_precision": precision,
                                              "pattern_recall": round(covered / len(mine), 4) if mine else None,
                                              "seed_urls": members[:seeds]}
    return out
