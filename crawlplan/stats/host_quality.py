"""Crawl coverage against quality density (the paper's RQ4: Figures 6-8, 10, 11 and Table 1).

Coverage of a host in one crawl is ``fetched / known`` from the host index v2:

- fetched = ``fetch_200``: pages of the host stored in this crawl's WARC files. These are the
  pages whose quality is measured (GneissWeb annotates exactly them; classified samples are
  drawn from them), so density and coverage refer to the same population.
- known = ``nutch_numRecords``: every URL of the host in the crawler's database (fetched,
  unfetched, not-modified, gone and redirects alike) - the URLs Common Crawl knew about and
  could have spent budget on.

Both are configurable column lists (summed) because the choice moves the numbers: a stricter
``known`` without gone/redirect records raises coverage of hosts with many redirects. Coverage
is clipped to 1 (the crawl database is aggregated over a year, so a host can be fetched more
than currently known) and the clipped hosts are counted.

Missed high-quality pages = max(known - fetched, 0) x density: it assumes unfetched pages of a
host are as likely to be high quality as its fetched ones (the paper's stated assumption).
Hidden gems: coverage below the median and density at or above the 90th percentile, both
taken over the hosts of the same crawl and quality source (ties at P90 count as top decile).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan.conf import Settings
from crawlplan.stats import host_sample, reference
from crawlplan.stats.host_stats import tld_category_column
from crawlplan.stats.ranks import group_spearman, quantile_frame

GROUP = ("crawl", "source")



@dataclass(frozen=True)
class HostQualitySettings(Settings):
    """Conf section ``stats.host_quality``."""
    SECTION = "stats.host_quality"

    crawls: tuple[str, ...]
    known_columns: tuple[str, ...]
    fetched_columns: tuple[str, ...]
    use_host_scores: bool
    sources: tuple[str, ...]
    low_coverage: float
    bin_edges: tuple[float, ...]
    bootstrap_replicates: int
    alpha: float
    seed: int
    www_convention: str
    max_hosts_per_group: int

    def __post_init__(self):
        if not self.known_columns or not self.fetched_columns:
            raise ValueError("stats.host_quality.known_columns and fetched_columns must name host index columns")

def _sum_cols(cols: list[str]):
    total = None
    for c in cols:
        total = F.col(c) if total is None else total + F.col(c)
    return total


def host_coverage(host_index: DataFrame, known_columns: list[str], fetched_columns: list[str]) -> DataFrame:
    """``crawl, surt_host_name, rev_host, tld, known, fetched, coverage, coverage_clipped``;
    hosts with unknown or zero ``known`` are dropped (no coverage is defined)."""
    known = _sum_cols(known_columns)
    fetched = _sum_cols(fetched_columns)
    df = host_index.select("crawl", "surt_host_name", "rev_host", F.col("url_host_tld").alias("tld"),
                           known.cast("long").alias("known"), fetched.cast("long").alias("fetched"))
    df = df.where(F.col("known").isNotNull() & F.col("fetched").isNotNull() & (F.col("known") > 0))
    raw = F.col("fetched") / F.col("known")
    return df.select("*", F.least(raw, F.lit(1.0)).alias("coverage"), (raw > 1).alias("coverage_clipped"))


def density_from_host_scores(host_scores: DataFrame) -> DataFrame:
    """``rev_host, source, density, density_docs``: each classifier's share of documents above
    its threshold, from the classified sample (host_scores)."""
    return host_scores.select("rev_host", F.col("classifier").alias("source"),
                              F.col("share_above").alias("density"), F.col("documents").alias("density_docs"))


def host_quality(coverage: DataFrame, density: DataFrame, *, by_crawl_density: bool = False) -> DataFrame:
    """Per crawl, quality source and host: coverage, density, missed HQ pages, gem flag.

    ``density`` has ``rev_host, source, density, density_docs`` (and ``crawl`` when
    ``by_crawl_density``, as GneissWeb annotations do). Gem thresholds are exact percentiles per
    (crawl, source) (linear interpolation, as numpy and Spark's ``percentile``) from distributed
    ranks of the distinct values (``ranks.quantile_frame``), joined back: no task holds a crawl's
    values, and only a row per (crawl, source) reaches the driver.
    """
    keys = ["rev_host", "crawl"] if by_crawl_density else ["rev_host"]
    joined = coverage.join(density, keys, "inner")
    missed = F.greatest(F.col("known") - F.col("fetched"), F.lit(0)) * F.col("density")
    joined = joined.withColumn("missed_hq", missed.cast("double"))
    joined = joined.persist(StorageLevel.MEMORY_AND_DISK)   # read by both cuts and the output
    cuts = quantile_frame(joined, list(GROUP), "coverage", [0.5], ["coverage_median"]).join(
        quantile_frame(joined, list(GROUP), "density", [0.9], ["density_p90"]), list(GROUP), "full_outer")
    out = joined.join(F.broadcast(cuts), list(GROUP))
    gem = (F.col("coverage") < F.col("coverage_median")) & (F.col("density") >= F.col("density_p90"))
    return out.select(
        "crawl", "source", "surt_host_name", "rev_host", "tld", tld_category_column(F.col("rev_host")).alias(
            "tld_category"), "known", "fetched", "coverage", "coverage_clipped", "density",
        F.col("density_docs").cast("long").alias("density_docs"), "missed_hq", gem.alias("gem"),
        "coverage_median", "density_p90")


def coverage_summary(hq: DataFrame, low_coverage: float, *, replicates: int, seed: int, alpha: float,
                     max_hosts_per_group: int) -> DataFrame:
    """One row per (crawl, source): Table 1 and the §4.4 totals.

    Spearman(coverage, density) is exact, by distributed ranks and aggregations
    (``ranks.group_spearman``); its host-bootstrap CI runs on the group's seeded sample of at
    most ``max_hosts_per_group`` hosts (``host_sample``: the whole group when it is that small,
    else endpoints rescaled to the group's size, error stated there), so no worker holds a
    whole crawl. The totals are plain aggregations.
    """
    reference.check_bootstrap(replicates, alpha)
    pairs = hq.select("crawl", "source", "rev_host", "coverage", "density")
    rho = group_spearman(pairs, list(GROUP), "coverage", "density")
    sample = host_sample.sampled_statistics(pairs, list(GROUP), "rev_host", "coverage", "density",
                                            max_hosts=max_hosts_per_group, replicates=replicates, seed=seed,
                                            alpha=alpha, seed_prefix=("coverage",), kendall=False)
    rho = rho.join(sample, list(GROUP)).select(
        *GROUP, F.col("_spearman").alias("spearman_coverage_density"),
        host_sample.rescaled(F.col("_q_low"), F.col("_spearman"), F.col("_n")).alias("ci_low"),
        host_sample.rescaled(F.col("_q_high"), F.col("_spearman"), F.col("_n")).alias("ci_high"),
        F.col("_sampled").alias("sampled_hosts"))
    totals = hq.groupBy(*GROUP).agg(
        F.count(F.lit(1)).cast("long").alias("hosts"),
        F.sum(F.col("gem").cast("long")).cast("long").alias("gems"),
        F.sum("known").cast("long").alias("known"),
        F.sum("fetched").cast("long").alias("fetched"),
        F.sum(F.col("coverage_clipped").cast("long")).cast("long").alias("coverage_clipped_hosts"),
        F.sum("missed_hq").alias("missed_hq"),
        F.sum(F.when(F.col("gem"), F.col("missed_hq")).otherwise(0.0)).alias("missed_hq_on_gems"),
        F.sum(F.when(F.col("coverage") < low_coverage, F.col("missed_hq")).otherwise(0.0)).alias("missed_hq_low"),
        F.first("coverage_median").alias("coverage_median"),
        F.first("density_p90").alias("density_p90"),
    )
    share = lambda num, den: F.when(F.col(den) > 0, F.col(num) / F.col(den))  # noqa: E731
    return totals.join(rho, list(GROUP), "left").select(
        "crawl", "source", "hosts", "spearman_coverage_density", "ci_low", "ci_high", "sampled_hosts", "gems",
        (F.col("gems") / F.col("hosts")).alias("gem_share_of_hosts"), "known", "fetched",
        "coverage_clipped_hosts", "missed_hq", "missed_hq_on_gems",
        share("missed_hq_on_gems", "missed_hq").alias("missed_share_on_gems"),
        share("missed_hq_low", "missed_hq").alias("missed_share_low_coverage"),
        F.lit(float(low_coverage)).alias("low_coverage_cut"), "coverage_median", "density_p90")


def _bin(col, edges: list[float]):
    """Index of the half-open bin [e_i, e_i+1) holding ``col``; the last bin is closed."""
    expr = F.lit(len(edges) - 2)
    for i in range(len(edges) - 2, 0, -1):
        expr = F.when(col < F.lit(edges[i]), F.lit(i - 1)).otherwise(expr)
    return expr


def coverage_bins(hq: DataFrame, coverage_edges: list[float], density_edges: list[float]) -> DataFrame:
    """The coverage x density grid (Figure 7): hosts and missed HQ pages per cell, as shares of
    the (crawl, source) totals."""
    ce, de = list(coverage_edges), list(density_edges)
    cells = hq.select("crawl", "source", "missed_hq", _bin(F.col("coverage"), ce).alias("cb"),
                      _bin(F.col("density"), de).alias("db")).groupBy(*GROUP, "cb", "db").agg(
        F.count(F.lit(1)).cast("long").alias("hosts"), F.sum("missed_hq").alias("missed_hq"))
    totals = hq.groupBy(*GROUP).agg(F.count(F.lit(1)).alias("_h"), F.sum("missed_hq").alias("_m"))
    lo_c, hi_c = F.element_at(F.array(*map(F.lit, ce)), F.col("cb") + 1), F.element_at(
        F.array(*map(F.lit, ce)), F.col("cb") + 2)
    lo_d, hi_d = F.element_at(F.array(*map(F.lit, de)), F.col("db") + 1), F.element_at(
        F.array(*map(F.lit, de)), F.col("db") + 2)
    return cells.join(totals, list(GROUP)).select(
        "crawl", "source", lo_c.cast("double").alias("coverage_lo"), hi_c.cast("double").alias("coverage_hi"),
        lo_d.cast("double").alias("density_lo"), hi_d.cast("double").alias("density_hi"), "hosts", "missed_hq",
        (F.col("hosts") / F.col("_h")).alias("share_of_hosts"),
        F.when(F.col("_m") > 0, F.col("missed_hq") / F.col("_m")).alias("share_of_missed"))


def missed_by_tld(hq: DataFrame) -> DataFrame:
    """Per TLD: share of the missed HQ pages against share of hosts, and median coverage
    (Figure 11). Exact median per TLD from distributed ranks (``ranks.quantile_frame``): one
    row per (crawl, source, TLD) reaches the driver, a bounded summary, and no task holds the
    coverages of ``com``. A null TLD is the TLD ``""``."""
    hq = hq.withColumn("tld", F.coalesce("tld", F.lit("")))
    per = hq.groupBy(*GROUP, "tld").agg(
        F.count(F.lit(1)).cast("long").alias("hosts"), F.sum("missed_hq").alias("missed_hq"),
        F.sum(F.col("gem").cast("long")).cast("long").alias("gems"))
    medians = quantile_frame(hq, [*GROUP, "tld"], "coverage", [0.5], ["median_coverage"])
    totals = hq.groupBy(*GROUP).agg(F.count(F.lit(1)).alias("_h"), F.sum("missed_hq").alias("_m"))
    return per.join(medians, [*GROUP, "tld"], "left").join(totals, list(GROUP)).select(
        "crawl", "source", "tld", "hosts", "gems", "missed_hq",
        (F.col("hosts") / F.col("_h")).alias("share_of_hosts"),
        F.when(F.col("_m") > 0, F.col("missed_hq") / F.col("_m")).alias("share_of_missed"), "median_coverage")
