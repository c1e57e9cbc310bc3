"""Sampled extract (k per host, by byte range through the columnar index) against the full extract.

    .venv/bin/python bench/bench_sampled_extract.py [--k 5] [--repeats 1] [--task-only]
    .venv/bin/python bench/bench_sampled_extract.py --smoke   # 20-host demo + two small shared files

Side by side in one run, on the demo crawl (its cc_index) and on the real WARC files of
../shared/data (warc/, servo/, realpages; indexed here with ``crawlplan index build``): the real
``extract`` node (fastwarc + resiliparse: the cheap path, where reading weighs most) at local[2],
``extract.mode=full`` and ``=sampled`` alternating after an untimed warm-up. Counted: bytes read
and records parsed (``warc_files``), CPU seconds per process class, wall time, and the selected
records' own bytes (their index lengths). Then the demo's sampled run once more with the WARC
files served over loopback HTTP (``inputs.warc_base=http://127.0.0.1:PORT/``), and a range-read
micro-benchmark: every selected range read by ``remote.read_range`` from the local file and over
loopback HTTP. Also the share of all pages k = 5 and k = 10 read, from the page counts per host
of the demo host index (``fetch_200``) and of the calibrated population. JSON in
bench/results/sampled_extract.json.

The CPU per record is measured where it scales with the crawl, in one Spark task's work timed
in-process (:func:`task_cpu`), three ways: per response record of the full extract, per
successful HTML capture (the sample's own unit), and on the same drawn records in both modes.
``--task-only`` measures only that (bench/results/sampled_extract_task_cpu.json).

``--smoke``: the 20-host demo, and as the real files only realpages' first ``SMOKE_REAL`` records
(benchlib.head_warc, indexed the same way), one repeat, 2,000 calibrated hosts; checks that in each dataset the
sampled run read fewer bytes than the full one (on the demo; no more on the real records) and wrote documents, that the range reads got the
same bytes over HTTP as from the file, and that the sampled run over HTTP wrote what the local
one wrote.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import glob
import os
import shutil
import sys
import tempfile
import time

from benchlib import (
    REPO,
    RESULTS,
    SHARED,
    check,
    cpu_seconds_by_process,
    demo_crawl,
    head_warc,
    machine,
    ok,
    save,
    shared_missing,
    skipped,
    spark_session,
)

sys.path.insert(0, str(REPO / "tests" / "reliability"))
from faultserver import FaultServer  # noqa: E402  (the tests' loopback server, with Range, no faults queued)

SMOKE_REAL = 200       # smoke: the real files are realpages' first 200 records (benchlib.head_warc)


def _index_real_files(smoke: bool = False) -> tuple[list[str], str, str]:
    """The real WARC files, their columnar index (built here) and the base their names are under."""
    from crawlplan.ccindex.build import build_index

    files = sorted(glob.glob(str(SHARED / "warc" / "*.gz")) + glob.glob(str(SHARED / "warc" / "servo" / "*.gz"))
                   + [str(SHARED / "realpages" / "realpages.warc.gz")])
    base = str(SHARED)
    if smoke:
        head = head_warc(SMOKE_REAL)
        files, base = [str(head)], str(head.parent)
    index = RESULTS / ("smoke" if smoke else "") / "real_cc_index"
    shutil.rmtree(index, ignore_errors=True)
    build_index(files, str(index), base=base, jobs=2)
    return files, str(index), base


def _file_key(path: str) -> str:
    return os.path.realpath(path.removeprefix("file://"))


@contextlib.contextmanager
def _timed_rows(spent: list):
    """Time each response record's row (``records._response_row``: filters, decode, extraction,
    language id; the same function in both modes) into ``spent`` as ``(file, offset, seconds)``,
    ``time.process_time``. The rows themselves are unchanged; the wrapper adds two clock reads and
    an append per record (about a microsecond, counted as reading in both modes)."""
    from crawlplan.extract import records

    original = records._response_row
    clock, note = time.process_time, spent.append

    def timed(rec, settings, seen_ids):
        t0 = clock()
        row = original(rec, settings, seen_ids)
        note((rec.warc_file, rec.offset, clock() - t0))
        return row

    records._response_row = timed
    try:
        yield
    finally:
        records._response_row = original


def task_cpu(inputs: dict, base: str, sel, html_captures: int, repeats: int = 3) -> dict:
    """CPU (``time.process_time``, this process only: exact under any load) of what one Spark task
    does: ``process_warc_file`` over every listed file against ``process_warc_ranges`` over the
    selected ranges, same settings, alternating, best of ``repeats``. Three measures per record:

    * per response (the first one reported): full CPU / every response record the full extract
      turns into a document or a reject (images, scripts, CSS included);
    * per HTML capture: full CPU / the index's successful HTML captures of the listed files, the
      population the sample draws from and in which its sampling fraction is counted;
    * same records: the full path's own CPU on exactly the drawn records (each one's row, timed
      inside the full pass, plus its file's reading in proportion to the record's bytes) against
      the sampled path's CPU on them, from ``repeats`` more runs of each mode with the rows timed.
    """
    from crawlplan.conf import load_conf, section
    from crawlplan.extract.records import ExtractSettings, process_warc_file, process_warc_ranges
    from crawlplan.warc.listing import resolve_entry, resolve_inputs

    settings = ExtractSettings.from_params({**section(load_conf(), "extract"), "reader": "fastwarc", "extractor": "resiliparse"},
                                           remote=section(load_conf(), "remote"))
    files = resolve_inputs(inputs["warc_paths"], base=base)
    root = inputs["cc_index"]
    gap = int(section(load_conf(), "extract")["sample"]["merge_gap_bytes"])
    groups = [(resolve_entry(name, base, root), part[["offset", "length", "url"]].to_dict("records"))
              for name, part in sel.groupby("warc_filename")]

    def one(mode: str, spent: list | None = None) -> tuple[float, dict, list]:
        """(CPU s, CPU s per file, rows) of one pass; ``spent`` set: each row timed into it."""
        per_file, rows = {}, []
        work = [(f, lambda f=f: process_warc_file(f, settings)) for f in files] if mode == "full" else \
            [(path, lambda p=path, r=ranges: process_warc_ranges(p, r, settings, gap)) for path, ranges in groups]
        with _timed_rows(spent) if spent is not None else contextlib.nullcontext():
            t0 = time.process_time()
            for path, rows_of in work:
                t1 = time.process_time()
                rows.extend(rows_of())
                per_file[path] = time.process_time() - t1
            return time.process_time() - t0, per_file, rows

    best = {"full": None, "sampled": None}
    counts, docs = {}, {}
    for rep in range(repeats):
        for mode in (("full", "sampled") if rep % 2 == 0 else ("sampled", "full")):
            spent, _, rows = one(mode)
            best[mode] = spent if best[mode] is None else min(best[mode], spent)
            counts[mode] = sum(r["kind"] != "file" and r.get("offset") is not None for r in rows)
            docs[mode] = sum(r["kind"] == "doc" for r in rows)
    per = {m: best[m] / counts[m] for m in best}
    per_doc = {m: best[m] / docs[m] for m in best}
    per_html = {"full": best["full"] / html_captures, "sampled": best["sampled"] / len(sel)}
    out = {"cpu_s": {m: round(v, 3) for m, v in best.items()}, "records_out": counts, "documents": docs,
           "cpu_ms_per_record": {m: round(1000 * v, 3) for m, v in per.items()},
           "cpu_per_record_sampled_over_full": round(per["sampled"] / per["full"], 3),
           "cpu_ms_per_document": {m: round(1000 * v, 3) for m, v in per_doc.items()},
           "cpu_per_document_sampled_over_full": round(per_doc["sampled"] / per_doc["full"], 3),
           "html_captures": html_captures,
           "cpu_ms_per_html_capture": {m: round(1000 * v, 3) for m, v in per_html.items()},
           "cpu_per_html_capture_sampled_over_full": round(per_html["sampled"] / per_html["full"], 3)}
    out["same_records"] = _same_records(one, sel, files, groups, repeats)
    return out


def _same_records(one, sel, files: list[str], groups: list, repeats: int) -> dict:
    """The full and the sampled path's CPU on exactly the drawn records (see :func:`task_cpu`).

    Full: each drawn record's own row time in the full pass, plus its file's reading (the file's
    CPU less all its rows' time: gunzip and header parsing of every record, the non-response ones
    included) times the record's share of the file's bytes. Sampled: the whole sampled pass (it
    reads nothing but the drawn records), split the same way into rows and reading. Best run of
    each mode (lowest total), alternating."""
    drawn = {(_file_key(path), int(r["offset"])): int(r["length"]) for path, ranges in groups for r in ranges}
    runs: dict[str, tuple] = {}
    for rep in range(repeats):
        for mode in (("sampled", "full") if rep % 2 == 0 else ("full", "sampled")):
            spent: list = []
            total, per_file, _ = one(mode, spent)
            if mode not in runs or total < runs[mode][0]:
                runs[mode] = (total, {_file_key(f): s for f, s in per_file.items()},
                              {(_file_key(f), offset): s for f, offset, s in spent})
    total, per_file, spent = runs["full"]
    rows_by_file: dict[str, float] = {}
    for (f, _), s in spent.items():
        rows_by_file[f] = rows_by_file.get(f, 0.0) + s
    matched = [key for key in drawn if key in spent]
    full_rows = sum(spent[key] for key in matched)
    full_reading = sum((per_file[key[0]] - rows_by_file.get(key[0], 0.0)) * drawn[key] / os.path.getsize(key[0])
                       for key in matched)
    s_total, _, s_spent = runs["sampled"]
    s_rows = sum(s_spent.get(key, 0.0) for key in drawn)
    n = len(drawn)
    full_ms, sampled_ms = 1000 * (full_rows + full_reading) / len(matched), 1000 * s_total / n
    return {"drawn_records": n, "found_in_full_pass": len(matched),
            "full": {"rows_s": round(full_rows, 3), "reading_share_s": round(full_reading, 3),
                     "pass_total_s": round(total, 3)},
            "sampled": {"rows_s": round(s_rows, 3), "reading_s": round(s_total - s_rows, 3),
                        "pass_total_s": round(s_total, 3)},
            "cpu_ms_per_record": {"full": round(full_ms, 3), "sampled": round(sampled_ms, 3)},
            "cpu_sampled_over_full": round(sampled_ms / full_ms, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--task-only", action="store_true", help="only the per-task CPU (no Spark node runs, no HTTP)")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        if shared_missing():
            return skipped(shared_missing())
        args.repeats, args.task_only = 1, False
    import pyarrow.dataset as ds

    from crawlplan.ccindex.sample import SampleSettings, html_captures, read_cc_index, select_sample
    from crawlplan.conf import load_conf, section
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner
    from crawlplan.policies.population import CalibratedParams, calibrated_population
    from crawlplan.policies.sample_quality import read_share
    from crawlplan.warc.listing import resolve_entry
    from crawlplan.warc.remote import RetryPolicy, read_range

    _, spark = spark_session(2)
    pipeline = load_pipeline("main")
    demo = demo_crawl(args.smoke)
    real_files, real_index, real_base = _index_real_files(args.smoke)
    datasets = {"demo": ({"warc_paths": demo["warc_paths"], "cc_index": demo["cc_index"]}, ""),
                "real": ({"warc_paths": real_files, "cc_index": real_index}, real_base)}

    def run(inputs: dict, mode: str, base: str = "") -> dict:
        conf = load_conf("local", overrides=[
            "spark.master=local[2]", "extract.reader=fastwarc", "extract.extractor=resiliparse",
            f"extract.mode={mode}", f"extract.sample.k={args.k}", "run.progress_every_s=0",
            # the loopback server of the HTTP run: crawlplan refuses private addresses unless told
            *(["remote.allow_private_addresses=true"] if base.startswith("http") else [])])
        conf["inputs"].update(inputs)
        conf["inputs"]["warc_base"] = base
        out = tempfile.mkdtemp(prefix="bench-sampled-", dir=RESULTS)
        before, t0 = cpu_seconds_by_process(), time.perf_counter()
        Runner(spark, conf, out, echo=lambda *_: None).run_pipeline(pipeline, until=["extract"])
        wall, after = time.perf_counter() - t0, cpu_seconds_by_process()
        files = spark.read.parquet(os.path.join(out, "warc_files")).selectExpr(
            "sum(bytes) b", "sum(records) r", "sum(documents) d", "sum(rejected) x").first()
        shutil.rmtree(out, ignore_errors=True)
        cpu = {k: round(after[k] - before[k], 2) for k in before}
        return {"mode": mode, "wall_s": round(wall, 2), "cpu_s": cpu, "cpu_total_s": round(sum(cpu.values()), 2),
                "bytes_read": int(files.b), "records_parsed": int(files.r), "documents": int(files.d),
                "rejected": int(files.x), "responses_out": int(files.d + files.x)}

    results: dict = {"k": args.k, "machine": machine(), "datasets": {}}
    for name, (inputs, base) in datasets.items():
        sampling = dataclasses.replace(SampleSettings.from_params(section(load_conf(), "extract")["sample"]), k=args.k)
        index, _ = read_cc_index(spark, inputs["cc_index"], sampling)
        selected, _ = select_sample(index, sampling)
        sel = selected.toPandas()
        html = index.where(html_captures(index)).count()     # the population the sample draws from
        if args.task_only:
            results["datasets"][name] = {"task_cpu": task_cpu(inputs, base, sel, html)}
            print(name, results["datasets"][name], flush=True)
            continue
        if not results["datasets"]:
            run(datasets["demo"][0], "sampled")              # warm-up: JVM, workers, imports
        runs = []
        for rep in range(args.repeats):
            for mode in (("full", "sampled") if rep % 2 == 0 else ("sampled", "full")):
                r = run(inputs, mode, base)
                runs.append(r)
                print(f"{name:5s} {mode:8s} wall {r['wall_s']:6.1f}s CPU {r['cpu_total_s']:6.1f}s "
                      f"(python workers {r['cpu_s']['python_workers']}) bytes {r['bytes_read']:,} "
                      f"records {r['records_parsed']:,} out {r['responses_out']:,}", flush=True)
        full = [r for r in runs if r["mode"] == "full"]
        samp = [r for r in runs if r["mode"] == "sampled"]
        mean = lambda rs, key: sum(x[key] for x in rs) / len(rs)  # noqa: E731
        cpu_worker = lambda rs: sum(x["cpu_s"]["python_workers"] for x in rs) / len(rs)  # noqa: E731
        own = int(sel.length.sum())
        summary = {
            "runs": runs, "selected_records": len(sel), "selected_bytes": own,
            "bytes_read_over_selected_bytes": round(mean(samp, "bytes_read") / own, 4),
            "bytes_read_sampled_over_full": round(mean(samp, "bytes_read") / mean(full, "bytes_read"), 4),
            "records_parsed_sampled_over_full": round(mean(samp, "records_parsed") / mean(full, "records_parsed"), 4),
            "cpu_per_record_sampled_over_full": round((mean(samp, "cpu_total_s") / mean(samp, "responses_out"))
                                                      / (mean(full, "cpu_total_s") / mean(full, "responses_out")), 3),
            "worker_cpu_per_record_sampled_over_full": round((cpu_worker(samp) / mean(samp, "responses_out"))
                                                             / (cpu_worker(full) / mean(full, "responses_out")), 3),
            "cpu_sampled_over_full": round(mean(samp, "cpu_total_s") / mean(full, "cpu_total_s"), 3),
            "wall_sampled_over_full": round(mean(samp, "wall_s") / mean(full, "wall_s"), 3),
        }
        summary["task_cpu"] = task_cpu(inputs, base, sel, html, repeats=1 if args.smoke else 3)
        results["datasets"][name] = summary
        print(name, {k: v for k, v in summary.items() if k != "runs"}, flush=True)

        # range reads: local file against loopback HTTP, the same selected ranges
        root = base or os.path.dirname(inputs["cc_index"].rstrip("/"))
        server = FaultServer(root=root)     # no faults queued: a plain server that honours Range
        url = server.url + "/"
        loopback = dataclasses.replace(RetryPolicy.from_params(section(load_conf(), "remote")),
                                       allow_private_addresses=True)   # the server is on 127.0.0.1
        try:
            timings = {}
            for label, prefix in (("local", ""), ("http", url)):
                t0 = time.perf_counter()
                got = 0
                for row in sel.itertuples():
                    path = prefix + row.warc_filename if prefix else resolve_entry(row.warc_filename, base, root)
                    got += len(read_range(path, int(row.offset), int(row.length), loopback))
                timings[label] = {"seconds": round(time.perf_counter() - t0, 4), "bytes": got}
            summary["range_reads"] = {**timings, "http_over_local": round(timings["http"]["seconds"]
                                                                          / timings["local"]["seconds"], 2),
                                      "ranges": len(sel)}
            print(name, "range reads", summary["range_reads"], flush=True)
            if name == "demo":
                r = run(inputs, "sampled", url)
                summary["sampled_over_http"] = r
                summary["http_run_over_local_run_wall"] = round(r["wall_s"] / mean(samp, "wall_s"), 3)
                print(f"demo sampled over HTTP: wall {r['wall_s']}s CPU {r['cpu_total_s']}s bytes {r['bytes_read']:,} "
                      f"out {r['responses_out']:,}", flush=True)
        finally:
            server.stop()

    sizes_demo = ds.dataset(demo["host_index"], format="parquet", partitioning="hive").to_table(
        columns=["fetch_200", "crawl"]).to_pandas()
    sizes_demo = sizes_demo[(sizes_demo.crawl == sizes_demo.crawl.max()) & (sizes_demo.fetch_200 > 0)].fetch_200
    calibrated = calibrated_population(CalibratedParams(**({"hosts": 2000} if args.smoke else {})), seed=0).n
    results["pages_read_share"] = {
        src: {f"k={k}": round(read_share(sizes.to_numpy() if hasattr(sizes, "to_numpy") else sizes, k), 4) for k in (5, 10)}
        for src, sizes in (("demo_host_index", sizes_demo), ("calibrated_population", calibrated))}
    print("share of all pages read:", results["pages_read_share"])
    save("smoke/sampled_extract" if args.smoke else "sampled_extract_task_cpu" if args.task_only
         else "sampled_extract", results)
    spark.stop()
    if args.smoke:
        for name, got in results["datasets"].items():
            full = [r for r in got["runs"] if r["mode"] == "full"][0]
            samp = [r for r in got["runs"] if r["mode"] == "sampled"][0]
            check(full["documents"] > 0 and samp["documents"] > 0, f"{name}: no documents {full} {samp}")
            # the demo's hosts have more than k pages; realpages' first records mostly one a host
            fewer = samp["bytes_read"] < full["bytes_read"] if name == "demo" else samp["bytes_read"] <= full["bytes_read"]
            check(fewer, f"{name}: sampled read {samp['bytes_read']} bytes, full {full['bytes_read']}")
            reads = got["range_reads"]
            check(reads["http"]["bytes"] == reads["local"]["bytes"] > 0, f"{name}: range reads {reads}")
        http = results["datasets"]["demo"]["sampled_over_http"]
        local = [r for r in results["datasets"]["demo"]["runs"] if r["mode"] == "sampled"][0]
        check(http["responses_out"] == local["responses_out"], f"sampled over HTTP wrote {http['responses_out']}, "
              f"locally {local['responses_out']}")
        check(all(0 < v <= 1 for d in results["pages_read_share"].values() for v in d.values()),
              f"pages read shares {results['pages_read_share']}")
        return ok(" ".join(f"{n}: sampled read {d['bytes_read_sampled_over_full']:.3f} of the full bytes;"
                           for n, d in results["datasets"].items()) + " HTTP run equal to the local one")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
