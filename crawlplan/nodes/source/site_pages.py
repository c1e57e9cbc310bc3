"""Node ``site_pages``: WARC files -> the HTML pages of the sitemap sites, with their links.

The HTML is re-read from the WARC files rather than carried through ``documents``: extraction
drops pages without main text (login redirects, empty lists), which are exactly the pages a
sitemap must see. Sites are an explicit list (``sites``) or every site with at least
``min_pages`` HTML pages, found by a first, payload-free pass; the second pass reads only the
files that hold a chosen site. One Spark task per WARC file; per-site work is grouped later.
"""

from __future__ import annotations

from crawlplan.conf import section
from crawlplan.source import site_pages
from crawlplan.warc.listing import resolve_inputs


def run(ctx):
    settings = site_pages.SitePagesSettings.from_params(ctx.params)
    base = str(section(ctx.conf, "inputs")["warc_base"])
    paths = resolve_inputs(ctx.input("warc_paths"), base=base)
    if not paths:
        raise ValueError("site_pages: the input names no WARC files")
    site_mode = settings.site_key
    files = site_pages.warc_files(ctx.spark, paths)
    chosen = [s.lower() for s in settings.sites]
    counts = site_pages.count_site_pages(files, site_mode).persist()
    for reason, n in site_pages.reject_counts(counts).items():
        ctx.count(f"rejected_{reason}", n)
    sites = site_pages.choose_sites(counts, chosen, settings.min_pages)
    ctx.count("sites", len(sites))
    if chosen:
        missing = sorted(set(chosen) - sites)
        if missing:
            ctx.note(f"site_pages: {len(missing)} configured site(s) have no HTML pages in the input: "
                     f"{', '.join(missing[:10])}")
    if not sites:
        ctx.note("site_pages: no site qualifies (source.site_pages.sites / min_pages); site_pages is empty")
    pages = site_pages.read_site_pages(files, counts, sites, site_mode, settings.max_pages)
    counts.unpersist()
    return {"site_pages": pages}
