"""The policy sweeps before and after the move to Spark, side by side (docs/scale.md).

Before: the numpy sweeps (``policies.simulate.run_sweep``: one flag per page on the driver, one
random draw per seed). After: the Spark sweeps (``policies.sweep.run_sweep``: per-host counts, tie
block expectations, seeded per-host page orders). Both run on the same host table with the
conf's seeds and budgets; the table shows each policy's yield at every budget: today's mean and
its range over seeds, the Spark mean, and whether it lies inside that range.

    .venv/bin/python scripts/sweep_before_after.py --calibrated 20000 --seeds 20
    .venv/bin/python scripts/sweep_before_after.py --scores out/demo/scores --graph data/demo/graph --seeds 20
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd

from crawlplan.conf import load_conf, section
from crawlplan.graph.webgraph import read_host_ranks, release_convention
from crawlplan.policies import hostdata, simulate, sweep
from crawlplan.policies.population import CalibratedParams, calibrated_population
from crawlplan.spark import build_session


def _from_scores(spark, args, p) -> pd.DataFrame:
    hosts = hostdata.host_counts(spark.read.parquet(args.scores), p["classifier"], float(p["threshold"]),
                                 int(p["min_pages"]))
    ranks = None
    if args.graph:
        ranks = read_host_ranks(spark, args.graph, convention=release_convention(spark, args.graph))
    hosts = hostdata.with_graph(hostdata.with_host_index(hosts, None), ranks)
    if args.graph:
        hosts = hosts.where(hosts.log_hc.isNotNull())
    return hostdata.to_pandas_hosts(hosts)     # a demo-sized table: the numpy reference needs it whole


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibrated", type=int, default=0, help="hosts of a calibrated population (seed 0)")
    ap.add_argument("--scores", help="a run's scores dataset (the demo's: out/<run>/scores)")
    ap.add_argument("--graph", help="the web graph release the run used (HC, PR)")
    ap.add_argument("--seeds", type=int, default=0,
                    help="seeds 0..N-1 instead of the conf's (the Monte-Carlo policies' spread needs more than five)")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = load_conf("local", overrides=["spark.master=local[2]", "spark.shuffle_partitions=4"])
    spark = build_session(conf, app_name="sweep-before-after")
    p = dict(section(conf, "policies.simulate"))
    if args.seeds:
        p["seeds"] = list(range(args.seeds))
    if args.calibrated:
        pop = calibrated_population(CalibratedParams(hosts=args.calibrated), seed=0)
        label = f"calibrated population, {args.calibrated:,} hosts"
    else:
        pdf = _from_scores(spark, args, p)
        pop = hostdata.population_from_pandas(pdf)
        label = f"{args.scores}: {pop.hosts:,} hosts"
    cfg = simulate.sweep_config(p, pop.hosts)
    before = simulate.summarize(simulate.run_sweep(pop, cfg))
    table = pd.DataFrame({"host": [f"h{i}" for i in range(pop.hosts)], "n": pop.n, "hq": pop.hq,
                          "tld": [pop.tld_names[c] for c in pop.tld], "grp": [pop.group_names[g] for g in pop.group],
                          "log_hc": pop.log_hc, "log_pr": pop.log_pr,
                          "cc": None if pop.cc_fetched is None else pop.cc_fetched.astype(float)})
    after = simulate.summarize(sweep.run_sweep(spark.createDataFrame(table), cfg))
    print(f"# {label}; seeds {list(cfg.seeds)}\n")
    for name in ("ordering_sim", "depth_sim"):
        both = before[name].merge(after[name], on=["policy", "budget_frac"], suffixes=("_before", "_after"))
        inside = (both.yield_mean_after >= both.yield_min_before - 1e-9) & \
                 (both.yield_mean_after <= both.yield_max_before + 1e-9)
        print(f"## {name}: yield (high-quality share of fetched pages)\n")
        print("| policy | budget | before: mean | before: min – max | after: mean | after: min – max | inside |")
        print("|---|---|---|---|---|---|---|")
        for r, ok in zip(both.itertuples(), inside):
            print(f"| {r.policy} | {r.budget_frac:g} | {r.yield_mean_before:.4f} | {r.yield_min_before:.4f} – "
                  f"{r.yield_max_before:.4f} | {r.yield_mean_after:.4f} | {r.yield_min_after:.4f} – "
                  f"{r.yield_max_after:.4f} | {'yes' if ok else 'no'} |")
        print(f"\n{int(inside.sum())} of {len(both)} inside today's range over seeds; largest |after - before| = "
              f"{float(np.abs(both.yield_mean_after - both.yield_mean_before).max()):.4f}\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
