"""Quality of a plan made from k pages per host, against the plan from the full extract.

    .venv/bin/python bench/bench_sampled_plan.py --scores OUT/scores [--seeds 5] [--hosts 200000]
    .venv/bin/python bench/bench_sampled_plan.py --smoke   # 20-host demo, its own scores, 1 seed, checked

Demo crawl: the k-per-host draw is the sampled extract's own (``select_sample`` on the demo's
cc_index, seeds 0..S-1, one draw at k = 20 whose first j captures per host are the draw for
k = j); the pages' scores are those of a full-extract run (``--scores``, the ``scores`` dataset of
``crawlplan run --until classify``): the sampled extract yields the same documents for the same
records (tests/test_ccindex.py), so the sample's scores are the full scores of the drawn records.
Calibrated population (``policies.population``, the paper's 532k-host sample by default, here
``--hosts``): k pages per host drawn without replacement (hypergeometric), seeds 0..S-1.

For k = 3, 5, 10, 20: Spearman of host density sample vs all pages, ICC1 (0/1 flags; on the demo
also of the continuous scores), and the allocator's budgets at 5/10/20% of all pages as a share
of the oracle, sampled and full. JSON in bench/results/sampled_plan.json.

``--smoke``: the 20-host demo, whose ``scores`` it makes itself with pipelines/main.yaml through
the runner (``run_pipeline(until=["classify"])``, what ``crawlplan run --until classify`` runs; kept
in bench/results/smoke/, so a second smoke run skips it), one seed, 2,000 calibrated hosts; checks
that the table has a row per population and k with finite rank correlations in [-1, 1].
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

import numpy as np
import pandas as pd
from benchlib import RESULTS, check, demo_crawl, machine, ok, save, spark_session

KS = (3, 5, 10, 20)


def _mean(rows: list[dict]) -> dict:
    return {k: float(np.nanmean([r[k] for r in rows])) for k in rows[0]}


def demo_scores(spark, demo: dict) -> str:
    """The ``scores`` of a full-extract run of the project's pipeline on ``demo`` (smoke mode)."""
    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner

    conf = load_conf("local", overrides=["spark.master=local[2]", "run.progress_every_s=0"])
    conf["inputs"]["warc_paths"] = demo["warc_paths"]
    out = RESULTS / "smoke" / "sampled-plan-run"
    Runner(spark, conf, str(out), echo=lambda *_: None).run_pipeline(load_pipeline("main"), until=["classify"])
    return str(out / "scores")


def demo_curve(spark, demo: dict, scores_path: str, classifier: str, threshold: float, seeds: int) -> dict:
    from crawlplan.ccindex.sample import SampleSettings, read_cc_index, select_sample
    from crawlplan.conf import load_conf, section
    from crawlplan.policies.allocate import AllocatorConfig
    from crawlplan.policies.sample_quality import HostSample, plan_quality, score_icc

    scores = spark.read.parquet(scores_path).select("url", "surt_host_name", "tld", "language", classifier) \
        .where(f"{classifier} is not null").toPandas().drop_duplicates("url")
    scores = scores.rename(columns={classifier: "score"}).assign(host=lambda d: d.surt_host_name)
    scores["hq"] = (scores.score > threshold).astype(int)
    full = scores.groupby("surt_host_name").agg(n_full=("hq", "size"), hq_full=("hq", "sum"),
                                                tld=("tld", "first"), language=("language", lambda s: s.mode().iat[0]))
    out = {}
    for k in KS:
        rows = []
        for seed in range(seeds):
            sampling = replace(SampleSettings.from_params(section(load_conf(), "extract")["sample"]), k=max(KS), seed=seed)
            index, _ = read_cc_index(spark, demo["cc_index"], sampling)
            drawn = select_sample(index, sampling)[0].select("url", "draw_rank").toPandas()
            chosen = scores.url.isin(drawn[drawn.draw_rank <= k].url)
            part = scores[chosen].groupby("surt_host_name").agg(n_sample=("hq", "size"), hq_sample=("hq", "sum"))
            table = full.join(part, how="left").fillna({"n_sample": 0, "hq_sample": 0})
            table = table[table.n_sample > 0]
            hosts = HostSample(table.index.to_numpy(), table.tld.to_numpy(), table.language.to_numpy(),
                               table.n_full.to_numpy(), table.hq_full.to_numpy(),
                               table.n_sample.to_numpy().astype(np.int64), table.hq_sample.to_numpy().astype(np.int64))
            q = plan_quality(hosts, AllocatorConfig.from_params(section(load_conf(), "policies.allocate")),
                             min_pages=int(section(load_conf(), "policies.simulate")["min_pages"]))
            q["icc_scores_sample"], q["icc_scores_full"] = score_icc(scores, chosen)
            rows.append(q)
        out[f"k={k}"] = _mean(rows)
        print("demo", k, {a: round(b, 3) for a, b in out[f"k={k}"].items()}, flush=True)
    return out


def calibrated_curve(hosts_n: int, seeds: int) -> dict:
    from crawlplan.conf import load_conf, section
    from crawlplan.policies.allocate import AllocatorConfig
    from crawlplan.policies.population import CalibratedParams, calibrated_population
    from crawlplan.policies.sample_quality import HostSample, calibrated_sample, plan_quality

    out = {}
    pops = [calibrated_population(CalibratedParams(hosts=hosts_n), seed=s) for s in range(seeds)]
    for k in KS:
        rows = []
        for seed, pop in enumerate(pops):
            n_s, hq_s = calibrated_sample(pop, k, np.random.default_rng(1000 + seed))
            groups = np.asarray(pop.group_names, dtype=object)[pop.group]
            hosts = HostSample(np.array([f"h{i}" for i in range(pop.hosts)]),
                               np.asarray(pop.tld_names, dtype=object)[pop.tld],
                               np.array([g.split("|")[1] for g in groups]), pop.n, pop.hq, n_s, hq_s)
            rows.append(plan_quality(hosts, AllocatorConfig.from_params(section(load_conf(), "policies.allocate")),
                                     min_pages=int(section(load_conf(), "policies.simulate")["min_pages"])))
        out[f"k={k}"] = _mean(rows)
        print("calibrated", k, {a: round(b, 3) for a, b in out[f"k={k}"].items()}, flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scores", help="scores dataset of a full-extract run on the demo (required but with --smoke)")
    ap.add_argument("--classifier", default="fineweb_edu")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--hosts", type=int, default=200_000, help="calibrated population size")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if not args.scores and not args.smoke:
        ap.error("--scores is required (or --smoke)")
    if args.smoke:
        args.seeds, args.hosts = 1, 2000
    _, spark = spark_session(2)
    demo = demo_crawl(args.smoke)
    scores = demo_scores(spark, demo) if args.smoke else args.scores
    result = {"machine": machine(), "classifier": args.classifier, "threshold": args.threshold, "seeds": args.seeds,
              "demo": demo_curve(spark, demo, scores, args.classifier, args.threshold, args.seeds),
              "calibrated": calibrated_curve(args.hosts, args.seeds), "calibrated_hosts": args.hosts}
    spark.stop()
    table = pd.DataFrame([{"population": pop, "k": k, **vals} for pop in ("demo", "calibrated")
                          for k, vals in result[pop].items()])
    print(table.round(3).to_string(index=False))
    save("smoke/sampled_plan" if args.smoke else "sampled_plan", result)
    if args.smoke:
        check(len(table) == 2 * len(KS), f"{len(table)} table rows, not {2 * len(KS)}")
        rhos = [v for row in result["demo"].values() for k, v in row.items() if "spearman" in k]
        rhos += [v for row in result["calibrated"].values() for k, v in row.items() if "spearman" in k]
        check(rhos and all(-1 <= v <= 1 for v in rhos), f"rank correlations {rhos}")
        return ok(f"{len(table)} rows (demo and calibrated, k = {', '.join(map(str, KS))}), {len(rhos)} rank correlations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
