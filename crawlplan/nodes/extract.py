"""Node ``extract``: WARC files -> documents, rejects, warc_files.

With ``run.retry_failed`` (``--retry-failed``) it re-reads only the files the earlier run's
``warc_files`` has as not ``ok`` and merges them into that run's outputs.
"""

from __future__ import annotations

from crawlplan.conf import get
from crawlplan.dag import storage
from crawlplan.dag.context import InputError
from crawlplan.extract.failed_files import (
    TooManyFailedFiles,
    allowed_failures,
    check_losses,
    stage_and_merge,
    summarize,
)
from crawlplan.extract.records import ExtractSettings, number_setting
from crawlplan.extract.spark import extract_wide, extract_wide_in_waves, split_outputs
from crawlplan.warc.listing import resolve_inputs

OUTPUTS = ("documents", "rejects", "warc_files")


def run(ctx):
    local = ctx.spark.sparkContext.master.startswith("local")
    settings = ExtractSettings.from_params(ctx.params, check_packages=local, remote=get(ctx.conf, "remote", {}))
    base = str(ctx.conf.get("inputs", {}).get("warc_base") or "")
    per_task = int(ctx.params.get("files_per_partition", 1))
    allowed_failures(ctx.params.get("max_failed_files", "1%"), 1)      # a typo fails now, not after the reading
    if get(ctx.conf, "run.retry_failed", False):
        outputs = retry_failed(ctx, settings, per_task)
    else:
        outputs = extract_all(ctx, settings, base, per_task)
    return within_limit(ctx, outputs, base)


def extract_all(ctx, settings: ExtractSettings, base: str, per_task: int):
    paths = resolve_inputs(ctx.input("warc_paths"), base=base)
    if not paths:
        raise ValueError("extract: the input names no WARC files")
    ctx.count("warc_files_listed", len(paths))
    wave_files = number_setting("extract.checkpoint_files", ctx.params.get("checkpoint_files", 0), integer=True)
    if not wave_files or len(paths) <= wave_files:
        return split_outputs(extract_wide(ctx.spark, paths, settings, per_task))
    wide, waves, resumed = extract_wide_in_waves(ctx.spark, paths, settings, wave_files=wave_files,
                                                 work_dir=ctx.work_dir, files_per_partition=per_task)
    ctx.count("waves", waves)
    if resumed:
        ctx.count("waves_resumed", resumed)
        ctx.note(f"extract: resumed an interrupted run; {resumed} of {waves} waves of WARC files were already done")
    return split_outputs(wide)


def retry_failed(ctx, settings: ExtractSettings, per_task: int):
    """Re-read the earlier run's failed files (paths as that run recorded them) and merge them in."""
    from pyspark.sql import functions as F

    folders = {name: storage.join(ctx.out_dir, name) for name in OUTPUTS}
    absent = [name for name, path in folders.items() if not storage.exists(ctx.spark, path)]
    if absent:
        raise InputError(f"--retry-failed completes an earlier extract, but {', '.join(absent)} is not under "
                         f"{ctx.out_dir}: run extract without --retry-failed first")
    previous = {name: storage.read_dataset(ctx.spark, name, path) for name, path in folders.items()}
    failed = sorted(r.warc_file for r in previous["warc_files"].where(F.col("status") != "ok")
                    .select("warc_file").collect())
    ctx.count("warc_files_listed", previous["warc_files"].count())
    ctx.count("warc_files_retried", len(failed))
    if not failed:
        ctx.note("extract --retry-failed: every file of the earlier run is ok; nothing was re-read")
        return previous
    ctx.note(f"extract --retry-failed: re-read {len(failed):,} files that were not ok; the others were kept as read")
    return stage_and_merge(ctx.spark, previous, extract_wide(ctx.spark, failed, settings, per_task), failed,
                           ctx.work_dir)


def within_limit(ctx, outputs: dict, base: str) -> dict:
    """Note what was lost; past ``extract.max_failed_files`` write the outputs (for --retry-failed)
    without a completion marker and fail."""
    losses = summarize(outputs["warc_files"])
    if losses.failed:
        ctx.count("warc_files_failed", losses.failed)
    note, failure = check_losses(losses, ctx.params.get("max_failed_files", "1%"), base)
    if note:
        ctx.note(note)
    if failure:
        for name in OUTPUTS:
            storage.write_dataset(outputs[name], name, ctx.out_dir, context=f"node {ctx.node}")
        raise TooManyFailedFiles(failure)
    return outputs
