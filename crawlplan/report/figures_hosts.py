"""The host-aware crawling paper's figures, drawn from the run's (reduced) datasets.

One function per figure; each takes the dict of pandas frames from ``collect`` and returns a
matplotlib figure, or raises ``Missing`` naming the dataset it needs. Layouts follow the paper
(figure numbers in the docstrings) so a reader can hold them side by side.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib.colors import LogNorm
from matplotlib.ticker import FuncFormatter

from crawlplan.report.render import Missing, need

POLICY_COLORS = {
    "oracle": "#2ca02c", "hc": "#1f77b4", "pr": "#9467bd", "common_crawl": "#ff7f0e", "random": "#7f7f7f",
    "uniform": "#7f7f7f", "hc_depth": "#1f77b4", "sample_then_deepen": "#d62728", "eb_adaptive": "#8c564b",
}


def _color(policy: str):
    base = policy.removesuffix("_free")
    return POLICY_COLORS.get(base)


def data_population(df: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The simulations may hold a calibrated population too; the paper's figures use the data."""
    if "population" not in df:
        return df, ""
    pops = list(df["population"].dropna().unique())
    pop = "data" if "data" in pops else (sorted(pops)[0] if pops else "")
    return df[df["population"] == pop], pop


def nearest_budget(df: pd.DataFrame, budget: float) -> tuple[pd.DataFrame, float]:
    """The rows at the simulated budget nearest ``budget`` (the papers compare at 10 %), and that budget."""
    budgets = np.array(sorted(df["budget_frac"].dropna().unique()), dtype=float)
    if not len(budgets):
        raise Missing("budget_frac", "has no simulated budget in this run")
    chosen = float(budgets[np.argmin(np.abs(budgets - budget))])
    return df[np.isclose(df["budget_frac"].astype(float), chosen)], chosen


def fig_icc(frames: dict):
    """Figure 1: ICC1 per classifier, the between-host share of score variance."""
    df = need(frames, "icc")
    df = df.dropna(subset=["icc1"])
    if df.empty:
        raise Missing("icc", "has no finite ICC1 values in this run")
    levels = sorted(df["min_docs"].unique())
    order = (df[df["min_docs"] == levels[0]].sort_values("icc1", ascending=False)["classifier"].tolist())
    order += [c for c in df["classifier"].unique() if c not in order]
    fig, ax = plt.subplots(figsize=(max(6, 0.75 * len(order) + 2), 3.8))
    width = 0.8 / len(levels)
    x = np.arange(len(order))
    for i, level in enumerate(levels):
        sub = df[df["min_docs"] == level].set_index("classifier").reindex(order)
        bars = ax.bar(x + (i - (len(levels) - 1) / 2) * width, sub["icc1"].to_numpy(), width,
                      label=f"hosts with >= {level} docs")
        for j, name in enumerate(order):
            if name == "true_quality":
                bars[j].set_hatch("//")
    ax.set_xticks(x, order, rotation=35, ha="right")
    ax.set_ylabel("ICC1 (between-host share)")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.legend(fontsize=8)
    ax.set_title("Score variance explained by the host, per classifier")
    return fig


def fig_yield_at_budget(frames: dict, budget: float = 0.10):
    """Figure 2: high-quality yield as a multiple of random ordering at a 10 % crawl budget."""
    df, pop = data_population(need(frames, "ordering_sim"))
    sub, chosen = nearest_budget(df, budget)
    policies = [p for p in ["common_crawl", "hc", "pr", "oracle", "random"] if p in set(sub["policy"])]
    policies += sorted(set(sub["policy"]) - set(policies))
    classifiers = sorted(sub["classifier"].unique())
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(classifiers) + 3), 3.8))
    width = 0.8 / max(1, len(policies))
    x = np.arange(len(classifiers))
    for i, pol in enumerate(policies):
        vals = sub[sub["policy"] == pol].set_index("classifier").reindex(classifiers)["multiple_of_random"]
        ax.bar(x + (i - (len(policies) - 1) / 2) * width, vals.to_numpy(), width, label=pol, color=_color(pol))
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    top = np.nanmax(sub["multiple_of_random"].to_numpy(dtype=float)) if len(sub) else 1.0
    ax.set_ylim(0, max(1.2, 1.3 * top))  # room for the legend above the bars
    ax.set_xticks(x, classifiers)
    ax.set_ylabel("yield / random yield")
    ax.set_title(f"High-quality yield at a {chosen:.0%} budget, relative to random ({pop or 'all'})")
    ax.legend(fontsize=8, ncol=min(5, len(policies)))
    return fig


def fig_yield_budgets(frames: dict):
    """Figure 9: yield of each host ordering across the budget sweep (min-max band over runs)."""
    df, pop = data_population(need(frames, "ordering_sim"))
    classifiers = sorted(df["classifier"].unique())
    fig, axes = plt.subplots(1, len(classifiers), figsize=(6.2 * len(classifiers), 3.9), squeeze=False)
    for ax, clf in zip(axes[0], classifiers):
        sub = df[df["classifier"] == clf]
        for pol, g in sub.groupby("policy"):
            g = g.sort_values("budget_frac")
            ax.plot(g["budget_frac"], g["yield_mean"], marker="o", markersize=3, label=pol, color=_color(pol))
            ax.fill_between(g["budget_frac"], g["yield_min"], g["yield_max"], alpha=0.15, color=_color(pol))
        ax.set_xscale("log")
        ax.set_xlabel("crawl budget (share of pages)")
        ax.set_ylabel("high-quality yield")
        ax.set_title(f"{clf} ({pop or 'all'})")
        ax.legend(fontsize=8)
    fig.suptitle("Host ordering across budgets")
    return fig


def fig_correlations_by_language(frames: dict, metric: str = "log_hc"):
    """Figure 3: Spearman of centrality with host quality, all hosts and by primary language."""
    df = need(frames, "correlations")
    metrics = list(df["metric"].unique())
    metric = metric if metric in metrics else sorted(metrics)[0]
    df = df[(df["metric"] == metric) & df["stratum_kind"].isin(["all", "language"])].dropna(subset=["spearman"])
    if df.empty:
        raise Missing("correlations", "has no language strata with a finite rho")
    langs = (df[df["stratum_kind"] == "language"].groupby("stratum")["hosts"].max()
             .sort_values(ascending=False).head(6).index.tolist())
    strata = ["all"] + langs
    classifiers = sorted(df["classifier"].unique())
    fig, ax = plt.subplots(figsize=(max(7, 0.9 * len(classifiers) + 3), 4))
    width = 0.8 / len(strata)
    x = np.arange(len(classifiers))
    for i, stratum in enumerate(strata):
        kind = "all" if stratum == "all" else "language"
        sub = df[(df["stratum_kind"] == kind) & (df["stratum"] == stratum)].set_index("classifier").reindex(classifiers)
        rho = sub["spearman"].to_numpy(dtype=float)
        lo = np.nan_to_num(rho - sub["ci_low"].to_numpy(dtype=float), nan=0.0).clip(min=0)
        hi = np.nan_to_num(sub["ci_high"].to_numpy(dtype=float) - rho, nan=0.0).clip(min=0)
        ax.bar(x + (i - (len(strata) - 1) / 2) * width, rho, width, yerr=[lo, hi], capsize=2,
               label=stratum if stratum == "all" else f"language {stratum}", error_kw={"linewidth": 0.7})
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(x, classifiers, rotation=35, ha="right")
    ax.set_ylabel(f"Spearman({metric}, host median)")
    ax.set_title("Centrality vs host quality, pooled and by host language (bootstrap CIs)")
    ax.legend(fontsize=8, ncol=min(4, len(strata)))
    return fig


def fig_sample_reliability(frames: dict):
    """Figure 4: how well a k-page sample ranks hosts by the quality of their remaining pages."""
    df = need(frames, "sample_reliability").dropna(subset=["spearman"])
    if df.empty:
        raise Missing("sample_reliability", "has no k with enough hosts for a rho")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for (pop, clf), g in df.groupby(["population", "classifier"]):
        g = g.sort_values("k")
        ax.plot(g["k"], g["spearman"], marker="o", markersize=3, label=f"{clf} ({pop})")
        sd = g["spearman_sd"].fillna(0).to_numpy()
        ax.fill_between(g["k"], g["spearman"] - sd, g["spearman"] + sd, alpha=0.15)
    ax.set_xlabel("k sampled pages per host")
    ax.set_ylabel("Spearman(sample density, rest)")
    ax.set_ylim(top=1.0)
    ax.set_title("k-sample reliability")
    ax.legend(fontsize=8)
    return fig


def fig_depth_policies(frames: dict):
    """Figure 5: crawl-depth policies across budgets, as a share of the oracle's yield."""
    df, pop = data_population(need(frames, "depth_sim"))
    col = "share_of_oracle" if df["share_of_oracle"].notna().any() else "yield_mean"
    fig, ax = plt.subplots(figsize=(7, 4))
    for pol, g in df.groupby("policy"):
        if pol == "oracle" and col == "share_of_oracle":
            continue
        g = g.sort_values("budget_frac")
        style = "--" if pol.endswith("_free") else "-"
        ax.plot(g["budget_frac"], g[col], style, marker="o", markersize=3, label=pol, color=_color(pol))
    ax.set_xscale("log")
    ax.set_xlabel("crawl budget (share of pages, probes charged)")
    ax.set_ylabel("share of oracle yield" if col == "share_of_oracle" else "high-quality yield")
    ax.set_title(f"Crawl-depth policies across budgets ({pop or 'all'})")
    ax.legend(fontsize=8)
    return fig


def pick_source(df: pd.DataFrame, preferred: str | None) -> tuple[str, str]:
    pairs = df[["crawl", "source"]].drop_duplicates().sort_values(["crawl", "source"])
    if preferred and preferred in set(pairs["source"]):
        pairs = pairs[pairs["source"] == preferred]
    row = pairs.iloc[-1]
    return str(row["crawl"]), str(row["source"])


def fig_coverage_density(frames: dict, preferred: str | None = None):
    """Figure 6: crawl coverage against quality density per host (2-D histogram of hosts)."""
    grid = need(frames, "host_quality_grid", "host_quality")
    crawl, source = pick_source(grid, preferred)
    g = grid[(grid["crawl"] == crawl) & (grid["source"] == source)]
    bins = int(frames["_grid_bins"])     # report.grid_bins, put there by collect
    mat = np.zeros((bins, bins))
    for cx, dy, n in zip(g["cov_bin"], g["den_bin"], g["hosts"]):
        mat[min(int(dy), bins - 1), min(int(cx), bins - 1)] += n
    fig, ax = plt.subplots(figsize=(6, 4.6))
    masked = np.ma.masked_where(mat == 0, mat)
    im = ax.imshow(masked, origin="lower", extent=(0, 1, 0, 1), aspect="auto", cmap="viridis",
                   norm=LogNorm(vmin=1, vmax=max(1.0, mat.max())))
    fig.colorbar(im, ax=ax, label="hosts", format=FuncFormatter(lambda v, _: f"{v:g}"))
    summary = frames.get("coverage_summary")
    title = f"Coverage vs quality density ({source}, {crawl})"
    if summary is not None and len(summary):
        row = summary[(summary["crawl"] == crawl) & (summary["source"] == source)]
        if len(row) and pd.notna(row["spearman_coverage_density"].iloc[0]):
            title += f"\nSpearman = {row['spearman_coverage_density'].iloc[0]:.3f} over {int(row['hosts'].iloc[0]):,} hosts"
    ax.set_xlabel("crawl coverage (fetched / known URLs)")
    ax.set_ylabel("quality density (share of HQ pages)")
    ax.set_title(title, fontsize=10)
    return fig


def fig_missed_heatmap(frames: dict, preferred: str | None = None):
    """Figure 7: where the missed high-quality pages are, by coverage and density bin."""
    df = need(frames, "coverage_bins")
    crawl, source = pick_source(df, preferred)
    df = df[(df["crawl"] == crawl) & (df["source"] == source)]
    xs = sorted(set(zip(df["coverage_lo"], df["coverage_hi"])))
    ys = sorted(set(zip(df["density_lo"], df["density_hi"])))
    mat = np.full((len(ys), len(xs)), np.nan)
    for _, r in df.iterrows():
        mat[ys.index((r["density_lo"], r["density_hi"])), xs.index((r["coverage_lo"], r["coverage_hi"]))] = \
            r["share_of_missed"] if pd.notna(r["share_of_missed"]) else np.nan
    fig, ax = plt.subplots(figsize=(1.1 * len(xs) + 2.5, 0.8 * len(ys) + 1.8))
    im = ax.imshow(np.nan_to_num(mat), origin="lower", cmap="Reds", vmin=0, aspect="auto")
    for i in range(len(ys)):
        for j in range(len(xs)):
            if not np.isnan(mat[i, j]):
                ax.text(j, i, f"{mat[i, j]:.0%}", ha="center", va="center", fontsize=9,
                        color="white" if mat[i, j] > 0.5 * np.nanmax(mat) else "black")
    ax.set_xticks(range(len(xs)), [f"{a:.1f}-{b:.1f}" for a, b in xs], rotation=30)
    ax.set_yticks(range(len(ys)), [f"{a:.1f}-{b:.1f}" for a, b in ys])
    ax.set_xlabel("crawl coverage")
    ax.set_ylabel("quality density")
    fig.colorbar(im, ax=ax, label="share of missed HQ pages")
    ax.set_title(f"Missed high-quality pages ({source}, {crawl})", fontsize=10)
    return fig


def fig_classifier_matrix(frames: dict):
    """Figure 12: pairwise document-level Spearman between classifiers."""
    df = need(frames, "classifier_correlations")
    names = sorted(set(df["classifier_a"]) | set(df["classifier_b"]))
    idx = {n: i for i, n in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    np.fill_diagonal(mat, 1.0)
    for a, b, rho in zip(df["classifier_a"], df["classifier_b"], df["spearman"]):
        if pd.notna(rho):
            mat[idx[a], idx[b]] = mat[idx[b], idx[a]] = rho
    size = 0.55 * len(names) + 2.5
    fig, ax = plt.subplots(figsize=(size + 1, size))
    im = ax.imshow(mat, cmap="RdBu_r", vmin=-1, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(mat[i, j]):
                ax.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(im, ax=ax, label="Spearman")
    ax.set_title("Classifier agreement (documents scored by both)")
    return fig


def fig_budget_summary(frames: dict):
    """The plan at a glance: allocated pages by reason and by language."""
    by_reason = need(frames, "budgets_by_reason", "budgets")
    by_lang = frames.get("budgets_by_language")
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    r = by_reason.sort_values("pages", ascending=True)
    bars = axes[0].barh(r["reason"].astype(str), r["pages"])
    axes[0].bar_label(bars, labels=[f"{int(p):,} pages, {int(h):,} hosts" for p, h in zip(r["pages"], r["hosts"])],
                      fontsize=8, padding=3)
    axes[0].set_xlim(0, 1.35 * max(1, float(r["pages"].max())))
    axes[0].set_xlabel("allocated pages")
    axes[0].set_title("budget by allocation reason")
    if by_lang is not None and len(by_lang):
        lang = by_lang.sort_values("pages", ascending=False).head(15).iloc[::-1]
        axes[1].barh(lang["language"].fillna("(unsampled)").astype(str), lang["pages"])
        axes[1].set_xlabel("allocated pages")
        axes[1].set_title("budget by host language (top 15)")
    else:
        axes[1].axis("off")
    return fig
