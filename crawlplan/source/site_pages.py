"""The HTML pages of the sitemap sites, re-read from the WARC files with each link's Apath.

Two passes over the WARC files, one Spark task per file: ``count_site_pages`` counts HTML pages
per site and file without reading payloads; ``read_site_pages`` re-reads only the files that
hold a chosen site and keeps, per site, the first ``max_pages`` captures (the simulated mirror).
The Python work inside the tasks is ``crawlplan.source.mirror`` and ``crawlplan.source.features``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

import pandas as pd
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from crawlplan.conf import Settings
from crawlplan.schemas import load_schema
from crawlplan.source.features import extract, normalise_url
from crawlplan.source.mirror import iter_site_records, site_key


@dataclass(frozen=True)
class SitePagesSettings(Settings):
    """Conf section ``source.site_pages`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "source.site_pages"

    site_key: str
    sites: tuple[str, ...]
    min_pages: int
    max_pages: int

    def __post_init__(self):
        check_site_mode(self.site_key)


_COUNT_SCHEMA = "warc_file string, site string, pages long, rejects_json string"


def _count_sites(site_mode: str):
    def fn(batches):
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


def warc_files(spark: SparkSession, paths: list[str]) -> DataFrame:
    """``warc_file, file_index``: one partition per file (a file is the unit of parallelism)."""
    listing = spark.sparkContext.parallelize([(p, i) for i, p in enumerate(paths)], numSlices=len(paths))
    return spark.createDataFrame(listing, "warc_file string, file_index long")


def check_site_mode(site_mode: str) -> None:
    """A typo in ``site_key`` fails on the driver, not once in every task."""
    site_key("http://example.com/", site_mode)


def count_site_pages(files: DataFrame, site_mode: str) -> DataFrame:
    """``warc_file, site, pages, rejects_json``: HTML pages per site and file; one row per file with
    ``site`` null carries the file's reject counts as JSON."""
    return files.select("warc_file").mapInPandas(_count_sites(site_mode), _COUNT_SCHEMA)


def reject_counts(counts: DataFrame) -> Counter:
    """The reject reasons of every file, summed (collected: one small row per file)."""
    total: Counter = Counter()
    for (rj,) in counts.where(F.col("site").isNull()).select("rejects_json").collect():
        total.update(json.loads(rj))
    return total


def choose_sites(counts: DataFrame, chosen: list[str], min_pages: int) -> frozenset:
    """The configured ``chosen`` sites that have pages, or every site with ``min_pages`` HTML pages."""
    per_site = counts.where(F.col("site").isNotNull()).groupBy("site").agg(F.sum("pages").alias("pages"))
    if chosen:
        per_site = per_site.where(F.col("site").isin(chosen))
    else:
        per_site = per_site.where(F.col("pages") >= int(min_pages))
    return frozenset(r.site for r in per_site.select("site").collect())


def read_site_pages(files: DataFrame, counts: DataFrame, sites: frozenset, site_mode: str,
                    max_pages: int) -> DataFrame:
    """``site_pages``: the pages of ``sites`` from the files that hold them, the first ``max_pages``
    captures per site."""
    wanted_files = counts.where(F.col("site").isin(list(sites)) & (F.col("pages") > 0)) \
        .select("warc_file").distinct()
    todo = files.join(wanted_files, "warc_file")
    schema = load_schema("site_pages")
    pages = todo.mapInPandas(_read_sites(sites, site_mode, schema.names), schema.struct())
    rank = F.row_number().over(Window.partitionBy("site").orderBy("capture_order"))
    return pages.withColumn("_rank", rank).where(F.col("_rank") <= int(max_pages)).drop("_rank")
