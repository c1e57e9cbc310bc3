"""Issue 16's table, redone: ``crawlplan job extract`` over a loopback HTTP server that misbehaves.

    .venv/bin/python scripts/remote_faults_table.py [--extractor trafilatura] [--out DIR]

Serves ``../shared/data/realpages/realpages.warc.gz`` from tests/reliability/faultserver.py on
127.0.0.1 and runs the real CLI (one process per case, as a user would) with
``inputs.warc_base=http://127.0.0.1:PORT/`` and a listing naming the file. For each fault it
prints the documents written, the file's ``warc_files`` status (attempts), and the exit code;
then, for the last failing case, what ``--retry-failed`` does once the server is fixed.
Takes a few minutes (trafilatura on 1,171 pages per case). Backoff is shortened
(``remote.backoff_s=0.2``) so that the permanent cases do not wait minutes; the Retry-After
header is honoured as always.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "reliability"))
SHARED = Path(os.environ.get("CRAWLPLAN_SHARED_DATA", REPO.parent / "shared" / "data"))
NAME = "realpages.warc.gz"
HALF = 17_000_000          # about half of the file's 34.5 MB

CASES = [  # (description, faults for the file, extra settings)
    ("none", [], []),
    ("the connection closed after half of the body, once", [{"drop_after": HALF}], []),
    ("one `503` with `Retry-After: 1`, then normal", [{"status": 503, "retry_after": "1"}], []),
    ("a TCP reset after half, then a read stalled past `remote.read_timeout_s`",
     [{"reset_after": HALF}, {"stall_after": 1000, "stall_s": 8}], ["remote.read_timeout_s=3"]),
    ("the server ignores `Range` (200), and closes after half, once",
     [{"drop_after": HALF}, {"ignore_range": True}], []),
    ("a body 5,000 bytes shorter than its `Content-Length`, every time", [{"length_delta": 5000, "repeat": True}], []),
    ("the file on the server is cut inside its last gzip member", "cut", []),
    ("the same, with `extract.max_failed_files=1`", "cut", ["extract.max_failed_files=1"]),
    ("`503` on every request", [{"status": 503, "repeat": True}], []),
    ("`404`", [{"status": 404, "repeat": True}], []),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extractor", default="trafilatura")
    ap.add_argument("--out", help="keep the outputs here (default: a temporary folder, removed)")
    args = ap.parse_args()
    from faultserver import FaultServer

    source = SHARED / "realpages" / NAME
    if not source.is_file():
        raise SystemExit(f"{source} not found (set CRAWLPLAN_SHARED_DATA)")
    work = Path(args.out or tempfile.mkdtemp(prefix="remote-faults-"))
    served = work / "served"
    served.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    (served / NAME).write_bytes(data)
    (served / f"cut-{NAME}").write_bytes(data[: len(data) - 20_000])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rows = []
    with FaultServer(root=served) as server:
        for i, (what, faults, extra) in enumerate(CASES):
            name = f"cut-{NAME}" if faults == "cut" else NAME
            listing = work / f"case{i}.paths"
            listing.write_text(name + "\n")
            server.reset()
            if faults != "cut":
                server.faults({f"/{name}": faults})
            out = work / f"case{i}"
            done = run_extract(env, listing, out, server.url, args.extractor, extra)
            rows.append(summarize(what, out, done))
            print(table_row(rows[-1]), flush=True)
        # the last failing case, after the outage: only the failed file is read again
        server.reset()
        out = work / f"case{len(CASES) - 2}"
        done = run_extract(env, work / f"case{len(CASES) - 2}.paths", out, server.url, args.extractor,
                           [], retry=True)
        rows.append(summarize("the `503` case again with `--retry-failed`, the server fixed", out, done))
        print(table_row(rows[-1]), flush=True)
        requests = len(server.log())
    print(f"\n(--retry-failed made {requests} request(s))\n")
    print("| fault injected | documents | warc_files status (attempts) | exit |\n|---|---:|---|---:|")
    for row in rows:
        print(table_row(row))
    for row in rows:
        if row["message"]:
            print(f"\n{row['what']}:\n{row['message']}")
    (work / "table.json").write_text(json.dumps(rows, indent=2))
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run_extract(env, listing: Path, out: Path, base: str, extractor: str, extra: list[str], retry=False):
    cmd = [sys.executable, "-m", "crawlplan.cli", "job", "extract", "--input", str(listing), "--output", str(out),
           "--set", f"inputs.warc_base={base}/", "--set", f"extract.extractor={extractor}",
           "--set", "remote.backoff_s=0.2", "--set", "remote.backoff_max_s=1", "--set", "spark.log_level=ERROR",
           "--set", "remote.allow_private_addresses=true"]          # the fault server is on 127.0.0.1
    for setting in extra:
        cmd += ["--set", setting]
    if retry:
        cmd.append("--retry-failed")
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=3600)


def summarize(what: str, out: Path, done) -> dict:
    import pyarrow.parquet as pq

    documents = pq.read_table(out / "documents").num_rows if (out / "documents").is_dir() else None
    status = ""
    if (out / "warc_files").is_dir():
        files = pq.read_table(out / "warc_files").to_pylist()
        status = ", ".join(f"{f['status']} ({f['attempts']})" for f in files)
    message = next((line for line in done.stderr.splitlines() if line.startswith("crawlplan: error")), "")
    if message:
        message = done.stderr[done.stderr.index(message):].strip()
    marker = out / "_markers" / "extract.json"
    notes = json.loads(marker.read_text()).get("notes", []) if marker.is_file() and done.returncode == 0 else []
    return {"what": what, "documents": documents, "status": status, "exit": done.returncode,
            "message": message or "\n".join(notes)}


def table_row(row: dict) -> str:
    docs = "-" if row["documents"] is None else f"{row['documents']:,}"
    return f"| {row['what']} | {docs} | {row['status']} | {row['exit']} |"


if __name__ == "__main__":
    sys.exit(main())
