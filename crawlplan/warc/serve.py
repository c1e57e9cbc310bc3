"""Serve a folder over loopback HTTP with ``Range`` support, for tests and benchmarks of remote
reads (Python's ``http.server`` ignores ``Range``). Binds 127.0.0.1 on an ephemeral port; the
caller stops it with ``server.shutdown()``."""

from __future__ import annotations

import os
import re
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class RangeHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:     # quiet: tests and benchmarks print their own lines
        pass

    def do_GET(self) -> None:
        match = _RANGE.match(self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if not match or not os.path.isfile(path):
            return super().do_GET()
        size = os.path.getsize(path)
        start = int(match.group(1))
        end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
        if start >= size:
            self.send_error(416)
            return
        with open(path, "rb") as fh:
            fh.seek(start)
            body = fh.read(end - start + 1)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_folder(folder: str) -> tuple[ThreadingHTTPServer, str]:
    """Start serving ``folder``; returns the server and its base URL (``http://127.0.0.1:PORT/``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
