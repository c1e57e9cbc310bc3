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
from crawlplan.report.collect import collect, read_markers


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


def run_markers(ctx) -> list[dict]:
    by_node: dict[str, dict] = {}
    for root in reversed(ctx.search_roots):  # the output folder (first root) wins
        for marker in read_markers(ctx.spark, root):
            if marker.get("node") and marker.get("node") != ctx.node:
                by_node[str(marker["node"])] = marker
    return sorted(by_node.values(), key=lambda m: str(m.get("finished_at", "")))


def run(ctx) -> dict:
    p = ctx.params
    frames, problems = collect(_reader(ctx), max_rows=int(p.get("max_rows", 20000)),
                               grid_bins=int(p.get("grid_bins", 40)), max_sites=int(p.get("max_sites", 500)))
    markers = run_markers(ctx)
    html, stats = build_html(frames, markers, ctx.conf, title=str(p.get("title") or "crawlplan run report"),
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
