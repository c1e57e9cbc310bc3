"""What resumable extraction costs: the extract node with and without waves, side by side.

    .venv/bin/python bench/bench_waves.py [--copies 8] [--wave-files 2] [--repeats 2]
    .venv/bin/python bench/bench_waves.py --smoke   # 2 copies of realpages' first 60 records, 1 file a wave

Runs the real ``extract`` node (fastwarc + resiliparse, the cheap path, where an extra write of
the text weighs most) on ``--copies`` renamed copies of realpages at local[2], alternating
``extract.checkpoint_files=0`` (one pass) and ``=--wave-files`` (waves saved under _work, read
back, then the same outputs), after an untimed warm-up. Each run gets a fresh output folder.
Prints and saves CPU seconds per process class and the ratio; checks the outputs' row counts
agree. JSON in bench/results/waves.json. ``--smoke``: two copies of the first 60 records of
realpages, one file a wave, one repeat; checks also that the wave runs ran in more than one wave
and wrote documents.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time

from bench_pipeline import SMOKE_RECORDS
from benchlib import (
    RESULTS,
    check,
    copies,
    cpu_seconds_by_process,
    head_warc,
    machine,
    ok,
    save,
    shared_missing,
    skipped,
    spark_session,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--wave-files", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        if shared_missing():
            return skipped(shared_missing())
        args.copies, args.wave_files, args.repeats = 2, 1, 1
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner

    _, spark = spark_session(2)
    pipeline = load_pipeline("main")
    paths = copies(args.copies, head_warc(SMOKE_RECORDS) if args.smoke else None)

    def run(files, wave_files):
        conf = load_conf("local", overrides=[
            "spark.master=local[2]", "extract.reader=fastwarc", "extract.extractor=resiliparse",
            f"extract.checkpoint_files={wave_files}", "run.progress_every_s=0"])
        conf["inputs"]["warc_paths"] = files
        out = tempfile.mkdtemp(prefix="bench-waves-", dir=RESULTS)
        before, t0 = cpu_seconds_by_process(), time.perf_counter()
        summary = Runner(spark, conf, out, echo=lambda *_: None).run_pipeline(pipeline, until=["extract"])
        wall, after = time.perf_counter() - t0, cpu_seconds_by_process()
        shutil.rmtree(out, ignore_errors=True)
        cpu = {k: round(after[k] - before[k], 2) for k in before}
        return {"wave_files": wave_files, "wall_s": round(wall, 2), "cpu_s": cpu, "cpu_total_s": round(sum(cpu.values()), 2),
                "rows": summary["extract"]["rows"], "waves": summary["extract"]["counters"].get("waves", 1)}

    run(paths[:1], 0)                                        # warm-up: JVM, workers, imports
    runs = []
    for rep in range(args.repeats):
        order = (0, args.wave_files) if rep % 2 == 0 else (args.wave_files, 0)
        for wave_files in order:
            r = run(paths, wave_files)
            runs.append(r)
            print(f"checkpoint_files={wave_files:<3d} waves={r['waves']:<3d} wall {r['wall_s']:6.1f}s  "
                  f"CPU {r['cpu_total_s']:6.1f}s ({', '.join(f'{k} {v}' for k, v in r['cpu_s'].items())})",
                  flush=True)
    if len({tuple(sorted(r["rows"].items())) for r in runs}) != 1:
        raise SystemExit(f"row counts differ between runs: {[r['rows'] for r in runs]}")
    plain = [r["cpu_total_s"] for r in runs if r["wave_files"] == 0]
    waves = [r["cpu_total_s"] for r in runs if r["wave_files"] != 0]
    ratio = sum(waves) / sum(plain)
    print(f"{runs[0]['rows']['documents']} documents; CPU with waves / without: {ratio:.2f}x "
          f"(means {sum(waves) / len(waves):.1f} vs {sum(plain) / len(plain):.1f} CPU-s)")
    save("smoke/waves" if args.smoke else "waves", {"machine": machine(), "copies": args.copies, "runs": runs, "cpu_ratio": round(ratio, 3)})
    spark.stop()
    if args.smoke:
        check(runs[0]["rows"].get("documents", 0) > 0, f"no documents: {runs[0]['rows']}")
        check(all(r["waves"] > 1 for r in runs if r["wave_files"]), f"a wave run ran in one wave: {runs}")
        return ok(f"{len(runs)} runs, {runs[0]['rows']['documents']} documents each, CPU ratio {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
