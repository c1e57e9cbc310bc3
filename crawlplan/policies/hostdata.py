"""From page scores to the per-host table the simulations and the allocator run on (Spark).

Page-level work stays in Spark: one aggregation turns ``scores`` into one row per host (pages,
high-quality pages, primary language, keys), joined with log HC / log PR from the web graph and
Common Crawl's per-host counts from the host index. The host table stays in Spark too: the sweeps
(``policies.sweep``) and the allocator (``policies.allocate``) are Spark transformations over it,
so a crawl's 46 million hosts never reach the driver. ``to_pandas_hosts`` is for the numpy
reference sweeps on demo-sized tables (``scripts/sweep_before_after.py``), never for a node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import settings_from
from crawlplan.hosts import tld_category
from crawlplan.policies.population import Population, from_host_table
from crawlplan.stats.host_stats import UNKNOWN_LANGUAGE, primary_language, tld_category_column


@dataclass(frozen=True)
class HostTableSettings:
    """The keys of ``policies.simulate`` and ``policies.allocate`` that build the host table."""
    classifier: str
    threshold: float
    min_pages: int
    host_index_crawl: str
    cc_budget_column: str
    known_column: str
    fetched_column: str

    @classmethod
    def from_params(cls, params: dict, where: str, **derived) -> HostTableSettings:
        return settings_from(cls, params, where, **derived)


SCORE_COLUMNS = ("dclm", "fineweb_edu", "gneissweb_quality", "gneissweb_sci", "gneissweb_edu", "gneissweb_tech",
                 "gneissweb_med", "nemotron_quality", "nemotron_edu", "nemotron_info")


def host_counts(scores: DataFrame, classifier: str, threshold: float, min_pages: int) -> DataFrame:
    """One row per host: surt_host_name, rev_host, registered_domain, tld, language, n_pages, hq_pages.

    Pages without a score for ``classifier`` are left out (the caller counts them); hosts with
    fewer than ``min_pages`` scored pages are dropped, as the paper keeps hosts with >= 3.
    The primary language is ``stats.host_stats.primary_language`` over the scored pages."""
    if classifier not in scores.columns:
        raise ValueError(f"classifier '{classifier}' is not a column of scores; known: {', '.join(SCORE_COLUMNS)}")
    scored = scores.where(F.col(classifier).isNotNull())
    lang = primary_language(scored, "surt_host_name").withColumnRenamed("primary_language", "language")
    agg = scored.groupBy("surt_host_name").agg(
        F.min("rev_host").alias("rev_host"),
        F.min("registered_domain").alias("registered_domain"),
        F.min("tld").alias("tld"),
        F.count(F.lit(1)).cast("long").alias("n_pages"),
        F.sum((F.col(classifier) > F.lit(float(threshold))).cast("long")).alias("hq_pages"),
    ).where(F.col("n_pages") >= int(min_pages))
    return agg.join(lang, "surt_host_name", "left")


def with_population(hosts: DataFrame, population: DataFrame | None) -> DataFrame:
    """Sampled extract: each host's pages and high-quality pages in the whole crawl, estimated as
    its successful HTML captures in the columnar index times its sampled density (``n_pages`` and
    ``hq_pages`` then describe the host, not the sample). Hosts read in full keep their counts."""
    if population is None:
        return hosts
    pop = population.where(F.col("mode") == "sampled").select("surt_host_name", F.col("html_captures").alias("_size"))
    size = F.greatest(F.coalesce(F.col("_size"), F.col("n_pages")), F.col("n_pages")).cast("long")
    return (hosts.join(pop, "surt_host_name", "left")
            .withColumn("hq_pages", F.round(F.col("hq_pages") / F.col("n_pages") * size).cast("long"))
            .withColumn("n_pages", size).drop("_size"))


def with_graph(hosts: DataFrame, ranks: DataFrame | None) -> DataFrame:
    """Add log_hc / log_pr by ``rev_host`` (null where the host is not in the graph)."""
    if ranks is None:
        return hosts.withColumn("log_hc", F.lit(None).cast("double")).withColumn("log_pr", F.lit(None).cast("double"))
    return hosts.join(ranks.select("rev_host", "log_hc", "log_pr"), "rev_host", "left")


def with_host_index(hosts: DataFrame, index: DataFrame | None, budget_column: str = "fetch_200",
                    known_column: str = "nutch_numRecords", fetched_column: str = "nutch_fetched") -> DataFrame:
    """Add Common Crawl's observed budget (``cc_budget``: pages it fetched from the host in the
    crawl) and the uncrawled known URLs (``cap_known``: known minus fetched, the most a next crawl
    can add) by ``surt_host_name``. ``index`` is one crawl's rows of the host index."""
    if index is None:
        return (hosts.withColumn("cc_budget", F.lit(None).cast("double"))
                .withColumn("cap_known", F.lit(None).cast("long")))
    sel = index.select(
        "surt_host_name",
        F.col(budget_column).cast("double").alias("cc_budget"),
        uncrawled_known(known_column, fetched_column).alias("cap_known"),
    )
    return hosts.join(sel, "surt_host_name", "left")


def uncrawled_known(known_column: str, fetched_column: str):
    """Known minus fetched URLs of a host-index row (never below 0): the most a next crawl can add."""
    return F.greatest(F.col(known_column) - F.coalesce(F.col(fetched_column), F.lit(0)), F.lit(0)).cast("long")


def pick_crawl(index: DataFrame, scores: DataFrame, wanted: str = "") -> str | None:
    """The host index crawl to use: ``wanted``, else the scores' most common crawl if the index has
    it, else the index's latest crawl."""
    crawls = sorted(r[0] for r in index.select("crawl").distinct().collect())
    if not crawls:
        return None
    if wanted:
        if wanted not in crawls:
            raise ValueError(f"crawl '{wanted}' is not in the host index; it has: {', '.join(crawls)}")
        return wanted
    top = scores.where(F.col("crawl").isNotNull()).groupBy("crawl").count().orderBy(F.desc("count")).limit(1).collect()
    if top and top[0][0] in crawls:
        return top[0][0]
    return crawls[-1]


def to_pandas_hosts(hosts: DataFrame) -> pd.DataFrame:
    """A demo-sized host table on the driver, in a fixed order, for the numpy reference sweeps
    (never called by a node: a crawl's host table does not fit a driver)."""
    pdf = hosts.toPandas()
    return pdf.sort_values("surt_host_name", kind="stable").reset_index(drop=True)


def group_key(language: pd.Series, tld: pd.Series) -> pd.Series:
    """Prior group of a host: primary language x TLD macro-category."""
    cat = tld.fillna("").map(lambda t: tld_category(t) if t else "other")
    return language.fillna(UNKNOWN_LANGUAGE).astype(str) + "|" + cat


def population_from_pandas(pdf: pd.DataFrame) -> Population:
    def opt(col):
        if col not in pdf or pdf[col].isna().all():
            return None
        return pdf[col].to_numpy(dtype=np.float64)

    cc = opt("cc_budget")
    return from_host_table(pdf.n_pages.to_numpy(), pdf.hq_pages.to_numpy(), pdf.tld.fillna("").to_numpy(),
                           group_key(pdf.language, pdf.tld).to_numpy(), log_hc=opt("log_hc"), log_pr=opt("log_pr"),
                           cc_fetched=None if cc is None else np.nan_to_num(cc, nan=0.0))


def tld_category_of(tld: Column) -> Column:
    """The host's TLD macro-category from its ``tld`` column (``crawlplan.hosts.tld_category`` of the
    TLD; 'other' when it is missing), as ``allocate_table`` assigns it."""
    text = F.coalesce(tld, F.lit(""))
    reversed_labels = F.array_join(F.reverse(F.split(F.regexp_replace(text, r"\.+$", ""), r"\.")), ".")
    return F.when(text == "", F.lit("other")).otherwise(tld_category_column(reversed_labels))


def sweep_table(hosts: DataFrame) -> DataFrame:
    """The host table of ``policies.sweep``: host, n, hq, tld, grp, log_hc, log_pr, cc; ``grp`` is
    the prior group (primary language x TLD macro-category, as ``group_key``); a missing Common
    Crawl budget counts as 0 pages fetched, as ``population_from_pandas`` does."""
    category = tld_category_of(F.col("tld"))
    cc = F.col("cc_budget") if "cc_budget" in hosts.columns else F.lit(None).cast("double")
    has_cc = hosts.agg(F.count(cc)).head()[0] > 0
    return hosts.select(
        F.col("surt_host_name").alias("host"), F.col("n_pages").cast("long").alias("n"),
        F.col("hq_pages").cast("long").alias("hq"), F.coalesce(F.col("tld"), F.lit("")).alias("tld"),
        F.concat_ws("|", F.coalesce(F.col("language"), F.lit(UNKNOWN_LANGUAGE)), category).alias("grp"),
        F.col("log_hc").cast("double").alias("log_hc"), F.col("log_pr").cast("double").alias("log_pr"),
        (F.coalesce(cc, F.lit(0.0)) if has_cc else F.lit(None)).cast("double").alias("cc"))
