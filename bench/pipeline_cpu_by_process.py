"""Where the extract + classify CPU goes: driver, JVM and Python workers, per node.

    .venv/bin/python bench/pipeline_cpu_by_process.py [--copies 8] [--reader fastwarc] [--extractor resiliparse]
    .venv/bin/python bench/pipeline_cpu_by_process.py --smoke   # 1 copy of realpages' first 60 records

Runs the real ``extract`` node of pipelines/main.yaml (``run_pipeline(until=["extract"])``), then
``classify`` (``until=["classify"]``: the DAG runner skips the finished extract), on
``--copies`` renamed copies of realpages at local[2], after an untimed warm-up on a one-record
WARC, and prints the CPU seconds of each process class for each node. The bench models of
bench_classify (dim 100) are used. Companion to bench_pipeline.py, which gives the totals
against datatrove; this one says which process spends them. ``--smoke``: one copy of the first
60 records, dim-16 models; checks that both nodes wrote rows and spent CPU.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from bench_classify import bench_models
from bench_pipeline import SMOKE_RECORDS
from benchlib import (
    RESULTS,
    check,
    copies,
    cpu_seconds_by_process,
    head_warc,
    ok,
    realpages,
    shared_missing,
    skipped,
    spark_session,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--reader", default="fastwarc")
    ap.add_argument("--extractor", default="resiliparse")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke and shared_missing():
        return skipped(shared_missing())
    dim = 16 if args.smoke else 100
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner

    bench_models(dim)
    model_dir = str(RESULTS / f"models-dim{dim}")
    _, spark = spark_session(2)
    pipeline = load_pipeline("main")
    seen: dict = {}

    def run(paths, show):
        conf = load_conf("local", overrides=[
            "spark.master=local[2]", f"extract.reader={args.reader}", f"extract.extractor={args.extractor}",
            f"classify.model_dir={model_dir}", "classify.demo_models_when_missing=false", "run.progress_every_s=0"])
        conf["inputs"]["warc_paths"] = paths
        out = tempfile.mkdtemp(prefix="cpu-by-process-", dir=RESULTS)
        docs = None
        for node in ("extract", "classify"):
            before, t0 = cpu_seconds_by_process(), time.perf_counter()
            summary = Runner(spark, conf, out, echo=lambda *_: None).run_pipeline(pipeline, until=[node])
            after, wall = cpu_seconds_by_process(), time.perf_counter() - t0
            docs = docs or summary["extract"]["rows"]["documents"]
            if show:
                cpu = {k: after[k] - before[k] for k in before}
                parts = ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
                seen[node] = {"rows": summary[node].get("rows", {}), "cpu": sum(cpu.values())}
                print(f"{node:8s} {docs} documents, wall {wall:.1f}s, CPU-s: {parts}; "
                      f"{1000 * sum(cpu.values()) / docs:.2f} CPU ms per document", flush=True)

    run([str(realpages().parents[1] / "warc" / "jwarc-cc.warc.gz")], show=False)
    run(copies(1, head_warc(SMOKE_RECORDS)) if args.smoke else copies(args.copies), show=True)
    spark.stop()
    if args.smoke:
        check(seen["extract"]["rows"].get("documents", 0) > 0, f"extract wrote no documents: {seen['extract']}")
        check(seen["classify"]["rows"].get("scores") == seen["extract"]["rows"]["documents"],
              f"classify scored {seen['classify']['rows']} of {seen['extract']['rows']['documents']} documents")
        check(all(v["cpu"] > 0 for v in seen.values()), f"a node spent no CPU: {seen}")
        return ok(f"extract {seen['extract']['rows']['documents']} documents, classify "
                  f"{seen['classify']['rows']['scores']} scores, CPU by process printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
