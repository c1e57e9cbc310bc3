"""Issue 27's table of hostile inputs, redone: each case run as a user would, with what happens now.

    .venv/bin/python scripts/hostile_inputs_table.py [--out DIR]

Every case runs the real CLI (one process per case: ``crawlplan job extract``, ``crawlplan export
budgets``, ``crawlplan job`` twice on one folder) on inputs built by the tests' own generators
(tests/test_records_hostile.py's raw WARC records, tests/test_exports_hostile.py's hostile budget
rows) and the tests' loopback server (tests/reliability/faultserver.py, 127.0.0.1 only, started and
stopped here by its pid). It prints the markdown table of docs/security.md ("Hostile inputs,
redone"): the case, what crawlplan does now (read back from the outputs: ``warc_files`` status and
error, reject reasons, documents, exit code, the parsed export), and the test that keeps it so.
Takes about five minutes on two cores (a JVM per case).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "reliability")]
SECRET_LINE = "root:x:0:0:"            # what /etc/passwd would leak


def cli(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([sys.executable, "-m", "crawlplan.cli", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def extract(inputs: Path, out: Path, *settings: str) -> dict:
    """``crawlplan job extract`` and what it left: file statuses, reject reasons, documents."""
    import pyarrow.parquet as pq

    sets = ["spark.log_level=ERROR", "extract.extractor=resiliparse", "remote.backoff_s=0.2",
            "remote.backoff_max_s=0.5", *settings]
    started = time.monotonic()
    done = cli("job", "extract", "--input", str(inputs), "--output", str(out),
               *[x for s in sets for x in ("--set", s)])
    seconds = time.monotonic() - started

    def rows(name):
        return pq.read_table(out / name).to_pylist() if (out / name).is_dir() else []

    files, rejects = rows("warc_files"), rows("rejects")
    leaked = SECRET_LINE in done.stdout + done.stderr or any(SECRET_LINE in json.dumps(r, default=str)
                                                             for r in files + rejects)
    return {"exit": done.returncode, "files": files, "reasons": Counter(r["reason"] for r in rejects),
            "documents": len(rows("documents")), "leaked": leaked, "seconds": seconds,
            "error": next((ln for ln in done.stderr.splitlines() if ln.startswith("crawlplan: error")), "")}


def statuses(res: dict) -> str:
    return "; ".join(f"`{f['status']}`" + (f" ({f['error'][:110]})" if f.get("error") else "") for f in res["files"])


def reasons(res: dict) -> str:
    return ", ".join(f"{n} `{r}`" for r, n in sorted(res["reasons"].items())) or "none"


def case_export(work: Path) -> list[tuple[str, str, str]]:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
    from test_exports_hostile import BAD_HOSTS, GOOD, INJECTION, PROCESS_BUILDER, _row

    rows = [_row(s, i + 1) for i, s in enumerate(GOOD)] + [_row(s, 100 + i) for i, s in enumerate(BAD_HOSTS.values())]
    src = work / "budgets"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False), src / "part-0.parquet")
    done = cli("export", "budgets", "--input", str(src), "--plans", "none", "--format", "all", "--out", str(work / "x"))
    tree = ET.parse(next((work / "x" / "heritrix").glob("*.cxml")))
    classes = Counter(b.get("class") for b in tree.iter() if b.tag.endswith("bean"))
    seeds = (work / "x" / "nutch" / "seeds.txt").read_text(encoding="utf-8").split("\n")
    summary = [ln.strip() for ln in done.stdout.splitlines() if "skipped_unsafe" in ln]
    heritrix_line = next((ln for ln in summary if ln.startswith("heritrix")), "?")
    skipped = heritrix_line.split("skipped_unsafe ", 1)[-1].split(":")[0]
    return [(
        f"a host name containing `\"`, `<`, `>`, newlines, tabs, NUL, `]]>`, `../`, a 10 kB label, or the crafted "
        f"`{INJECTION[:40]}...` row in `budgets`, then `export budgets --format all`",
        f"exit {done.returncode}; each crawler format skips the {len(BAD_HOSTS)} unsafe rows and counts them "
        f"(heritrix: `skipped_unsafe {skipped}`); the Heritrix XML parses (ElementTree), "
        f"{classes.get(PROCESS_BUILDER, 0)} `{PROCESS_BUILDER}` beans; Nutch seeds.txt "
        f"{len([s for s in seeds if s])} lines for {len(GOOD)} safe hosts; the tables keep all "
        f"{len(rows)} rows, quoted",
        "tests/test_exports_hostile.py")]


def case_urls(work: Path) -> list[tuple[str, str, str]]:
    from test_records_hostile import good, response, write

    records = [good(1), response(b"http://x<!--y.com/", n=2), response(b"http://bad\xff\xfeutf8.example.com/", n=3),
               response(b"http://big.example.com/" + b"a" * 100_000, n=4), good(5)]
    path = write(work, "urls", records, gzipped=True)
    res = extract(Path(path), work / "out-urls")
    return [("`http://x<!--y.com/`, an invalid-UTF-8 `WARC-Target-URI` and a 100 kB URL in a WARC file "
             "(between two good records)",
             f"exit {res['exit']}; {res['documents']} documents (the good ones); rejects: {reasons(res)}; "
             f"file {statuses(res)}",
             "tests/test_records_hostile.py::test_hostile_urls_are_bad_url_rejects, "
             "::test_a_100kb_url_is_a_bad_header_reject_and_the_file_goes_on")]


def case_listing(work: Path) -> list[tuple[str, str, str]]:
    base = work / "base"
    base.mkdir()
    listing = work / "hostile.paths"
    listing.write_text("../../etc/passwd\n/etc/passwd\nfile:///etc/passwd\nhttp://169.254.169.254/latest/meta-data/\n")
    res = extract(listing, work / "out-listing", f"inputs.warc_base={base}/")
    return [("listing entries `../../etc/passwd`, `/etc/passwd`, `file:///etc/passwd`, "
             "`http://169.254.169.254/latest/meta-data/` (base: a local folder)",
             f"exit {res['exit']}; {len(res['files'])} `warc_files` rows: {statuses(res)}; rejects: {reasons(res)}; "
             f"`{SECRET_LINE}` in any output or message: {'yes' if res['leaked'] else 'no'}",
             "tests/test_listing_confined.py")]


def case_remote(work: Path) -> list[tuple[str, str, str]]:
    from faultserver import FaultServer
    from test_records_hostile import good, write

    served = work / "served"
    served.mkdir()
    write(served, "f", [good(i) for i in range(40)], gzipped=True)
    name = "f.warc.gz"
    out = []
    with FaultServer(root=served) as server:
        listing = work / "remote.paths"
        # another host name for the same loopback server: refused by the listing rule, never connected to
        listing.write_text(f"{name}\nhttp://localhost:{server.url.rsplit(':', 1)[1]}/{name}\n")
        res = extract(listing, work / "out-other-host", f"inputs.warc_base={server.url}/")
        out.append(("a listing entry `http://<another host>/...` (`localhost`) beside one under the base "
                    "(`inputs.warc_base` on 127.0.0.1, `remote.allow_private_addresses` off)",
                    f"exit {res['exit']}; {statuses(res)}; {res['documents']} documents",
                    "tests/test_listing_confined.py, tests/test_remote_bounds.py::"
                    "test_a_loopback_url_is_refused_without_the_setting_before_any_request"))
        one = work / "one.paths"
        one.write_text(name + "\n")
        server.reset()
        server.faults({f"/{name}": [{"trickle": 1, "delay_s": 1.0, "repeat": True}]})
        res = extract(one, work / "out-trickle", f"inputs.warc_base={server.url}/", "remote.allow_private_addresses=true",
                      "remote.min_bytes_per_s=100", "remote.throughput_window_s=2", "remote.file_deadline_s=10")
        out.append(("a server that trickles 1 byte per second (`remote.min_bytes_per_s=100`, "
                    "`throughput_window_s=2`, `file_deadline_s=10`)",
                    f"exit {res['exit']} after {res['seconds']:.0f} s (JVM start included); {statuses(res)}",
                    "tests/test_remote_bounds.py::test_a_trickling_server_is_truncated_within_its_bounds"))
        server.reset()
        endless = served / "endless.warc"
        endless.write_bytes(b"WARC/1.0\r\nWARC-Type: response\r\nX-Endless: " + b"a" * 50_000_000)
        one.write_text("endless.warc\n")
        res = extract(one, work / "out-endless", f"inputs.warc_base={server.url}/", "remote.allow_private_addresses=true")
        out.append(("a 200 answer whose WARC header line never ends (50 MB, no newline)",
                    f"exit {res['exit']}; {statuses(res)}; rejects: {reasons(res)}",
                    "tests/test_records_hostile.py::test_an_endless_header_line_is_read_in_bounded_memory, "
                    "tests/test_remote_bounds.py::test_an_endless_answer_is_cut_at_the_deadline"))
    return out


def case_lengths(work: Path) -> list[tuple[str, str, str]]:
    from test_records_hostile import good, response, write

    past = write(work, "past", [good(1), response(b"http://long.example.com/", length_delta=4000, n=2), good(3), good(4)],
                 gzipped=False)
    res = extract(Path(past), work / "out-past")
    rows = [("a record whose `Content-Length` runs past the next records (uncompressed WARC)",
             f"exit {res['exit']}; {statuses(res)}; {res['documents']} documents (the records after it are read "
             f"again from the next `WARC/1.x` line); rejects: {reasons(res)}",
             "tests/test_records_hostile.py::test_a_length_past_the_next_records_is_bad_length_and_the_next_records_are_read")]
    cut = work / "cut.warc"
    data = b"".join([good(1), good(2)])
    cut.write_bytes(data[: len(data) - 300])
    res = extract(cut, work / "out-cut")
    rows.append(("a cut final record",
                 f"exit {res['exit']}; {statuses(res)}; {res['documents']} document(s); rejects: {reasons(res)}",
                 "tests/test_records_hostile.py::test_a_cut_final_record_is_truncated_and_not_a_document"))
    text = work / "notes.warc.gz"
    text.write_text("\n".join(f"line {i}: just text, not an archive" for i in range(500)))
    res = extract(text, work / "out-text")
    rows.append(("a text file named `.warc.gz`",
                 f"exit {res['exit']}; {statuses(res)}; {sum(f['records'] for f in res['files'])} records; "
                 f"rejects: {reasons(res)}",
                 "tests/test_records_hostile.py::test_a_text_file_named_like_a_warc_is_corrupt_with_no_records"))
    return rows


def case_outputs(work: Path) -> list[tuple[str, str, str]]:
    out = work / "shared-out"
    first = subprocess.Popen([sys.executable, "-m", "crawlplan.cli", "run", "--until", "extract", "--out", str(out),
                              "--set", "spark.log_level=ERROR"], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO), "PYSPARK_PYTHON": sys.executable})
    deadline = time.monotonic() + 300
    while not (out / "_lease.json").exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
    started = time.monotonic()
    second = cli("run", "--until", "extract", "--out", str(out), "--set", "spark.log_level=ERROR")
    refused_in = time.monotonic() - started
    first_out, first_err = first.communicate(timeout=1800)
    message = next((ln for ln in second.stderr.splitlines() if ln.startswith("crawlplan: error")), second.stderr[-200:])
    rows = [("two `crawlplan run --out SAME` at once",
             f"the second exits {second.returncode} after {refused_in:.0f} s (its JVM start) with one line: "
             f"`{message[:150]}...`; the first exits {first.returncode}",
             "tests/test_lease.py::test_cli_two_processes_one_folder_and_unwritable_outputs_exit_2_in_one_line")]
    target = work / "a-file"
    target.write_text("x")
    done = cli("job", "simulate", "--input", str(work), "--output", str(target), "--set", "spark.log_level=ERROR")
    readonly = cli("job", "simulate", "--input", str(work), "--output", "/proc/crawlplan-out", "--set",
                   "spark.log_level=ERROR")
    lines = [next((ln for ln in p.stderr.splitlines() if ln.startswith("crawlplan: error")), p.stderr[-200:])
             for p in (done, readonly)]
    rows.append(("`--output` that is a file, or on a path that cannot be written (`/proc/...`)",
                 f"before any node: exit {done.returncode}, `{lines[0]}`; exit {readonly.returncode}, `{lines[1]}`",
                 "tests/test_lease.py::test_an_output_that_is_a_file_fails_before_any_node"))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="keep the work folder here (default: a temporary folder, removed)")
    args = ap.parse_args()
    work = Path(args.out or tempfile.mkdtemp(prefix="hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for case in (case_export, case_urls, case_listing, case_remote, case_lengths, case_outputs):
        folder = work / case.__name__
        folder.mkdir(exist_ok=True)
        for row in case(folder):
            rows.append(row)
            print(f"| {' | '.join(row)} |", file=sys.stderr, flush=True)
    print("| case | what happens now (measured by this script) | test |\n|---|---|---|")
    for row in rows:
        # the work folder is this machine's temporary path: shown as WORK
        print("| " + " | ".join(cell.replace(str(work), "WORK").replace("|", "\\|").replace("\n", " ")
                                for cell in row) + " |")
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
