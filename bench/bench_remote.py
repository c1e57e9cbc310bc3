"""What reading a WARC over HTTP costs against reading it from disk, side by side in one run.

    .venv/bin/python bench/bench_remote.py [--repeats 5]
    .venv/bin/python bench/bench_remote.py --smoke   # realpages' first 200 records, 1 repeat, 20 ranges

Serves realpages (34 MB, 1,171 records) from the loopback fault server
(tests/reliability/faultserver.py, Python's http.server, no faults) and reads it through
``crawlplan.warc.remote.open_stream`` -- the extract job's path, with its retry bookkeeping, Range
resume and tail keeping -- against the same function on the local file, alternating, after an
untimed warm-up. Three measures, each the median of ``--repeats``:

1. raw bytes: the whole file in ``remote.buffer_bytes`` reads (MB/s);
2. the WARC reader: ``iter_records`` with warcio and with fastwarc, bodies decoded (records/s);
3. the same bytes over HTTP through ``open_stream`` against a bare urllib3 read loop (what the
   retry, resume and tail-keeping layer costs);
4. 200 single-record byte ranges (sampling's access pattern): ``read_range`` over the pooled
   urllib3 connection against ``urllib.request`` opening a new connection per range, as the old
   reader did.

Prints a table and saves bench/results/remote.json. Loopback has no latency or bandwidth limit,
so (1) and (2) bound the reader's own overhead; on a real network the bandwidth decides.

``--smoke``: the first 200 records of realpages, one repeat, 20 ranges; checks that every read
got the file's bytes (or the same records) over HTTP as from disk and that the table has its rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import urllib.request
from dataclasses import replace

from benchlib import REPO, check, head_warc, machine, ok, realpages, save, shared_missing, skipped

sys.path.insert(0, str(REPO / "tests" / "reliability"))


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ranges", type=int, default=200)
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        if shared_missing():
            return skipped(shared_missing())
        args.repeats, args.ranges = 1, 20
    from faultserver import FaultServer
    from warcgen import member_offsets

    from crawlplan.conf import load_conf, section
    from crawlplan.warc.reader import FileOutcome, ReadLimits, iter_records
    from crawlplan.warc.remote import RetryPolicy, open_stream, read_range

    path = head_warc(200) if args.smoke else realpages()
    size = path.stat().st_size
    data = path.read_bytes()
    offsets = member_offsets(data)
    step = max(1, len(offsets) // args.ranges)
    ranges = [(offsets[i], offsets[i + 1] - offsets[i]) for i in range(0, len(offsets) - 1, step)][: args.ranges]
    policy = replace(RetryPolicy.from_params(section(load_conf(), "remote")), allow_private_addresses=True)   # the server is on 127.0.0.1

    def raw(source):
        with open_stream(source, policy) as stream:
            return sum(len(b) for b in iter(lambda: stream.read(policy.buffer_bytes), b""))

    def records(source, reader):
        outcome = FileOutcome(source)
        n = sum(1 for _ in iter_records(source, outcome, reader=reader, remote=policy,
                                         limits=ReadLimits.from_params(section(load_conf(), "extract"))))
        assert outcome.status == "ok", outcome
        return n

    def bare_urllib3(url):
        import urllib3

        response = urllib3.PoolManager().request("GET", url, preload_content=False, decode_content=False)
        total = sum(len(b) for b in iter(lambda: response.read(policy.buffer_bytes), b""))
        response.release_conn()
        return total

    def pooled(url):
        return sum(len(read_range(url, s, n, policy)) for s, n in ranges)

    def fresh_connections(url):
        total = 0
        for s, n in ranges:
            request = urllib.request.Request(url, headers={"Range": f"bytes={s}-{s + n - 1}"})
            with urllib.request.urlopen(request, timeout=60) as resp:   # noqa: S310 (loopback)
                total += len(resp.read())
        return total

    results: dict[str, dict[str, list[float]]] = {}
    counts: dict[str, set] = {}        # what each read returned: bytes or records, the same both ways
    with FaultServer(root=path.parent) as server:
        url = f"{server.url}/{path.name}"
        cases = {
            "raw bytes (MB/s)": (lambda: raw(str(path)), lambda: raw(url), size / 1e6),
            "raw bytes over http: bare urllib3 vs open_stream (MB/s)": (
                lambda: bare_urllib3(url), lambda: raw(url), size / 1e6),
            "iter_records warcio (records/s)": (lambda: records(str(path), "warcio"),
                                                lambda: records(url, "warcio"), None),
            "iter_records fastwarc (records/s)": (lambda: records(str(path), "fastwarc"),
                                                  lambda: records(url, "fastwarc"), None),
        }
        for name, (local_fn, remote_fn, units) in cases.items():
            local_fn(), remote_fn()                                   # warm-up: page cache, pool, imports
            for rep in range(args.repeats):
                labels = ("urllib3", "open_stream") if "bare" in name else ("disk", "http")
                order = ((labels[0], local_fn), (labels[1], remote_fn))
                for label, fn in order if rep % 2 == 0 else order[::-1]:
                    seconds, count = timed(fn)
                    counts.setdefault(name, set()).add(count)
                    results.setdefault(name, {}).setdefault(label, []).append((units or count) / seconds)
        name = f"{len(ranges)} single-record ranges (ranges/s)"
        pooled(url), fresh_connections(url)
        for rep in range(args.repeats):
            order = (("pooled", lambda: pooled(url)), ("new connection each", lambda: fresh_connections(url)))
            for label, fn in order if rep % 2 == 0 else order[::-1]:
                seconds, total = timed(fn)
                assert total == sum(n for _, n in ranges)
                results.setdefault(name, {}).setdefault(label, []).append(len(ranges) / seconds)

    rows = []
    print(f"| measure | {'a':>22} | {'b':>22} | b / a |")
    for name, by in results.items():
        (a_label, a), (b_label, b) = [(k, statistics.median(v)) for k, v in by.items()]
        rows.append({"measure": name, a_label: round(a, 1), b_label: round(b, 1), "ratio": round(b / a, 3),
                     "samples": by})
        print(f"| {name} | {a_label} {a:,.1f} | {b_label} {b:,.1f} | {b / a:.2f} |")
    save("smoke/remote" if args.smoke else "remote", {"machine": machine(), "file": str(path), "bytes": size, "repeats": args.repeats,
                    "results": rows})
    if args.smoke:
        check(len(rows) == 5, f"{len(rows)} table rows, not 5")
        for name, got in counts.items():
            check(len(got) == 1 and min(got) > 0, f"{name}: the two sides read {sorted(got)}")
        check(counts["raw bytes (MB/s)"] == {size}, f"raw reads got {counts['raw bytes (MB/s)']} bytes of {size}")
        return ok(f"{len(rows)} measures, {size:,} bytes and {min(counts['iter_records warcio (records/s)'])} "
                  "records the same over HTTP as from disk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
