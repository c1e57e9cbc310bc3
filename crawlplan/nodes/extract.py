"""Node ``extract``: WARC files -> documents, rejects, warc_files, host_population.

``extract.mode: full`` reads every record of every listed WARC file. ``sampled`` reads Common
Crawl's columnar index (``inputs.cc_index``), draws ``extract.sample.k`` successful HTML captures
per host in Spark and fetches only those records by byte range; ``host_population`` then says, per
host, how many captures the index knows and how many were read, so later nodes can scale.

With ``run.retry_failed`` (``--retry-failed``) it re-reads only the files the earlier run's
``warc_files`` has as not ``ok`` and merges them into that run's outputs.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.ccindex.sample import (
    SampleSettings,
    available_strata,
    extract_mode,
    host_key,
    ranges_by_file,
    read_cc_index,
    select_sample,
    warc_base,
)
from crawlplan.conf import number_setting, section
from crawlplan.dag.context import InputError
from crawlplan.extract.failed_files import (
    TooManyFailedFiles,
    allowed_failures,
    check_losses,
    stage_and_merge,
    summarize,
)
from crawlplan.extract.records import ExtractSettings
from crawlplan.extract.spark import (
    extract_sampled_wide,
    extract_wide,
    extract_wide_in_waves,
    saved_wide,
    split_outputs,
    with_refused,
)
from crawlplan.spark import master_of
from crawlplan.warc.listing import resolve_inputs

OUTPUTS = ("documents", "rejects", "warc_files")


def run(ctx):
    local = master_of(ctx.spark).startswith("local")
    settings = ExtractSettings.from_params(ctx.params, check_packages=local, remote=section(ctx.conf, "remote"))
    base = str(section(ctx.conf, "inputs")["warc_base"])
    per_task = number_setting("extract.files_per_partition", ctx.params["files_per_partition"], integer=True)
    allowed_failures(ctx.params["max_failed_files"], 1)      # a typo fails now, not after the reading
    mode = extract_mode(ctx.params)
    sample = SampleSettings.from_params(ctx.params["sample"])
    if mode == "sampled":
        if section(ctx.conf, "run")["retry_failed"]:
            raise ValueError("--retry-failed completes a full extract; a sampled extract is rerun whole "
                             "(it reads only the selected records)")
        outputs = sampled(ctx, settings, sample, base, per_task)
    elif section(ctx.conf, "run")["retry_failed"]:
        outputs = retry_failed(ctx, settings, per_task)
    else:
        outputs = extract_all(ctx, settings, base, per_task)
    outputs = within_limit(ctx, outputs, base)
    if mode == "full":
        outputs["host_population"] = full_population(outputs)
    return outputs


def fingerprint(params: dict, conf: dict) -> dict:
    """Whether listing entries are confined changes which files are read (refused or not)."""
    return {"allow_absolute_paths": bool(section(conf, "inputs")["allow_absolute_paths"])}


def extract_all(ctx, settings: ExtractSettings, base: str, per_task: int):
    listed = ctx.input("warc_paths")
    if not listed:
        raise ValueError("extract.mode=full needs inputs.warc_paths (a warc.paths.gz listing or a glob of WARC files); "
                         "with only a columnar index set extract.mode=sampled")
    refused = []
    paths = resolve_inputs(listed, base=base, allow_absolute=bool(section(ctx.conf, "inputs")["allow_absolute_paths"]),
                           refused=refused, policy=settings.remote)
    if not paths and not refused:
        raise ValueError("extract: the input names no WARC files")
    ctx.count("warc_files_listed", len(paths) + len(refused))
    if refused:
        ctx.count("warc_files_refused", len(refused))
        ctx.note(f"extract: {len(refused):,} listing entries refused (not read), e.g. '{refused[0].entry}': "
                 f"{refused[0].reason}; see warc_files status 'refused' (inputs.allow_absolute_paths)")
    # 0: one wave of every file, still saved under the work folder (the outputs read it back)
    wave_files = number_setting("extract.checkpoint_files", ctx.params["checkpoint_files"], integer=True)
    wide, waves, resumed = extract_wide_in_waves(ctx.spark, paths, settings, wave_files=wave_files,
                                                 work_dir=ctx.work_dir, files_per_partition=per_task,
                                                 codec=str(ctx.params["wave_compression"]))
    if waves > 1:
        ctx.count("waves", waves)
    if resumed:
        ctx.count("waves_resumed", resumed)
        ctx.note(f"extract: resumed an interrupted run; {resumed} of {waves} waves of WARC files were already done")
    return split_outputs(with_refused(ctx.spark, wide, refused))


def retry_failed(ctx, settings: ExtractSettings, per_task: int):
    """Re-read the earlier run's failed files (paths as that run recorded them) and merge them in."""
    folders = {name: storage.join(ctx.out_dir, name) for name in OUTPUTS}
    absent = [name for name, path in folders.items() if not storage.exists(ctx.spark, path)]
    if absent:
        raise InputError(f"--retry-failed completes an earlier extract, but {', '.join(absent)} is not under "
                         f"{ctx.out_dir}: run extract without --retry-failed first")
    previous = {name: storage.read_dataset(ctx.spark, name, path) for name, path in folders.items()}
    # a refused listing entry is not read on a retry either: its row stays as it is
    failed = sorted(r.warc_file for r in previous["warc_files"].where(~F.col("status").isin("ok", "refused"))
                    .select("warc_file").collect())
    ctx.count("warc_files_listed", previous["warc_files"].count())
    ctx.count("warc_files_retried", len(failed))
    if not failed:
        ctx.note("extract --retry-failed: every file of the earlier run is ok; nothing was re-read")
        return stage_and_merge(ctx.spark, previous, None, [], ctx.work_dir)
    ctx.note(f"extract --retry-failed: re-read {len(failed):,} files that were not ok; the others were kept as read")
    return stage_and_merge(ctx.spark, previous, extract_wide(ctx.spark, failed, settings, per_task), failed,
                           ctx.work_dir)


def within_limit(ctx, outputs: dict, base: str) -> dict:
    """Note what was lost; past ``extract.max_failed_files`` write the outputs (for --retry-failed)
    without a completion marker and fail."""
    losses = summarize(outputs["warc_files"])
    if losses.failed:
        ctx.count("warc_files_failed", losses.failed)
    note, failure = check_losses(losses, ctx.params["max_failed_files"], base)
    if note:
        ctx.note(note)
    if failure:
        for name in OUTPUTS:
            storage.write_dataset(outputs[name], name, ctx.out_dir, context=f"node {ctx.node}",
                                  tmp_dir=ctx.tmp_dir)
        raise TooManyFailedFiles(failure)
    return outputs


def sampled(ctx, settings: ExtractSettings, sample: SampleSettings, base: str, per_task: int) -> dict:
    path = ctx.input("cc_index")
    if not path:
        raise ValueError("extract.mode=sampled needs the columnar URL index: set inputs.cc_index "
                         "(s3://commoncrawl/cc-index/table/cc-main/warc/, or `crawlplan index build` for other WARC files)")
    index_root = str(path[0] if isinstance(path, (list, tuple)) else path)
    absent: list[str] = []
    index, crawl = read_cc_index(ctx.spark, index_root, sample, absent=absent)
    if absent:
        ctx.note(f"columnar index crawl {crawl}: {', '.join(absent)} absent (the crawl predates them), read as null")
    sample, dropped = available_strata(sample, absent, crawl)
    for note in dropped:
        ctx.count("sample_strata_dropped", 1)
        ctx.note(note)
    base = warc_base(index_root, base)
    selected, population = select_sample(index, sample)
    files = ranges_by_file(selected).persist(StorageLevel.MEMORY_AND_DISK)
    wide = extract_sampled_wide(files, settings, base=base, index_root=index_root.removeprefix("file://"),
                                max_gap=sample.merge_gap_bytes, files_per_partition=per_task)
    outputs = split_outputs(saved_wide(ctx.spark, wide, storage.join(ctx.work_dir, "sampled-wide"),
                                       str(ctx.params["wave_compression"])))
    population = population.select(
        "surt_host_name", "crawl", "captures", "html_captures", "selected",
        F.when(F.col("html_captures") > 0, F.col("selected") / F.col("html_captures")).otherwise(F.lit(0.0))
        .alias("sampling_fraction"), F.lit("sampled").alias("mode"), F.lit("cc_index").alias("source"))
    totals = population.agg(F.count(F.lit(1)), F.sum("html_captures"), F.sum("selected")).head()
    ctx.count("index_hosts", int(totals[0] or 0))
    ctx.count("index_html_captures", int(totals[1] or 0))
    ctx.count("captures_selected", int(totals[2] or 0))
    ctx.count("warc_files_touched", files.count())
    ctx.note(f"extract: sampled mode, crawl {crawl}, k={sample.k} per host (seed {sample.seed}"
             f"{', strata ' + '+'.join(sample.strata) if sample.strata else ''}): "
             f"{int(totals[2] or 0):,} of {int(totals[1] or 0):,} HTML captures selected")
    outputs["host_population"] = population
    return outputs


def full_population(outputs: dict):
    """Full mode: every capture read is the population (sampling fraction 1). HTML captures are the
    documents plus the HTML responses rejected after the HTML filter (empty text, decode errors)."""
    before_html = ("status", "non_html", "not_http", "bad_url", "empty_payload", "duplicate_record_id")
    docs = outputs["documents"].select("surt_host_name", F.lit(1).alias("_html"))
    rejects = outputs["rejects"].where(F.col("url").isNotNull() & (F.col("stage") != "dedupe")).select(
        host_key(F.expr("try_parse_url(url, 'HOST')")).alias("surt_host_name"),
        (~F.col("reason").isin(*before_html)).cast("int").alias("_html"))
    rows = docs.unionByName(rejects).where(F.col("surt_host_name").isNotNull() & (F.col("surt_host_name") != ""))
    per_host = rows.groupBy("surt_host_name").agg(F.count(F.lit(1)).alias("captures"),
                                                  F.sum("_html").cast("long").alias("html_captures"))
    return per_host.select("surt_host_name", F.lit(None).cast("string").alias("crawl"), "captures", "html_captures",
                           F.col("html_captures").alias("selected"),
                           F.lit(1.0).alias("sampling_fraction"), F.lit("full").alias("mode"),
                           F.lit("records").alias("source"))
