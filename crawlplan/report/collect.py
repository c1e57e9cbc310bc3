"""Reduce a run's datasets to the small pandas frames the report draws, inside Spark.

Tables that are small by construction (one row per classifier, policy and budget, ...) come
through with a row cap; per-host and per-page datasets are aggregated first (a 2-D histogram
of hosts for Figure 6, budget totals by reason and language, cluster counts per site), so a
Common Crawl-sized run sends kilobytes, not the data, to the driver.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan import storage
from crawlplan.conf import Settings

log = logging.getLogger("crawlplan")

# Datasets with at most a few thousand rows in any run: read whole (capped).
SMALL = ("icc", "ordering_sim", "depth_sim", "sample_reliability", "correlations", "classifier_correlations",
         "coverage_bins", "coverage_summary", "missed_by_tld", "score_distributions", "rank_stability",
         "site_eval", "crawl_curves")
# Everything the report can show; the report node declares the ones the pipeline writes.
REPORT_DATASETS = SMALL + ("host_quality", "budgets", "sitemaps", "host_plans", "page_clusters",
                           "warc_files", "host_population", "rejects", "classify_rejects", "documents")


def to_pandas(df: DataFrame) -> pd.DataFrame:
    """toPandas with integer columns kept integral: a nullable int column would arrive as
    float64 and print as 3.000 in the tables."""
    pdf = df.toPandas()
    for field in df.schema.fields:
        if isinstance(field.dataType, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)) and \
                field.name in pdf and pdf[field.name].dtype.kind == "f":
            pdf[field.name] = pdf[field.name].astype("Int64")
    return pdf


def _small(df: DataFrame, max_rows: int) -> pd.DataFrame:
    return to_pandas(df.limit(max_rows))


def host_quality_grid(df: DataFrame, bins: int) -> pd.DataFrame:
    """Hosts per (crawl, source, coverage bin, density bin): Figure 6 without moving hosts."""
    def b(col):
        return F.least(F.floor(F.col(col) * bins), F.lit(bins - 1)).cast("int")

    return (df.where(F.col("density").isNotNull())
            .groupBy("crawl", "source", b("coverage").alias("cov_bin"), b("density").alias("den_bin"))
            .agg(F.count(F.lit(1)).alias("hosts")).toPandas())


def budget_frames(df: DataFrame) -> dict[str, pd.DataFrame]:
    reason = F.split(F.col("reason"), ";").getItem(0)
    out = {
        "budgets_by_reason": df.groupBy(reason.alias("reason")).agg(
            F.count(F.lit(1)).alias("hosts"), F.sum("allocated_pages").alias("pages")).toPandas(),
        "budgets_by_language": df.groupBy("language").agg(
            F.count(F.lit(1)).alias("hosts"), F.sum("allocated_pages").alias("pages"),
            F.avg("estimate").alias("mean_estimate")).orderBy(F.desc("pages")).limit(40).toPandas(),
        "budgets_by_policy": df.groupBy("policy").agg(
            F.count(F.lit(1)).alias("hosts"), F.sum("allocated_pages").alias("pages"),
            F.sum(F.when(F.col("reason").contains("capped:politeness"), 1).otherwise(0)).alias("capped_hosts"),
            F.sum("sample_size").alias("sampled_pages")).toPandas(),
        "budgets_top": df.where(F.col("allocated_pages") > 0).orderBy("rank").limit(25).select(
            "rank", "surt_host_name", "language", "tld", "sample_size", "sampled_density", "estimate",
            "allocated_pages", "policy", "reason").toPandas(),
    }
    return out


def sitemap_frame(df: DataFrame, max_sites: int) -> pd.DataFrame:
    """Sitemaps without the serialised learner (large); nested arrays as JSON text for pandas."""
    return (df.orderBy(F.desc("pages"), "site").limit(max_sites)
            .select("site", "pages", "train_pages", "method", "eps", "eps_source", "n_features", "n_clusters",
                    "outlier_share", "nav_entropy", "train_seconds", "error",
                    F.to_json("clusters").alias("clusters_json"), F.to_json("adjacency").alias("adjacency_json"))
            .toPandas())


def reject_frame(df: DataFrame) -> pd.DataFrame:
    return (df.groupBy("stage", "reason").agg(F.count(F.lit(1)).alias("records"))
            .orderBy(F.desc("records")).limit(200).toPandas())


SIZE_BUCKETS = (1, 3, 6, 11, 21, 51, 101, 1001)     # lower edges of the host-size buckets (HTML captures)


def sampling_frame(df: DataFrame) -> pd.DataFrame:
    """``host_population`` by host-size bucket: hosts, HTML captures, captures read, sampling fraction."""
    size = F.col("html_captures")
    bucket = F.lit(f"{SIZE_BUCKETS[-1]}+")
    for lo, hi in reversed(list(zip(SIZE_BUCKETS, SIZE_BUCKETS[1:]))):
        bucket = F.when((size >= lo) & (size < hi), F.lit(f"{lo}-{hi - 1}" if hi - 1 > lo else f"{lo}")).otherwise(bucket)
    bucket = F.when(size < 1, F.lit("0")).otherwise(bucket)
    out = df.withColumn("_bucket", bucket).groupBy("mode", "_bucket").agg(
        F.min(size).alias("_lo"), F.count(F.lit(1)).alias("hosts"), F.sum(size).alias("html_captures"),
        F.sum("selected").alias("read"))
    pdf = out.toPandas().sort_values(["mode", "_lo"]).rename(columns={"_bucket": "html_captures_per_host"})
    pdf["sampling_fraction"] = (pdf["read"] / pdf["html_captures"].where(pdf["html_captures"] > 0)).round(4)
    return pdf.drop(columns="_lo").reset_index(drop=True)


def collect(read: Callable[[str], DataFrame | None], *, max_rows: int, grid_bins: int,
            max_sites: int) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """``read(name)`` gives a dataset or None when the run did not write it. Returns the frames
    and, per dataset that exists but could not be reduced, why (shown in the report)."""
    frames: dict[str, pd.DataFrame] = {"_grid_bins": grid_bins}
    problems: dict[str, str] = {}

    def attempt(name: str, fn):
        try:
            df = read(name)
            if df is None:
                return
            fn(df)
        except Exception as exc:  # one broken dataset must not cost the whole report
            log.warning("report: dataset %s could not be read: %s", name, exc)
            problems[name] = f"{type(exc).__name__}: {str(exc)[:300]}"

    for name in SMALL:
        attempt(name, lambda df, name=name: frames.__setitem__(name, _small(df, max_rows)))
    attempt("host_quality", lambda df: frames.__setitem__("host_quality_grid", host_quality_grid(df, grid_bins)))
    attempt("budgets", lambda df: frames.update(budget_frames(df)))
    attempt("sitemaps", lambda df: frames.__setitem__("sitemaps", sitemap_frame(df, max_sites)))
    attempt("host_plans", lambda df: frames.__setitem__(
        "host_plans", df.where(F.col("rank") <= 5).orderBy("site", "rank").limit(max_rows).toPandas()))
    attempt("page_clusters", lambda df: frames.__setitem__("page_clusters", df.groupBy("site").agg(
        F.count(F.lit(1)).alias("pages"), F.countDistinct(F.when(F.col("cluster") >= 0, F.col("cluster"))).alias("clusters"),
        F.sum(F.when(F.col("cluster") < 0, 1).otherwise(0)).alias("outlier_pages"),
        F.sum(F.col("in_training").cast("int")).alias("training_pages")).orderBy(F.desc("pages"))
        .limit(max_sites).toPandas()))
    attempt("warc_files", lambda df: frames.__setitem__("warc_files", df.groupBy("status").agg(
        F.count(F.lit(1)).alias("files"), F.sum("records").alias("records"), F.sum("responses").alias("responses"),
        F.sum("documents").alias("documents"), F.sum("rejected").alias("rejected"),
        F.sum("bytes").alias("bytes"), F.sum("seconds").alias("seconds"),
        F.sum(F.col("attempts") - 1).alias("retries")).toPandas()))
    attempt("host_population", lambda df: frames.__setitem__("sampling", sampling_frame(df)))
    attempt("rejects", lambda df: frames.__setitem__("rejects", reject_frame(df)))
    attempt("classify_rejects", lambda df: frames.__setitem__("classify_rejects", reject_frame(df)))
    attempt("documents", lambda df: frames.__setitem__("documents_by_language", df.groupBy("language").agg(
        F.count(F.lit(1)).alias("documents"), F.countDistinct("surt_host_name").alias("hosts"))
        .orderBy(F.desc("documents")).limit(25).toPandas()))
    return frames, problems


def read_markers(spark, out_dir: str) -> list[dict]:
    """Every ``_markers/<node>.json`` of the run (any file system ``crawlplan.storage`` reaches), in
    finish order."""
    folder = storage.join(out_dir, "_markers")
    if not storage.is_dir(spark, folder):
        return []
    markers = []
    for name, is_folder in storage.list_dir(spark, folder):
        if is_folder or not name.endswith(".json"):
            continue
        try:
            markers.append(json.loads(storage.read_text(spark, storage.join(folder, name)) or "{}"))
        except ValueError as exc:
            log.warning("report: marker %s is not JSON: %s", name, exc)
    return sorted(markers, key=lambda m: str(m.get("finished_at", "")))


@dataclass(frozen=True)
class ReportSettings(Settings):
    """Conf section ``report`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "report"

    title: str
    max_rows: int
    grid_bins: int
    max_sites: int


def run_markers(spark, roots: list[str], node: str) -> list[dict]:
    """The completion markers of the run's other nodes, one per node, oldest first; where several
    ``roots`` hold a node's marker the first root (the output folder) wins."""
    by_node: dict[str, dict] = {}
    for root in reversed(roots):
        for marker in read_markers(spark, root):
            if marker.get("node") and marker.get("node") != node:
                by_node[str(marker["node"])] = marker
    return sorted(by_node.values(), key=lambda m: str(m.get("finished_at") or ""))
