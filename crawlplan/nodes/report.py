"""Node ``report``: every dataset the run wrote (whichever exist) -> ``report/index.html``.

Last in the DAG. Datasets are reduced inside Spark (``crawlplan.report.collect``); the page is
written through the Hadoop file system API, so ``--output s3a://...`` works like a local folder.
Markers are read from the output folder and from every ``--input`` folder, so the report of a
``crawlplan job report --input RUN --output DIR`` shows the counts of the run it reports on.
"""

from __future__ import annotations

from crawlplan import storage
from crawlplan.dag.context import InputError
from crawlplan.paths import resource_dir
from crawlplan.report.build import build_html, demo_notes
from crawlplan.report.collect import ReportSettings, collect, run_markers


def _reader(ctx):
    schemas = resource_dir("schemas")

    def read(name: str):
        if not (schemas / f"{name}.yaml").is_file():  # e.g. crawl_curves before a node writes it
            return None
        try:
            return ctx.read(name)
        except InputError:
            return None
    return read


def run(ctx) -> dict:
    settings = ReportSettings.from_params(ctx.params)
    frames, problems = collect(_reader(ctx), max_rows=settings.max_rows, grid_bins=settings.grid_bins,
                               max_sites=settings.max_sites)
    markers = run_markers(ctx.spark, ctx.search_roots, ctx.node)
    html, stats = build_html(frames, markers, ctx.conf, title=settings.title,
                             out_dir=ctx.out_dir, problems=problems)
    folder = ctx.files_output("report")
    storage.write_text(ctx.spark, storage.join(folder, "index.html"), html)
    ctx.count("figures", stats.figures)
    ctx.count("datasets_missing", len(set(stats.missing)))
    ctx.count("figures_failed", len(stats.failed))
    ctx.count("bytes", len(html.encode("utf-8")))
    for failure in stats.failed:
        ctx.note(f"report figure failed: {failure}")
    if demo_notes(markers):
        ctx.note("report: demo models were used in this run; the report carries a banner saying so")
    return {}
