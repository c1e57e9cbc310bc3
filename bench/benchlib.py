"""Shared pieces of the throughput benchmarks: the realpages corpus and its renamed copies,
Spark sessions, worker peak memory, and the machine description written next to each figure."""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
import uuid
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results"
SHARED = Path(os.environ.get("CRAWLPLAN_SHARED_DATA", REPO.parent / "shared" / "data"))
REALPAGES = SHARED / "realpages" / "realpages.warc.gz"
_ID_RE = re.compile(rb"WARC-Record-ID: <urn:uuid:([0-9a-fA-F-]+)>")


def realpages() -> Path:
    if not REALPAGES.is_file():
        raise SystemExit(f"{REALPAGES} not found (set CRAWLPLAN_SHARED_DATA to ../shared/data)")
    return REALPAGES


def copies(n: int) -> list[str]:
    """``n`` copies of realpages as separate files, each with its own WARC-Record-IDs.

    Plain copies would share record ids, and the extract job keeps one document per id (the rest
    become duplicate rejects), so copy k rewrites every id to uuid5(k, id): same bytes of HTML,
    distinct captures. Copies are cached in bench/results/copies/.
    """
    folder = RESULTS / "copies"
    folder.mkdir(parents=True, exist_ok=True)
    data = None
    out = []
    for k in range(n):
        path = folder / f"realpages-{k:02d}.warc.gz"
        out.append(str(path))
        if path.is_file():
            continue
        data = data or realpages().read_bytes()
        ns = uuid.UUID(int=k + 1)
        parts, pos = [], 0
        while pos < len(data):
            d = zlib.decompressobj(31)
            member = d.decompress(data[pos:]) + d.flush()
            pos = len(data) - len(d.unused_data)
            member = _ID_RE.sub(lambda m, ns=ns: b"WARC-Record-ID: <urn:uuid:%s>" % str(
                uuid.uuid5(ns, m.group(1).decode())).encode(), member, count=1)
            c = zlib.compressobj(6, zlib.DEFLATED, 31)
            parts.append(c.compress(member) + c.flush())
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(b"".join(parts))
        tmp.rename(path)
    return out


def spark_session(cores: int, extra: list[str] = ()):
    from crawlplan.conf import load_conf
    from crawlplan.spark import build_session

    conf = load_conf("local", overrides=[f"spark.master=local[{cores}]", f"spark.shuffle_partitions={cores}",
                                         "spark.driver_memory=3g", "spark.log_level=ERROR", *extra])
    return conf, build_session(conf, app_name="crawlplan-bench")


def _children(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def worker_peak_rss_mb() -> dict:
    """Peak RSS (VmHWM) of this process's Python worker descendants (pyspark daemon/workers,
    datatrove's worker processes), and separately of the JVM; read before the session stops.
    Linux /proc only; processes are classed by ``_process_class``."""
    peaks, jvm = [], []
    for pid in _children(os.getpid()):
        kind = _process_class(pid)
        try:
            status = open(f"/proc/{pid}/status").read()
        except OSError:
            continue
        m = re.search(r"VmHWM:\s+(\d+) kB", status)
        if not m or kind is None:
            continue
        (jvm if kind == "jvm" else peaks).append(int(m.group(1)) / 1024)
    return {"workers": len(peaks), "max_mb": round(max(peaks), 1) if peaks else None,
            "jvm_mb": round(max(jvm), 1) if jvm else None}


def machine() -> dict:
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        mem = f"{int(open('/proc/meminfo').readline().split()[1]) / 2**20:.0f} GiB"
    except (OSError, ValueError):
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory": mem, "python": platform.python_version(),
            "load_avg": [round(x, 1) for x in os.getloadavg()],
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def save(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str))
    return path


def _process_class(pid: int) -> str | None:
    """``jvm`` or ``python`` by the executable (argv[0]), not by a substring of the command line:
    the JVM's classpath names ``.../python3.11/site-packages/pyspark``."""
    try:
        argv0 = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0", 1)[0]
    except OSError:
        return None
    name = os.path.basename(argv0)
    return "jvm" if name == b"java" else "python" if name.startswith(b"python") else None


def cpu_seconds_by_process() -> dict[str, float]:
    """CPU seconds used so far, split into ``driver`` (this process and its reaped children, from
    rusage), ``jvm`` and ``python_workers`` (user+system time, own and reaped children's, of
    every live descendant, from /proc; any other descendant counts as a worker)."""
    import resource

    tick = os.sysconf("SC_CLK_TCK")
    out = {"driver": 0.0, "jvm": 0.0, "python_workers": 0.0}
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        out["driver"] += r.ru_utime + r.ru_stime
    for pid in _children(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            spent = sum(int(fields[i]) for i in (11, 12, 13, 14)) / tick
        except (OSError, IndexError, ValueError):
            continue
        out["jvm" if _process_class(pid) == "jvm" else "python_workers"] += spent
    return out


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and everything under it. A delta around a run is
    that run's CPU cost even when other work competes for the cores, which wall time is not."""
    return sum(cpu_seconds_by_process().values())
