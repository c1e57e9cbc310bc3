"""Node simulate: scores (+ web graph, host index) -> ordering_sim, depth_sim, sample_reliability.

Spark aggregates pages to hosts and runs the sweeps over the host table (``policies.sweep``):
only tables a setting bounds reach the driver. Hosts missing from the web graph are left out
when a graph is given, as in the paper (§3.2). After a sampled extract, each host's pages and
high-quality pages are its index size times its sampled density (``host_population``), so the
sweeps run on whole hosts, not on k-page samples. With ``calibrated_hosts > 0`` a calibrated
population is simulated too (population=calibrated).
"""

from __future__ import annotations

import pandas as pd
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.nodes.policies.common import host_index_rows, host_ranks, sampled_population
from crawlplan.policies import hostdata, sweep
from crawlplan.policies.population import CalibratedParams, calibrated_hosts
from crawlplan.policies.simulate import label_tables, summarize, sweep_config
from crawlplan.schemas import conform
from crawlplan.stats.ranks import spearman_matrix


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
    counts = hosts.agg(F.count(F.lit(1)).alias("hosts"), F.count("log_hc").alias("in_graph")).head()
    ctx.count("pages_without_score", scores.where(scores[classifier].isNull()).count())
    ctx.count("hosts", counts.hosts)
    n_hosts = counts.hosts
    if counts.in_graph:
        ctx.count("hosts_not_in_graph", counts.hosts - counts.in_graph)
        hosts = hosts.where(F.col("log_hc").isNotNull())
        n_hosts = counts.in_graph
    if n_hosts < 2:
        raise ValueError(f"only {n_hosts} hosts with >= {table.min_pages} pages scored by '{classifier}': "
                         "nothing to simulate")
    _ground_truth_check(ctx, hosts)
    host_table = hostdata.sweep_table(hosts)
    ctx.count("pages", int(host_table.agg(F.sum("n")).head()[0]))
    cfg = sweep_config(p, n_hosts)
    tables = label_tables(summarize(sweep.run_sweep(host_table, cfg)), "data", classifier, threshold, cfg)
    calibrated = int(p["calibrated_hosts"])
    if calibrated > 0:
        ccfg = sweep_config(p, calibrated)
        factory = lambda seed: calibrated_hosts(ctx.spark, CalibratedParams(hosts=calibrated), seed)  # noqa: E731
        extra = label_tables(summarize(sweep.run_sweep(factory, ccfg)), "calibrated", classifier, threshold, ccfg)
        tables = {k: pd.concat([v, extra[k]], ignore_index=True) for k, v in tables.items()}
    return {name: conform(df, name, spark=ctx.spark) for name, df in tables.items()}


def _ground_truth_check(ctx, hosts) -> None:
    """Demo only: how well the classifier's host density tracks the planted true hq share."""
    truth = ctx.input("ground_truth")
    if not truth:
        return
    try:
        gt = ctx.spark.read.parquet(storage.join(str(truth), "hosts.parquet")).select("surt_host_name", "hq_share")
        both = hosts.select("surt_host_name", (F.col("hq_pages") / F.col("n_pages")).alias("density")) \
            .join(gt, "surt_host_name")
        both = both.where(F.col("hq_share").isNotNull()).cache()
        n = both.count()
        rho = float(spearman_matrix(both, "surt_host_name", ["density", "hq_share"])[0, 1]) if n >= 3 else 0.0
    except Exception as exc:  # noqa: BLE001 - the check is optional, never fatal
        ctx.note(f"ground truth not readable ({exc.__class__.__name__}); check skipped")
        return
    if n >= 3:
        ctx.note(f"ground truth: Spearman(classifier density, true hq share) = {rho:.3f} over {n} hosts")
