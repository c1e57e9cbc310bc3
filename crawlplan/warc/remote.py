"""Read WARC bytes from a local path, ``http(s)://`` (data.commoncrawl.org) or ``s3://`` / ``s3a://``
as if the network never failed, and say exactly when it did.

At 90,000 files of 1 GB, throttling (503 SlowDown), resets and stalled reads are routine. Every
remote read here goes through one retry loop: exponential backoff with full jitter, ``Retry-After``
honoured, a bounded number of requests and a bounded time spent retrying per file (see
:class:`RetryPolicy`). A stream that breaks mid-file is reopened with ``Range`` from the last byte
delivered, so the WARC reader above it sees one unbroken byte stream: nothing lost, nothing read
twice. A server that ignores ``Range`` (200 instead of 206) is skipped forward to that byte; a file
that changes between requests (another ETag or size) is not stitched together but reported.

Every read is bounded, because a server (or a listing naming one) may be hostile: a whole file,
its retries and waits included, takes at most ``remote.file_deadline_s``, and a body that
delivers less than ``remote.min_bytes_per_s`` over ``remote.throughput_window_s`` is cut and
resumed like a broken one (a server trickling a byte a second would otherwise reset
``read_timeout_s`` forever). Where connections may go (public addresses only, redirects within
the origin) is the transports' business (``transports.py``).

The public API, used by the extract job and by anything that fetches records by offset:

- :func:`open_stream` -- a file-like reader over a whole file or one byte span;
- :func:`read_range` -- one ``(path, start, length)`` span as bytes;
- :func:`read_ranges` / :func:`merge_ranges` -- many spans of one file, neighbours fetched together;
- :class:`RemoteError` (:class:`Unreachable`, :class:`NotFound`, :class:`ReadIncomplete`) -- what
  failed, after how many attempts, and the last error met.

Clients are per process (``transports.py``), so one executor reuses its connections across files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from crawlplan.conf import Settings
from crawlplan.warc import transports
from crawlplan.warc.attempts import SYSTEM_CLOCK, Attempts, Clock, Throughput
from crawlplan.warc.transports import Gone, Refused, Transient


@dataclass(frozen=True)
class RetryPolicy(Settings):
    """How hard to try one file: conf section ``remote`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "remote"
    max_attempts: int           # requests per file, the first one included
    max_retry_s: float          # from a file's first failure, the longest it may keep retrying
    backoff_s: float            # first wait; doubles per retry, full jitter
    backoff_max_s: float        # cap on one wait (a longer Retry-After is still honoured)
    connect_timeout_s: float
    read_timeout_s: float       # no byte for this long: the read is retried from the last byte
    buffer_bytes: int           # bytes asked of the network per read
    pool_connections: int       # pooled connections per process and host
    s3_endpoint: str            # an S3-compatible endpoint (MinIO, Ceph, a test server); "" = AWS
    s3_unsigned: bool           # anonymous S3 requests (buckets that allow them; not Common Crawl's)
    file_deadline_s: float      # the longest one file (or span) may take, retries and waits included
    min_bytes_per_s: float      # a body slower than this over throughput_window_s is cut and resumed; 0 = off
    throughput_window_s: float
    max_redirects: int
    same_host_redirects: bool   # follow redirects only within the first URL's origin
    allow_private_addresses: bool   # connect to loopback/private/link-local/metadata addresses (tests, intranets)

    def __post_init__(self):
        if self.max_attempts < 1 or self.buffer_bytes < 1024 or self.pool_connections < 1:
            raise ValueError("remote: max_attempts and pool_connections must be >= 1, buffer_bytes >= 1024")
        if self.file_deadline_s <= 0 or self.throughput_window_s <= 0 or self.min_bytes_per_s < 0 \
                or self.max_redirects < 0:
            raise ValueError("remote: file_deadline_s and throughput_window_s must be > 0, "
                             "min_bytes_per_s and max_redirects >= 0")


class RemoteError(OSError):
    """A remote read that failed for good; ``attempts`` requests were made, ``last_error`` is the last fault."""

    def __init__(self, message: str, *, attempts: int, last_error: str | None):
        super().__init__(message)
        self.attempts = attempts
        self.last_error = last_error


class Unreachable(RemoteError):
    """No byte could be read: the retries are spent, or the server refused (403, no credentials)."""


class NotFound(RemoteError, FileNotFoundError):
    """The server says the file does not exist (404/410, NoSuchKey)."""


class ReadIncomplete(RemoteError):
    """Some bytes were read, then the retries were spent (or the file changed) before the end."""


def is_remote(path: str) -> bool:
    return path.startswith(("http://", "https://", "s3://", "s3a://", "s3n://"))


def local_path(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


class RemoteStream:
    """A read-only stream over ``[start, end)`` of a remote file that resumes by ``Range`` after a fault.

    ``read`` never raises for a network fault: a stream that cannot go on after its retries ends
    early instead, with ``failure`` saying why, so the WARC reader keeps the records it already has.
    ``size`` is the file's length when the server said it; ``complete()`` is True only when every
    byte up to the end was delivered. :meth:`mark` keeps the bytes from an offset on (the start of
    the last WARC record), so the reader can check that the file's last gzip member is whole.
    """

    def __init__(self, path: str, policy: RetryPolicy, start: int = 0, end: int | None = None,
                 clock: Clock = SYSTEM_CLOCK):
        self.path, self.policy = path, policy
        self.start, self.end = start, end
        self.size: int | None = None
        self.failure: str | None = None
        self._tries = Attempts(path, policy, clock)
        self._rate = Throughput(policy, clock)
        self._get = transports.s3_get if path.startswith(("s3://", "s3a://", "s3n://")) else transports.http_get
        self._body = None
        self._validator: str | None = None
        self._net = start                  # offset of the next byte from the network
        self._buffer = b""
        self._offset_in_buffer = 0
        self._eof = False
        # a whole-file stream keeps the bytes since the reader's last mark() (the last record's start)
        self._kept: list[tuple[int, bytes]] | None = [] if end is None else None
        self._kept_bytes = 0
        self._mark = start
        self._connect(first=True)

    # --- what the reader sees --------------------------------------------------------------

    @property
    def attempts(self) -> int:
        return self._tries.requests

    @property
    def last_error(self) -> str | None:
        return self._tries.last_error

    def tell(self) -> int:
        return self._net - (len(self._buffer) - self._offset_in_buffer)

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return True

    def complete(self) -> bool:
        """Every byte up to the end of the span (or file) was delivered."""
        stop = self.end if self.end is not None else self.size
        return self.failure is None and self._eof and (stop is None or self._net >= stop)

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            return b"".join(iter(lambda: self.read(self.policy.buffer_bytes), b""))
        if self._offset_in_buffer >= len(self._buffer):
            self._buffer, self._offset_in_buffer = self._fill(), 0
        data = self._buffer[self._offset_in_buffer:self._offset_in_buffer + n]
        self._offset_in_buffer += len(data)
        return data

    def readinto(self, target) -> int:
        data = self.read(len(target))
        target[:len(data)] = data
        return len(data)

    def mark(self, offset: int) -> None:
        """Keep the bytes from ``offset`` on (up to 64 MiB); drop what came before it."""
        if self._kept is None:
            return
        while len(self._kept) > 1 and self._kept[1][0] <= offset:
            self._kept_bytes -= len(self._kept.pop(0)[1])
        self._mark = offset

    def kept_since_mark(self) -> bytes | None:
        """The bytes from the last :meth:`mark` to the end of what was read; None if not all were kept."""
        if not self._kept or self._kept[0][0] > self._mark:
            return None
        first = self._kept[0][0]
        return b"".join(chunk for _, chunk in self._kept)[self._mark - first:]

    def close(self) -> None:
        self._drop_body()
        self._buffer, self._kept = b"", None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the network ----------------------------------------------------------------------

    def _fill(self) -> bytes:
        while not self._eof and self.failure is None:
            if self.end is not None and self._net >= self.end:
                self._finish()
                break
            late = self._tries.out_of_time()
            if late:
                self._drop_body()
                self.failure = f"read stopped at byte {self._net:,} ({late})" + (
                    f": {self._tries.last_error}" if self._tries.last_error else "")
                break
            try:
                if self._body is None:
                    self._connect(first=False)
                    continue
                if self.policy.min_bytes_per_s:
                    self._rate.check()      # before a read, so no byte already received is dropped
                want = self.policy.buffer_bytes if self.end is None else min(self.policy.buffer_bytes,
                                                                              self.end - self._net)
                data = self._body.read(want)
                if not data:
                    stop = self.end if self.end is not None else self.size
                    if stop is not None and self._net < stop:
                        raise Transient(f"the body ended at byte {self._net:,} of {stop:,}")
                    self._finish()
                    break
            except Transient as exc:
                self._drop_body()
                why = self._tries.failed(exc, self._net)
                if why:
                    self.failure = f"read stopped at byte {self._net:,} ({why}): {self._tries.last_error}"
                continue
            self._rate.bytes += len(data)
            self._deliver(data)
            return data
        return b""

    def _deliver(self, data: bytes) -> None:
        self._net += len(data)
        if self._kept is not None:
            self._keep(self._net - len(data), data)

    def _keep(self, offset: int, data: bytes) -> None:
        self._kept.append((offset, data))
        self._kept_bytes += len(data)
        if self._kept_bytes > 64 << 20:        # a huge last record: its completeness goes unchecked
            self._kept, self._kept_bytes = [], 0

    def _finish(self) -> None:
        self._eof = True
        self._drop_body()

    def _drop_body(self) -> None:
        if self._body is not None:
            try:
                self._body.close()
            except Exception:  # noqa: S110 - closing a broken connection may fail again; it is dropped either way
                pass
            self._body = None

    def _connect(self, first: bool) -> None:
        """One request from ``self._net`` on, retried until it gives a body (or raising/failing)."""
        while True:
            self._tries.requests += 1
            try:
                answer = self._get(self.path, self._net, self.end, self.policy)
                self._accept(answer, first)
                self._rate.restart()        # each body gets its own windows
                return
            except (Transient, Gone, Refused, _Changed) as exc:
                why = self._tries.failed(exc, self._net)
                if not why:
                    continue
                if not first or self._net > self.start:
                    self.failure = f"read stopped at byte {self._net:,} ({why}): {self._tries.last_error}"
                    return
                kind = NotFound if isinstance(exc, Gone) else Unreachable
                raise kind(f"{self.path}: {self._tries.last_error} ({why})", attempts=self._tries.requests,
                           last_error=self._tries.last_error) from exc

    def _accept(self, answer: transports.Response, first: bool) -> None:
        if (answer.validator and self._validator and answer.validator != self._validator) or (
                answer.total is not None and self.size is not None and answer.total != self.size):
            if answer.body is not None:
                answer.body.close()
            raise _Changed(f"the server's answers disagree about the file ({self.size} bytes, validator "
                           f"{self._validator}; then {answer.total} bytes, validator {answer.validator}): a wrong "
                           f"Content-Length, or the file changed while it was read")
        self._validator = self._validator or answer.validator
        self.size = self.size if self.size is not None else answer.total
        if answer.beyond_end:
            if self.size is not None and self._net >= self.size:
                self._eof = True
                return
            raise Transient(f"416 for bytes {self._net:,}- of a file of {self.size} bytes")
        skip = self._net - answer.start
        if skip < 0:
            answer.body.close()
            raise Transient(f"the server answered from byte {answer.start:,}, not {self._net:,}")
        self._body = answer.body
        self._rate.restart()
        while skip > 0:                   # the server ignored Range: read forward to where we were
            if self._tries.out_of_time():
                raise Transient(f"remote.file_deadline_s passed while skipping to byte {self._net:,}")
            if self.policy.min_bytes_per_s:
                self._rate.check()
            chunk = self._body.read(min(skip, self.policy.buffer_bytes))
            if not chunk:
                raise Transient(f"the body ended while skipping to byte {self._net:,}")
            self._rate.bytes += len(chunk)
            skip -= len(chunk)


class _Changed(OSError):
    """The file's size or validator changed between two requests: stitching would mix two files."""


def open_stream(path: str, policy: RetryPolicy | None = None, *, start: int = 0, end: int | None = None,
                clock: Clock = SYSTEM_CLOCK):
    """A readable over ``path`` from byte ``start`` up to ``end`` (exclusive; None = the file's end).

    Local paths give an ordinary seekable file. Remote ones give a :class:`RemoteStream` whose first
    request has already succeeded: :class:`Unreachable` / :class:`NotFound` are raised here, never
    from ``read``. ``clock`` is for tests (a fake one bounds the time exactly). ``policy`` is the
    run's (``RetryPolicy.from_params(section(conf, "remote"))``): a remote path without one is an
    error, never a fallback to conf/defaults.yaml that would ignore the run's overrides.
    """
    if is_remote(path):
        if policy is None:
            raise ValueError(f"reading {path} needs the run's RetryPolicy (conf section remote); none was passed")
        return RemoteStream(path, policy, start, end, clock)
    local = local_path(path)
    if not os.path.exists(local):
        raise FileNotFoundError(f"no such WARC file: {path}")
    handle = open(local, "rb")  # noqa: SIM115 - the caller closes it
    if start:
        handle.seek(start)
    return handle


def read_range(path: str, start: int, length: int, policy: RetryPolicy | None = None) -> bytes:
    """Exactly ``length`` bytes of ``path`` from ``start`` (retried and resumed like any stream).

    Raises :class:`ReadIncomplete` when fewer bytes could be had (the file is shorter, or the
    retries ran out mid-range), :class:`Unreachable` / :class:`NotFound` when none could.
    """
    for _, data in read_ranges(path, [(start, length)], policy, max_gap=0):
        return data
    return b""


def merge_ranges(ranges: Iterable[tuple[int, int]], max_gap: int = 64 << 10) -> list[tuple[int, int, list[int]]]:
    """Spans that cover ``ranges`` (``(start, length)`` pairs) with neighbours at most ``max_gap``
    bytes apart joined into one request: ``[(start, end, [indexes of the ranges it covers])]`` in
    file order. Reading a gap costs less than another request (TLS, first-byte latency)."""
    order = sorted(range(len(ranges := list(ranges))), key=lambda i: ranges[i][0])
    spans: list[tuple[int, int, list[int]]] = []
    for i in order:
        start, length = ranges[i]
        if start < 0 or length < 0:
            raise ValueError(f"bad byte range ({start}, {length})")
        if spans and start - spans[-1][1] <= max_gap:
            first, stop, members = spans[-1]
            spans[-1] = (first, max(stop, start + length), members + [i])
        else:
            spans.append((start, start + length, [i]))
    return spans


def read_ranges(path: str, ranges: Iterable[tuple[int, int]], policy: RetryPolicy | None = None, *,
                max_gap: int = 64 << 10) -> Iterator[tuple[int, bytes]]:
    """``(index, bytes)`` for each ``(start, length)`` of ``ranges``, in file order, one request per
    merged span (see :func:`merge_ranges`); each span is streamed, so memory stays at one range.

    A span that breaks is resumed from its last byte; one that cannot be finished raises
    :class:`ReadIncomplete` after yielding the ranges it did finish.
    """
    ranges = list(ranges)
    remote, local = is_remote(path), None      # a local file is opened once for all its spans
    try:
        for first, stop, members in merge_ranges(ranges, max_gap):
            if stop == first:                 # nothing to fetch: zero-length ranges
                yield from ((i, b"") for i in members)
                continue
            if remote:
                stream = open_stream(path, policy, start=first, end=stop)
            else:
                stream = local = local or open_stream(path, policy)
                stream.seek(first)
            yield from _read_span(path, stream, first, [(i, *ranges[i]) for i in members], close=remote)
    finally:
        if local is not None:
            local.close()


def _read_span(path: str, stream, first: int, members: list[tuple[int, int, int]], *,
               close: bool) -> Iterator[tuple[int, bytes]]:
    try:
        position = first
        for i, start, length in members:
            if start < position:              # overlaps the previous range: cut from what was read
                raise ValueError("read_ranges: overlapping ranges are not supported; merge them first")
            read_exactly(stream, start - position)
            data = read_exactly(stream, length)
            position = start + length
            if len(data) < length:
                raise ReadIncomplete(
                    f"{path}: bytes {start:,}+{length:,}: got {len(data):,} "
                    f"({getattr(stream, 'failure', None) or 'the file ends first'})",
                    attempts=getattr(stream, "attempts", 1), last_error=getattr(stream, "last_error", None))
            yield i, data
    finally:
        if close:
            stream.close()


def read_exactly(stream, n: int) -> bytes:
    """``n`` bytes of ``stream``, fewer only where its bytes end (a stream's ``read`` may return less)."""
    parts, left = [], n
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
