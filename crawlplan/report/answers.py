"""Each report section's answer, in one or two sentences computed from the run's frames.

Every function takes the dict of pandas frames from ``collect`` and returns plain text (the page
escapes it), or raises ``Missing`` naming the dataset the answer needs: the section then says
which dataset was not produced instead of an answer. The verdict words (yes / partly / no) come
from thresholds written here, next to the numbers they judge; the numbers are the run's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from crawlplan.report import figures_hosts
from crawlplan.report.render import Missing, need

DEMO_CAVEAT = ("The scores come from the demo models, not the papers' classifiers: these numbers show "
               "the pipeline working on a synthetic crawl, not a finding about the web.")
BUDGET = 0.10          # the budget the papers' headline comparisons use


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _x(x: float) -> str:
    return f"{x:.2f}×"


def _range(values, fmt) -> str:
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    if np.isclose(lo, hi):
        return fmt(lo)
    return f"{fmt(lo)} to {fmt(hi)}" if lo < 0 else f"{fmt(lo)}–{fmt(hi)}"


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _population(df: pd.DataFrame) -> pd.DataFrame:
    return figures_hosts.data_population(df)[0]


def run(frames: dict) -> str:
    """What the run read: WARC files, records, documents kept and rejected, files not read whole."""
    df = need(frames, "warc_files")
    files, documents = int(df["files"].sum()), int(df["documents"].fillna(0).sum())
    records, rejected = int(df["records"].fillna(0).sum()), int(df["rejected"].fillna(0).sum())
    bad = df[df["status"] != "ok"]
    text = (f"Extract read {_n(records, 'record')} from {_n(files, 'WARC file')} and kept {documents:,} documents "
            f"({rejected:,} records rejected).")
    if len(bad):
        text += (f" {_n(int(bad['files'].sum()), 'file')} not read whole ("
                 + ", ".join(f"{s}: {int(n):,}" for s, n in zip(bad["status"], bad["files"])) + ").")
    langs = frames.get("documents_by_language")
    if langs is not None and len(langs) and documents:
        top = langs.sort_values("documents", ascending=False).iloc[0]
        text += f" The most common language is {top['language']} ({_pct(int(top['documents']) / documents)} of documents)."
    return text


def rq1(frames: dict) -> str:
    """Is quality a host property? The between-host share of score variance (ICC1)."""
    df = need(frames, "icc").dropna(subset=["icc1"])
    if df.empty:
        raise Missing("icc", "has no finite ICC1 values in this run")
    level = int(df["min_docs"].min())
    sub = df[df["min_docs"] == level]
    planted = sub[sub["classifier"] == "true_quality"]
    real = sub[sub["classifier"] != "true_quality"]
    if real.empty:
        real = sub
    median = float(real["icc1"].median())
    verdict = "Largely" if median >= 0.5 else "Partly" if median >= 0.2 else "Mostly not"
    top = real.loc[real["icc1"].idxmax()]
    low = real.loc[real["icc1"].idxmin()]
    text = (f"{verdict}: the host explains {_range(real['icc1'], _pct)} of the variance of page scores across "
            f"{_n(len(real), 'classifier')} (ICC1, hosts with at least {level} documents; median {_pct(median)}).")
    if len(real) > 1:
        text += f" Highest for {top['classifier']} ({top['icc1']:.2f}), lowest for {low['classifier']} ({low['icc1']:.2f})."
    if len(planted):
        text += f" The demo's planted quality has ICC1 {float(planted['icc1'].iloc[0]):.2f}."
    return text


def rq2(frames: dict) -> str:
    """Does centrality find quality? Yield of the harmonic-centrality order against random."""
    df, chosen = figures_hosts.nearest_budget(_population(need(frames, "ordering_sim")), BUDGET)
    by_policy = df.groupby("policy")["multiple_of_random"].agg(["min", "max", "mean"])
    if "hc" not in by_policy.index:
        raise Missing("ordering_sim", "has no harmonic-centrality (hc) ordering in this run")
    hc = by_policy.loc["hc"]
    verdict = "Yes" if hc["mean"] >= 1.5 else "Somewhat" if hc["mean"] >= 1.05 else \
        "No better than random" if hc["mean"] >= 0.95 else "No, worse than random"
    n_clf = df["classifier"].nunique()
    others = ", ".join(f"{name} {_range([by_policy.loc[p, 'min'], by_policy.loc[p, 'max']], _x)}"
                       for p, name in (("pr", "PageRank"), ("common_crawl", "Common Crawl's order"),
                                       ("oracle", "the oracle")) if p in by_policy.index)
    text = (f"{verdict}: at a {_pct(chosen)} budget, fetching hosts in harmonic-centrality order yields "
            f"{_range([hc['min'], hc['max']], _x)} random's high-quality pages "
            + (f"for {df['classifier'].iloc[0]}" if n_clf == 1 else f"over {_n(n_clf, 'classifier')}")
            + (f" ({others})." if others else "."))
    corr = frames.get("correlations")
    if corr is not None and len(corr):
        pooled = corr[(corr["stratum_kind"] == "all") & (corr["metric"] == "log_hc")].dropna(subset=["spearman"])
        if len(pooled):
            text += (f" Pooled over hosts, Spearman ρ of log harmonic centrality with the host's median score is "
                     f"{_range(pooled['spearman'], lambda v: f'{v:.2f}')} over "
                     f"{_n(pooled['classifier'].nunique(), 'classifier')}.")
    return text


def rq3(frames: dict) -> str:
    """How deep to crawl each host? The best depth policy near a 10% budget, and the k-sample rho."""
    df, chosen = figures_hosts.nearest_budget(_population(need(frames, "depth_sim")), BUDGET)
    cand = df[~df["policy"].isin(["oracle", "uniform"]) & ~df["policy"].str.endswith("_free")]
    cand = cand.dropna(subset=["yield_mean"])
    if cand.empty:
        raise Missing("depth_sim", "has no depth policy besides uniform and the oracle in this run")
    best = cand.loc[cand["yield_mean"].idxmax()]
    parts = []
    if pd.notna(best.get("vs_uniform")):
        parts.append(f"{_x(float(best['vs_uniform']))} the high-quality yield of uniform depth")
    if pd.notna(best.get("share_of_oracle")):
        parts.append(f"{_pct(float(best['share_of_oracle']))} of the oracle's")
    k = f" (k = {int(best['k'])})" if pd.notna(best.get("k")) else ""
    gain = float(best["vs_uniform"]) if pd.notna(best.get("vs_uniform")) else np.nan
    verdict = ("The best depth policy" if np.isnan(gain) else "Sample, then deepen"
               if best["policy"] != "hc_depth" and gain >= 1.05 else "Depth by centrality" if gain >= 1.05
               else "Uniform depth is as good as any")
    text = (f"{verdict}: at a {_pct(chosen)} budget (probe pages charged), {best['policy']}{k} does best, "
            f"with {' and '.join(parts) if parts else 'the highest yield'}.")
    rel = frames.get("sample_reliability")
    if rel is not None and len(rel):
        rel = _population(rel).dropna(subset=["spearman"])
        if len(rel):
            curve = rel.groupby("k")["spearman"].mean().sort_index()
            reached = curve[curve >= 0.7]
            text += (f" A k-page sample ranks hosts at Spearman ρ {curve.iloc[0]:.2f} for k = {int(curve.index[0])} "
                     f"and {curve.iloc[-1]:.2f} for k = {int(curve.index[-1])}"
                     + (f"; 0.7 is reached at k = {int(reached.index[0])}." if len(reached) else
                        "; it never reaches 0.7 in this run."))
    return text


def rq4(frames: dict, preferred: str | None = None) -> str:
    """Does the deployed crawl follow quality? Coverage against quality density, and the missed pages."""
    df = need(frames, "coverage_summary")
    crawl, source = figures_hosts.pick_source(df, preferred)   # the pair Figures 6 and 7 draw
    row = df[(df["crawl"] == crawl) & (df["source"] == source)].iloc[0]
    rho = row["spearman_coverage_density"]
    if pd.isna(rho):
        raise Missing("coverage_summary", f"has no coverage-density correlation for {source} in {crawl}")
    verdict = "Yes" if rho >= 0.3 else "Weakly" if rho >= 0.1 else "No"
    ci = (f" (95% CI {row['ci_low']:.2f} to {row['ci_high']:.2f})"
          if pd.notna(row.get("ci_low")) and pd.notna(row.get("ci_high")) else "")
    text = (f"{verdict}: in {crawl}, a host's crawl coverage and its quality density ({source}) correlate at "
            f"Spearman ρ {rho:.2f}{ci} over {int(row['hosts']):,} hosts.")
    if pd.notna(row.get("missed_share_low_coverage")):
        cut = f" below {row['low_coverage_cut']:.2f}" if pd.notna(row.get("low_coverage_cut")) else ""
        text += (f" {_pct(float(row['missed_share_low_coverage']))} of the estimated missed high-quality pages "
                 f"are on hosts with coverage{cut}")
        if pd.notna(row.get("missed_share_on_gems")) and pd.notna(row.get("gems")):
            text += f", {_pct(float(row['missed_share_on_gems']))} on the {int(row['gems']):,} gem hosts"
        text += "."
    return text


def budgets(frames: dict) -> str:
    """The plan in one sentence: pages, hosts and the reason most pages were given for."""
    by_reason = need(frames, "budgets_by_reason", "budgets")
    pages, hosts = int(by_reason["pages"].sum()), int(by_reason["hosts"].sum())
    top = by_reason.loc[by_reason["pages"].idxmax()]
    share = float(top["pages"]) / pages if pages else 0.0
    text = (f"The plan allocates {pages:,} pages over {hosts:,} hosts; {_pct(share)} of the pages go to hosts "
            f"allocated by {top['reason']}.")
    by_policy = frames.get("budgets_by_policy")
    if by_policy is not None and len(by_policy) and "capped_hosts" in by_policy:
        capped = int(by_policy["capped_hosts"].fillna(0).sum())
        text += f" Politeness caps {_n(capped, 'host')}." if capped else " No host is capped by politeness."
    return text


def source(frames: dict) -> str:
    """SOUrCe against BFS on the simulated crawls: mean final harvest rate per method."""
    df = need(frames, "site_eval")
    sub = df[(df["task"] == "target") & (df["metric"] == "harvest_rate")].dropna(subset=["value"])
    if sub.empty:
        sub = df[(df["task"] == "ucc") & (df["metric"] == "harvest_rate")].dropna(subset=["value"])
    if sub.empty:
        raise Missing("site_eval", "has no harvest rate (no site with known page types)")
    task = sub["task"].iloc[0]
    means = sub.groupby("method")["value"].mean()
    if "source" not in means.index:
        raise Missing("site_eval", "has no SOUrCe crawl")
    baselines = [m for m in ("bfs", "tpm") if m in means.index]
    sota = means["source"]
    verdict = ("SOUrCe beats " + " and ".join(m.upper() for m in baselines) if baselines and
               all(sota > means[m] for m in baselines) else "SOUrCe does not beat every baseline" if baselines
               else "SOUrCe ran without a baseline")
    rest = ", ".join(f"{m.upper() if m in baselines else m} {means[m]:.2f}" for m in
                     means.drop("source").sort_values(ascending=False).index)
    return (f"{verdict}: over {_n(sub['site'].nunique(), 'site')}, the {task} crawl's mean final harvest rate is "
            f"{sota:.2f} for SOUrCe" + (f" against {rest}." if rest else "."))
