"""One run per output folder: a lease on ``OUT/_lease.json``.

Two runs writing one folder corrupt each other quietly: each deletes the other's temporary
writes, overwrites datasets the other reads and skips nodes on the other's markers. So every
entry that runs nodes (``crawlplan run``, ``crawlplan job``, ``spark-submit jobs/NODE.py``, the
Airflow tasks that call them) first takes the folder's lease: a file created atomically (see
``storage.create_new``) naming the holder's host, pid, start time and run id, rewritten with a
fresh heartbeat while the run lives. A second run refuses at once, naming the holder. A lease
whose heartbeat is older than ``run.lease.stale_after_s``, or whose holder was a process of this
host that is gone (a driver killed with -9), is taken over with a warning, so a relaunch after a
crash still resumes from the markers. Creating the lease is also the output folder's test write:
a folder that cannot be written fails here, in one line, before the first node.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass

from crawlplan import storage
from crawlplan.conf import section, settings_from

log = logging.getLogger("crawlplan")

LEASE_FILE = "_lease.json"


class OutputInUse(ValueError):
    """Another live run holds the output folder's lease."""


class OutputNotWritable(ValueError):
    """The output folder cannot be created or written."""


@dataclass(frozen=True)
class LeaseSettings:
    heartbeat_s: float       # how often the holder rewrites its heartbeat
    stale_after_s: float     # a heartbeat older than this: the holder is presumed dead

    @classmethod
    def from_conf(cls, conf: dict) -> LeaseSettings:
        return settings_from(cls, section(conf, "run.lease"), "run.lease")


def _process_start(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (so a reused pid is not taken for the holder)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _holder_gone(holder: dict) -> bool:
    """True only when the holder ran on this host and its process no longer exists."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int):
        return False
    start = _process_start(holder["pid"])
    if start is not None:
        return holder.get("pid_start") not in (None, start)
    try:           # no /proc entry: gone, or a system without /proc, where kill(0) tells
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class OutputLease:
    """The lease of one run on ``out_dir``; use as a context manager. ``tmp_dir`` is this run's
    own temporary folder (``OUT/_tmp/<run id>``): what it cleans up, and nothing else."""

    def __init__(self, spark, out_dir: str, settings: LeaseSettings, *, clock=time.time):
        self.spark = spark
        self.out_dir = out_dir.rstrip("/") or "."
        self.settings = settings
        self.clock = clock
        self.run_id = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"
        self.path = storage.join(self.out_dir, LEASE_FILE)
        self.tmp_dir = storage.join(self.out_dir, "_tmp", self.run_id)
        self.lost: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = self.clock()

    def _record(self) -> dict:
        return {"run_id": self.run_id, "host": socket.gethostname(), "pid": os.getpid(),
                "pid_start": _process_start(os.getpid()), "command": " ".join(sys.argv)[:500],
                "started_at": self._started, "heartbeat_at": self.clock()}

    def acquire(self) -> OutputLease:
        self._check_writable()
        for _ in range(5):   # a holder releasing or another run taking over meanwhile: look again
            if storage.create_new(self.spark, self.path, json.dumps(self._record())):
                break
            holder = self._read()
            if holder is None:
                time.sleep(0.2)
                continue
            age = self.clock() - float(holder.get("heartbeat_at") or 0)
            if age <= self.settings.stale_after_s and not _holder_gone(holder):
                raise OutputInUse(
                    f"output folder {self.out_dir} is in use by run {holder.get('run_id')} (host "
                    f"{holder.get('host')}, pid {holder.get('pid')}, started "
                    f"{_when(holder.get('started_at'))}, last heartbeat {age:.0f} s ago): wait for it, "
                    f"give another output folder, or delete {self.path} if that run is gone")
            why = "its process is gone" if age <= self.settings.stale_after_s else f"no heartbeat for {age:.0f} s"
            log.warning("output folder %s: taking over the lease of run %s (host %s, pid %s): %s",
                        self.out_dir, holder.get("run_id"), holder.get("host"), holder.get("pid"), why)
            aside = f"{self.path}.stale-{uuid.uuid4().hex[:8]}"
            if storage.rename(self.spark, self.path, aside):   # only one taker wins the rename
                storage.delete(self.spark, aside)
                if holder.get("run_id"):
                    storage.delete(self.spark, storage.join(self.out_dir, "_tmp", str(holder["run_id"])))
        else:
            raise OutputInUse(f"output folder {self.out_dir}: could not take its lease {self.path} "
                              f"(other runs kept taking it)")
        self._thread = threading.Thread(target=self._beat, name="crawlplan-lease", daemon=True)
        self._thread.start()
        return self

    def _check_writable(self) -> None:
        """The test write: create the folder and a probe file in it, or fail naming the cause."""
        probe = storage.join(self.out_dir, f"_probe-{self.run_id}")
        try:
            local = storage.local_file(self.out_dir)
            if local is not None:
                os.makedirs(local, exist_ok=True)
            if not storage.create_new(self.spark, probe, "crawlplan output test write\n"):
                raise OSError(f"{probe} exists")
            storage.delete(self.spark, probe)
        except Exception as exc:
            cause = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            if "Py4J" in type(exc).__name__:   # the Java exception's own line, not the whole trace
                cause = next((ln.strip() for ln in str(exc).splitlines() if "Exception:" in ln), cause)
            raise OutputNotWritable(f"cannot write the output folder {self.out_dir}: {cause}") from None

    def _read(self) -> dict | None:
        try:
            return storage.read_json(self.spark, self.path)
        except (ValueError, OSError):
            return None      # half-written by a taker right now: look again

    def _beat(self) -> None:
        """Rewrite the heartbeat while the lease is this run's. A lease file that cannot be read
        is being written by a taker right now (``create_new`` creates the file, then writes it):
        rewriting it then would bury the taker's lease, so the beat waits for the next one. A
        lease file that is gone is created again, atomically, so that a taker's create wins."""
        while not self._stop.wait(self.settings.heartbeat_s):
            if not self._beat_once():
                return

    def _beat_once(self) -> bool:
        """One heartbeat (:meth:`_beat`); False when another run holds the lease now."""
        holder = self._read()
        if holder is not None and holder.get("run_id") != self.run_id:
            self.lost = (f"run {holder.get('run_id')} (host {holder.get('host')}, pid {holder.get('pid')}) "
                         f"took over the lease of {self.out_dir}")
            log.error("%s; this run stops before its next node", self.lost)
            return False
        try:
            if holder is not None:
                storage.replace_text(self.spark, self.path, json.dumps(self._record()))
            else:   # create_new leaves a file that exists, unreadable as it is, to its writer
                storage.create_new(self.spark, self.path, json.dumps(self._record()))
        except Exception as exc:   # a heartbeat missed is not fatal; stale_after_s allows several
            log.warning("output folder %s: heartbeat not written: %s", self.out_dir, exc)
        return True

    def check(self) -> None:
        """Between nodes: stop if another run took the lease over (this one stalled too long)."""
        if self.lost:
            raise OutputInUse(self.lost)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        storage.delete(self.spark, self.tmp_dir)
        holder = self._read()
        if holder is not None and holder.get("run_id") == self.run_id:
            storage.delete(self.spark, self.path)

    def __enter__(self) -> OutputLease:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _when(epoch) -> str:
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(epoch)))
    except (TypeError, ValueError):
        return "?"
