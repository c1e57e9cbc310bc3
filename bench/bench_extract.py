"""Extraction throughput on real pages: documents/s per core for warcio+trafilatura against
fastwarc+resiliparse, (a) single process through the pure per-file function and (b) through
the Spark extract job at 2 cores, in one run.

    .venv/bin/python bench/bench_extract.py [--cores 2] [--copies 2] [--skip-spark]
    .venv/bin/python bench/bench_extract.py --smoke   # realpages' first 60 records, outputs checked

Corpus: ../shared/data/realpages/realpages.warc.gz from the project root (1,171 HTML responses, 934 hosts).
(a) calls ``process_warc_file`` on the file in this process (reading, charset decoding,
extraction, language id, host keys; everything the job does per record). (b) runs the real
``extract`` node (``run_single_job``: mapInArrow, schema checks, Parquet written aside and
renamed) on ``--copies`` renamed copies of the file, so both cores have a file to work on; the
Spark figure is documents / wall seconds / cores, start-up of the session excluded, Python
workers warmed by one untimed run on ``--cores`` copies of a tiny file (one task, hence one
Python worker, per core: a worker forked during the timed run would bill its imports, ~0.6
CPU-s, to the timed documents; in a real run a worker's start is spread over many files).
Results: bench/results/extract.json and a markdown table for docs/benchmarks.md. CPU is counted
over every process (driver, JVM, Python workers); the last lines are Spark's CPU per document
over ``process_warc_file``'s, trafilatura and then the fast path (the goal's figure, last):
``spark/bare CPU per document, fast path: X.XX×``. The bare function runs before and again after
the Spark runs, and the ratio is over both runs together: on this shared machine the CPU a
document costs drifts with the other agents' load (by 10% within minutes), and a bare run taken
only before would charge that drift to Spark or credit it. Both bare figures are printed, and
the JVM's CPU of each Spark run by thread kind (benchlib.jvm_cpu_by_thread). ``--set KEY=VALUE``
passes conf overrides to the Spark session and job, to measure a lever off
(``--set spark.java_options=``: C2 JIT).

``--smoke``: the first ``SMOKE_RECORDS`` records of realpages for (a), two renamed copies of them
for (b), the two main combinations; checks that every path wrote documents and that every
combination turned the same records into documents or rejects (a reader or extractor whose
package is missing is skipped with a ``smoke: skipped`` line).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time

from benchlib import (
    RESULTS,
    check,
    copies,
    cpu_seconds_by_process,
    head_warc,
    jvm_cpu_by_thread,
    jvm_thread_cpu,
    machine,
    missing,
    ok,
    realpages,
    save,
    shared_missing,
    skip_contender,
    skipped,
    spark_session,
    worker_peak_rss_mb,
)

COMBOS = [("warcio", "trafilatura"), ("fastwarc", "resiliparse"), ("warcio", "resiliparse"),
          ("fastwarc", "trafilatura")]
SMOKE_RECORDS = 60


def warm_copies(n: int) -> list[str]:
    """``n`` renamed copies of a tiny WARC, so the untimed warm-up runs one task per core."""
    tiny = realpages().parents[1] / "warc" / "jwarc-cc.warc.gz"
    folder = RESULTS / "copies"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(n):
        path = folder / f"warm-{k:02d}.warc.gz"
        if not path.is_file():
            shutil.copyfile(tiny, path)
        out.append(str(path))
    return out


def single_process(reader: str, extractor: str, paths: list[str]) -> dict:
    from crawlplan.conf import load_conf, section
    from crawlplan.extract.records import ExtractSettings, process_warc_file

    settings = ExtractSettings.from_params({**section(load_conf(), "extract"), "reader": reader, "extractor": extractor},
                                           remote=section(load_conf(), "remote"))
    started, cpu0 = time.perf_counter(), time.process_time()
    docs = rejects = 0
    for row in (row for path in paths for row in process_warc_file(path, settings)):
        docs += row["kind"] == "doc"
        rejects += row["kind"] == "reject"
    secs, cpu = time.perf_counter() - started, time.process_time() - cpu0
    return {"docs": docs, "rejects": rejects, "seconds": round(secs, 2), "docs_per_s_per_core": round(docs / secs, 1),
            "cpu_seconds": round(cpu, 2), "docs_per_cpu_s": round(docs / cpu, 1)}


def spark_job(spark, conf_overrides: list[str], paths: list[str], cores: int) -> dict:
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    conf = load_conf("local", overrides=conf_overrides)
    out = tempfile.mkdtemp(prefix="bench-extract-", dir=RESULTS)
    started, before, threads = time.perf_counter(), cpu_seconds_by_process(), jvm_thread_cpu()
    result = run_single_job(spark, conf, load_pipeline("main"), "extract", paths, out, force=True,
                            echo=lambda *_: None)
    secs, after = time.perf_counter() - started, cpu_seconds_by_process()
    jvm_threads = jvm_cpu_by_thread(threads, jvm_thread_cpu())
    split = {k: round(after[k] - before[k], 2) for k in after}
    cpu = sum(split.values())
    docs = result["rows"]["documents"]
    return {"docs": docs, "rejects": result["rows"]["rejects"], "files": len(paths), "seconds": round(secs, 2),
            "cpu_seconds": round(cpu, 1), "cpu_by_process": split, "jvm_cpu_by_thread": jvm_threads,
            "docs_per_cpu_s": round(docs / cpu, 1),
            "docs_per_s_per_core": round(docs / secs / cores, 1), "out": out}


def pooled(before: dict, after: dict) -> dict:
    """Two bare runs of the same files as one (documents, seconds and CPU summed)."""
    docs, secs, cpu = before["docs"] + after["docs"], before["seconds"] + after["seconds"], \
        before["cpu_seconds"] + after["cpu_seconds"]
    return {"docs": docs, "rejects": before["rejects"] + after["rejects"], "seconds": round(secs, 2),
            "docs_per_s_per_core": round(docs / secs, 1), "cpu_seconds": round(cpu, 2),
            "docs_per_cpu_s": round(docs / cpu, 1), "runs": [before, after]}


def overhead(results: dict, combo: str) -> float | None:
    """Spark's CPU per document over ``process_warc_file``'s, for one reader + extractor."""
    bare, spark = results["single_process"].get(combo), results["spark"].get(combo)
    if not bare or not spark:
        return None
    return (spark["cpu_seconds"] / spark["docs"]) / (bare["cpu_seconds"] / bare["docs"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--copies", type=int, default=2, help="renamed copies of realpages for the Spark runs")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--bare-files", type=int, default=2, help="copies the single-process run reads (default 2)")
    ap.add_argument("--combos", default="all", help="'main' = warcio+trafilatura and fastwarc+resiliparse only, 'fast' = fastwarc+resiliparse")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    ap.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE",
                    help="conf override for the Spark session and job, e.g. spark.java_options= (a lever off)")
    args = ap.parse_args()
    if args.smoke and shared_missing():
        return skipped(shared_missing())
    combos = {"main": COMBOS[:2], "fast": COMBOS[1:2]}.get("main" if args.smoke else args.combos, COMBOS)
    if args.smoke:
        args.copies = 2
        for combo in list(combos):
            gone = missing(*{"fastwarc": ["fastwarc"], "warcio": []}[combo[0]],
                           *{"resiliparse": ["resiliparse"], "trafilatura": []}[combo[1]])
            if gone:
                skip_contender("+".join(combo), f"{', '.join(gone)} not installed")
                combos.remove(combo)
    source = head_warc(SMOKE_RECORDS) if args.smoke else None     # None: realpages itself
    # the bare function over the first --bare-files of the copies the Spark job reads: a longer
    # measure than one file (a 3-second run varied by 20% between runs here)
    bare_files = copies(args.bare_files, source)
    results: dict = {"single_process": {}, "spark": {}}
    for reader, extractor in combos:
        r = single_process(reader, extractor, bare_files)
        results["single_process"][f"{reader}+{extractor}"] = r
        print(f"1 process  {reader:8s} + {extractor:11s} {r['docs']:5d} docs {r['seconds']:7.1f}s "
              f"{r['docs_per_s_per_core']:7.1f} docs/s/core", flush=True)
    if not args.skip_spark:
        paths = copies(args.copies, source)
        conf, spark = spark_session(args.cores, args.overrides)
        warm = warm_copies(args.cores)
        for reader, extractor in combos[:2]:
            overrides = [f"extract.reader={reader}", f"extract.extractor={extractor}", *args.overrides]
            spark_job(spark, overrides, warm, args.cores)  # untimed: Python workers up, imports done
            r = spark_job(spark, overrides, paths, args.cores)
            r["worker_peak_rss"] = worker_peak_rss_mb()
            results["spark"][f"{reader}+{extractor}"] = r
            print(f"Spark x{args.cores}   {reader:8s} + {extractor:11s} {r['docs']:5d} docs {r['seconds']:7.1f}s "
                  f"{r['docs_per_s_per_core']:7.1f} docs/s/core; CPU s by process {r['cpu_by_process']}", flush=True)
            print(f"           JVM CPU s by thread: {r['jvm_cpu_by_thread']}", flush=True)
        spark.stop()
        for reader, extractor in combos:       # the bare function again, after the Spark runs
            name = f"{reader}+{extractor}"
            before, after = results["single_process"][name], single_process(reader, extractor, bare_files)
            results["single_process"][name] = pooled(before, after)
            print(f"1 process  {reader:8s} + {extractor:11s} ms per document (CPU), before / after Spark: "
                  f"{1000 * before['cpu_seconds'] / before['docs']:.2f} / {1000 * after['cpu_seconds'] / after['docs']:.2f}",
                  flush=True)
    meta = {"command": "python bench/bench_extract.py " + " ".join(sys.argv[1:]), "cores": args.cores,
            "copies": args.copies, "overrides": args.overrides, **machine()}
    ratios = {combo: overhead(results, combo) for combo in ("warcio+trafilatura", "fastwarc+resiliparse")}
    results["spark_over_bare_cpu_per_doc"] = {k: round(v, 3) for k, v in ratios.items() if v is not None}
    save("smoke/extract" if args.smoke else "extract", {"meta": meta, "results": results})
    first = next(iter(results["single_process"]))    # warcio+trafilatura unless --combos fast
    base = results["single_process"][first]["docs_per_s_per_core"]
    print(f"\nmachine: {meta['cpu']}, {meta['cpus']} CPUs, load avg {meta['load_avg']} at {meta['at']}")
    cbase = results["single_process"][first]["docs_per_cpu_s"]
    print(f"| path | reader + extractor | docs | docs/s per core (wall) | vs {first} | docs per CPU-second | vs {first} |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for kind in ("single_process", "spark"):
        for name, r in results[kind].items():
            label = "1 process, process_warc_file" if kind == "single_process" else f"Spark job, local[{args.cores}]"
            print(f"| {label} | {name} | {r['docs']} | {r['docs_per_s_per_core']:.1f} | "
                  f"{r['docs_per_s_per_core'] / base:.2f}x | {r['docs_per_cpu_s']:.1f} | {r['docs_per_cpu_s'] / cbase:.2f}x |")
    if ratios["warcio+trafilatura"] is not None:
        print(f"spark/bare CPU per document, trafilatura: {ratios['warcio+trafilatura']:.2f}×")
    if ratios["fastwarc+resiliparse"] is not None:   # the goal's figure: the last line
        print(f"spark/bare CPU per document, fast path: {ratios['fastwarc+resiliparse']:.2f}×")
    if args.smoke:
        for kind, rows in ((k, results[k]) for k in ("single_process", "spark")):
            check(rows, f"no {kind} run")
            for name, r in rows.items():
                check(r["docs"] > 0, f"{kind} {name} wrote no documents")
            outs = {name: r["docs"] + r["rejects"] for name, r in rows.items()}
            check(len(set(outs.values())) == 1, f"{kind}: documents + rejects differ between combinations {outs}")
        check(set(results["spark"]) <= set(results["single_process"]), "a Spark combination without its 1-process run")
        return ok(f"{len(results['single_process']) + len(results['spark'])} runs; documents "
                  f"{ {k: {n: r['docs'] for n, r in results[k].items()} for k in ('single_process', 'spark')} }")
    return 0


if __name__ == "__main__":
    sys.exit(main())
