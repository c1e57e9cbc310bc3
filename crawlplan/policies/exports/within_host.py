"""The budgets as a Spark frame, with the within-host plans joined per sitemap host.

The Spark counterpart of ``export.read_budgets_with_plans``: the same datasets found the same way
(a path, 'none', or the dataset of that name beside the budgets), and per site the same
formatter (``export.site_plan``), run in ``applyInPandas`` on one site's rows at a time: its plan
rows (at most ``top``), its pages of ``page_clusters`` (what the sitemap learner sampled of that
site) and its navigation rows. Nothing per host or per site comes to the driver.
"""

from __future__ import annotations

import pandas as pd
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StructField, StructType

from crawlplan import storage
from crawlplan.hosts import surt_host
from crawlplan.policies.allocate import BUDGET_COLUMNS
from crawlplan.policies.export import FLOAT_COLUMNS, INT_COLUMNS, PLAN_COLUMN, plan_navigation, site_plan
from crawlplan.source.plans import cluster_url_patterns

_PATTERNS = "site string, cluster long, url_pattern string, seed_urls array<string>"
_NO_PATTERNS = "array<struct<cluster:long,url_pattern:string,seed_urls:array<string>>>"
_NO_NAVIGATION = "array<struct<cluster:long,apath:string,to_cluster:long,weight:double>>"
_PLANS = "site string, surt_host_name string, within_host_plan string"


def parent(path: str) -> str:
    """The folder a path is in ('.' for a bare name)."""
    head, _, _ = str(path).rstrip("/").rpartition("/")
    return head or ("/" if str(path).startswith("/") else ".")


def typed(df: DataFrame) -> DataFrame:
    """The export's columns in their order and types, every one nullable (as the pandas era's
    Parquet file, whose schema the Parquet export keeps)."""
    columns = BUDGET_COLUMNS + ([PLAN_COLUMN] if PLAN_COLUMN in df.columns else [])
    kinds = {**{c: "long" for c in INT_COLUMNS}, **{c: "double" for c in FLOAT_COLUMNS}}
    out = df.select(*[F.col(c).cast(kinds.get(c, "string")).alias(c) for c in columns])
    if all(f.nullable for f in out.schema.fields):     # as every frame read from Parquet
        return out
    # a frame handed over from a node keeps its non-null columns through casts; the rows are
    # re-typed inside the JVM (no Python, no driver), as the pandas era's file had nullable ones
    nullable = StructType([StructField(f.name, f.dataType, True) for f in out.schema.fields])
    jspark = out.sparkSession._jsparkSession
    return DataFrame(jspark.createDataFrame(out._jdf.toJavaRDD(), jspark.parseDataType(nullable.json())),
                     out.sparkSession)


def read_budgets(spark: SparkSession, path: str) -> DataFrame:
    """The budgets dataset (a Parquet folder or file) as a Spark frame of the export's columns."""
    if not storage.exists(spark, path):
        raise FileNotFoundError(f"budgets dataset not found at {path} (run: crawlplan run --only allocate)")
    df = spark.read.parquet(path)
    missing = [c for c in BUDGET_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path} is not a budgets dataset: column '{missing[0]}' is missing")
    return typed(df)


def _beside(spark: SparkSession, given: str | None, budgets: str, name: str) -> str | None:
    """An explicit dataset path (must exist), 'none', or the dataset of that name beside the budgets."""
    if given == "none":
        return None
    path = str(given) if given is not None else storage.join(parent(budgets), name)
    if not storage.exists(spark, path):
        if given is not None:
            raise FileNotFoundError(f"no {name} dataset at {path}")
        return None
    return path


def budgets_frame(spark: SparkSession, budgets: str, *, plans: str | None = None, page_clusters: str | None = None,
                  sitemaps: str | None = None, top: int) -> tuple[DataFrame, dict[str, str]]:
    """The budgets with their within-host plans joined, as every export writes them, and the
    datasets used (the arguments mean what they mean in ``export.read_budgets_with_plans``)."""
    budgets = str(budgets)
    df = read_budgets(spark, budgets)
    used: dict[str, str] = {}
    plans_path = _beside(spark, plans, budgets, "host_plans")
    if plans_path is None:
        return df, used
    used["host_plans"] = plans_path
    clusters_path = _beside(spark, page_clusters, budgets, "page_clusters")
    if clusters_path is not None:
        used["page_clusters"] = clusters_path
    sitemaps_path = _beside(spark, sitemaps, budgets, "sitemaps")
    if sitemaps_path is not None:
        used["sitemaps"] = sitemaps_path
    by_host = plans_by_host(spark, plans_path, clusters_path, sitemaps_path, top)
    joined = df.join(by_host, "surt_host_name", "left").withColumn(
        PLAN_COLUMN, F.coalesce(F.col(PLAN_COLUMN), F.lit("")))
    return typed(joined), used


def plans_by_host(spark: SparkSession, plans_path: str, clusters_path: str | None, sitemaps_path: str | None,
                  top: int) -> DataFrame:
    """(surt_host_name, within_host_plan) of every planned host: one site's rows per Python call.
    Two sites of one host key (``www.`` and bare) keep the later site's plan, as the pandas export."""
    first = Window.partitionBy("site").orderBy("rank")
    rows = (spark.read.parquet(plans_path)
            .select(F.col("site").cast("string"), F.col("rank").cast("long"), F.col("cluster").cast("long"),
                    F.col("apath").cast("string"), F.col("expected_share").cast("double"))
            .withColumn("_n", F.row_number().over(first)).where(F.col("_n") <= top).drop("_n"))
    sites = rows.groupBy("site").agg(F.collect_list(F.struct("rank", "cluster", "apath", "expected_share"))
                                     .alias("plan"))
    with_patterns = clusters_path is not None
    if with_patterns:
        pages = spark.read.parquet(clusters_path)
        cluster = "part_of" if "part_of" in pages.columns else "cluster"   # as export._navigation_clusters
        pages = (pages.select(F.col("site").cast("string"), F.col("url").cast("string"),
                              F.col(cluster).cast("long").alias("cluster"))
                 .join(sites.select("site"), "site", "left_semi"))
        found = pages.groupBy("site").applyInPandas(_site_patterns, _PATTERNS)
        sites = sites.join(found.groupBy("site").agg(
            F.collect_list(F.struct("cluster", "url_pattern", "seed_urls")).alias("patterns")), "site", "left")
    else:
        sites = sites.withColumn("patterns", F.lit(None).cast(_NO_PATTERNS))
    if sitemaps_path is not None:
        nav = (spark.read.parquet(sitemaps_path).select(F.col("site").cast("string"), "navigation")
               .join(sites.select("site"), "site", "left_semi")
               .groupBy("site").agg(F.flatten(F.collect_list("navigation")).alias("navigation")))
        sites = sites.join(nav, "site", "left")
    else:
        sites = sites.withColumn("navigation", F.lit(None).cast(_NO_NAVIGATION))

    def one_site(pdf: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame([_site_plan(r, top, with_patterns) for r in pdf.itertuples(index=False)],
                            columns=["site", "surt_host_name", PLAN_COLUMN])

    per_site = sites.groupBy("site").applyInPandas(one_site, _PLANS)
    return per_site.groupBy("surt_host_name").agg(F.max_by(PLAN_COLUMN, "site").alias(PLAN_COLUMN))


def _site_patterns(pages: pd.DataFrame) -> pd.DataFrame:
    found = cluster_url_patterns(pages)
    return pd.DataFrame([(site, int(cluster), p.get("url_pattern"), list(p.get("seed_urls", [])))
                         for (site, cluster), p in found.items()],
                        columns=["site", "cluster", "url_pattern", "seed_urls"])


def _site_plan(row, top: int, with_patterns: bool) -> tuple[str, str, str]:
    site = str(row.site)
    rows = pd.DataFrame(list(row.plan), columns=["rank", "cluster", "apath", "expected_share"])
    patterns = None
    if with_patterns:
        patterns = {(site, int(p["cluster"])): {"url_pattern": p["url_pattern"], "seed_urls": list(p["seed_urls"])}
                    for p in (row.patterns if row.patterns is not None else [])}
    navigation = plan_navigation(pd.DataFrame({"site": [site], "navigation": [row.navigation]}))
    return site, surt_host(site), site_plan(site, rows, top, patterns, navigation)
