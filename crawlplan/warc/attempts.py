"""The bookkeeping of one remote file's reads: how many requests, how long to wait before the
next, and when to give up (``remote.max_attempts``, ``max_retry_s``, ``file_deadline_s``), and the
throughput check that cuts a body slower than ``remote.min_bytes_per_s`` over a window.

Time comes from a :class:`Clock`, so tests bound a read exactly with a fake one (no real
waiting); :data:`SYSTEM_CLOCK` is the monotonic clock and ``time.sleep``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from crawlplan.warc.transports import Transient


@dataclass(frozen=True)
class Clock:
    """Time as the retry loop sees it; tests pass a fake one (no real waiting, exact bounds)."""
    now: Callable[[], float]
    sleep: Callable[[float], None]


def retry_sleep(seconds: float) -> None:
    """The wait between attempts: the hook a test replaces (``monkeypatch.setattr(attempts,
    "retry_sleep", ...)``) instead of the process-wide ``time.sleep``, which other threads call too."""
    time.sleep(seconds)


# the hook is looked up at each call, so that a test's replacement is seen
SYSTEM_CLOCK = Clock(time.monotonic, lambda seconds: retry_sleep(seconds))


class Attempts:
    """Counts requests and failures for one file and sleeps the backoff between them; holds the
    file's deadline (``remote.file_deadline_s`` from its first request)."""

    def __init__(self, path: str, policy, clock: Clock):
        self.path, self.policy, self.clock = path, policy, clock
        self.requests = 0
        self.last_error: str | None = None
        self.deadline: float | None = None
        self.file_deadline = clock.now() + policy.file_deadline_s

    def out_of_time(self) -> str | None:
        """Why the file may take no more time, or None."""
        if self.clock.now() >= self.file_deadline:
            return f"after {self.requests} attempts; remote.file_deadline_s={self.policy.file_deadline_s:g} passed"
        return None

    def failed(self, exc: BaseException, position: int) -> str | None:
        """Record a failure; wait before the next try, or return why there is none."""
        self.last_error = f"{exc} (at byte {position:,})" if position else str(exc)
        if not isinstance(exc, Transient):
            return "not retried"
        now = self.clock.now()
        if self.deadline is None:
            self.deadline = now + self.policy.max_retry_s
        if self.requests >= self.policy.max_attempts:
            return f"after {self.requests} attempts"
        ceiling = min(self.policy.backoff_max_s, self.policy.backoff_s * 2 ** (self.requests - 1))
        wait = random.uniform(0, ceiling)                        # full jitter: retries do not march in step
        if exc.retry_after is not None:
            wait = max(wait, exc.retry_after)                    # never sooner than the server asked
        if now + wait > self.deadline:
            return f"after {self.requests} attempts; waiting {wait:.3g} s more would pass max_retry_s={self.policy.max_retry_s:g}"
        if now + wait > self.file_deadline:
            return (f"after {self.requests} attempts; waiting {wait:.3g} s more would pass "
                    f"remote.file_deadline_s={self.policy.file_deadline_s:g}")
        self.clock.sleep(wait)
        return None


class Throughput:
    """Bytes per window of ``remote.throughput_window_s``: a body slower than
    ``remote.min_bytes_per_s`` over a whole window is :class:`Transient` (cut, then resumed)."""

    def __init__(self, policy, clock: Clock):
        self.policy, self.clock = policy, clock
        self.restart()

    def restart(self) -> None:
        self.started, self.bytes = self.clock.now(), 0

    def check(self) -> None:
        elapsed = self.clock.now() - self.started
        if elapsed < self.policy.throughput_window_s:
            return
        if self.bytes < self.policy.min_bytes_per_s * elapsed:
            slow = self.bytes / elapsed
            self.restart()
            raise Transient(f"{slow:.3g} bytes/s over {elapsed:.3g} s, below remote.min_bytes_per_s="
                            f"{self.policy.min_bytes_per_s:g}")
        self.restart()
