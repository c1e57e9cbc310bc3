"""The demo pipeline in local mode against the two-worker standalone harness, back to back, per node.

    .venv/bin/python bench/bench_cluster.py [--demo .cache/demo-h300-s0] [--models .cache/models]
    .venv/bin/python bench/bench_cluster.py --one-application   # the script of `submit --one-application`
    .venv/bin/python bench/bench_cluster.py --smoke   # the local half on the 20-host demo; cluster skipped
    .venv/bin/python bench/bench_cluster.py --timeline --only allocate   # where one node's wall goes

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
Then the same script runs again on the finished output (the relaunch: every marker current, the
script's marker check answers before spark-submit starts), each block timed on its own.

``--timeline`` turns on Spark's event log for the cluster run and splits each node's wall from
its application's events: before the application starts (the marker check, spark-submit's JVM,
the Python driver's imports, the SparkContext), the executors' registration, the first Python
task (a cold Python worker), the Spark jobs, and after the application ends (stop, exit).
``--only NODE`` (repeatable, with ``--timeline``) runs just those blocks, forced, on the local
run's output: one node's application without running the pipeline on the cluster.

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
    ap.add_argument("--timeline", action="store_true", help="event logs: where each node's wall goes")
    ap.add_argument("--only", action="append", metavar="NODE", help="with --timeline: only these nodes, forced, "
                    "on a copy of the local run's output")
    ap.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra --conf for every cluster job (trying a setting against the harness's defaults)")
    ap.add_argument("--reuse-local", action="store_true", help="with --only: keep the local run of an earlier "
                    "bench run under --work instead of running it again")
    args = ap.parse_args()
    if (args.only or args.reuse_local) and not args.timeline:
        ap.error("--only and --reuse-local go with --timeline")
    if args.smoke:
        args.demo = Path(demo_crawl(smoke=True)["warc_paths"]).parent
        args.work = args.work.parent / "smoke" / "cluster-run"
    if not (args.demo / "_SUCCESS").is_file():
        raise SystemExit(f"no demo crawl at {args.demo}: run `crawlplan demo` (or the test suite) first")
    local_out = args.work / "local"
    reuse = args.reuse_local and (local_out / "_markers" / "report.json").is_file()
    for stale in ([args.work] if not reuse else [p for p in args.work.iterdir() if p.name != "local"]):
        shutil.rmtree(stale, ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    base = demo_conf(args.demo.resolve(), args.models.resolve())
    before = machine()

    t0 = time.perf_counter()
    until = ["--until", SMOKE_UNTIL] if args.smoke else []
    proc = crawlplan("run", "--conf", str(write_yaml(args.work / "local.yaml", base)), "--out", str(local_out),
                     *until, cwd=args.work)
    local_wall = time.perf_counter() - t0        # a reused local run: its relaunch, every node skipped
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
        conf["ops"]["spark_conf"] = {**conf["ops"]["spark_conf"], **dict(kv.split("=", 1) for kv in args.spark_conf)}
        events = args.work / "events"
        if args.timeline:
            events.mkdir()
            conf["ops"]["spark_conf"] = {**conf["ops"]["spark_conf"], "spark.eventLog.enabled": "true",
                                         "spark.eventLog.dir": events.as_uri(), "spark.eventLog.compress": "false",
                                         "spark.eventLog.rolling.enabled": "false"}   # one plain JSON file each
        one_app = ["--one-application"] if args.one_application else []
        only = [a for n in args.only or [] for a in ("--only", n)]
        if only:
            shutil.copytree(local_out, args.work / "cluster-out")
            only.append("--force")
        proc = crawlplan("submit", "main", "--conf", str(write_yaml(args.work / "cluster.yaml", conf)), *one_app,
                         *only, cwd=args.work)
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        spans: dict[str, tuple[float, float]] = {}
        walls = run_blocks(proc.stdout, args.work, "", spans)
        if args.timeline:
            print_timelines(timelines(events, spans))
        if only:
            return 0
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


def run_blocks(script: str, work: Path, log_prefix: str, spans: dict | None = None) -> dict[str, float]:
    """Each node's block of the submit script (one spark-submit), timed on its own; ``spans``
    gets each block's (start, end) in epoch seconds, to place its application's events."""
    walls = {}
    for node, block in node_blocks(script):
        t0, started = time.perf_counter(), time.time()
        run = subprocess.run(["bash", "-c", block], cwd=work, capture_output=True, text=True)
        walls[node] = time.perf_counter() - t0
        if spans is not None:
            spans[node] = (started, time.time())
        (work / f"{log_prefix}{node}.log").write_text(run.stdout + run.stderr)   # progress lines: task counts
        if run.returncode:
            raise SystemExit(f"{node} failed on the cluster:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    return walls


def timelines(events: Path, spans: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """node -> seconds of each phase of its block, from its application's event log (Spark writes
    one JSON event per line; times in epoch milliseconds)."""
    out = {}
    for log in sorted(p for p in events.iterdir() if p.is_file() and not p.name.startswith(".")):
        ev = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        start = next(e for e in ev if e["Event"] == "SparkListenerApplicationStart")
        node = start["App Name"].removeprefix("crawlplan-main-").removeprefix("crawlplan-")
        if node not in spans:
            continue
        t_app = start["Timestamp"] / 1000
        end = [e["Timestamp"] / 1000 for e in ev if e["Event"] == "SparkListenerApplicationEnd"]
        added = sorted(e["Timestamp"] / 1000 for e in ev if e["Event"] == "SparkListenerExecutorAdded")
        jobs = sorted(e["Submission Time"] / 1000 for e in ev if e["Event"] == "SparkListenerJobStart")
        job_end = [e["Completion Time"] / 1000 for e in ev if e["Event"] == "SparkListenerJobEnd"]
        tasks = sorted((e["Task Info"]["Launch Time"] / 1000, e["Task Info"]["Finish Time"] / 1000)
                       for e in ev if e["Event"] == "SparkListenerTaskEnd")
        block_start, block_end = spans[node]
        app_end = end[0] if end else block_end
        out[node] = {
            "before_app": t_app - block_start,             # marker check, spark-submit JVM, driver imports, context
            "executors_registered": (added[-1] - t_app) if added else 0.0,
            "first_job_after_app": (jobs[0] - t_app) if jobs else 0.0,
            "jobs_span": (max(job_end) - jobs[0]) if jobs else 0.0,
            "first_task": (tasks[0][1] - tasks[0][0]) if tasks else 0.0,
            "median_task": sorted(b - a for a, b in tasks)[len(tasks) // 2] if tasks else 0.0,
            "tasks": len(tasks), "jobs": len(jobs),
            "task_seconds": sum(b - a for a, b in tasks),
            "after_last_job": app_end - (max(job_end) if job_end else t_app),
            "after_app": block_end - app_end,                # SparkContext stop, JVM exit
            "wall": block_end - block_start,
        }
    return out


def print_timelines(found: dict[str, dict[str, float]]) -> None:
    cols = ["wall", "before_app", "executors_registered", "first_job_after_app", "jobs_span", "first_task",
            "median_task", "task_seconds", "after_last_job", "after_app", "jobs", "tasks"]
    print("| node | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for node, row in found.items():
        print(f"| {node} | " + " | ".join(f"{row[c]:.1f}" if isinstance(row[c], float) else str(row[c])
                                         for c in cols) + " |")
    save("cluster-timeline", found)


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
