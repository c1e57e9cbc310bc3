"""A loopback HTTP server that misbehaves on request, for the remote-read tests, the fault table
(scripts/remote_faults_table.py) and bench/bench_remote.py. Run as its own process:

    python tests/reliability/faultserver.py --root DIR        # files under DIR at /NAME
    python tests/reliability/faultserver.py --s3               # moto's S3 server behind the same faults

It binds 127.0.0.1 on an ephemeral port and prints one JSON line ``{"port": P, "s3_port": Q, "pid": N}``.
Faults are queued per path with ``POST /_faults`` (``{"/name": [fault, ...]}``); each request to the
path takes the next one (a fault with ``"repeat": true`` stays). ``GET /_log`` lists the requests
seen (path, Range, status, body bytes sent). Faults:

- ``{"status": 503, "retry_after": "1"}`` answer that status (S3 mode: an S3 XML error body);
- ``{"drop_after": N}`` send the headers and N bytes of the body, then close the connection;
- ``{"reset_after": N}`` the same, closed with a TCP reset;
- ``{"stall_after": N, "stall_s": S}`` send N bytes, then nothing for S seconds, then close;
- ``{"trickle": B, "delay_s": D}`` send the whole body B bytes at a time, D seconds apart;
- ``{"length_delta": D}`` announce Content-Length + D (D > 0: close after the real body);
- ``{"ignore_range": true}`` answer 200 with the whole file even when a Range was asked;
- ``{"redirect": URL, "code": 302}`` answer a redirect to URL (relative or absolute);
- ``{"endless": true}`` answer 200 without Content-Length and send bytes until the client leaves.

Files are served with ETag, Accept-Ranges and 206/416 like a CDN (data.commoncrawl.org).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")
_CHUNK = 1 << 20


class State:
    def __init__(self, root: str | None, s3_upstream: tuple[str, int] | None):
        self.root, self.s3_upstream = root, s3_upstream
        self.faults: dict[str, list[dict]] = {}
        self.log: list[dict] = []
        self.lock = threading.Lock()

    def next_fault(self, path: str) -> dict:
        with self.lock:
            queue = self.faults.get(path) or []
            if not queue:
                return {}
            return queue[0] if queue[0].get("repeat") else queue.pop(0)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"          # keep-alive: clients reuse connections as they would on a CDN
    state: State

    def log_message(self, *args) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes: without this, Nagle's algorithm holds the body
        # back for the client's delayed ACK (40 ms per request on a kept-alive connection)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # --- control --------------------------------------------------------------------------
    def _json(self, status: int, payload) -> None:
        blob = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(blob)))
        self.end_headers()
        self.wfile.write(blob)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/_faults":
            with self.state.lock:
                for path, faults in json.loads(body or b"{}").items():
                    self.state.faults[path] = list(faults)
            return self._json(200, {"ok": True})
        if self.path == "/_reset":
            with self.state.lock:
                self.state.faults.clear()
                self.state.log.clear()
            return self._json(200, {"ok": True})
        return self._forward(body)

    def do_PUT(self) -> None:
        self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def do_HEAD(self) -> None:
        self._forward(b"")

    # --- data -----------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path == "/_log":
            with self.state.lock:
                return self._json(200, list(self.state.log))
        path = self.path.split("?", 1)[0]
        fault = self.state.next_fault(path)
        asked = self.headers.get("Range")
        entry = {"path": path, "range": asked, "status": None, "sent": 0, "client": self.client_address[1]}
        with self.state.lock:
            self.state.log.append(entry)
        if "status" in fault:
            entry["status"] = fault["status"]
            return self._error(int(fault["status"]), fault.get("retry_after"))
        if "redirect" in fault:
            entry["status"] = int(fault.get("code", 302))
            self.send_response(entry["status"])
            self.send_header("Location", fault["redirect"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if fault.get("endless"):
            entry["status"] = 200
            return self._endless(entry)
        if fault.get("ignore_range"):
            asked = None
        status, headers, size, chunks = self._source(path, asked)
        entry["status"] = status
        if status >= 400:
            return self._error(status, None, headers, b"".join(chunks))
        length = size + int(fault.get("length_delta", 0))
        self.send_response(status)
        for key, value in headers.items():
            if key.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(max(0, length)))
        self.end_headers()
        limit = length if length < size else size
        for key in ("drop_after", "reset_after", "stall_after"):
            if key in fault:
                limit = min(limit, int(fault[key]))
        sent = self._send(chunks, limit, fault)
        entry["sent"] = sent
        if sent < length:              # the body ends early: close so the client sees it
            if "stall_after" in fault:
                time.sleep(float(fault.get("stall_s", 5)))
            if "reset_after" in fault:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _endless(self, entry: dict) -> None:
        """A body with no end (and no length): the client has to bound its read."""
        self.send_response(200)
        self.send_header("Content-Type", "application/warc")
        self.end_headers()
        self.close_connection = True
        block = b"WARC/1.0\r\n" + b"x" * (64 << 10)
        try:
            while True:
                self.wfile.write(block)
                entry["sent"] += len(block)
        except OSError:
            pass

    def _send(self, chunks, limit: int, fault: dict) -> int:
        sent = 0
        piece = int(fault.get("trickle", 0))
        try:
            for chunk in chunks:
                chunk = chunk[: limit - sent]
                if piece:
                    for i in range(0, len(chunk), piece):
                        self.wfile.write(chunk[i:i + piece])
                        self.wfile.flush()
                        time.sleep(float(fault.get("delay_s", 0.01)))
                else:
                    self.wfile.write(chunk)
                sent += len(chunk)
                if sent >= limit:
                    break
            self.wfile.flush()
        except OSError:
            self.close_connection = True
        return sent

    def _source(self, path: str, asked: str | None):
        """(status, headers, length of the body, body chunks) for ``path`` and a Range header."""
        if self.state.s3_upstream:
            return self._upstream("GET", path, asked)
        local = os.path.join(self.state.root, path.lstrip("/"))
        if not os.path.isfile(local):
            return 404, {}, 0, [b"not found"]
        st = os.stat(local)
        size, etag = st.st_size, f'"{st.st_size:x}-{int(st.st_mtime_ns):x}"'
        headers = {"ETag": etag, "Accept-Ranges": "bytes", "Content-Type": "application/warc"}
        start, stop = 0, size
        match = _RANGE.match(asked or "")
        if match:
            start = int(match.group(1))
            stop = min(size, int(match.group(2)) + 1) if match.group(2) else size
            if start >= size:
                return 416, {"Content-Range": f"bytes */{size}"}, 0, [b""]
            headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"

        def chunks():
            with open(local, "rb") as fh:
                fh.seek(start)
                left = stop - start
                while left > 0:
                    block = fh.read(min(_CHUNK, left))
                    if not block:
                        return
                    left -= len(block)
                    yield block

        return (206 if match else 200), headers, stop - start, chunks()

    def _upstream(self, method: str, path: str, asked: str | None, body: bytes = b""):
        host, port = self.state.s3_upstream
        conn = http.client.HTTPConnection(host, port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "range", "connection")}
        if asked:
            headers["Range"] = asked
        conn.request(method, self.path, body=body or None, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
        conn.close()
        return resp.status, dict(resp.getheaders()), len(payload), [payload]

    def _forward(self, body: bytes) -> None:
        if not self.state.s3_upstream:
            return self._error(405, None)
        status, headers, size, chunks = self._upstream(self.command, self.path, self.headers.get("Range"), body)
        self.send_response(status)
        for key, value in headers.items():
            if key.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(b"".join(chunks))

    def _error(self, status: int, retry_after, headers=None, body: bytes = b"") -> None:
        if self.state.s3_upstream and not body:
            code = {503: "SlowDown", 500: "InternalError", 403: "AccessDenied", 404: "NoSuchKey"}.get(status, "Error")
            body = (f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{code}</Code>"
                    f"<Message>injected</Message></Error>").encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            if key.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(key, value)
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FaultServer:
    """This server as a child process, for tests, scripts and benches: started on an ephemeral
    127.0.0.1 port, stopped by its pid (``with FaultServer(root=...) as server: ...``)."""

    def __init__(self, root: str | None = None, s3: bool = False):
        import subprocess

        args = [sys.executable, os.path.abspath(__file__)] + (["--root", str(root)] if root else []) \
            + (["--s3"] if s3 else [])
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"fault server did not start (exit code {self.process.wait()})")
        info = json.loads(line)
        self.port, self.s3_port, self.pid = info["port"], info["s3_port"], info["pid"]
        self.url = f"http://127.0.0.1:{self.port}"

    def _call(self, path: str, payload=None):
        import urllib.request

        data = None if payload is None else json.dumps(payload).encode()
        with urllib.request.urlopen(urllib.request.Request(self.url + path, data=data), timeout=30) as resp:
            return json.loads(resp.read())

    def faults(self, plan: dict[str, list[dict]]) -> None:
        """Queue faults per path (``{"/name": [fault, ...]}``); ``[]`` clears a path's queue."""
        self._call("/_faults", plan)

    def reset(self) -> None:
        self._call("/_reset", {})

    def log(self) -> list[dict]:
        return self._call("/_log")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.pid, 15)
            self.process.wait(timeout=30)
        self.process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="serve files from this folder")
    parser.add_argument("--s3", action="store_true", help="put moto's S3 server behind the faults")
    args = parser.parse_args(argv)
    upstream, moto = None, None
    if args.s3:
        from moto.server import ThreadedMotoServer

        moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        moto.start()
        upstream = moto.get_host_and_port()
    Handler.state = State(args.root, upstream)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1], "s3_port": upstream[1] if upstream else None,
                      "pid": os.getpid()}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if moto is not None:
            moto.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
