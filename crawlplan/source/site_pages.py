"""The HTML pages of the sitemap sites, re-read from the WARC files with each link's Apath.

Full mode (``extract.mode: full``) makes two passes over the WARC files, one Spark task per file:
``count_site_pages`` counts HTML pages per site and file without reading payloads;
``read_site_pages`` re-reads only the files that hold a chosen site and keeps, per site, the first
``max_pages`` captures (the simulated mirror). Sampled mode (``extract.mode: sampled``) reads no
whole file: the columnar index says which sites qualify (``index_sites``) and where each capture
lies, and ``read_index_pages`` fetches the first ``max_pages`` captures of each chosen site by byte
range, with the range reader and record parser of the sampled extract (``crawlplan.warc.ranges``).

In both modes the chosen sites are a DataFrame that the captures are joined with, never a set
collected on the driver: the driver only sees bounded tallies (reject reasons, bytes read). The
Python work inside the tasks is ``crawlplan.source.mirror`` and ``crawlplan.source.features``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

import pandas as pd
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan.ccindex.sample import host_name, html_captures
from crawlplan.conf import Settings
from crawlplan.schemas import load_schema
from crawlplan.source.features import extract, normalise_url
from crawlplan.source.mirror import (
    HTML_TYPES,
    SAFE_SITE,
    iter_site_records,
    record_problem,
    site_key,
    site_page,
    wants_payload,
)
from crawlplan.spark import spread_rows
from crawlplan.warc.listing import resolve_entry
from crawlplan.warc.ranges import RecordRange, iter_ranges
from crawlplan.warc.reader import FileOutcome, ReadLimits
from crawlplan.warc.remote import RetryPolicy

# what the sampled mode reads of the columnar index (``read_cc_index`` adds crawl and subset)
INDEX_COLUMNS = ("url", "url_host_name", "url_host_registered_domain", "fetch_status", "content_mime_type",
                 "content_mime_detected", "warc_filename", "warc_record_offset", "warc_record_length")


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


def check_site_mode(site_mode: str) -> None:
    """A typo in ``site_key`` fails on the driver, not once in every task."""
    site_key("http://example.com/", site_mode)


def _page_row(site: str, page, path: str, offset: int, capture_order: int, site_of) -> dict:
    """One ``site_pages`` row; the links are the page's intra-site links with their Apaths."""
    links = None
    if page.html is not None:
        feats = extract(page.url, page.html, site_of=site_of)
        links = [{"apath": a, "url": u} for a, u in feats.links]
    return {"site": site, "url": normalise_url(page.url), "capture_order": int(capture_order),
            "status": page.status, "location": page.location, "warc_file": path, "offset": int(offset),
            "html": page.html, "links": links}


def _site_of(site_mode: str):
    return None if site_mode == "host" else (lambda u: site_key(u, site_mode))


def choose_sites(per_site: DataFrame, chosen: list[str], min_pages: int) -> DataFrame:
    """``site``: the configured ``chosen`` sites that ``per_site`` (site, pages) holds, or every site
    with ``min_pages`` HTML pages. A DataFrame the captures are joined with (no driver-side set)."""
    if chosen:
        per_site = per_site.where(F.col("site").isin(chosen))
    else:
        per_site = per_site.where(F.col("pages") >= int(min_pages))
    return per_site.select("site")


def missing_sites(sites: DataFrame, chosen: list[str]) -> list[str]:
    """The configured sites that were not chosen (collects at most the configured list)."""
    found = {r.site for r in sites.where(F.col("site").isin(chosen)).select("site").collect()} if chosen else set()
    return sorted(set(chosen) - found)


# --- full mode: whole WARC files ---------------------------------------------------------------

_COUNT_SCHEMA = "warc_file string, site string, pages long, rejects_json string"


def _count_sites(site_mode: str, limits: ReadLimits, remote: RetryPolicy):
    def fn(batches):
        for pdf in batches:
            for path in pdf["warc_file"]:
                counts, rejects = Counter(), Counter()
                for site, _, page in iter_site_records(path, site_mode=site_mode, rejects=rejects,
                                                       bodies=False, limits=limits, remote=remote):
                    counts[site] += page.html is not None
                rows = [(path, s, int(n), None) for s, n in counts.items()]
                rows.append((path, None, 0, json.dumps(rejects)))
                yield pd.DataFrame(rows, columns=["warc_file", "site", "pages", "rejects_json"])
    return fn


def _read_sites(site_mode: str, columns: list[str], limits: ReadLimits, remote: RetryPolicy):
    """Each file row carries the chosen sites it holds (``sites``): bounded by the file, not the crawl."""
    def fn(batches):
        site_of = _site_of(site_mode)
        for pdf in batches:
            for path, file_index, sites in zip(pdf["warc_file"], pdf["file_index"], pdf["sites"]):
                rows = [_page_row(site, page, path, rec.offset, (int(file_index) << 32) + page.order, site_of)
                        for site, rec, page in iter_site_records(path, sites=set(sites), site_mode=site_mode,
                                                                  limits=limits, remote=remote)]
                yield pd.DataFrame(rows, columns=columns)
    return fn


def warc_files(spark: SparkSession, paths: list[str]) -> DataFrame:
    """``warc_file, file_index``: one partition per file (a file is the unit of parallelism)."""
    return spread_rows(spark, [(p, i) for i, p in enumerate(paths)], "warc_file string, file_index long",
                       len(paths))


def count_site_pages(files: DataFrame, site_mode: str, limits: ReadLimits, remote: RetryPolicy) -> DataFrame:
    """``warc_file, site, pages, rejects_json``: HTML pages per site and file; one row per file with
    ``site`` null carries the file's reject counts as JSON. ``limits``: conf ``extract``'s read
    bounds; ``remote``: the run's conf ``remote``."""
    return files.select("warc_file").mapInPandas(_count_sites(site_mode, limits, remote), _COUNT_SCHEMA)


def reject_counts(counts: DataFrame) -> Counter:
    """The reject reasons of every file, summed in Spark: one row per reason reaches the driver."""
    reasons = counts.where(F.col("site").isNull()).select(
        F.explode(F.from_json("rejects_json", T.MapType(T.StringType(), T.LongType()))).alias("reason", "n"))
    return Counter({r.reason: int(r.n) for r in reasons.groupBy("reason").agg(F.sum("n").alias("n")).collect()})


def site_totals(counts: DataFrame) -> DataFrame:
    """``site, pages``: the HTML pages of every site with a page or redirect, over all files."""
    return counts.where(F.col("site").isNotNull()).groupBy("site").agg(F.sum("pages").alias("pages"))


def read_site_pages(files: DataFrame, counts: DataFrame, sites: DataFrame, site_mode: str,
                    max_pages: int, limits: ReadLimits, remote: RetryPolicy) -> DataFrame:
    """``site_pages``: the pages of ``sites`` from the files where one of them has an HTML page,
    the first ``max_pages`` captures per site. A file row carries the chosen sites it holds, so a
    task filters its own file by a list no longer than the file's sites."""
    held = counts.where(F.col("site").isNotNull()).join(sites, "site")
    wanted = held.groupBy("warc_file").agg(F.collect_set("site").alias("sites"), F.max("pages").alias("_top")) \
        .where(F.col("_top") > 0).drop("_top")
    todo = files.join(wanted, "warc_file")
    schema = load_schema("site_pages")
    pages = todo.mapInPandas(_read_sites(site_mode, schema.names, limits, remote), schema.struct())
    rank = F.row_number().over(Window.partitionBy("site").orderBy("capture_order"))
    return pages.withColumn("_rank", rank).where(F.col("_rank") <= int(max_pages)).drop("_rank")


# --- sampled mode: the columnar index and byte ranges ------------------------------------------

def _site_column(site_mode: str) -> Column:
    """The site of an index row, as ``mirror.site_key`` gives it for the row's URL."""
    host = F.coalesce(host_name(F.col("url_host_name")), F.lit(""))
    if site_mode == "host":
        return host
    domain = F.lower(F.col("url_host_registered_domain"))
    return F.when(domain.isNull() | (domain == ""), host).otherwise(domain)


def _safe_site(site: Column) -> Column:
    """``mirror.safe_site`` as a column (the same pattern)."""
    return site.rlike(SAFE_SITE.pattern) & ~site.contains("..")


def _candidate() -> Column:
    """Index rows the record rule (``mirror.site_page``) can keep: redirects and declared HTML."""
    status, mime = F.col("fetch_status"), F.lower(F.coalesce(F.col("content_mime_type"), F.lit("")))
    return status.between(300, 399) | mime.isin(*HTML_TYPES)


def index_sites(index: DataFrame, site_mode: str) -> DataFrame:
    """``site, pages, candidates, records`` per site of the index: HTTP 200 HTML captures (what
    ``min_pages`` counts, ``ccindex.sample.html_captures``), captures the reader could keep
    (redirects and HTML of any status), and every capture. Persist it: choice and rejects both read it."""
    keyed = index.withColumn("site", _site_column(site_mode))
    return keyed.groupBy("site").agg(F.sum(html_captures(keyed).cast("long")).alias("pages"),
                                     F.sum(_candidate().cast("long")).alias("candidates"),
                                     F.count(F.lit(1)).alias("records"))


def index_rejects(per_site: DataFrame) -> Counter:
    """Captures without a web host and of unsafe site names, as full mode counts them (one row)."""
    site = F.col("site")
    row = per_site.agg(F.sum(F.when(site == "", F.col("records"))).alias("no_web_host"),
                       F.sum(F.when((site != "") & ~_safe_site(site), F.col("records"))).alias("unsafe")).head()
    return Counter({k: int(v) for k, v in (("no_web_host", row[0]), ("unsafe_site_name", row[1])) if v})


def index_page_sites(per_site: DataFrame) -> DataFrame:
    """``site, pages`` of the sites the reader could take pages from (``choose_sites`` input)."""
    site = F.col("site")
    return per_site.where((site != "") & _safe_site(site) & (F.col("candidates") > 0)).select("site", "pages")


def index_captures(index: DataFrame, sites: DataFrame, site_mode: str, max_pages: int) -> DataFrame:
    """``site, url, warc_filename, offset, length, capture_order``: the first ``max_pages``
    candidate captures of each chosen site, in (WARC file name, offset) order; ``capture_order``
    is the capture's rank in its site (1, 2, ...)."""
    keyed = index.withColumn("site", _site_column(site_mode)).where(_candidate()).join(sites, "site")
    order = Window.partitionBy("site").orderBy("warc_filename", "warc_record_offset", "url")
    ranked = keyed.withColumn("capture_order", F.row_number().over(order).cast("long"))
    return ranked.where(F.col("capture_order") <= int(max_pages)).select(
        "site", "url", "warc_filename", F.col("warc_record_offset").cast("long").alias("offset"),
        F.col("warc_record_length").cast("long").alias("length"), "capture_order")


_TALLY_COLUMNS = [("kind", T.StringType()), ("reason", T.StringType()), ("n", T.LongType())]


def _wide_schema() -> T.StructType:
    """``site_pages``' columns (nullable: tally rows leave them empty) and kind, reason, n."""
    fields = [T.StructField(f.name, f.dataType, True) for f in load_schema("site_pages").struct().fields]
    return T.StructType(fields + [T.StructField(n, t, True) for n, t in _TALLY_COLUMNS])


def range_rows(path: str, ranges: list[dict], site_mode: str, max_gap: int, limits: ReadLimits, remote: RetryPolicy):
    """The rows of one file's ranges (dicts: offset, length, url, site, capture_order), as they are
    read: a ``page`` row per page kept, then the file's tallies: a ``reject`` row per reason, a
    ``file`` row with the bytes read and a ``ranges`` row with the number of ranges asked for."""
    outcome, rejects, site_of = FileOutcome(warc_file=path), Counter(), _site_of(site_mode)
    wanted = [RecordRange(int(r["offset"]), int(r["length"]), r["url"]) for r in ranges]
    meta = {}                          # a range listed twice is read once; the second is a bad_range reject
    for r, w in zip(ranges, wanted):
        meta.setdefault((w.offset, w.length), r)
    for result in iter_ranges(path, wanted, outcome, max_gap=max_gap, limits=limits, read_payload=wants_payload,
                              remote=remote):
        rec = result.record
        reason = result.error or (record_problem(rec, limits) if rec.record_type == "response" else "not_a_response")
        if reason:
            rejects[reason] += 1
            continue
        row = meta[(result.range.offset, result.range.length)]
        page = site_page(rec, int(row["capture_order"]), rejects)
        if page is not None:
            yield {**_page_row(row["site"], page, path, rec.offset, page.order, site_of), "kind": "page"}
    if outcome.status != "ok":
        rejects[f"file_{outcome.status}"] += 1
    yield from ({"kind": "reject", "warc_file": path, "reason": k, "n": int(v)} for k, v in rejects.items())
    yield {"kind": "file", "warc_file": path, "n": int(outcome.bytes)}
    yield {"kind": "ranges", "warc_file": path, "n": len(wanted)}


_BATCH_ROWS = 256     # page rows per pandas frame a task hands back: its memory is one batch, not one file


def _read_ranges(site_mode: str, base: str, index_root: str, max_gap: int, limits: ReadLimits, remote: RetryPolicy,
                 columns: list[str]):
    empty = dict.fromkeys(columns)              # None, not NaN, in the columns a row leaves empty

    def frame(rows):
        return pd.DataFrame([{**empty, **r} for r in rows], columns=columns)

    def fn(batches):
        for pdf in batches:
            for name, ranges in zip(pdf["warc_filename"], pdf["ranges"]):
                pages, tallies = [], []
                for row in range_rows(resolve_entry(name, base, index_root), list(ranges), site_mode, max_gap,
                                      limits, remote):
                    (pages if row["kind"] == "page" else tallies).append(row)
                    if len(pages) >= _BATCH_ROWS:
                        yield frame(pages)
                        pages = []
                if pages:
                    yield frame(pages)
                yield frame(tallies)
    return fn


def read_index_pages(captures: DataFrame, site_mode: str, *, base: str, index_root: str, max_gap: int,
                     limits: ReadLimits, remote: RetryPolicy) -> DataFrame:
    """The wide frame of the sampled read: ``site_pages`` rows (``kind`` page) and per-file tallies
    (``kind`` reject: ``reason``, ``n``; file: ``n`` bytes read; ranges: ``n`` asked for). One task
    per WARC file: its ranges travel as one row, as in the sampled extract. Persist it, then take
    ``pages_of`` and ``read_tallies``."""
    files = captures.groupBy("warc_filename").agg(
        F.collect_list(F.struct("offset", "length", "url", "site", "capture_order")).alias("ranges"))
    n = files.count()                      # the number of files: repartition(n) keeps one task per file
    spread = files.repartition(max(1, n), "warc_filename")
    schema = _wide_schema()
    return spread.mapInPandas(_read_ranges(site_mode, base, index_root, max_gap, limits, remote, schema.names), schema)


def pages_of(wide: DataFrame) -> DataFrame:
    """``site_pages`` out of the wide frame of ``read_index_pages``."""
    return wide.where(F.col("kind") == "page").select(*load_schema("site_pages").names)


def read_tallies(wide: DataFrame) -> tuple[Counter, dict]:
    """(reject reasons summed, {files, bytes, ranges, pages}) of the wide frame: one row per kind
    and reason reaches the driver."""
    rows = wide.groupBy("kind", "reason").agg(F.count(F.lit(1)).alias("rows"), F.sum("n").alias("n")).collect()
    rejects = Counter({r.reason: int(r.n) for r in rows if r.kind == "reject"})
    files = [r for r in rows if r.kind == "file"]
    return rejects, {"files": sum(r.rows for r in files), "bytes": sum(int(r.n or 0) for r in files),
                     "ranges": sum(int(r.n or 0) for r in rows if r.kind == "ranges"),
                     "pages": sum(r.rows for r in rows if r.kind == "page")}
