"""Node ``extract``: WARC files -> documents, rejects, warc_files, host_population.

``extract.mode: full`` reads every record of every listed WARC file. ``sampled`` reads Common
Crawl's columnar index (``inputs.cc_index``), draws ``extract.sample.k`` successful HTML captures
per host in Spark and fetches only those records by byte range; ``host_population`` then says, per
host, how many captures the index knows and how many were read, so later nodes can scale.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import functions as F

from crawlplan.ccindex.sample import (
    SampleSettings,
    extract_mode,
    host_key,
    ranges_by_file,
    read_cc_index,
    select_sample,
)
from crawlplan.extract.records import ExtractSettings, number_setting
from crawlplan.extract.spark import extract_sampled_wide, extract_wide, extract_wide_in_waves, split_outputs
from crawlplan.warc.listing import resolve_inputs


def run(ctx):
    local = ctx.spark.sparkContext.master.startswith("local")
    settings = ExtractSettings.from_params(ctx.params, check_packages=local)
    mode = extract_mode(ctx.params)
    sample = SampleSettings.from_params(ctx.params.get("sample"))
    base = str(ctx.conf.get("inputs", {}).get("warc_base") or "")
    per_task = int(ctx.params.get("files_per_partition", 1))
    if mode == "sampled":
        return _sampled(ctx, settings, sample, base, per_task)
    listed = ctx.input("warc_paths")
    if not listed:
        raise ValueError("extract.mode=full needs inputs.warc_paths (a warc.paths.gz listing or a glob of WARC files); "
                         "with only a columnar index set extract.mode=sampled")
    paths = resolve_inputs(listed, base=base)
    if not paths:
        raise ValueError("extract: the input names no WARC files")
    ctx.count("warc_files_listed", len(paths))
    wave_files = number_setting("extract.checkpoint_files", ctx.params.get("checkpoint_files", 0), integer=True)
    if not wave_files or len(paths) <= wave_files:
        wide = extract_wide(ctx.spark, paths, settings, per_task)
    else:
        wide, waves, resumed = extract_wide_in_waves(ctx.spark, paths, settings, wave_files=wave_files,
                                                     work_dir=ctx.work_dir, files_per_partition=per_task)
        ctx.count("waves", waves)
        if resumed:
            ctx.count("waves_resumed", resumed)
            ctx.note(f"extract: resumed an interrupted run; {resumed} of {waves} waves of WARC files were already done")
    outputs = split_outputs(wide)
    outputs["host_population"] = _full_population(outputs)
    return outputs


def _sampled(ctx, settings: ExtractSettings, sample: SampleSettings, base: str, per_task: int) -> dict:
    path = ctx.input("cc_index")
    if not path:
        raise ValueError("extract.mode=sampled needs the columnar URL index: set inputs.cc_index "
                         "(s3://commoncrawl/cc-index/table/cc-main/warc/, or `crawlplan index build` for other WARC files)")
    index_root = str(path[0] if isinstance(path, (list, tuple)) else path)
    index, crawl = read_cc_index(ctx.spark, index_root, sample)
    if not base and index_root.startswith(("s3://commoncrawl/", "s3a://commoncrawl/")):
        base = index_root.split("commoncrawl/", 1)[0] + "commoncrawl/"
    selected, population = select_sample(index, sample)
    files = ranges_by_file(selected).persist(StorageLevel.MEMORY_AND_DISK)
    outputs = split_outputs(extract_sampled_wide(files, settings, base=base, index_root=index_root.removeprefix("file://"),
                                                 max_gap=sample.merge_gap_bytes, files_per_partition=per_task))
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


def _full_population(outputs: dict):
    """Full mode: every capture read is the population (sampling fraction 1). HTML captures are the
    documents plus the HTML responses rejected after the HTML filter (empty text, decode errors)."""
    before_html = ("status", "non_html", "not_http", "bad_url", "empty_payload", "duplicate_record_id")
    docs = outputs["documents"].select("surt_host_name", F.lit(1).alias("_html"))
    rejects = outputs["rejects"].where(F.col("url").isNotNull() & (F.col("stage") != "dedupe")).select(
        host_key(F.expr("parse_url(url, 'HOST')")).alias("surt_host_name"),
        (~F.col("reason").isin(*before_html)).cast("int").alias("_html"))
    rows = docs.unionByName(rejects).where(F.col("surt_host_name").isNotNull() & (F.col("surt_host_name") != ""))
    per_host = rows.groupBy("surt_host_name").agg(F.count(F.lit(1)).alias("captures"),
                                                  F.sum("_html").cast("long").alias("html_captures"))
    return per_host.select("surt_host_name", F.lit(None).cast("string").alias("crawl"), "captures", "html_captures",
                           F.col("html_captures").alias("selected"),
                           F.lit(1.0).alias("sampling_fraction"), F.lit("full").alias("mode"),
                           F.lit("records").alias("source"))
