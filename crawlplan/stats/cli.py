"""``crawlplan stats show``: print the statistics tables of a finished run.

The summary tables are small (tens to thousands of rows), so they are read with pyarrow
directly: no SparkSession, instant on a laptop after a cluster run has been copied back.
"""

from __future__ import annotations

# The tables `crawlplan stats show` prints: name -> (dataset, columns).
TABLES = {
    "icc": ("icc", ["classifier", "min_docs", "hosts", "documents", "mean_docs", "var_between", "var_within",
                    "icc1", "reliability", "correlation_ceiling"]),
    "correlations": ("correlations", ["metric", "classifier", "stratum_kind", "stratum", "hosts", "spearman",
                                      "ci_low", "ci_high", "kendall", "weighted_spearman"]),
    "distributions": ("score_distributions", ["stratum", "classifier", "documents", "mean", "median", "p10", "p90"]),
    "coverage": ("coverage_summary", ["crawl", "source", "hosts", "spearman_coverage_density", "gems",
                                      "gem_share_of_hosts", "missed_hq", "missed_share_on_gems",
                                      "missed_share_low_coverage"]),
    "stability": ("rank_stability", ["release_a", "release_b", "measure", "common_hosts", "spearman"]),
}


def register(subparsers) -> None:
    p = subparsers.add_parser("stats", help="host statistics tables of a run (ICC1, correlations, coverage)")
    sub = p.add_subparsers(dest="stats_command", required=True)
    show = sub.add_parser("show", help="print icc, correlations, distributions, coverage and rank stability")
    show.add_argument("--out", default="out", help="the run's output folder (default out)")
    show.add_argument("--table", default="all", choices=["all", *TABLES])
    show.add_argument("--all-strata", action="store_true", help="correlations by language and TLD too")
    show.add_argument("--rows", type=int, default=200)
    show.set_defaults(func="crawlplan.stats.commands:cmd_show")

