"""Node ``site_pages``: WARC files -> the HTML pages of the sitemap sites, with their links.

The HTML is re-read from the WARC files rather than carried through ``documents``: extraction
drops pages without main text (login redirects, empty lists), which are exactly the pages a
sitemap must see. Sites are an explicit list (``sites``) or every site with at least
``min_pages`` HTML pages, found by a first, payload-free pass; the second pass reads only the
files that hold a chosen site. One Spark task per WARC file; per-site work is grouped later.
"""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
from pyspark.sql import Window
from pyspark.sql import functions as F

from crawlplan.schemas import load_schema
from crawlplan.warc.listing import resolve_inputs

_COUNT_SCHEMA = "warc_file string, site string, pages long, rejects_json string"


def _count_sites(site_mode: str):
    def fn(batches):
        from crawlplan.source.mirror import iter_site_records

        for pdf in batches:
            for path in pdf["warc_file"]:
                counts, rejects = Counter(), Counter()
                for site, _, page in iter_site_records(path, site_mode=site_mode, rejects=rejects,
                                                       bodies=False):
                    counts[site] += page.html is not None
                rows = [(path, s, int(n), None) for s, n in counts.items()]
                rows.append((path, None, 0, json.dumps(rejects)))
                yield pd.DataFrame(rows, columns=["warc_file", "site", "pages", "rejects_json"])
    return fn


def _read_sites(sites: frozenset, site_mode: str, columns: list[str]):
    def fn(batches):
        from crawlplan.source.features import extract, normalise_url
        from crawlplan.source.mirror import iter_site_records, site_key

        site_of = None if site_mode == "host" else (lambda u: site_key(u, site_mode))
        for pdf in batches:
            for path, file_index in zip(pdf["warc_file"], pdf["file_index"]):
                rows = []
                for site, rec, page in iter_site_records(path, sites=set(sites), site_mode=site_mode):
                    links = None
                    if page.html is not None:
                        feats = extract(page.url, page.html, site_of=site_of)
                        links = [{"apath": a, "url": u} for a, u in feats.links]
                    rows.append({"site": site, "url": normalise_url(page.url),
                                 "capture_order": (int(file_index) << 32) + page.order,
                                 "status": page.status, "location": page.location, "warc_file": path,
                                 "offset": int(rec.offset), "html": page.html, "links": links})
                yield pd.DataFrame(rows, columns=columns)
    return fn


def run(ctx):
    params = ctx.params
    spark = ctx.spark
    base = str(ctx.conf.get("inputs", {}).get("warc_base") or "")
    paths = resolve_inputs(ctx.input("warc_paths"), base=base)
    if not paths:
        raise ValueError("site_pages: the input names no WARC files")
    site_mode = str(params.get("site_key", "host"))
    from crawlplan.source.mirror import site_key

    site_key("http://example.com/", site_mode)      # a typo fails here, not in every task
    listing = spark.sparkContext.parallelize([(p, i) for i, p in enumerate(paths)], numSlices=len(paths))
    files = spark.createDataFrame(listing, "warc_file string, file_index long")
    chosen = [s.lower() for s in (params.get("sites") or [])]
    counts = files.select("warc_file").mapInPandas(_count_sites(site_mode), _COUNT_SCHEMA).persist()
    for (rj,) in counts.where(F.col("site").isNull()).select("rejects_json").collect():
        for reason, n in json.loads(rj).items():
            ctx.count(f"rejected_{reason}", n)
    per_site = counts.where(F.col("site").isNotNull()).groupBy("site").agg(F.sum("pages").alias("pages"))
    if chosen:
        per_site = per_site.where(F.col("site").isin(chosen))
    else:
        per_site = per_site.where(F.col("pages") >= int(params.get("min_pages", 100)))
    sites = frozenset(r.site for r in per_site.select("site").collect())
    ctx.count("sites", len(sites))
    if chosen:
        missing = sorted(set(chosen) - sites)
        if missing:
            ctx.note(f"site_pages: {len(missing)} configured site(s) have no HTML pages in the input: "
                     f"{', '.join(missing[:10])}")
    if not sites:
        ctx.note("site_pages: no site qualifies (source.site_pages.sites / min_pages); site_pages is empty")
    wanted_files = counts.where(F.col("site").isin(list(sites)) & (F.col("pages") > 0)) \
        .select("warc_file").distinct()
    todo = files.join(wanted_files, "warc_file")
    schema = load_schema("site_pages")
    pages = todo.mapInPandas(_read_sites(sites, site_mode, schema.names), schema.struct())
    cap = int(params.get("max_pages", 20000))
    rank = F.row_number().over(Window.partitionBy("site").orderBy("capture_order"))
    pages = pages.withColumn("_rank", rank).where(F.col("_rank") <= cap).drop("_rank")
    counts.unpersist()
    return {"site_pages": pages}
