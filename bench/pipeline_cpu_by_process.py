"""Where the extract + classify CPU goes: driver, JVM and Python workers, per node.

    .venv/bin/python bench/pipeline_cpu_by_process.py [--copies 8] [--reader fastwarc] [--extractor resiliparse]

Runs the real ``extract`` node, then ``classify`` (the DAG runner skips the finished extract), on
``--copies`` renamed copies of realpages at local[2], after an untimed warm-up on a one-record
WARC, and prints the CPU seconds of each process class for each node. The bench models of
bench_classify (dim 100) are used. Companion to bench_pipeline.py, which gives the totals
against datatrove; this one says which process spends them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import yaml
from bench_classify import bench_models
from bench_pipeline import PIPELINE
from benchlib import RESULTS, copies, cpu_seconds_by_process, realpages, spark_session


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--reader", default="fastwarc")
    ap.add_argument("--extractor", default="resiliparse")
    args = ap.parse_args()
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner

    bench_models(100)
    model_dir = str(RESULTS / "models-dim100")
    _, spark = spark_session(2)

    def pipeline(nodes):
        spec = {**PIPELINE, "nodes": {k: v for k, v in PIPELINE["nodes"].items() if k in nodes}}
        path = RESULTS / f"cpu-by-process-{'-'.join(nodes)}.yaml"
        path.write_text(yaml.safe_dump(spec))
        return load_pipeline(str(path))

    def run(paths, show):
        conf = load_conf("local", overrides=[
            "spark.master=local[2]", f"extract.reader={args.reader}", f"extract.extractor={args.extractor}",
            f"classify.model_dir={model_dir}", "classify.demo_models_when_missing=false", "run.progress_every_s=0"])
        conf["inputs"]["warc_paths"] = paths
        out = tempfile.mkdtemp(prefix="cpu-by-process-", dir=RESULTS)
        docs = None
        for nodes in (["extract"], ["extract", "classify"]):
            before, t0 = cpu_seconds_by_process(), time.perf_counter()
            summary = Runner(spark, conf, out, echo=lambda *_: None).run_pipeline(pipeline(nodes))
            after, wall = cpu_seconds_by_process(), time.perf_counter() - t0
            docs = docs or summary["extract"]["rows"]["documents"]
            if show:
                cpu = {k: after[k] - before[k] for k in before}
                parts = ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
                print(f"{nodes[-1]:8s} {docs} documents, wall {wall:.1f}s, CPU-s: {parts}; "
                      f"{1000 * sum(cpu.values()) / docs:.2f} CPU ms per document", flush=True)

    run([str(realpages().parents[1] / "warc" / "jwarc-cc.warc.gz")], show=False)
    run(copies(args.copies), show=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
