"""The two network clients behind :mod:`crawlplan.warc.remote`: HTTP(S) through urllib3 and S3
through boto3, one of each per process (an executor's Python worker reads many files through the
same pooled connections instead of a TLS handshake per file).

Each transport does one thing: send one GET for ``bytes=start-end`` and sort whatever goes wrong
into :class:`Transient` (worth another try, possibly after ``Retry-After``), :class:`Gone` (no such
file: 404/410, NoSuchKey) or :class:`Refused` (any other answer a retry will not change: 403,
400, bad credentials). Retrying and resuming is ``remote.py``'s business, not the client's:
both clients are built with their own retries switched off so that exactly one policy applies.

Where a request may go is decided here too, because a listing or a redirect is data from the web:
HTTP connections go only to public addresses (``addresses.py``; unless
``remote.allow_private_addresses``). Redirects are followed here, one hop at a time, only within the first URL's origin
(``remote.same_host_redirects``) and at most ``remote.max_redirects`` times. S3 requests go to
AWS or to the configured ``remote.s3_endpoint``: that endpoint is the user's own setting and is
trusted as given (a MinIO on a private address is the common case), so it is not checked.
"""

from __future__ import annotations

import email.utils
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import urllib3

from crawlplan.warc.addresses import CheckedHTTPPool, CheckedHTTPSPool, address_refusal

USER_AGENT = "crawlplan (+https://commoncrawl.org)"
_RETRY_STATUS = {408, 429, 500, 502, 503, 504}
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED_RANGE = re.compile(r"bytes\s+\*/(\d+)")


class Transient(OSError):
    """A fault another attempt may not meet (throttling, 5xx, reset, timeout)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class Gone(OSError):
    """The file is not there (HTTP 404/410, S3 NoSuchKey)."""


class Refused(OSError):
    """An answer that will not change on retry (403, 400, no credentials)."""


_REDIRECTS = {301, 302, 303, 307, 308}


@dataclass
class Response:
    """An open body and what the server said about it."""
    body: object                 # .read(n) -> bytes; .close()
    start: int                   # offset of the body's first byte in the file
    total: int | None            # the file's full size, when the server said it
    length: int | None           # bytes this body should carry (Content-Length)
    validator: str | None        # ETag or Last-Modified: tells a resumed read it still reads the same file
    beyond_end: bool = False     # 416: the range starts at or past the end of the file


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time()) if when else None


def _range_header(start: int, end: int | None) -> str | None:
    if start <= 0 and end is None:
        return None
    return f"bytes={start}-" + ("" if end is None else str(end - 1))


def _parse_content_range(value: str | None) -> tuple[int, int | None] | None:
    match = _CONTENT_RANGE.match(value or "")
    if not match:
        return None
    return int(match.group(1)), (None if match.group(3) == "*" else int(match.group(3)))


def _int_or_none(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _answer(status: int, headers: dict, body, start: int, *, what: str, reason: str = "") -> Response:
    """Sort a status line into a Response or an exception; ``headers`` has lower-case keys."""
    label = f"{what} {status}{(' ' + reason) if reason else ''}"
    validator = headers.get("etag") or headers.get("last-modified")
    if status == 206:
        served = _parse_content_range(headers.get("content-range"))
        if served is None:
            body.close()
            raise Transient(f"{label} without a usable Content-Range ({headers.get('content-range')!r})")
        return Response(body, served[0], served[1], _int_or_none(headers.get("content-length")), validator)
    if status == 200:
        length = _int_or_none(headers.get("content-length"))
        return Response(body, 0, length, length, validator)
    body.close()
    if status == 416:
        match = _UNSATISFIED_RANGE.match(headers.get("content-range") or "")
        total = int(match.group(1)) if match else None
        return Response(None, start, total, 0, validator, beyond_end=True)
    if status in _RETRY_STATUS:
        raise Transient(label, retry_after_seconds(headers.get("retry-after")))
    if status in (404, 410):
        raise Gone(label)
    raise Refused(label)


# ---- HTTP(S): one urllib3 pool per process -------------------------------------------------

_HTTP_LOCK = threading.Lock()
_HTTP_POOLS: dict[tuple[int, bool], object] = {}


def http_pool(connections: int, allow_private: bool):
    """The process's urllib3 PoolManager (connection reuse across files and retries); unless
    ``allow_private``, its connections go only to public addresses."""
    with _HTTP_LOCK:
        pool = _HTTP_POOLS.get((connections, allow_private))
        if pool is None:
            # every retry is ours (remote.py) and redirects are followed by http_get, so both are off here
            retries = urllib3.Retry(total=None, connect=0, read=0, status=0, other=0, redirect=0,
                                    raise_on_redirect=False, raise_on_status=False)
            pool = urllib3.PoolManager(num_pools=connections, maxsize=connections, retries=retries,
                                       headers={"User-Agent": USER_AGENT})
            if not allow_private:
                pool.pool_classes_by_scheme = {"http": CheckedHTTPPool, "https": CheckedHTTPSPool}
            _HTTP_POOLS[(connections, allow_private)] = pool
        return pool


class _Body:
    """A response body as a plain stream: ``errors`` (the client's network errors) become :class:`Transient`."""

    def __init__(self, read, close, errors: tuple[type[BaseException], ...]):
        self._read, self._close, self._errors = read, close, errors

    def read(self, n: int) -> bytes:
        try:
            return self._read(n)
        except self._errors as exc:
            raise Transient(_describe(exc)) from exc

    def close(self) -> None:
        self._close()


def _http_body(response) -> _Body:
    def close() -> None:
        # a body read to its end goes back to the pool; a broken one takes its connection with it
        if response.isclosed() or response.length_remaining == 0:
            response.release_conn()
        else:
            response.close()

    # read1: whatever the socket has (at most n), so a slow sender returns to remote.py's
    # throughput check between its bytes instead of holding one read open until n have come
    return _Body(lambda n: response.read1(n, decode_content=False), close, (urllib3.exceptions.HTTPError, OSError))


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    text = f"{type(exc).__name__}: {exc}"
    if reason is not None and str(reason) not in text:
        text += f" ({reason})"
    return text[:300]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


def redirect_target(url: str, location: str | None, policy) -> str:
    """Where a redirect from ``url`` to ``location`` leads, or :class:`Refused` when it may not be
    followed: not http(s), or (``remote.same_host_redirects``) another origin than ``url``'s;
    an upgrade from http to https on the same host is the same origin."""
    if not location:
        raise Refused("a redirect without a Location header")
    target = urljoin(url, location.strip())
    scheme, host, port = _origin(target)
    if scheme not in ("http", "https"):
        raise Refused(f"a redirect to a {scheme[:10]!r} URL is not followed")
    if policy.same_host_redirects:
        origin = _origin(url)
        upgrade = origin[0] == "http" and scheme == "https" and port == 443
        if host != origin[1] or (port != origin[2] and not upgrade):
            raise Refused(f"a redirect to another host ({host[:100]!r}) is not followed "
                          f"(remote.same_host_redirects)")
    return target


def http_get(url: str, start: int, end: int | None, policy) -> Response:
    headers = {}
    byte_range = _range_header(start, end)
    if byte_range:
        headers["Range"] = byte_range
    timeout = urllib3.Timeout(connect=policy.connect_timeout_s, read=policy.read_timeout_s)
    pool = http_pool(policy.pool_connections, policy.allow_private_addresses)
    hops = 0
    while True:
        try:
            response = pool.request("GET", url, headers=headers, preload_content=False, decode_content=False,
                                    timeout=timeout, redirect=False)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            refused = address_refusal(exc)
            if refused is not None:
                raise Refused(str(refused)) from exc
            reason = exc.reason if isinstance(exc, urllib3.exceptions.MaxRetryError) else None
            raise Transient(_describe(reason or exc)) from exc
        if response.status not in _REDIRECTS:
            break
        location = response.headers.get("location")
        response.close()              # never read a redirect's body: it may not end
        response.release_conn()
        hops += 1
        if hops > policy.max_redirects:
            raise Refused(f"more than remote.max_redirects={policy.max_redirects} redirects")
        url = redirect_target(url, location, policy)
    head = {k.lower(): v for k, v in response.headers.items()}
    return _answer(response.status, head, _http_body(response), start, what="HTTP", reason=response.reason or "")


# ---- S3: one boto3 client per process and endpoint ------------------------------------------

_S3_LOCK = threading.Lock()
_S3_CLIENTS: dict[tuple, object] = {}


def s3_client(policy):
    """The process's boto3 S3 client for ``policy``'s endpoint and signing (clients are thread-safe;
    creating them is not, hence the lock)."""
    key = (policy.s3_endpoint, policy.s3_unsigned, policy.connect_timeout_s, policy.read_timeout_s,
           policy.pool_connections)
    with _S3_LOCK:
        client = _S3_CLIENTS.get(key)
        if client is None:
            try:
                # boto3 / botocore: the optional [s3] extra, only for s3:// paths
                import boto3
                from botocore import UNSIGNED
                from botocore.config import Config
            except ImportError as exc:
                raise Refused("reading s3:// paths needs boto3 (pip install boto3), or use the HTTPS mirror: "
                              "inputs.warc_base=https://data.commoncrawl.org/") from exc
            config = Config(retries={"total_max_attempts": 1}, connect_timeout=policy.connect_timeout_s,
                            read_timeout=policy.read_timeout_s, max_pool_connections=policy.pool_connections,
                            user_agent_extra="crawlplan",
                            # S3-compatible stores (MinIO, Ceph) address buckets by path, not by host name
                            s3={"addressing_style": "path"} if policy.s3_endpoint else None,
                            **({"signature_version": UNSIGNED} if policy.s3_unsigned else {}))
            client = boto3.session.Session().client("s3", endpoint_url=policy.s3_endpoint or None, config=config)
            _S3_CLIENTS[key] = client
        return client


def _s3_body(body) -> _Body:
    # boto3 / botocore: the optional [s3] extra, only for s3:// paths
    from botocore.exceptions import BotoCoreError

    # as for HTTP, read1 on the urllib3 response underneath: a slow sender returns between its
    # bytes to the throughput check (remote.py checks the length itself, as botocore's read would)
    raw = getattr(body, "_raw_stream", None)
    read = (lambda n: raw.read1(n, decode_content=False)) if hasattr(raw, "read1") else body.read
    # urllib3's errors surface raw from some botocore versions
    return _Body(read, body.close, (BotoCoreError, urllib3.exceptions.HTTPError, OSError))


def s3_get(path: str, start: int, end: int | None, policy) -> Response:
    # boto3 / botocore: the optional [s3] extra, only for s3:// paths
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, ParamValidationError

    bucket, _, key = path.split("://", 1)[1].partition("/")
    args = {"Bucket": bucket, "Key": key}
    byte_range = _range_header(start, end)
    if byte_range:
        args["Range"] = byte_range
    try:
        answer = s3_client(policy).get_object(**args)
    except ClientError as exc:
        meta = exc.response.get("ResponseMetadata", {})
        status = int(meta.get("HTTPStatusCode") or 0)
        code = exc.response.get("Error", {}).get("Code", "")
        head = {k.lower(): v for k, v in (meta.get("HTTPHeaders") or {}).items()}
        if code in ("NoSuchKey", "NoSuchBucket"):
            raise Gone(f"S3 {status} {code}") from exc
        if code == "InvalidRange" or status == 416:
            return Response(None, start, None, 0, None, beyond_end=True)
        if status in _RETRY_STATUS or code in ("SlowDown", "RequestTimeout", "Throttling", "InternalError"):
            raise Transient(f"S3 {status} {code}", retry_after_seconds(head.get("retry-after"))) from exc
        hint = (" (Common Crawl's bucket needs AWS credentials; without them use "
                "inputs.warc_base=https://data.commoncrawl.org/)") if status == 403 else ""
        raise Refused(f"S3 {status} {code}{hint}") from exc
    except (NoCredentialsError, ParamValidationError) as exc:
        raise Refused(f"{type(exc).__name__}: {exc}. Common Crawl needs AWS credentials on S3; without them "
                      f"set inputs.warc_base=https://data.commoncrawl.org/") from exc
    except (BotoCoreError, OSError) as exc:
        raise Transient(_describe(exc)) from exc
    served = _parse_content_range(answer.get("ContentRange"))
    length = _int_or_none(answer.get("ContentLength"))
    validator = answer.get("ETag") or str(answer.get("LastModified") or "") or None
    if served is not None:
        return Response(_s3_body(answer["Body"]), served[0], served[1], length, validator)
    return Response(_s3_body(answer["Body"]), 0, length, length, validator)
