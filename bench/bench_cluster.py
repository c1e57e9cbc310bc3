"""The demo pipeline in local mode against the two-worker standalone harness, back to back, per node.

    .venv/bin/python bench/bench_cluster.py [--demo .cache/demo-h300-s0] [--models .cache/models]
    .venv/bin/python bench/bench_cluster.py --one-application   # the script of `submit --one-application`
    .venv/bin/python bench/bench_cluster.py --smoke   # the local half on the 20-host demo; cluster skipped

Local: ``crawlplan run`` (one driver, ``local[*]``, the local profile). Cluster:
``scripts/spark-cluster.sh start`` (master + two workers of 1 core each on 127.0.0.1), ``crawlplan
package``, then the script ``crawlplan submit main --conf FILE`` prints, one block per node, each
block (one spark-submit: JVM start, executor registration, the job) timed on its own. Both runs read
the same demo crawl and the same already-trained demo models, so neither trains. Per node the table
gives the job's own seconds (its completion marker) and, on the cluster, the spark-submit's wall
time; the ratio is wall against wall. The machine's load average is recorded before and after,
because the 2 cores may be shared. Results: bench/results/cluster.json and the markdown table
printed at the end (docs/cluster.md). With ``--one-application`` the cluster runs the script of
``crawlplan submit main --one-application`` (one spark-submit for the eleven nodes; per-node job
seconds from the markers, one wall time), and its datasets are compared with the local run's.
Then the same script runs again on the finished output (the relaunch: every marker current, each
spark-submit answers from it without a SparkSession), each block timed on its own.

``--smoke``: the local half only, on the 20-host demo (generated if missing), and only up to
``SMOKE_UNTIL`` (``crawlplan run --until classify``: the eleven nodes took over 240 s on the
loaded 2-core machine), checked: every node it ran has its completion marker and the table its
row. The nodes after classify and the cluster half are skipped, each with a ``smoke: skipped``
line: the standalone cluster's start and one spark-submit per node take minutes, and
tests/test_cluster*.py run the same harness, the whole pipeline on both, in the test suite.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchlib import REPO, check, demo_crawl, machine, ok, save, skip_contender

from crawlplan.dag.pipeline import load_pipeline

sys.path.insert(0, str(REPO / "tests"))
from cluster_support import (  # noqa: E402  (the tests' harness helpers: one way to start the cluster)
    cluster_conf,
    compare_runs,
    crawlplan,
    demo_conf,
    start_cluster,
    stop_cluster,
    write_yaml,
)

SMOKE_UNTIL = "classify"     # the smoke's local run: `crawlplan run --until classify` (extract, classify)
BLOCK = re.compile(r"^# \[\d+/\d+\] (\S+)$", re.M)


def markers(out: Path) -> dict[str, float]:
    return {p.stem: json.loads(p.read_text())["seconds"] for p in (out / "_markers").glob("*.json")}


def node_blocks(script: str) -> list[tuple[str, str]]:
    """The generated script cut into (node, commands) blocks, its header (set -euo ...) kept on each."""
    parts = BLOCK.split(script)
    header = parts[0]
    return [(parts[i], header + parts[i + 1]) for i in range(1, len(parts), 2)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--demo", type=Path, default=REPO / ".cache" / "demo-h300-s0")
    ap.add_argument("--models", type=Path, default=REPO / ".cache" / "models")
    ap.add_argument("--work", type=Path, default=REPO / "bench" / "results" / "cluster-run")
    ap.add_argument("--one-application", action="store_true",
                    help="the cluster runs `crawlplan submit main --one-application`'s script")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        args.demo = Path(demo_crawl(smoke=True)["warc_paths"]).parent
        args.work = args.work.parent / "smoke" / "cluster-run"
    if not (args.demo / "_SUCCESS").is_file():
        raise SystemExit(f"no demo crawl at {args.demo}: run `crawlplan demo` (or the test suite) first")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    base = demo_conf(args.demo.resolve(), args.models.resolve())
    before = machine()

    local_out = args.work / "local"
    t0 = time.perf_counter()
    until = ["--until", SMOKE_UNTIL] if args.smoke else []
    proc = crawlplan("run", "--conf", str(write_yaml(args.work / "local.yaml", base)), "--out", str(local_out),
                     *until, cwd=args.work)
    local_wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(proc.stdout[-3000:] + proc.stderr[-3000:])
    if args.smoke:
        return smoke_local(local_out, local_wall)

    cluster = start_cluster(args.work / "cluster")
    try:
        proc = crawlplan("package", "--out", str(args.work / "dist"), cwd=args.work)
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        conf = cluster_conf(base, cluster, dist=args.work / "dist", out=args.work / "cluster-out")
        one_app = ["--one-application"] if args.one_application else []
        proc = crawlplan("submit", "main", "--conf", str(write_yaml(args.work / "cluster.yaml", conf)), *one_app,
                         cwd=args.work)
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        walls = run_blocks(proc.stdout, args.work, "")
        # the relaunch of a finished pipeline: every node's marker is current, so each spark-submit
        # answers from it before a SparkSession (and its executors) exists
        relaunch = run_blocks(proc.stdout, args.work, "relaunch-")
    finally:
        stop_cluster(args.work / "cluster")

    local_s, cluster_s = markers(local_out), markers(args.work / "cluster-out")
    cluster_wall = sum(walls.values())
    differences = compare_runs(load_pipeline("main"), local_out, args.work / "cluster-out")
    result = {"mode": "one application" if args.one_application else "one application per node",
              "datasets_equal_local": not differences, "differences": differences,
              "local_wall_s": round(local_wall, 1), "cluster_wall_s": round(cluster_wall, 1),
              "ratio": round(cluster_wall / local_wall, 2), "local_job_s": local_s, "cluster_job_s": cluster_s,
              "cluster_submit_wall_s": {k: round(v, 1) for k, v in walls.items()},
              "relaunch_submit_wall_s": {k: round(v, 2) for k, v in relaunch.items()},
              "machine_before": before, "machine_after": machine()}
    save("cluster-one-application" if args.one_application else "cluster", result)
    print("| node | local: job s | cluster: job s | cluster: spark-submit wall s | relaunch: spark-submit wall s |")
    print("|---|---:|---:|---:|---:|")
    for node in load_pipeline("main").order():
        wall = f"{walls[node]:.1f}" if node in walls and not args.one_application else "-"
        again = f"{relaunch[node]:.2f}" if node in relaunch and not args.one_application else "-"
        print(f"| {node} | {local_s.get(node, 0):.1f} | {cluster_s.get(node, 0):.1f} | {wall} | {again} |")
    print(f"| **all** (wall) | {local_wall:.1f} (`crawlplan run`) | {sum(cluster_s.values()):.1f} | "
          f"{cluster_wall:.1f} | {sum(relaunch.values()):.1f} |")
    print(f"\n{result['mode']}; datasets equal to the local run's: {not differences} {differences or ''}")
    print(f"cluster / local wall: {cluster_wall / local_wall:.2f}x; relaunch of the finished pipeline: "
          f"{sum(relaunch.values()) / max(1, len(relaunch)):.2f} s per node; load avg before {before['load_avg']}, "
          f"after {result['machine_after']['load_avg']}")
    return 0


def run_blocks(script: str, work: Path, log_prefix: str) -> dict[str, float]:
    """Each node's block of the submit script (one spark-submit), timed on its own."""
    walls = {}
    for node, block in node_blocks(script):
        t0 = time.perf_counter()
        run = subprocess.run(["bash", "-c", block], cwd=work, capture_output=True, text=True)
        walls[node] = time.perf_counter() - t0
        (work / f"{log_prefix}{node}.log").write_text(run.stdout + run.stderr)   # progress lines: task counts
        if run.returncode:
            raise SystemExit(f"{node} failed on the cluster:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    return walls


def smoke_local(local_out: Path, local_wall: float) -> int:
    skip_contender("the loopback standalone cluster", "minutes of spark-submits; tests/test_cluster*.py run it")
    pipeline = load_pipeline("main")
    nodes = pipeline.upstream([SMOKE_UNTIL])
    skip_contender(f"the local run's nodes after {SMOKE_UNTIL}",
                   ", ".join(n for n in pipeline.order() if n not in nodes) + " (minutes on 2 cores)")
    local_s = markers(local_out)
    print("| node | local: job s |\n|---|---:|")
    for node in nodes:
        print(f"| {node} | {local_s.get(node, 0):.1f} |")
    print(f"| **all** (wall) | {local_wall:.1f} (`crawlplan run`) |")
    check(set(nodes) <= set(local_s), f"nodes without a completion marker: {sorted(set(nodes) - set(local_s))}")
    return ok(f"local run of {', '.join(nodes)} in {local_wall:.1f}s, every node marked; cluster skipped")


if __name__ == "__main__":
    raise SystemExit(main())
