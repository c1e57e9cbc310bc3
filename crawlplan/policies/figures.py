"""The policy figures (PNG) from the summarised sweep tables: Figures 4, 5 and 9 of the paper and
the share-of-oracle comparison of the new policy."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

_LABELS = {"uniform": "uniform breadth", "hc_depth": "HC depth", "sample_then_deepen": "sample-then-deepen (k=3)",
           "eb_adaptive": "EB adaptive (new)", "oracle": "oracle", "random": "random", "hc": "HC", "pr": "PR",
           "common_crawl": "Common Crawl budget", "sample_then_deepen_free": "sample-then-deepen, sample known",
           "eb_free": "EB ranking, sample known"}


def _plt():
    # matplotlib: heavy, only when a figure is drawn
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after use("Agg"): no display backend on a cluster

    return plt


def _band(ax, df, policy, value, sd):
    g = df[df.policy == policy].sort_values("budget_frac")
    if g.empty:
        return
    x = g.budget_frac * 100
    ax.plot(x, g[value], marker="o", ms=3, label=_LABELS.get(policy, policy))
    if sd in g:
        ax.fill_between(x, g[value] - g[sd], g[value] + g[sd], alpha=0.2)


def depth_figure(depth: pd.DataFrame, out: Path, title: str) -> Path:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for policy in ("uniform", "hc_depth", "sample_then_deepen", "eb_adaptive", "oracle"):
        _band(axes[0], depth, policy, "yield_mean", "yield_sd")
        if policy != "oracle":
            _band(axes[1], depth, policy, "share_of_oracle", "share_of_oracle_sd")
    axes[0].set(xscale="log", xlabel="budget (% of pages)", ylabel="yield (hq pages per fetched page)",
                title="crawl depth (RQ3), sample pages charged")
    axes[1].set(xscale="log", xlabel="budget (% of pages)", ylabel="share of the oracle's yield",
                title="share of oracle (mean ± sd over seeds)")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def ordering_figure(ordering: pd.DataFrame, out: Path, title: str) -> Path:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for policy in ("random", "common_crawl", "hc", "pr", "oracle"):
        _band(axes[0], ordering, policy, "yield_mean", "yield_sd")
        _band(axes[1], ordering, policy, "distinct_tlds", None)
    axes[0].set(xscale="log", xlabel="budget (% of pages)", ylabel="yield", title="host ordering (RQ2, Figure 9)")
    axes[1].set(xscale="log", xlabel="budget (% of pages)", ylabel="distinct TLDs fetched", title="TLD diversity")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def reliability_figure(rel: pd.DataFrame, out: Path, title: str) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    rel = rel.sort_values("k")
    ax.errorbar(rel.k, rel.spearman, yerr=rel.spearman_sd, marker="o", ms=3, capsize=2)
    ax.set(xlabel="k (sampled pages)", ylabel="Spearman(sample, remaining)", title="sample reliability (Figure 4)")
    ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
