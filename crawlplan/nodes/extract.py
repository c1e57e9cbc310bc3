"""Node ``extract``: WARC files -> documents, rejects, warc_files."""

from __future__ import annotations

from crawlplan.conf import section
from crawlplan.extract.records import ExtractSettings
from crawlplan.extract.spark import extract_wide, extract_wide_in_waves, split_outputs
from crawlplan.warc.listing import resolve_inputs


def run(ctx):
    local = ctx.spark.sparkContext.master.startswith("local")
    settings = ExtractSettings.from_params(ctx.params, check_packages=local)
    base = str(section(ctx.conf, "inputs")["warc_base"])
    paths = resolve_inputs(ctx.input("warc_paths"), base=base)
    if not paths:
        raise ValueError("extract: the input names no WARC files")
    ctx.count("warc_files_listed", len(paths))
    per_task, wave_files = settings.files_per_partition, settings.checkpoint_files
    if not wave_files or len(paths) <= wave_files:
        return split_outputs(extract_wide(ctx.spark, paths, settings, per_task))
    wide, waves, resumed = extract_wide_in_waves(ctx.spark, paths, settings, wave_files=wave_files,
                                                 work_dir=ctx.work_dir, files_per_partition=per_task)
    ctx.count("waves", waves)
    if resumed:
        ctx.count("waves_resumed", resumed)
        ctx.note(f"extract: resumed an interrupted run; {resumed} of {waves} waves of WARC files were already done")
    return split_outputs(wide)
