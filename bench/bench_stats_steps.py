"""The two rank-based statistics steps against the Spark built-ins they replaced, same data,
same SparkSession, one run; results checked equal before timings are reported.

- classifier pairs (Figure 12): ``ranks.spearman_matrix`` vs MLlib ``Correlation.corr(method="spearman")``;
- score distributions (Table 7; documents, hosts, mean, P10/median/P90): quantiles from
  ``ranks.quantiles`` over a value->count table vs the previous single aggregation with
  ``countDistinct`` and ``percentile(score, [0.1, 0.5, 0.9])`` per (stratum, classifier).

    .venv/bin/python bench/bench_stats_steps.py --docs 300000 --hosts 53000
    .venv/bin/python bench/bench_stats_steps.py --smoke   # 20,000 documents on 2,000 hosts, checked

Data: bench_stats.generate (cached in .cache/bench_stats/). CPU seconds: driver + JVM + Python
workers (bench_stats.tree_cpu_seconds). Results: bench/results/bench_stats_steps-d<docs>-<steps>.json.
``--smoke``: 20,000 documents on 2,000 hosts, both steps, 2 GB of driver memory, 2 shuffle
partitions; fails unless each
step's two implementations agree within 1e-6.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_stats import CLASSIFIERS, generate, tree_cpu_seconds  # noqa: E402
from benchlib import check, ok  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from crawlplan.stats import correlations, host_stats  # noqa: E402


def mllib_pairs(scores) -> np.ndarray:
    from pyspark.ml.feature import VectorAssembler
    from pyspark.ml.stat import Correlation

    core = scores.dropna(subset=CLASSIFIERS)
    vec = VectorAssembler(inputCols=CLASSIFIERS, outputCol="_v").transform(core.select(*CLASSIFIERS))
    return Correlation.corr(vec, "_v", method="spearman").head()[0].toArray()


def rank_pairs(scores) -> np.ndarray:
    rows = correlations.classifier_correlations(scores, CLASSIFIERS).toPandas()
    return rows.pivot(index="classifier_a", columns="classifier_b", values="spearman").loc[
        CLASSIFIERS, CLASSIFIERS].to_numpy()


def percentile_dists(long, langs) -> dict:
    """The previous ``correlations.score_distributions``, whole: one aggregation with
    ``countDistinct`` and ``percentile`` per (stratum, classifier)."""
    joined = long.join(langs.select("rev_host", "language_stratum"), "rev_host", "left").withColumn(
        "language_stratum", F.coalesce("language_stratum", F.lit("unknown")))
    both = joined.withColumn("language_stratum", F.lit("all")).unionByName(
        joined.where(F.col("language_stratum").isin("english", "non-english")))
    q = F.percentile(F.col("score"), F.array(F.lit(0.1), F.lit(0.5), F.lit(0.9)))
    rows = both.groupBy(F.col("language_stratum").alias("stratum"), "classifier").agg(
        F.count(F.lit(1)).cast("long").alias("documents"), F.countDistinct("rev_host").cast("long").alias("hosts"),
        F.mean("score").alias("mean"), q.alias("q")).collect()
    return {(r[0], r[1]): [*r.q, r.documents, r.hosts, r.mean] for r in rows}


def rank_dists(long, langs) -> dict:
    rows = correlations.score_distributions(long, langs).collect()
    return {(r.stratum, r.classifier): [r.p10, r.median, r.p90, r.documents, r.hosts, r.mean] for r in rows}


def timed(fn):
    c0, t0 = tree_cpu_seconds(os.getpid()), time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - t0, 1), round(tree_cpu_seconds(os.getpid()) - c0, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=300_000)
    ap.add_argument("--hosts", type=int, default=53_000)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--data", default=str(ROOT / ".cache" / "bench_stats"))
    ap.add_argument("--steps", default="pairs,distributions")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        args.docs, args.hosts, args.steps = 20_000, 2_000, "pairs,distributions"
    steps = set(args.steps.split(","))
    from crawlplan.conf import load_conf
    from crawlplan.spark import build_session

    paths = generate(Path(args.data), args.docs, args.hosts, 0)
    conf = load_conf("local", overrides=[f"spark.master=local[{args.cores}]",
                                         f"spark.shuffle_partitions={2 if args.smoke else 8}",
                                         f"spark.driver_memory={'2g' if args.smoke else '6g'}", "spark.log_level=ERROR"])
    spark = build_session(conf, app_name="bench-stats-steps")
    spark.range(1).count()
    scores = spark.read.parquet(paths["scores"])
    long = host_stats.long_scores(scores, CLASSIFIERS)
    langs = host_stats.host_language(scores).cache()
    langs.count()
    load_start = os.getloadavg()
    res: dict = {}

    def both(step, peer_name, peer, ours, same):
        (p, pw, pc), (o, ow, oc) = timed(peer), timed(ours)
        res[step] = {"peer": peer_name, "peer_wall_s": pw, "peer_cpu_s": pc, "ranks_wall_s": ow, "ranks_cpu_s": oc,
                     "cpu_ratio": round(pc / oc, 2), "max_abs_diff": same(p, o)}
        print(step, res[step], flush=True)

    if "pairs" in steps:
        both("classifier pairs", "MLlib Correlation.corr spearman", lambda: mllib_pairs(scores),
             lambda: rank_pairs(scores), lambda a, b: float(np.abs(a - b).max()))
    if "distributions" in steps:
        both("score distributions", "percentile per group", lambda: percentile_dists(long, langs),
             lambda: rank_dists(long, langs),
             lambda a, b: max(abs(x - y) for k in a for x, y in zip(a[k], b[k])))

    spark.stop()
    out = {"command": "python bench/bench_stats_steps.py " + " ".join(sys.argv[1:]), "docs": args.docs, "hosts": args.hosts, "cores": args.cores, "steps": res,
           "load_average_at_start": load_start, "load_average_at_end": os.getloadavg()}
    path = ROOT / "bench" / "results" / ("smoke" if args.smoke else "") / f"bench_stats_steps-d{args.docs}-{'-'.join(sorted(steps))}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    if args.smoke:
        check(len(res) == 2, f"{len(res)} steps measured, not 2")
        diffs = {k: v["max_abs_diff"] for k, v in res.items()}
        check(all(d < 1e-6 for d in diffs.values()), f"the steps disagree with their peers: {diffs}")
        return ok(f"both steps agree with their Spark built-ins (max diff {max(diffs.values()):.1e})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
