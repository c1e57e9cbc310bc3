"""Per-node progress with task counts and an ETA, read from Spark's status tracker."""

from __future__ import annotations

import threading
import time


class ProgressReporter:
    """Prints ``tasks done/total`` of the node's active stages every ``every_s`` seconds."""

    def __init__(self, spark, node: str, *, echo=print, every_s: float = 10.0):
        self.spark = spark
        self.node = node
        self.echo = echo
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0

    def __enter__(self):
        self._started = time.time()
        if self.every_s > 0:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        return False

    def snapshot(self) -> tuple[int, int]:
        tracker = self.spark.sparkContext.statusTracker()
        done = total = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                done += info.numCompletedTasks
                total += info.numTasks
        return done, total

    def _loop(self):
        while not self._stop.wait(self.every_s):
            try:
                done, total = self.snapshot()
            except Exception:  # the tracker is best effort; never break the node for it
                continue
            elapsed = time.time() - self._started
            if total:
                eta = ""
                if done:
                    rate = done / elapsed
                    eta = f", stage ETA {max(0.0, (total - done) / rate):.0f}s"
                self.echo(f"    {self.node}: {done}/{total} tasks of active stages, {elapsed:.0f}s elapsed{eta}")
            else:
                self.echo(f"    {self.node}: {elapsed:.0f}s elapsed")
