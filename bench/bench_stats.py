"""The whole statistics stage at the paper's size, local Spark against pandas/scipy.

A generated score table of 3M documents on 530k hosts (the paper's classified sample: 10
classifiers, unbalanced hosts with a host effect, ~half English, mixed TLDs), a graph-feature
table for 95% of the hosts and a one-crawl host index. Both sides compute the same outputs:
host_scores (exact medians), icc (n >= 3/5/10), correlations (Spearman, Kendall, weighted,
bootstrap CIs; overall / language / TLD category), score_distributions, classifier pairs and
host_quality with its summary. The pandas side reuses the numpy reference functions for the
per-group statistics, so the comparison is about the data movement and aggregation, and the
results are checked equal before timings are reported.

    .venv/bin/python bench/bench_stats.py --docs 3000000 --hosts 530000 --replicates 20
    .venv/bin/python bench/bench_stats.py --smoke   # 20,000 documents on 2,000 hosts, agreement checked

``--smoke``: 20,000 documents on 2,000 hosts, 5 replicates, 2 GB of driver memory, 2 shuffle
partitions; fails unless
the two sides agree (same host_scores rows, ICC1, Spearman, bootstrap CIs, classifier pairs and
coverage rho within 1e-5: Spearman differed by 7.6e-7 at this size, the same gems).

Results: bench/results/bench_stats-d<docs>-h<hosts>.json; the table is in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))   # the whole-group pandas statistics of before are test code
import naive_stats  # noqa: E402
from benchlib import check, ok  # noqa: E402

from crawlplan.stats import correlations, host_quality, host_stats, reference  # noqa: E402

# every group of the bench is whole (at most 530k hosts): Kendall and the CIs compare exactly
MAX_HOSTS_PER_GROUP = 1_000_000

CLASSIFIERS = list(host_stats.CLASSIFIERS)
TLDS = np.array(["com", "com", "com", "net", "org", "de", "uk", "fr", "edu", "ac.uk", "gov", "io", "jp", "ru"])


def generate(folder: Path, docs: int, hosts: int, seed: int) -> dict[str, str]:
    """Write scores / features / host index Parquet once (cached by size and seed)."""
    tag = folder / f"gen-d{docs}-h{hosts}-s{seed}"
    paths = {k: str(tag / f"{k}.parquet") for k in ("scores", "features", "host_index")}
    if (tag / "_SUCCESS").exists():
        return paths
    shutil.rmtree(tag, ignore_errors=True)
    tag.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    # host sizes: one document each plus a skewed (lognormal-weighted) share of the rest,
    # summing exactly to `docs`: most hosts small, a long tail of large ones
    weights = rng.lognormal(0, 1.2, hosts)
    sizes = 1 + rng.multinomial(docs - hosts, weights / weights.sum())
    host_id = np.repeat(np.arange(hosts), sizes)
    names = np.char.add(np.char.add("h", np.arange(hosts).astype(str)), ".example.")
    names = np.char.add(names, TLDS[rng.integers(0, TLDS.size, hosts)])
    rev = np.array([".".join(reversed(n.split("."))) for n in names])
    english = rng.random(hosts) < 0.5
    effect = rng.normal(0, 1, hosts)
    lang = np.where(english[host_id], "en", np.where(rng.random(docs) < 0.9, "de", "unknown"))
    df = pd.DataFrame({"url": np.char.add(np.char.add("https://", names[host_id]), "/p"), "host": names[host_id],
                       "surt_host_name": np.char.replace(rev, ".", ",")[host_id], "rev_host": rev[host_id],
                       "tld": np.array([n.rsplit(".", 1)[1] for n in names])[host_id], "language": lang})
    for i, c in enumerate(CLASSIFIERS):
        z = effect[host_id] * (0.6 + 0.05 * i) + rng.normal(0, 0.8, docs)
        s = np.round(1 / (1 + np.exp(-z)), 4)
        s[rng.random(docs) < 0.02] = np.nan
        df[c] = s
    df.to_parquet(paths["scores"], index=False, row_group_size=500_000)
    in_graph = rng.random(hosts) < 0.95
    hc = 10 ** (4 + 1.5 * rng.normal(size=hosts) + 0.1 * effect)
    pd.DataFrame({"rev_host": rev[in_graph], "log_hc": np.log10(1 + hc[in_graph]),
                  "log_pr": np.log10(1 + hc[in_graph] * 1e-12 * rng.lognormal(0, 1, in_graph.sum()))}).to_parquet(
        paths["features"], index=False)
    known = sizes * rng.integers(2, 60, hosts)
    pd.DataFrame({"crawl": "CC-MAIN-2024-10", "surt_host_name": np.char.replace(rev, ".", ","), "rev_host": rev,
                  "url_host_tld": [n.rsplit(".", 1)[1] for n in names], "fetch_200": sizes.astype(np.int64),
                  "nutch_numRecords": known.astype(np.int64)}).to_parquet(paths["host_index"], index=False)
    (tag / "_SUCCESS").write_text("ok")
    return paths


# ------------------------------------------------------------------------------------ Spark


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system, including reaped children) of ``root`` and every live
    descendant: the driver, the Spark JVM it launched and the Python workers under it.

    On a shared machine wall time measures the neighbours as much as the code; CPU seconds
    do not, so both are reported."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # after the command: state ppid ... utime(12) stime(13) cutime(14) cstime(15)
        stats[int(d)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    keep, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in stats.items():
            if ppid == parent and pid not in keep:
                keep.add(pid)
                frontier.append(pid)
    return sum(stats[p][1] for p in keep if p in stats) / tick


def run_spark(paths: dict, out: Path, replicates: int, cores: int, memory: str = "6g", partitions: int = 8) -> dict:
    from crawlplan.conf import load_conf, section
    from crawlplan.spark import build_session

    conf = load_conf("local", overrides=[f"spark.master=local[{cores}]", f"spark.shuffle_partitions={partitions}",
                                         f"spark.driver_memory={memory}", "spark.log_level=ERROR"])
    spark = build_session(conf, app_name="bench-stats")
    shutil.rmtree(out, ignore_errors=True)
    spark.range(1).count()  # start the JVM's executor threads before the clock
    cpu0 = tree_cpu_seconds(os.getpid())
    t0 = time.perf_counter()
    steps: dict[str, float] = {}

    def lap(name: str) -> None:
        steps[name] = round(time.perf_counter() - t0 - sum(steps.values()), 1)
        print(f"  spark {name}: {steps[name]}s", flush=True)

    scores = spark.read.parquet(paths["scores"])
    long = host_stats.long_scores(scores, CLASSIFIERS)
    langs = host_stats.host_language(scores).cache()
    hs_conf = section(load_conf(), "stats.host_stats")
    hs = host_stats.host_scores(long, langs, min_docs=int(hs_conf["min_docs"]), threshold=float(hs_conf["threshold"])).cache()
    hs.write.parquet(str(out / "host_scores"))
    lap("host_scores")
    icc = host_stats.icc_table(long)
    icc.write.parquet(str(out / "icc"))
    lap("icc")
    feats = spark.read.parquet(paths["features"])
    corr = correlations.correlation_table(correlations.stratified_host_table(hs, feats), replicates=replicates, seed=0,
                                         alpha=0.05, max_hosts_per_group=MAX_HOSTS_PER_GROUP)
    corr.write.parquet(str(out / "correlations"))
    lap("correlations")
    correlations.score_distributions(long, langs).write.parquet(str(out / "score_distributions"))
    lap("score_distributions")
    pairs = correlations.classifier_correlations(scores, CLASSIFIERS)
    pairs.write.parquet(str(out / "classifier_correlations"))
    lap("classifier_correlations")
    hi = spark.read.parquet(paths["host_index"])
    cov = host_quality.host_coverage(hi, ["nutch_numRecords"], ["fetch_200"])
    hq = host_quality.host_quality(cov, host_quality.density_from_host_scores(hs)).cache()
    hq.write.parquet(str(out / "host_quality"))
    host_quality.coverage_summary(hq, 0.2, replicates=0, seed=0, alpha=0.05,
                                  max_hosts_per_group=MAX_HOSTS_PER_GROUP).write.parquet(str(out / "coverage_summary"))
    lap("host_quality")
    seconds = time.perf_counter() - t0
    cpu = tree_cpu_seconds(os.getpid()) - cpu0
    res = {"seconds": seconds, "cpu_seconds": cpu, "steps": steps, "icc": icc.toPandas(), "corr": spark.read.parquet(str(out / "correlations")).toPandas(),
           "pairs": pairs.toPandas(), "summary": spark.read.parquet(str(out / "coverage_summary")).toPandas(),
           "host_scores_rows": spark.read.parquet(str(out / "host_scores")).count()}
    spark.stop()
    return res


# ----------------------------------------------------------------------------------- pandas


def run_pandas(paths: dict, replicates: int) -> dict:
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    steps: dict[str, float] = {}

    def lap(name: str) -> None:
        steps[name] = round(time.perf_counter() - t0 - sum(steps.values()), 1)
        print(f"  pandas {name}: {steps[name]}s", flush=True)

    scores = pd.read_parquet(paths["scores"])
    long = scores.melt(id_vars=["rev_host", "language"], value_vars=CLASSIFIERS, var_name="classifier",
                       value_name="score").dropna(subset=["score"])
    known = scores[~scores.language.isin(["unknown"])]
    mode = (known.groupby(["rev_host", "language"]).size().rename("n").reset_index()
            .sort_values(["rev_host", "n", "language"], ascending=[True, False, True])
            .drop_duplicates("rev_host"))
    stratum = pd.Series(np.where(mode.language == "en", "english", "non-english"), index=mode.rev_host)
    g = long.groupby(["rev_host", "classifier"])["score"]
    hs = pd.DataFrame({"documents": g.size(), "median": g.median(), "mean": g.mean(),
                       "share_above": (long.score > 0.5).groupby([long.rev_host, long.classifier]).mean()})
    hs = hs[hs.documents >= 3].reset_index()
    hs["language_stratum"] = hs.rev_host.map(stratum).fillna("unknown")
    hs["tld_category"] = hs.rev_host.map(lambda r: _tld_cat(r))
    lap("host_scores")
    icc_rows = []
    n_per = long.groupby(["rev_host", "classifier"])["score"].transform("size")
    for t in (3, 5, 10):
        sub = long[n_per >= t]
        for c, part in sub.groupby("classifier"):
            res = reference.icc1(part.score.to_numpy(), part.rev_host.to_numpy())
            icc_rows.append({"classifier": c, "min_docs": t, **res.as_dict()})
    icc = pd.DataFrame(icc_rows)
    lap("icc")
    feats = pd.read_parquet(paths["features"])
    j = hs.merge(feats, on="rev_host")
    corr_rows = []
    for metric in ("log_hc", "log_pr"):
        base = j.assign(metric=metric, x=j[metric], y=j["median"])
        strata = [base.assign(stratum_kind="all", stratum="all"),
                  base[base.language_stratum.isin(["english", "non-english"])].assign(
                      stratum_kind="language", stratum=lambda d: d.language_stratum),
                  base.assign(stratum_kind="tld_category", stratum=base.tld_category)]
        for part in strata:
            for _, grp in part.groupby(["classifier", "stratum"]):
                corr_rows.append(naive_stats.group_correlations(grp, replicates, 0, 0.05))
    corr = pd.concat(corr_rows, ignore_index=True)
    lap("correlations")
    long.assign(stratum=long.rev_host.map(stratum)).groupby(["stratum", "classifier"])["score"].quantile(
        [0.1, 0.5, 0.9])
    long.groupby("classifier")["score"].quantile([0.1, 0.5, 0.9])
    lap("score_distributions")
    pairs = scores[CLASSIFIERS].dropna().corr(method="spearman")
    lap("classifier_correlations")
    hi = pd.read_parquet(paths["host_index"])
    hi = hi[hi.nutch_numRecords > 0].assign(coverage=lambda d: np.minimum(d.fetch_200 / d.nutch_numRecords, 1.0))
    hq = hi.merge(hs[["rev_host", "classifier", "share_above"]].rename(
        columns={"classifier": "source", "share_above": "density"}), on="rev_host")
    hq["missed_hq"] = np.maximum(hq.nutch_numRecords - hq.fetch_200, 0) * hq.density
    summ = []
    for (crawl, src), grp in hq.groupby(["crawl", "source"]):
        gem = (grp.coverage < grp.coverage.median()) & (grp.density >= grp.density.quantile(0.9))
        summ.append({"crawl": crawl, "source": src, "hosts": len(grp), "gems": int(gem.sum()),
                     "spearman_coverage_density": reference.spearman(grp.coverage.to_numpy(), grp.density.to_numpy()),
                     "missed_hq": grp.missed_hq.sum()})
    lap("host_quality")
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - cpu0, "steps": steps,
            "icc": icc, "corr": corr, "pairs": pairs,
            "summary": pd.DataFrame(summ), "host_scores_rows": len(hs)}


def _tld_cat(rev: str) -> str:
    from crawlplan.hosts import rev_to_host, tld_category

    return tld_category(rev_to_host(rev))


def check_equal(s: dict, p: dict) -> dict:
    """The two runs must agree before their timings mean anything."""
    out = {"host_scores_rows": (s["host_scores_rows"], p["host_scores_rows"])}
    m = s["icc"].merge(p["icc"], on=["classifier", "min_docs"], suffixes=("_s", "_p"))
    out["icc_max_abs_diff"] = float((m.icc1_s - m.icc1_p).abs().max())
    key = ["metric", "classifier", "stratum_kind", "stratum"]
    m = s["corr"].merge(p["corr"], on=key, suffixes=("_s", "_p"))
    out["corr_groups"] = (len(s["corr"]), len(p["corr"]), len(m))
    out["spearman_max_abs_diff"] = float((m.spearman_s - m.spearman_p).abs().max())
    out["ci_low_max_abs_diff"] = float((m.ci_low_s - m.ci_low_p).abs().max())
    pm = s["pairs"].pivot(index="classifier_a", columns="classifier_b", values="spearman").loc[CLASSIFIERS, CLASSIFIERS]
    out["pairs_max_abs_diff"] = float(np.abs(pm.to_numpy() - p["pairs"].loc[CLASSIFIERS, CLASSIFIERS].to_numpy()).max())
    m = s["summary"].merge(p["summary"], on=["crawl", "source"], suffixes=("_s", "_p"))
    out["gems_equal"] = bool((m.gems_s == m.gems_p).all())
    out["coverage_rho_max_abs_diff"] = float((m.spearman_coverage_density_s - m.spearman_coverage_density_p).abs().max())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=3_000_000)
    ap.add_argument("--hosts", type=int, default=530_000)
    ap.add_argument("--replicates", type=int, default=20, help="bootstrap replicates per rho (both sides)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=str(ROOT / ".cache" / "bench_stats"))
    ap.add_argument("--results", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        args.docs, args.hosts, args.replicates = 20_000, 2_000, 5
        args.results = str(Path(args.results) / "smoke")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    load_start = os.getloadavg()
    t = time.perf_counter()
    paths = generate(Path(args.data), args.docs, args.hosts, args.seed)
    print(f"data ready in {time.perf_counter() - t:.1f}s: {paths['scores']}", flush=True)
    s = run_spark(paths, Path(args.results) / "bench_stats_spark_out", args.replicates, args.cores,
                  *(("2g", 2) if args.smoke else ()))
    print(f"spark local[{args.cores}]: {s['seconds']:.1f}s wall, {s['cpu_seconds']:.1f}s CPU", flush=True)
    p = run_pandas(paths, args.replicates)
    print(f"pandas/scipy single process: {p['seconds']:.1f}s wall, {p['cpu_seconds']:.1f}s CPU", flush=True)
    agree = check_equal(s, p)
    result = {"docs": args.docs, "hosts": args.hosts, "replicates": args.replicates, "cores": args.cores,
              "spark_seconds": round(s["seconds"], 1), "pandas_seconds": round(p["seconds"], 1),
              "spark_over_pandas": round(s["seconds"] / p["seconds"], 2),
              "spark_cpu_seconds": round(s["cpu_seconds"], 1), "pandas_cpu_seconds": round(p["cpu_seconds"], 1),
              "spark_over_pandas_cpu": round(s["cpu_seconds"] / p["cpu_seconds"], 2), "agreement": agree,
              "spark_steps": s["steps"], "pandas_steps": p["steps"],
              "load_average_at_start": load_start, "load_average_at_end": os.getloadavg()}
    Path(args.results).mkdir(parents=True, exist_ok=True)
    (Path(args.results) / f"bench_stats-d{args.docs}-h{args.hosts}.json").write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps(result, indent=1, default=str))
    if args.smoke:
        rows, groups = agree["host_scores_rows"], agree["corr_groups"]
        check(rows[0] == rows[1] > 0, f"host_scores rows differ: {rows}")
        check(groups[0] == groups[1] == groups[2] > 0, f"correlation groups differ: {groups}")
        check(agree["gems_equal"], "hidden gems differ")
        worst = {k: v for k, v in agree.items() if k.endswith("_diff")}
        check(all(v < 1e-5 for v in worst.values()), f"Spark and pandas disagree: {worst}")
        return ok(f"{rows[0]} host rows, {groups[0]} correlation groups; Spark and pandas agree "
                  f"(max diff {max(worst.values()):.1e})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
