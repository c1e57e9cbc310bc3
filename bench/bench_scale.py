"""Scale benchmark of the host-level nodes: wall, CPU and peak memory per node at N hosts (issue #26).

    PYTHONPATH=. .venv/bin/python bench/bench_scale.py --hosts 500000,8000000 [--json FILE]
    PYTHONPATH=. .venv/bin/python bench/bench_scale.py --smoke          # 2,000 hosts, quick settings (CI)

``--smoke`` exits 1 when a node failed (each named on a ``smoke FAILED`` line above the table).

For each N, ``scale_inputs.py`` writes (once, cached in ``bench/results/scale/<N>/inputs``) synthetic
``scores``, a host index crawl and a web graph ranks file for N calibrated hosts, and ``host_stats``
turns the scores into ``host_scores`` and ``icc`` there (its marker keeps it from running again). Then
every host-level node runs on those inputs as its own ``crawlplan job NODE --force`` process (the one
way to run one node on given inputs), in DAG order: host_graph, correlations, host_quality, simulate,
allocate, and the budget export ``crawlplan export budgets``, each with ``spark.master=local[2]`` and
``spark.driver_memory=2g`` (``--set`` adds conf overrides). A node that fails is reported as
``failed: <last error line>`` and the run goes on (a node downstream of it then fails too).

Measured per process tree, by a sampler thread reading /proc every ``--interval`` seconds:

- peak RSS: ``VmHWM`` (the kernel's high-water mark of resident memory, so a peak between two polls is
  not missed) of the driver Python (the ``crawlplan`` process itself), of the driver JVM (its ``java``
  child) and of the largest Python worker (every other Python process below it: ``pyspark.daemon``
  and the workers it forks). A forked worker's RSS counts the pages it shares with the daemon, as
  every RSS does, so the largest worker is an upper bound of what one worker adds;
  which of the three a process is, is read again at every poll, since the JVM is an exec in a pid
  forked from Python (and a worker one forked from the JVM), and its peak counts from that exec;
- CPU seconds (user + system) of the whole tree: the driver Python's own and its reaped children's
  times from ``wait4`` when it exits, plus, for every other process seen, its own and its reaped
  children's times at the last poll that saw it, when it was orphaned (seen with another parent than
  its first: init reaps it, so no parent's children's times hold it) or still lives at the end; a
  process that ends under its first parent is in that parent's children's times (the parent waited
  for it) and is not added again. That counts the JVM, which outlives the driver Python after the
  gateway closes, and the pyspark daemon under it; each orphan's last poll interval is missed (at
  most ``--interval`` s of CPU each), as is a process orphaned and gone between two polls;
- wall seconds of the process.

The table has one row per size and node; with ``--json FILE`` every measurement, the inputs' counts,
the machine and the command go to FILE. The last line printed is
``scale: driver peak RSS at N_max hosts / at N_min hosts = R``, R the larger of the JVM's and the driver
Python's peaks over the nodes at the largest size divided by the same at the smallest (2 decimals).
Only run sizes the disk can hold: the inputs took about 25 bytes per page and 150 per host (scores,
host index, ranks, the generator's host table, host_scores) at 50,000 hosts, about 15 GB at 46.4M.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from benchlib import machine  # noqa: E402

RESULTS = REPO / "bench" / "results" / "scale"
NODES = ("host_graph", "correlations", "host_quality", "simulate", "allocate")
EXPORT = "export_budgets"
BASE_SETTINGS = ("spark.master=local[2]", "spark.driver_memory=2g", "spark.log_level=ERROR",
                 "stats.host_graph.degrees=false")            # the synthetic release has no edge list
SMOKE_HOSTS = 2000
SMOKE_SETTINGS = ("spark.shuffle_partitions=2", "stats.correlations.bootstrap_replicates=20",
                  "stats.host_quality.bootstrap_replicates=20", "policies.simulate.seeds=[0]",
                  "policies.simulate.random_repeats=1", "policies.allocate.total_budget=5000")
_CLI = "import sys; from crawlplan.cli import main; sys.exit(main())"
_HWM = re.compile(r"VmHWM:\s+(\d+) kB")


def _stat(pid: int) -> tuple[int, int, float] | None:
    """(ppid, start time, own + reaped children's CPU seconds) of a live process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), int(fields[19]), sum(int(fields[i]) for i in (11, 12, 13, 14)) / tick


def _hwm_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            m = _HWM.search(fh.read())
    except OSError:
        return 0.0
    return int(m.group(1)) / 1024 if m else 0.0


def _kind(pid: int, root: int) -> str | None:
    """What the process runs now; None when that cannot be read (gone, or a zombie's empty cmdline).

    Read again at every poll: Python forks the JVM's launcher and the JVM forks the Python workers, and
    a poll between the fork and the exec sees the parent's program."""
    if pid == root:
        return "driver_python"
    try:
        argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0", 1)[0]
    except OSError:
        return None
    if not argv0:
        return None
    name = os.path.basename(argv0)
    return "jvm" if name == b"java" else "worker" if name.startswith(b"python") else "other"


class TreeSampler(threading.Thread):
    """Polls the process tree under ``root`` (and every process once seen in it, also after it is
    reparented) until ``stop`` is set and the seen processes are gone."""

    def __init__(self, root: int, interval: float):
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.seen: dict[tuple[int, int], dict] = {}    # (pid, start) -> ppid, ppid_now, kind, cpu, hwm, alive
        self.stop = threading.Event()

    def _poll(self) -> None:
        children: dict[int, list[int]] = {}
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                st = _stat(int(entry))
                if st:
                    stats[int(entry)] = st
                    children.setdefault(st[0], []).append(int(entry))
        tree, todo = set(), [self.root]
        while todo:
            p = todo.pop()
            if p in stats and p not in tree:
                tree.add(p)
                todo += children.get(p, [])
        alive = {pid: st for pid, st in stats.items() if pid in tree or (pid, st[1]) in self.seen}
        live_keys = {(pid, st[1]) for pid, st in alive.items()}
        for key, rec in self.seen.items():
            if rec["alive"] and key not in live_keys:
                rec["alive"] = False
        for pid, (ppid, start, cpu) in alive.items():
            rec = self.seen.setdefault((pid, start), {"ppid": ppid, "kind": "other", "cpu": 0.0,
                                                      "hwm": 0.0, "alive": True})
            rec["ppid_now"] = ppid             # another parent than the first: orphaned, reaped by init
            kind = _kind(pid, self.root)
            if kind is not None and kind != rec["kind"]:
                rec["kind"], rec["hwm"] = kind, 0.0    # an exec: same pid, new program, the kernel's HWM anew
            rec["cpu"] = max(rec["cpu"], cpu)
            rec["hwm"] = max(rec["hwm"], _hwm_mb(pid))

    def run(self) -> None:
        while not self.stop.is_set():
            self._poll()
            self.stop.wait(self.interval)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(r["alive"] and r["kind"] != "driver_python"
                                                  for r in self.seen.values()):
            self._poll()
            time.sleep(self.interval)

    def summary(self, root_cpu: float) -> dict:
        peak = {k: 0.0 for k in ("jvm", "driver_python", "worker")}
        workers = 0
        cpu = root_cpu
        for rec in self.seen.values():
            if rec["kind"] in peak:
                peak[rec["kind"]] = max(peak[rec["kind"]], rec["hwm"])
            workers += rec["kind"] == "worker"
            if rec["kind"] != "driver_python" and (rec["alive"] or rec["ppid_now"] != rec["ppid"]):
                cpu += rec["cpu"]
        return {"cpu_s": round(cpu, 2), "jvm_mb": round(peak["jvm"], 1), "driver_python_mb": round(peak["driver_python"], 1),
                "worker_mb": round(peak["worker"], 1), "workers_seen": workers}


def measure(cmd: list[str], log: Path, interval: float, env: dict, timeout: float | None = None) -> dict:
    """Run ``cmd`` with the sampler; status ok or ``failed: <last error line>``; ``rc`` its exit
    status (-9 when killed after ``timeout`` seconds, then ``timed_out``)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler = TreeSampler(proc.pid, interval)
        sampler.start()
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
    result = {"wall_s": round(wall, 2), **sampler.summary(usage.ru_utime + usage.ru_stime), "rc": proc.returncode,
              "timed_out": bool(timeout) and proc.returncode == -9 and wall >= timeout}
    result["status"] = "ok" if proc.returncode == 0 else f"failed: {last_error(log)}"
    return result


def last_error(log: Path) -> str:
    """The CLI's own error line, else the first Java or Python exception (``java.lang.OutOfMemoryError:
    Java heap space``), not a stack frame that happens to name an error utility."""
    lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    for pattern in (r"^crawlplan: error:", r"^[\w.$]+(Error|Exception)(:|$)", r"error|exception|Error"):
        found = [ln for ln in lines if re.search(pattern, ln) and not ln.startswith("at ")]
        if found:
            return (found[-1] if pattern.startswith("^crawlplan") else found[0])[:200]
    return (lines or ["no output"])[-1][:200]


def event_settings(events: Path) -> str:
    """Spark's event log for one node, read afterwards for its shuffle bytes (``shuffle_mb``)."""
    return (f'spark.conf={{spark.eventLog.enabled: "true", spark.eventLog.compress: "false", '
            f'spark.eventLog.dir: "{events.resolve()}"}}')


def shuffle_mb(events: Path) -> float:
    """Shuffle bytes written by every task of the event logs in ``events`` (SparkListenerTaskEnd)."""
    total = 0
    for log in (p for p in events.rglob("*") if p.is_file()) if events.is_dir() else []:
        with open(log, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"SparkListenerTaskEnd"' in line:
                    metrics = json.loads(line).get("Task Metrics") or {}
                    total += int((metrics.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0))
    return total / 2 ** 20


def node_commands(inputs: Path, run: Path, settings: list[str], export_format: str) -> list[tuple[str, list[str]]]:
    sets = [a for s in settings for a in ("--set", s)]
    job = lambda node, out, *inp: [sys.executable, "-c", _CLI, "job", node, *inp, "--output", str(out), *sets]  # noqa: E731
    cmds = [("host_stats", job("host_stats", inputs, "--input", str(inputs)))]   # writes host_scores, icc once
    cmds += [(node, job(node, run, "--input", str(inputs), "--force")) for node in NODES]
    cmds.append((EXPORT, [sys.executable, "-c", _CLI, "export", "budgets", "--input", str(run / "budgets"),
                          "--format", export_format, "--out", str(run / "export"), *sets]))
    return cmds


def run_size(hosts: int, args, settings: list[str], env: dict) -> dict:
    folder = args.work / str(hosts)
    inputs, run = folder / "inputs", folder / "run"
    gen = [sys.executable, str(REPO / "bench" / "scale_inputs.py"), "--hosts", str(hosts), "--out", str(inputs),
           "--seed", str(args.seed), "--chunk-hosts", str(args.chunk_hosts),
           *[a for s in settings if s.startswith("spark.") for a in ("--set", s)]]
    rows = {"inputs": measure(gen, folder / "logs" / "inputs.log", args.interval, env)}
    if rows["inputs"]["status"] != "ok":
        return {"nodes": rows}
    counts = json.loads((inputs / "_bench_inputs.json").read_text())["counts"]
    shutil.rmtree(run, ignore_errors=True)
    cmds = node_commands(inputs.resolve(), run.resolve(),
                         settings + [f"inputs.host_index={inputs.resolve() / 'host_index'}",
                                     f"inputs.web_graph={inputs.resolve() / 'web_graph'}"], args.export_format)
    wanted = set(args.nodes.split(",")) if args.nodes else None
    for node, cmd in cmds:
        if wanted is not None and node != "host_stats" and node not in wanted:
            continue
        events = folder / "logs" / f"{node}-events"
        shutil.rmtree(events, ignore_errors=True)
        events.mkdir(parents=True)
        cmd = [*cmd, "--set", event_settings(events)]
        rows[node] = measure(cmd, folder / "logs" / f"{node}.log", args.interval, env)
        rows[node]["shuffle_mb"] = shuffle_mb(events)
        print(f"  {hosts:,} hosts {node}: {json.dumps(rows[node])}", file=sys.stderr, flush=True)
    return {"counts": counts, "nodes": rows}


def driver_peak(size: dict) -> float:
    """The larger of the driver JVM's and the driver Python's peak over the measured nodes."""
    return max([max(r["jvm_mb"], r["driver_python_mb"]) for n, r in size["nodes"].items() if n in (*NODES, EXPORT)]
               or [0.0])


def table(results: dict) -> list[str]:
    out = ["| hosts | node | status | wall s | CPU s | JVM MB | driver Python MB | largest worker MB | shuffle MB |",
           "|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    for hosts, size in results.items():
        for node, r in size["nodes"].items():
            label = node if node in (*NODES, EXPORT) else f"{node} (input)"
            out.append(f"| {int(hosts):,} | {label} | {r['status']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
                       f"{r['jvm_mb']:.0f} | {r['driver_python_mb']:.0f} | {r['worker_mb']:.0f} | "
                       f"{r.get('shuffle_mb', float('nan')):.0f} |")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", default="", help="comma-separated host counts, e.g. 500000,8000000")
    ap.add_argument("--smoke", action="store_true", help=f"{SMOKE_HOSTS} hosts and quick settings (CI)")
    ap.add_argument("--json", type=Path, help="write every measurement to this file")
    ap.add_argument("--work", type=Path, default=RESULTS, help="inputs and outputs, one folder per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk-hosts", type=int, default=50_000, help="hosts per input generator task")
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between /proc polls")
    ap.add_argument("--export-format", default="all", help="crawlplan export budgets --format")
    ap.add_argument("--nodes", default="", help=f"comma-separated subset of {', '.join((*NODES, EXPORT))} "
                    "(default: all); host_stats runs when its marker is missing")
    ap.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE",
                    help="extra conf override for every node (after the benchmark's own)")
    args = ap.parse_args(argv)
    sizes = [SMOKE_HOSTS] if args.smoke and not args.hosts else [int(h) for h in args.hosts.split(",") if h.strip()]
    if not sizes:
        ap.error("give --hosts N[,N...] or --smoke")
    settings = [*BASE_SETTINGS, *(SMOKE_SETTINGS if args.smoke else ()), *args.overrides]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "bench"),
                                                       os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable))
    before = machine()
    results = {}
    for hosts in sorted(set(sizes)):
        results[hosts] = run_size(hosts, args, settings, env)
    lo, hi = min(results), max(results)
    ratio = driver_peak(results[hi]) / driver_peak(results[lo]) if driver_peak(results[lo]) else float("nan")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": sys.argv, "settings": settings, "machine_before": before,
                                         "machine_after": machine(), "sizes": results, "driver_peak_ratio": ratio},
                                        indent=2, default=str))
    failed = [f"{hosts} hosts {node}: {r['status']}" for hosts, size in results.items()
              for node, r in size["nodes"].items() if r["status"] != "ok"]
    for line in failed if args.smoke else ():
        print(f"smoke FAILED: {line}")
    print("\n".join(table(results)))
    print(f"load avg before {before['load_avg']}, after {machine()['load_avg']}; settings: {' '.join(settings)}")
    print(f"scale: driver peak RSS at {hi} hosts / at {lo} hosts = {ratio:.2f}")
    return 1 if args.smoke and failed else 0


if __name__ == "__main__":
    sys.exit(main())
