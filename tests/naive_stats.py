"""The host statistics as they were computed before issue #26: one pandas group per
(metric, classifier, stratum) or (crawl, source), holding every host of it in one worker.

Test and benchmark reference only (the library computes Spearman by distributed ranks and
Kendall / the bootstrap on a bounded sample, crawlplan.stats.host_sample): on groups no
larger than ``max_hosts_per_group`` the two must agree (tests/test_stats_spark.py).
"""

from __future__ import annotations

import pandas as pd

from crawlplan.stats import reference


def group_correlations(pdf: pd.DataFrame, replicates: int, seed: int, alpha: float) -> pd.DataFrame:
    """All statistics of one correlation group, the whole group in numpy."""
    metric, classifier = pdf["metric"].iloc[0], pdf["classifier"].iloc[0]
    kind, stratum = pdf["stratum_kind"].iloc[0], pdf["stratum"].iloc[0]
    pdf = pdf.sort_values("rev_host", kind="mergesort")
    x = pdf["x"].to_numpy(float)
    y = pdf["y"].to_numpy(float)
    w = pdf["documents"].to_numpy(float)
    n = int(x.size)
    rho = reference.spearman(x, y) if n >= 3 else float("nan")
    tau = reference.kendall_tau(x, y) if n >= 3 else float("nan")
    wrho = reference.weighted_spearman(x, y, w) if n >= 3 else float("nan")
    lo, hi = reference.bootstrap_spearman(x, y, replicates, reference.group_seed(seed, metric, classifier, kind, stratum),
                                          alpha)
    return pd.DataFrame([{
        "metric": metric, "classifier": classifier, "stratum_kind": kind, "stratum": stratum, "hosts": n,
        "spearman": rho, "kendall": tau, "weighted_spearman": wrho, "ci_low": lo, "ci_high": hi,
        "bootstrap_replicates": int(replicates) if n >= 3 else 0,
    }])


def coverage_group(pdf: pd.DataFrame, replicates: int, seed: int, alpha: float) -> dict:
    """Spearman(coverage, density) of one (crawl, source) and its bootstrap CI, the whole group in numpy."""
    pdf = pdf.sort_values("rev_host", kind="mergesort")
    crawl, source = pdf["crawl"].iloc[0], pdf["source"].iloc[0]
    x, y = pdf["coverage"].to_numpy(float), pdf["density"].to_numpy(float)
    rho = reference.spearman(x, y) if len(pdf) >= 3 else float("nan")
    lo, hi = reference.bootstrap_spearman(x, y, replicates, reference.group_seed(seed, "coverage", crawl, source), alpha)
    return {"crawl": crawl, "source": source, "spearman_coverage_density": rho, "ci_low": lo, "ci_high": hi}
