"""Benchmark of the crawl-policy simulations on a population calibrated to the paper.

Measures, in one run on the same population:
1. the full vectorised sweep (RQ2 ordering: 5 policies with repeated random; RQ3 depth: uniform,
   HC depth, sample-then-deepen with its probe-share search, eb_adaptive, oracle; sample
   reliability k = 1..20) over all budgets and seeds;
2. sample-then-deepen (k = 3) at one budget and probe share, vectorised vs the per-host Python
   loop (``tests/naive_policies.py``) with the same random draws: time ratio, and the two
   results must agree.

    .venv/bin/python bench/bench_policies.py [--hosts 532628] [--seeds 5] [--budget 0.05]
    .venv/bin/python bench/bench_policies.py --smoke   # 2,000 hosts, 1 seed, checked

``--smoke``: 2,000 hosts and one seed; the loop and the vectorised result must agree (as in every
run), and the table must have its rows.

Results go to bench/results/policies.json and are printed as a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # the per-host loop is test code

import naive_policies  # noqa: E402
from benchlib import check, ok  # noqa: E402

from crawlplan.conf import load_conf, section  # noqa: E402
from crawlplan.policies import sim  # noqa: E402
from crawlplan.policies.population import CalibratedParams, calibrated_population, page_orders  # noqa: E402
from crawlplan.policies.simulate import run_seed, sweep_config  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=532_628)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=0.05, help="budget share for the loop comparison")
    ap.add_argument("--share", type=float, default=0.5, help="probe share for the loop comparison")
    ap.add_argument("--out", default="bench/results/policies.json")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.hosts, args.seeds, args.out = 2000, 1, "bench/results/smoke/policies.json"

    t = time.perf_counter()
    pop = calibrated_population(CalibratedParams(hosts=args.hosts), seed=0)
    gen_s = time.perf_counter() - t

    cfg = sweep_config(section(load_conf(), "policies.simulate"), seeds=tuple(range(args.seeds)))
    t, c = time.perf_counter(), time.process_time()
    for seed in cfg.seeds:
        run_seed(pop, seed, cfg)
    sweep_s, sweep_cpu = time.perf_counter() - t, time.process_time() - c

    flags, offsets = page_orders(pop, np.random.default_rng(1))
    cum = sim.cumulative_flags(flags)
    budget = sim.budget_pages(pop, args.budget)
    t, c = time.perf_counter(), time.process_time()
    (vec, _), = sim.sample_then_deepen(pop, cum, offsets, [budget], 3, np.random.default_rng(7), (args.share,))
    vec_s, vec_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    loop_hq = naive_policies.sample_then_deepen_loop(pop, flags, offsets, budget, 3, np.random.default_rng(7), args.share)
    loop_s, loop_cpu = time.perf_counter() - t, time.process_time() - c
    if not np.isclose(vec.hq, loop_hq, rtol=1e-9):
        raise SystemExit(f"vectorised and loop results differ: {vec.hq} vs {loop_hq}")

    result = {
        "hosts": pop.hosts, "pages": pop.pages, "seeds": args.seeds, "budgets": len(cfg.budgets),
        "generate_s": round(gen_s, 3), "sweep_s": round(sweep_s, 3), "sweep_s_per_seed": round(sweep_s / args.seeds, 3),
        "std_vectorised_s": round(vec_s, 4), "std_loop_s": round(loop_s, 3), "loop_over_vectorised": round(loop_s / vec_s, 1),
        "sweep_cpu_s": round(sweep_cpu, 3), "std_vectorised_cpu_s": round(vec_cpu, 4),
        "std_loop_cpu_s": round(loop_cpu, 3), "loop_over_vectorised_cpu": round(loop_cpu / vec_cpu, 1),
        "std_hq_pages": round(vec.hq, 3), "budget_share": args.budget, "probe_share": args.share,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus",
        "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print("| what | wall s | CPU s |\n|---|---:|---:|")
    print(f"| generate calibrated population ({pop.hosts:,} hosts, {pop.pages:,} pages) | {gen_s:.2f} | |")
    print(f"| full sweep, {args.seeds} seeds x {len(cfg.budgets)} budgets, all policies + reliability | {sweep_s:.2f} | "
          f"{sweep_cpu:.2f} |")
    print(f"| sample-then-deepen k=3 at {args.budget:g}, vectorised | {vec_s:.4f} | {vec_cpu:.4f} |")
    print(f"| same, per-host Python loop | {loop_s:.2f} | {loop_cpu:.2f} |")
    print(f"\nloop / vectorised = {loop_s / vec_s:.0f}x wall, {loop_cpu / vec_cpu:.0f}x CPU "
          f"(same result: {vec.hq:.3f} hq pages); "
          f"load average at end {result['load_avg_1m_at_end']}")
    if args.smoke:
        check(pop.hosts == args.hosts and pop.pages > 0, f"population of {pop.hosts} hosts, {pop.pages} pages")
        check(vec.hq > 0 and sweep_s > 0, f"sample-then-deepen found {vec.hq} hq pages")
        return ok(f"{pop.hosts:,} hosts, loop and vectorised agree ({vec.hq:.3f} hq pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
