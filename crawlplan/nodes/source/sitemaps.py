"""Node ``sitemaps``: site_pages -> sitemaps, page_clusters, site_eval, crawl_curves, host_plans.

One sitemap per site, trained in parallel: ``groupBy(site).applyInPandas`` hands each site's
pages to one Python worker, which runs the same Spark-free code as ``crawlplan sitemap``
(crawlplan.source.sitemaps). The outputs travel as JSON rows tagged by dataset in one
frame, persisted once, then parsed with each dataset's schema. A site whose learning fails
becomes a sitemaps row with ``error`` set and a counter, never a failed job.
"""

from __future__ import annotations

import json
import traceback

import numpy as np
import pandas as pd
from pyspark import StorageLevel
from pyspark.sql import functions as F

from crawlplan.schemas import conform, load_schema
from crawlplan.source.experiment import SitemapSettings, feature_mode, site_specs, site_types
from crawlplan.source.mirror import SitePage, build_mirror
from crawlplan.source.sitemaps import empty_sitemap, site_tables

OUTPUTS = ("sitemaps", "page_clusters", "site_eval", "crawl_curves", "host_plans")
_WIDE = "dataset string, site string, row string"


def _plain(value):
    """numpy scalars in JSON: integers stay integers (Spark's from_json nulls 3.0 in an int)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _train_group(settings: SitemapSettings, specs: dict):
    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        site = str(pdf["site"].iloc[0])
        try:
            pdf = pdf.sort_values("capture_order")
            pages = [SitePage(u, int(o), None if pd.isna(s) else int(s),
                              None if h is None else bytes(h), loc if isinstance(loc, str) else None)
                     for u, o, s, h, loc in zip(pdf["url"], pdf["capture_order"], pdf["status"],
                                                pdf["html"], pdf["location"])]
            mirror = build_mirror(site, pages, xpath_classes=feature_mode(settings))
            tables = site_tables(mirror, settings, specs.get(site))
        except Exception as exc:  # one odd site must not fail the job: record it
            detail = f"{type(exc).__name__}: {exc}"[:300] + " | " + traceback.format_exc(limit=2)[-300:]
            tables = {"sitemaps": [empty_sitemap(site, len(pdf), f"learning failed: {detail}")]}
        rows = [(name, site, json.dumps(r, default=_plain)) for name, rs in tables.items() for r in rs]
        return pd.DataFrame(rows, columns=["dataset", "site", "row"])
    return fn


def fingerprint(params: dict, conf: dict) -> dict:
    """The labelled sites' ground truth is a data file (conf/site_types.yaml), not the node's conf
    section: editing it re-runs the node as editing ``extra_site_types`` does."""
    return {"site_types": site_types()}


def run(ctx):
    settings = SitemapSettings.from_params(ctx.params)   # a typo fails here, not as one error row per site
    truth = ctx.input("ground_truth")
    specs = site_specs(settings.site_types, str(truth) if truth else None)
    pages = ctx.read("site_pages").select("site", "url", "capture_order", "status", "location", "html")
    wide = pages.groupBy("site").applyInPandas(_train_group(settings, specs), _WIDE) \
        .persist(StorageLevel.MEMORY_AND_DISK)
    out = {}
    for name in OUTPUTS:
        parsed = wide.where(F.col("dataset") == name).select(F.from_json("row", load_schema(name).struct()).alias("r"))
        out[name] = conform(parsed.select("r.*"), name)
    failed = wide.where((F.col("dataset") == "sitemaps")
                        & F.get_json_object("row", "$.error").isNotNull()).count()
    if failed:
        ctx.count("sites_without_sitemap", failed)
        ctx.note(f"sitemaps: {failed} site(s) got no sitemap (too few pages or learning failed); see sitemaps.error")
    return out
