"""Node simulate: scores (+ web graph, host index) -> ordering_sim, depth_sim, sample_reliability.

Spark aggregates pages to hosts; the sweeps run vectorised on the driver over the host table.
Hosts missing from the web graph are left out when a graph is given, as in the paper (§3.2).
After a sampled extract, each host's pages and high-quality pages are its index size times its
sampled density (``host_population``), so the sweeps run on whole hosts, not on k-page samples.
With ``calibrated_hosts > 0`` a calibrated population is simulated too (population=calibrated).
"""

from __future__ import annotations

import pandas as pd

from crawlplan import storage
from crawlplan.nodes.policies.common import host_index_rows, host_ranks, sampled_population
from crawlplan.policies import hostdata
from crawlplan.policies.population import CalibratedParams, calibrated_population
from crawlplan.policies.simulate import label_tables, run_sweep, summarize, sweep_config
from crawlplan.schemas import conform


def run(ctx) -> dict:
    p = ctx.params
    table = hostdata.HostTableSettings.from_params(p, "policies.simulate")
    classifier, threshold = table.classifier, table.threshold
    scores = ctx.read("scores")
    hosts = hostdata.host_counts(scores, classifier, threshold, table.min_pages)
    hosts = hostdata.with_population(hosts, sampled_population(ctx))
    index = host_index_rows(ctx, scores, table)
    hosts = hostdata.with_host_index(hosts, index, table.cc_budget_column, table.known_column, table.fetched_column)
    hosts = hostdata.with_graph(hosts, host_ranks(ctx))
    pdf = hostdata.to_pandas_hosts(hosts)
    ctx.count("pages_without_score", scores.where(scores[classifier].isNull()).count())
    ctx.count("hosts", len(pdf))
    if pdf.log_hc.notna().any():
        missing = int(pdf.log_hc.isna().sum())
        ctx.count("hosts_not_in_graph", missing)
        pdf = pdf[pdf.log_hc.notna()].reset_index(drop=True)
    if len(pdf) < 2:
        raise ValueError(f"only {len(pdf)} hosts with >= {table.min_pages} pages scored by '{classifier}': "
                         "nothing to simulate")
    _ground_truth_check(ctx, pdf)
    pop = hostdata.population_from_pandas(pdf)
    ctx.count("pages", pop.pages)
    cfg = sweep_config(p, pop.hosts)
    tables = label_tables(summarize(run_sweep(pop, cfg)), "data", classifier, threshold, cfg)
    calibrated = int(p["calibrated_hosts"])
    if calibrated > 0:
        ccfg = sweep_config(p, calibrated)
        factory = lambda seed: calibrated_population(CalibratedParams(hosts=calibrated), seed=seed)  # noqa: E731
        extra = label_tables(summarize(run_sweep(factory, ccfg)), "calibrated", classifier, threshold, ccfg)
        tables = {k: pd.concat([v, extra[k]], ignore_index=True) for k, v in tables.items()}
    return {name: conform(df, name, spark=ctx.spark) for name, df in tables.items()}


def _ground_truth_check(ctx, pdf: pd.DataFrame) -> None:
    """Demo only: how well the classifier's host density tracks the planted true hq share."""
    truth = ctx.input("ground_truth")
    if not truth:
        return
    # scipy.stats: heavy, only for the demo ground-truth check
    from scipy.stats import spearmanr

    try:
        gt = ctx.spark.read.parquet(storage.join(str(truth), "hosts.parquet")).select(
            "surt_host_name", "hq_share").toPandas()
    except Exception as exc:  # noqa: BLE001 - the check is optional, never fatal
        ctx.note(f"ground truth not readable ({exc.__class__.__name__}); check skipped")
        return
    both = pdf.merge(gt, on="surt_host_name")
    if len(both) >= 3:
        rho = spearmanr(both.hq_pages / both.n_pages, both.hq_share)[0]
        ctx.note(f"ground truth: Spearman(classifier density, true hq share) = {rho:.3f} over {len(both)} hosts")
