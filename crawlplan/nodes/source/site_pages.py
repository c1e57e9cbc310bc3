"""Node ``site_pages``: WARC captures -> the HTML pages of the sitemap sites, with their links.

The HTML is re-read from the WARC files rather than carried through ``documents``: extraction
drops pages without main text (login redirects, empty lists), which are exactly the pages a
sitemap must see. Sites are an explicit list (``sites``) or every site with at least
``min_pages`` HTML pages. ``extract.mode: full`` finds them by a first, payload-free pass over
``warc_paths`` and re-reads only the files that hold a chosen site, one Spark task per file;
``extract.mode: sampled`` counts them in the columnar index (``cc_index``) and reads only the
chosen sites' first ``max_pages`` captures, by byte range. Per-site work is grouped later.
"""

from __future__ import annotations

from pyspark import StorageLevel

from crawlplan.ccindex.sample import SampleSettings, extract_mode, read_cc_index, warc_base
from crawlplan.conf import section
from crawlplan.source import site_pages
from crawlplan.warc.listing import resolve_inputs
from crawlplan.warc.reader import ReadLimits
from crawlplan.warc.remote import RetryPolicy


def run(ctx):
    settings = site_pages.SitePagesSettings.from_params(ctx.params)
    chosen = [s.lower() for s in settings.sites]
    if extract_mode(section(ctx.conf, "extract")) == "sampled":
        sites, pages = sampled(ctx, settings, chosen)
    else:
        sites, pages = full(ctx, settings, chosen)
    n_sites = sites.count()
    ctx.count("sites", n_sites)
    missing = site_pages.missing_sites(sites, chosen)
    if missing:
        ctx.note(f"site_pages: {len(missing)} configured site(s) have no HTML pages in the input: "
                 f"{', '.join(missing[:10])}")
    if not n_sites:
        ctx.note("site_pages: no site qualifies (source.site_pages.sites / min_pages); site_pages is empty")
    return {"site_pages": pages}


def full(ctx, settings, chosen):
    base = str(section(ctx.conf, "inputs")["warc_base"])
    listed = ctx.input("warc_paths")
    if not listed:
        raise ValueError("site_pages with extract.mode=full needs inputs.warc_paths; with only a columnar "
                         "index set extract.mode=sampled")
    refused = []          # listing entries outside inputs.warc_base: extract has their 'refused' rows
    remote = RetryPolicy.from_params(section(ctx.conf, "remote"))
    limits = ReadLimits.from_params(section(ctx.conf, "extract"))
    paths = resolve_inputs(listed, base=base, allow_absolute=bool(section(ctx.conf, "inputs")["allow_absolute_paths"]),
                           refused=refused, policy=remote)
    if refused:
        ctx.note(f"site_pages: {len(refused):,} listing entries refused (not read), e.g. '{refused[0].entry}': "
                 f"{refused[0].reason}")
    if not paths:
        raise ValueError("site_pages: the input names no WARC files")
    files = site_pages.warc_files(ctx.spark, paths)
    counts = site_pages.count_site_pages(files, settings.site_key, limits, remote).persist()   # the runner releases it
    for reason, n in site_pages.reject_counts(counts).items():
        ctx.count(f"rejected_{reason}", n)
    sites = site_pages.choose_sites(site_pages.site_totals(counts), chosen, settings.min_pages)
    return sites, site_pages.read_site_pages(files, counts, sites, settings.site_key, settings.max_pages, limits,
                                                 remote)


def sampled(ctx, settings, chosen):
    path = ctx.input("cc_index")
    if not path:
        raise ValueError("site_pages with extract.mode=sampled needs the columnar URL index: set inputs.cc_index")
    index_root = str(path[0] if isinstance(path, (list, tuple)) else path)
    sample = SampleSettings.from_params(section(ctx.conf, "extract")["sample"])
    index, crawl = read_cc_index(ctx.spark, index_root, sample, site_pages.INDEX_COLUMNS)
    per_site = site_pages.index_sites(index, settings.site_key).persist(StorageLevel.MEMORY_AND_DISK)
    for reason, n in site_pages.index_rejects(per_site).items():
        ctx.count(f"rejected_{reason}", n)
    sites = site_pages.choose_sites(site_pages.index_page_sites(per_site), chosen, settings.min_pages)
    captures = site_pages.index_captures(index, sites, settings.site_key, settings.max_pages)
    wide = site_pages.read_index_pages(
        captures, settings.site_key, base=warc_base(index_root, str(section(ctx.conf, "inputs")["warc_base"])),
        index_root=index_root.removeprefix("file://"), max_gap=sample.merge_gap_bytes,
        limits=ReadLimits.from_params(section(ctx.conf, "extract")),
        remote=RetryPolicy.from_params(section(ctx.conf, "remote"))).persist(StorageLevel.MEMORY_AND_DISK)
    rejects, read = site_pages.read_tallies(wide)
    for reason, n in rejects.items():
        ctx.count(f"rejected_{reason}", n)
    ctx.count("warc_files_touched", read["files"])
    ctx.count("bytes_read", read["bytes"])
    ctx.count("ranges_read", read["ranges"])
    ctx.count("captures_kept", read["pages"])
    ctx.note(f"site_pages: sampled mode, crawl {crawl}: {read['ranges']:,} captures of the chosen sites read "
             f"by byte range from {read['files']:,} WARC files ({read['bytes']:,} bytes), {read['pages']:,} kept")
    return sites, site_pages.pages_of(wide)
