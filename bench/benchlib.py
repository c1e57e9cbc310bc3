"""Shared pieces of the throughput benchmarks: the realpages corpus and its renamed copies,
Spark sessions, worker peak memory, the machine description written next to each figure, and the
smoke mode's checks (``--smoke``: tiny input, the same code path, outputs checked; run by
``bench/run_all.py --smoke`` in CI)."""

from __future__ import annotations

import importlib.util
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


def _members(data: bytes):
    """The gzip members of a WARC file, decompressed, one record each."""
    pos = 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        member = d.decompress(data[pos:]) + d.flush()
        pos = len(data) - len(d.unused_data)
        yield member


def _gzip(member: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(member) + c.flush()


def head_warc(records: int) -> Path:
    """The first ``records`` WARC records of realpages as a file of their own (the smoke mode's
    input: same pages, same code path, seconds instead of minutes); cached in bench/results/copies/."""
    path = RESULTS / "copies" / f"realpages-head{records}.warc.gz"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        members = []
        for member in _members(realpages().read_bytes()):
            members.append(_gzip(member))
            if len(members) == records:
                break
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(b"".join(members))
        tmp.rename(path)
    return path


def copies(n: int, source: Path | None = None) -> list[str]:
    """``n`` copies of realpages (or of ``source``, e.g. :func:`head_warc`) as separate files,
    each with its own WARC-Record-IDs.

    Plain copies would share record ids, and the extract job keeps one document per id (the rest
    become duplicate rejects), so copy k rewrites every id to uuid5(k, id): same bytes of HTML,
    distinct captures. Copies are cached in bench/results/copies/.
    """
    folder = RESULTS / "copies"
    folder.mkdir(parents=True, exist_ok=True)
    stem = "realpages" if source is None else Path(source).name.removesuffix(".warc.gz")
    data = None
    out = []
    for k in range(n):
        path = folder / f"{stem}-{k:02d}.warc.gz"
        out.append(str(path))
        if path.is_file():
            continue
        data = data or (realpages() if source is None else Path(source)).read_bytes()
        ns = uuid.UUID(int=k + 1)
        parts = [_gzip(_ID_RE.sub(lambda m, ns=ns: b"WARC-Record-ID: <urn:uuid:%s>" % str(
            uuid.uuid5(ns, m.group(1).decode())).encode(), member, count=1)) for member in _members(data)]
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
    """bench/results/NAME.json (a smoke run passes ``smoke/NAME``: the documented runs' files stay)."""
    path = RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
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


def jvm_thread_cpu() -> dict[tuple[int, str], float]:
    """CPU seconds so far of each live thread of this process's JVM descendant (``{(tid, name): s}``,
    the name as Linux has it, 15 characters), for :func:`jvm_cpu_by_thread`."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[tuple[int, str], float] = {}
    for pid in _children(os.getpid()):
        if _process_class(pid) != "jvm":
            continue
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            out[(int(tid), stat[stat.index("(") + 1:stat.rindex(")")])] = (int(fields[11]) + int(fields[12])) / tick
    return out


def jvm_cpu_by_thread(before: dict, after: dict, top: int = 8) -> dict[str, float]:
    """The JVM's CPU between two :func:`jvm_thread_cpu` reads by thread kind (digits dropped from
    the name: ``Executor task i`` is the tasks, ``Thread-N`` py4j's server thread, which also
    analyses and plans the driver's queries, ``C1 CompilerThre`` the JIT). Threads that started
    and ended between the reads are missing, so the sum is below the process's CPU."""
    kinds: dict[str, float] = {}
    for key, spent in after.items():
        kind = re.sub(r"\d+", "#", key[1])
        kinds[kind] = kinds.get(kind, 0.0) + spent - before.get(key, 0.0)
    return {k: round(v, 2) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:top] if v >= 0.01}


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and everything under it. A delta around a run is
    that run's CPU cost even when other work competes for the cores, which wall time is not."""
    return sum(cpu_seconds_by_process().values())


# --- smoke mode: every bench's ``--smoke`` (bench/run_all.py --smoke, CI) --------------------------
# A smoke run prints ``smoke ok: ...`` last and exits 0, or ``smoke skipped: <why>`` (its inputs are
# absent) and exits 0, or ``smoke FAILED: <what>`` and exits 1. A contender left out (an optional
# peer not installed) is named on a ``smoke: skipped <contender>: <why>`` line.

def check(condition, what: str) -> None:
    """Fail the smoke run unless ``condition``: ``smoke FAILED: what``, exit status 1."""
    if not condition:
        print(f"smoke FAILED: {what}", flush=True)
        raise SystemExit(1)


def ok(summary: str) -> int:
    print(f"smoke ok: {summary}", flush=True)
    return 0


def skipped(why: str) -> int:
    """The whole smoke run skipped (its inputs are absent): exit status 0, said on the last line."""
    print(f"smoke skipped: {why}", flush=True)
    return 0


def skip_contender(name: str, why: str) -> None:
    print(f"smoke: skipped {name}: {why}", flush=True)


def missing(*modules: str) -> list[str]:
    """The optional peers (``datatrove``, ``fastwarc``, ...) among ``modules`` not installed."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def shared_missing() -> str | None:
    """Why the shared data cannot be used (None when realpages is there)."""
    return None if REALPAGES.is_file() else f"{REALPAGES} not found (set CRAWLPLAN_SHARED_DATA to ../shared/data)"


SMOKE_DEMO_HOSTS = 20


def demo_crawl(smoke: bool = False) -> dict:
    """The embedded demo crawl's paths (``crawlplan.demo``): 300 hosts, or 20 in a smoke run."""
    from crawlplan.demo.crawl import ensure_demo
    from crawlplan.paths import default_cache_dir

    hosts = SMOKE_DEMO_HOSTS if smoke else 300
    return ensure_demo(default_cache_dir() / f"demo-h{hosts}-s0", hosts=hosts, seed=0, echo=lambda *_: None)
