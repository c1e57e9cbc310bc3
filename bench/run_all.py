"""Every bench script's smoke mode, one after the other: a table of script, status, wall, last line.

    .venv/bin/python bench/run_all.py --smoke              # all of them (CI: .ci/run)
    .venv/bin/python bench/run_all.py --smoke --only bench_pipeline,bench_waves
    .venv/bin/python bench/run_all.py --smoke --skip bench_scale    # what .ci/run runs

A bench script is every ``bench/*.py`` but the libraries in ``LIBRARIES``; each one takes
``--smoke`` (tiny input, the same code path as its real run, its outputs checked; see
bench/README.md). Each runs as its own process (``python bench/NAME.py --smoke``) with the log in
bench/results/smoke/logs/NAME.log. Status: ``ok`` (exit 0), ``skipped`` (exit 0 and the last line
``smoke skipped: <why>``: its inputs are absent), ``FAILED (rc N)`` or ``TIMEOUT`` (the last
lines of its log are printed below the table), or ``skipped (--skip)`` (not run: ``--skip``; CI
skips bench_scale, whose smoke, several minutes of spark-submits, tests/test_bench_scale.py runs in
the suite just before). The exit status is 1 when any failed. CPU s is the
user + system time of the script's whole process tree (the JVM and Python workers included), from
bench_scale's sampler of /proc, so a loaded machine's wall times can be read.

Without ``--smoke`` it refuses (exit 2): the real runs take minutes to hours each, need their own
arguments and are run one by one with the commands of bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench_scale import measure

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
LOGS = BENCH / "results" / "smoke" / "logs"
# helper modules, not benches: benchlib (shared parts), scale_inputs (bench_scale's input generator,
# run by its smoke), source_candidates and source_splits (source_loso's configurations and its
# design / validation tables), source_sweep_cache (source_sweep's feature cache; its smoke builds a
# small one)
LIBRARIES = ("benchlib.py", "scale_inputs.py", "source_candidates.py", "source_splits.py", "source_sweep_cache.py", "run_all.py")


def bench_scripts() -> list[str]:
    """The bench scripts, by name without .py, in name order."""
    return sorted(p.stem for p in BENCH.glob("*.py") if p.name not in LIBRARIES)


def run_one(name: str, timeout: float) -> dict:
    """One script's smoke run, measured by bench_scale's process-tree sampler (wall, and the CPU of
    every process under it: the driver, the JVM it starts and outlives, the Python workers)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(BENCH), os.environ.get("PYTHONPATH", "")])
               .rstrip(os.pathsep), PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable))
    log = LOGS / f"{name}.log"
    got = measure([sys.executable, str(BENCH / f"{name}.py"), "--smoke"], log, 0.5, env, timeout=timeout)
    lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    last = lines[-1] if lines else "(no output)"
    if got["timed_out"]:
        status = f"TIMEOUT ({timeout:.0f}s)"
    elif got["rc"]:
        status = f"FAILED (rc {got['rc']})"
    else:
        status = "skipped" if last.startswith("smoke skipped") else "ok"
    return {"script": name, "status": status, "wall_s": got["wall_s"], "cpu_s": got["cpu_s"], "last": last,
            "log": log, "lines": lines}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="run every bench script's --smoke mode")
    ap.add_argument("--only", default="", help="comma-separated subset of the scripts (names without .py)")
    ap.add_argument("--skip", default="", help="comma-separated scripts not to run (a row says so), e.g. one the "
                    "test suite just ran: .ci/run skips bench_scale, whose smoke tests/test_bench_scale.py runs")
    ap.add_argument("--timeout", type=float, default=480, help="seconds per script before it counts as failed")
    args = ap.parse_args(argv)
    names = bench_scripts()
    if not args.smoke:
        ap.print_help()
        print(f"\nrun_all runs smoke modes only (--smoke); the real runs: bench/README.md. Scripts: {', '.join(names)}")
        return 2
    wanted = [n.strip() for n in args.only.split(",") if n.strip()]
    skip = {n.strip() for n in args.skip.split(",") if n.strip()}
    unknown = sorted((set(wanted) | skip) - set(names))
    if unknown:
        ap.error(f"not bench scripts: {unknown}; scripts: {names}")
    rows = []
    t0 = time.perf_counter()
    for name in wanted or names:
        if name in skip:
            rows.append({"script": name, "status": "skipped (--skip)", "wall_s": 0.0, "cpu_s": 0.0,
                         "last": "not run: --skip", "log": None, "lines": []})
            continue
        print(f"run_all: {name} --smoke ...", flush=True)
        rows.append(run_one(name, args.timeout))
        print(f"run_all: {name}: {rows[-1]['status']} in {rows[-1]['wall_s']:.1f}s", flush=True)
    print("\n| script | status | wall s | CPU s | last line |\n|---|---|---:|---:|---|")
    for r in rows:
        print(f"| {r['script']} | {r['status']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
              f"{r['last'][:160].replace('|', '/')} |")
    failed = [r for r in rows if r["status"] not in ("ok", "skipped", "skipped (--skip)")]
    for r in failed:
        print(f"\n--- {r['script']}: last lines of {r['log'].relative_to(REPO)} ---")
        print("\n".join(r["lines"][-30:]))
    print(f"\nrun_all: {len(rows) - len(failed)} of {len(rows)} passed "
          f"({sum(r['status'].startswith('skipped') for r in rows)} skipped) in {time.perf_counter() - t0:.0f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
