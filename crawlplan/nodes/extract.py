"""Node ``extract``: WARC files -> documents, rejects, warc_files."""

from __future__ import annotations

from crawlplan.extract.records import ExtractSettings
from crawlplan.extract.spark import extract_wide, split_outputs
from crawlplan.warc.listing import resolve_inputs


def run(ctx):
    settings = ExtractSettings.from_params(ctx.params)
    base = str(ctx.conf.get("inputs", {}).get("warc_base") or "")
    paths = resolve_inputs(ctx.input("warc_paths"), base=base)
    if not paths:
        raise ValueError("extract: the input names no WARC files")
    ctx.count("warc_files_listed", len(paths))
    wide = extract_wide(ctx.spark, paths, settings, int(ctx.params.get("files_per_partition", 1)))
    return split_outputs(wide)
