"""Extract + classify throughput: crawlplan (local Spark) against datatrove, same WARC files,
same ten fastText models, same trafilatura options, in one run; then the fast reader and
extractor; then the scale curve.

    .venv/bin/python bench/bench_pipeline.py [--cores 2] [--copies 2] [--scale 1,2,4,8] [--dim 100]
    .venv/bin/python bench/bench_pipeline.py --smoke   # 1 copy of realpages' first 60 records, checked

``--smoke``: one copy of the first ``SMOKE_RECORDS`` records of realpages, no scale curve, dim-16
models; datatrove runs when installed (else a ``smoke: skipped`` line); checks that every
contender wrote documents and that crawlplan scored every document it wrote.

Input: ``--copies`` renamed copies of ../shared/data/realpages/realpages.warc.gz from the project root (1,171 real
pages each; bench/benchlib.copies), one file per core so that both contenders can use every core.

- crawlplan: the real ``extract`` and ``classify`` nodes of pipelines/main.yaml through the DAG
  runner (``run_pipeline(until=["classify"])``, what ``crawlplan run --until classify`` runs; Parquet written
  aside and renamed, schema checks, markers) in one local[N] SparkSession; warcio+trafilatura
  (favor_precision, no comments: conf/defaults.yaml) and CLD2 language id, then
  fastwarc+resiliparse. One untimed run on a one-record WARC first (Python workers up, models
  loaded; datatrove's pool forks per run, so its model loading is inside its time).
- datatrove 0.10.1: WarcReader -> Trafilatura(favour_precision=True, deduplicate=False,
  timeout=30, the same options as ours) -> ten FastTextClassifierFilter (annotate only, the
  numpy-2 shim of bench/bench_classify.py) -> a counter; LocalPipelineExecutor with one task per
  file and N workers (start_method fork, so the shim reaches the workers).
- models: the ten registry classifiers trained as demo models (``crawlplan models train-demo``
  with dim 100, bench/bench_classify.bench_models) and read by both contenders.
- scale: 1, 2, 4, 8 copies through crawlplan's fast variant, each in a fresh SparkSession so that
  the peak RSS (VmHWM) of its Python workers belongs to that point alone.

Figures are documents/s per core (documents written / wall seconds / cores). Results:
bench/results/pipeline.json and markdown tables for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchlib import (
    RESULTS,
    check,
    copies,
    cpu_seconds,
    head_warc,
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

SMOKE_RECORDS = 60
NODES = ["classify"]          # --until classify: extract, then classify, of the project's own pipeline


def crawlplan_run(spark, base_conf: dict, paths: list[str], reader: str, extractor: str, model_dir: str,
                  cores: int) -> dict:
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner

    conf = load_conf("local", overrides=[f"spark.master=local[{cores}]", f"extract.reader={reader}",
                                         f"extract.extractor={extractor}", f"classify.model_dir={model_dir}",
                                         "classify.demo_models_when_missing=false", "run.progress_every_s=0"])
    conf["inputs"]["warc_paths"] = paths
    out = tempfile.mkdtemp(prefix="bench-pipeline-", dir=RESULTS)
    started, cpu0 = time.perf_counter(), cpu_seconds()
    summary = Runner(spark, conf, out, echo=lambda *_: None).run_pipeline(load_pipeline("main"), until=NODES)
    secs, cpu = time.perf_counter() - started, cpu_seconds() - cpu0
    docs = summary["extract"]["rows"]["documents"]
    scored = summary["classify"]["rows"]["scores"]
    return {"docs": docs, "scored": scored, "seconds": round(secs, 2), "cpu_seconds": round(cpu, 1),
            "docs_per_cpu_s": round(docs / cpu, 2),
            "docs_per_s_per_core": round(docs / secs / cores, 2), "ms_per_doc": round(1000 * secs / docs, 3)}


def datatrove_run(paths: list[str], model_paths: dict, workers: int) -> dict:
    from bench_classify import datatrove_filters
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.readers import WarcReader

    folder = os.path.dirname(paths[0])
    names = [os.path.basename(p) for p in paths]
    listing = RESULTS / "datatrove-paths.txt"
    listing.write_text("\n".join(names) + "\n")
    counts = Path(tempfile.mkdtemp(prefix="datatrove-counts-", dir=RESULTS))

    def count(data, rank=0, world_size=1):
        n = 0
        for doc in data:
            n += 1
            yield doc
        (counts / f"rank-{rank}").write_text(str(n))

    pipeline = [WarcReader(folder, paths_file=str(listing)),
                Trafilatura(favour_precision=True, deduplicate=False, timeout=30.0),
                *datatrove_filters(model_paths), count]
    logs = tempfile.mkdtemp(prefix="datatrove-logs-", dir=RESULTS)
    started, cpu0 = time.perf_counter(), cpu_seconds()
    LocalPipelineExecutor(pipeline=pipeline, tasks=len(paths), workers=workers, logging_dir=logs,
                          skip_completed=False, start_method="fork").run()
    secs, cpu = time.perf_counter() - started, cpu_seconds() - cpu0
    docs = sum(int(p.read_text()) for p in counts.iterdir())
    return {"docs": docs, "seconds": round(secs, 2), "cpu_seconds": round(cpu, 1), "docs_per_cpu_s": round(docs / cpu, 2), "docs_per_s_per_core": round(docs / secs / workers, 2),
            "ms_per_doc": round(1000 * secs / docs, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--scale", default="1,2,4,8")
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--skip-datatrove", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        if shared_missing():
            return skipped(shared_missing())
        args.copies, args.scale, args.dim = 1, "", 16
        if missing("datatrove") and not args.skip_datatrove:
            skip_contender("datatrove trafilatura", "datatrove not installed (pip install -e '.[bench]')")
            args.skip_datatrove = True
    elif missing("datatrove") and not args.skip_datatrove:    # before minutes of crawlplan runs, not after
        raise SystemExit("datatrove is not installed: pip install -e '.[bench]' (or --skip-datatrove)")

    from bench_classify import bench_models

    conf, specs, model_paths = bench_models(args.dim)
    model_dir = str(RESULTS / f"models-dim{args.dim}")
    source = head_warc(SMOKE_RECORDS) if args.smoke else None
    paths = copies(max([args.copies] + [int(x) for x in args.scale.split(",") if x]), source)
    warm = [str(realpages().parents[1] / "warc" / "jwarc-cc.warc.gz")]
    results: dict = {"side_by_side": {}, "scale": []}

    base_conf, spark = spark_session(args.cores)
    for label, reader, extractor in (("crawlplan warcio+trafilatura", "warcio", "trafilatura"),
                                     ("crawlplan fastwarc+resiliparse", "fastwarc", "resiliparse")):
        crawlplan_run(spark, base_conf, warm, reader, extractor, model_dir, args.cores)  # untimed warm-up
        r = crawlplan_run(spark, base_conf, paths[: args.copies], reader, extractor, model_dir, args.cores)
        r["worker_peak_rss"] = worker_peak_rss_mb()
        results["side_by_side"][label] = r
        print(f"{label:34s} {r['docs']:6d} docs {r['seconds']:8.1f}s {r['docs_per_s_per_core']:8.2f} docs/s/core",
              flush=True)
    spark.stop()
    if not args.skip_datatrove:
        r = datatrove_run(paths[: args.copies], model_paths, args.cores)
        results["side_by_side"]["datatrove trafilatura"] = r
        print(f"{'datatrove trafilatura':34s} {r['docs']:6d} docs {r['seconds']:8.1f}s "
              f"{r['docs_per_s_per_core']:8.2f} docs/s/core", flush=True)

    for n in [int(x) for x in args.scale.split(",") if x]:
        base_conf, spark = spark_session(args.cores)
        crawlplan_run(spark, base_conf, warm, "fastwarc", "resiliparse", model_dir, args.cores)
        r = crawlplan_run(spark, base_conf, paths[:n], "fastwarc", "resiliparse", model_dir, args.cores)
        r["copies"] = n
        r["worker_peak_rss"] = worker_peak_rss_mb()
        spark.stop()
        results["scale"].append(r)
        print(f"scale x{n}: {r['docs']} docs {r['seconds']:.1f}s {r['ms_per_doc']:.2f} ms/doc, worker peak RSS "
              f"{r['worker_peak_rss']['max_mb']} MB ({r['worker_peak_rss']['workers']} processes), JVM peak RSS "
              f"{r['worker_peak_rss']['jvm_mb']} MB", flush=True)

    meta = {"command": "python bench/bench_pipeline.py " + " ".join(sys.argv[1:]), "cores": args.cores,
            "copies": args.copies, "models": len(model_paths), "dim": args.dim, **machine()}
    save("smoke/pipeline" if args.smoke else "pipeline", {"meta": meta, "results": results})
    side = results["side_by_side"]
    base = side.get("datatrove trafilatura", {}).get("docs_per_s_per_core")
    print(f"\nmachine: {meta['cpu']}, {meta['cpus']} CPUs, load avg {meta['load_avg']} at {meta['at']}")
    cbase = side.get("datatrove trafilatura", {}).get("docs_per_cpu_s")
    print("| contender | documents | wall s | docs/s per core (wall) | vs datatrove | CPU s | docs per CPU-second | vs datatrove |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in side.items():
        ratio = f"{r['docs_per_s_per_core'] / base:.2f}x" if base else "-"
        cratio = f"{r['docs_per_cpu_s'] / cbase:.2f}x" if cbase else "-"
        print(f"| {name} | {r['docs']} | {r['seconds']} | {r['docs_per_s_per_core']} | {ratio} | {r['cpu_seconds']} | "
              f"{r['docs_per_cpu_s']} | {cratio} |")
    print("\n| copies (files) | documents | wall s | ms per document (wall) | CPU ms per document | Python worker peak RSS (MB) | JVM peak RSS (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["scale"]:
        print(f"| {r['copies']} | {r['docs']} | {r['seconds']} | {r['ms_per_doc']} | "
              f"{1000 * r['cpu_seconds'] / r['docs']:.2f} | {r['worker_peak_rss']['max_mb']} | "
              f"{r['worker_peak_rss']['jvm_mb']} |")
    if args.smoke:
        for name, r in side.items():
            check(r["docs"] > 0, f"{name} wrote no documents")
            check(r.get("scored", r["docs"]) == r["docs"], f"{name} scored {r.get('scored')} of {r['docs']} documents")
        docs = {name: r["docs"] for name, r in side.items()}
        return ok(f"{len(side)} contenders, documents {docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
