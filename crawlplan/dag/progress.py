"""Per-node progress with task counts and an ETA, read from Spark's status tracker.

The node's Spark jobs run under a job group named after the node, so the reporter can count
the tasks of every stage the node has started (finished stages included) instead of only the
stages active at the moment of a tick. The ETA extrapolates the task completion rate of the
node's known stages; Spark plans stages job by job, so it is the ETA of the work planned so far
and says so.

A Spark Connect session has no status tracker (it lives on the server): there the node's
operations carry a tag named after the node, and the counts come from the progress the server
streams back with each operation (``registerProgressHandler``), one "job" per operation.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from crawlplan.filesystems import is_connect


@dataclass
class Snapshot:
    jobs_done: int = 0
    jobs: int = 0
    tasks_done: int = 0
    tasks: int = 0
    tasks_failed: int = 0
    active_stages: int = 0


def format_eta(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


def progress_line(node: str, snap: Snapshot, elapsed: float) -> str:
    """One log line; the ETA appears once some tasks finished (a rate exists)."""
    if not snap.tasks:
        return f"    {node}: {format_eta(elapsed)} elapsed, waiting for Spark tasks"
    pct = 100.0 * snap.tasks_done / snap.tasks
    line = (f"    {node}: {snap.tasks_done:,}/{snap.tasks:,} tasks ({pct:.0f}%) in {snap.jobs_done}/{snap.jobs} "
            f"Spark jobs, {format_eta(elapsed)} elapsed")
    if snap.tasks_failed:
        line += f", {snap.tasks_failed} task attempts failed"
    if 0 < snap.tasks_done < snap.tasks:
        line += f", ETA {format_eta((snap.tasks - snap.tasks_done) * elapsed / snap.tasks_done)} for the planned stages"
    return line


class ProgressReporter:
    """Prints the node's task counts and an ETA every ``every_s`` seconds while it runs."""

    def __init__(self, spark, node: str, *, echo=print, every_s: float = 10.0):
        self.spark = spark
        self.node = node
        self.echo = echo
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self.group = f"crawlplan-{node}"
        self.connect = is_connect(spark)
        self._operations = ConnectOperations()

    def __enter__(self):
        self._started = time.time()
        try:
            if self.connect:
                self.spark.addTag(self.group)
                self.spark.registerProgressHandler(self._operations)
            else:
                self.spark.sparkContext.setJobGroup(self.group, f"crawlplan node {self.node}",
                                                    interruptOnCancel=False)
        except Exception:  # progress is best effort
            pass
        if self.every_s > 0:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        try:
            if self.connect:
                self.spark.removeProgressHandler(self._operations)
                self.spark.removeTag(self.group)
            else:
                self.spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        except Exception:
            pass
        return False

    def detailed(self) -> Snapshot:
        if self.connect:
            return self._operations.snapshot()
        tracker = self.spark.sparkContext.statusTracker()
        snap = Snapshot()
        active = set(tracker.getActiveStageIds())
        seen: set[int] = set()
        job_ids = tracker.getJobIdsForGroup(self.group)
        for job_id in job_ids:
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            snap.jobs += 1
            finished = job.status == "SUCCEEDED"
            snap.jobs_done += finished
            for stage_id in job.stageIds:
                if stage_id in seen:
                    continue
                seen.add(stage_id)
                self._add_stage(snap, tracker.getStageInfo(stage_id), finished, stage_id in active)
        if not job_ids:  # jobs started outside the group (other threads): fall back to active stages
            for stage_id in active:
                self._add_stage(snap, tracker.getStageInfo(stage_id), False, True)
        return snap

    @staticmethod
    def _add_stage(snap: Snapshot, info, job_finished: bool, is_active: bool) -> None:
        """A finished job's stages count as done: stages Spark skipped (shuffle output reused)
        never complete a task and would otherwise hold the percentage below 100."""
        if info is None:
            return
        snap.tasks += info.numTasks
        snap.tasks_done += info.numTasks if job_finished else info.numCompletedTasks
        snap.tasks_failed += info.numFailedTasks
        snap.active_stages += is_active

    def snapshot(self) -> tuple[int, int]:
        snap = self.detailed()
        return snap.tasks_done, snap.tasks

    def _loop(self):
        while not self._stop.wait(self.every_s):
            try:
                snap = self.detailed()
            except Exception:  # the tracker is best effort; never break the node for it
                continue
            self.echo(progress_line(self.node, snap, time.time() - self._started))


class ConnectOperations:
    """The progress a Spark Connect server streams back with each operation: a handler for
    ``registerProgressHandler`` (called from the thread that runs the operation) whose counts
    the reporter's thread reads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stages: dict[tuple[str, int], tuple[int, int]] = {}
        self._done: dict[str, bool] = {}

    def __call__(self, stages, inflight_tasks: int, operation_id, done: bool) -> None:
        op = str(operation_id or "")
        with self._lock:
            self._done[op] = self._done.get(op, False) or bool(done)
            for stage in stages or ():
                self._stages[(op, int(stage.stage_id))] = (int(stage.num_tasks), int(stage.num_completed_tasks))

    def snapshot(self) -> Snapshot:
        with self._lock:
            snap = Snapshot(jobs=len(self._done), jobs_done=sum(self._done.values()))
            for (op, _), (tasks, completed) in self._stages.items():
                snap.tasks += tasks
                snap.tasks_done += tasks if self._done.get(op) else completed   # skipped stages of a done one
        return snap
