"""A pywb replay server for WARC files on 127.0.0.1 (run in the crawl venv).

``python -m crawlplan.crawlers.replay --root DIR --warcs a.warc.gz ... --port-file P`` builds a
pywb collection ``demo`` under DIR (``wb-manager init`` + ``add``: the WARCs are copied and
indexed), starts pywb's FrontEndApp on 127.0.0.1 port 0 (the OS picks a free port) and writes
the port to P once it is listening. Stop it by its pid (``ReplayServer.stop``).

``ReplayServer`` is the caller's side (any venv): starts that process, waits for the port,
stops it by pid.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

COLLECTION = "demo"


def serve(root: Path, warcs: list[str], port_file: Path) -> None:
    # pywb and gevent: the optional crawl venv (.venv-crawl, scripts/test-extras.sh); gevent patches first
    from gevent import monkey

    monkey.patch_all()
    # after patch_all: pywb must see the patched standard library
    from gevent.pywsgi import WSGIServer
    from pywb.apps.frontendapp import FrontEndApp
    from pywb.manager.manager import CollectionsManager

    root.mkdir(parents=True, exist_ok=True)
    os.chdir(root)
    if not (root / "collections" / COLLECTION).is_dir():
        CollectionsManager(COLLECTION, must_exist=False).add_collection()
    manager = CollectionsManager(COLLECTION)
    manager.add_archives(warcs)
    server = WSGIServer(("127.0.0.1", 0), FrontEndApp(), log=None)
    server.start()
    tmp = port_file.with_suffix(".tmp")
    tmp.write_text(str(server.server_port))
    tmp.rename(port_file)
    server.serve_forever()


class ReplayServer:
    """pywb in its own process: ``prefix`` is the id_ (unmodified) replay prefix."""

    def __init__(self, python: str, root: Path, warcs: list[str], timeout: float = 180.0):
        self.root = Path(root)
        self.port_file = self.root / "port"
        self.port_file.unlink(missing_ok=True)
        self.log = open(self.root.parent / f"{self.root.name}.log", "wb") if self.root.parent.exists() else None
        repo = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": repo}
        self.proc = subprocess.Popen([python, "-m", "crawlplan.crawlers.replay", "--root", str(self.root),
                                      "--port-file", str(self.port_file), "--warcs", *warcs],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not self.port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"pywb did not start (see {self.root.parent / (self.root.name + '.log')})")
            time.sleep(0.2)
        self.port = int(self.port_file.read_text())
        self.prefix = f"http://127.0.0.1:{self.port}/{COLLECTION}/id_/"

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.log:
            self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m crawlplan.crawlers.replay")
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--warcs", nargs="+", required=True)
    args = ap.parse_args(argv)
    serve(Path(args.root).resolve(), [str(Path(w).resolve()) for w in args.warcs], Path(args.port_file).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
