"""Budget sweeps over seeds: the rows of ``ordering_sim``, ``depth_sim`` and ``sample_reliability``.

A seed fixes the within-host page order and every random tie-break; with a population factory it
also draws a fresh population, so the spread covers both. Every policy of one seed sees the same
population and page order, and the same budgets in pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from crawlplan.conf import settings_from
from crawlplan.policies import adaptive, sim
from crawlplan.policies.population import Population, page_orders

ORDERING_POLICIES = ("random", "common_crawl", "hc", "pr", "oracle")
DEPTH_POLICIES = ("uniform", "hc_depth", "sample_then_deepen", "eb_adaptive", "oracle")


@dataclass(frozen=True)
class SweepConfig:
    """Conf section ``policies.simulate`` (values and meaning: conf/defaults.yaml); the fields with a
    default here are not conf keys but options of the code (the CLI's flags, the policy lists)."""
    budgets: tuple[float, ...]
    seeds: tuple[int, ...]
    k: int
    sample_shares: tuple[float, ...]
    reliability_ks: tuple[int, ...]   # 1 .. reliability_k_max
    min_remaining: int
    random_repeats: int
    pilot_hosts: int                  # at most 5% of the hosts (never below 10)
    key_steps: int                    # tie blocks per octave of a policy key (blocks.py)
    adaptive_groups: bool = False   # measured: one global prior beats language x TLD-category priors
    adaptive_sizes: bool = True
    ordering_policies: tuple[str, ...] = ORDERING_POLICIES
    depth_policies: tuple[str, ...] = DEPTH_POLICIES
    extra: dict = field(default_factory=dict)


def sweep_config(params: dict, hosts: int | None = None, **options) -> SweepConfig:
    """``SweepConfig`` from conf section ``policies.simulate``; with ``hosts``, the eb_adaptive pilot
    is cut to 5% of them (never below 10 hosts)."""
    pilot = int(params["pilot_hosts"])
    if hosts is not None:
        pilot = int(min(pilot, max(10, int(np.ceil(0.05 * hosts)))))
    derived = {"reliability_ks": tuple(range(1, int(params["reliability_k_max"]) + 1)), "pilot_hosts": pilot}
    return settings_from(SweepConfig, params, "policies.simulate", **{**derived, **options})


def _available(pop: Population, policy: str) -> bool:
    needs = {"hc": pop.log_hc, "hc_depth": pop.log_hc, "pr": pop.log_pr, "common_crawl": pop.cc_fetched}
    return policy not in needs or needs[policy] is not None


def run_seed(pop: Population, seed: int, cfg: SweepConfig) -> dict[str, list[dict]]:
    """All simulations for one seed: raw per-seed rows."""
    rng = np.random.default_rng(seed)
    flags, offsets = page_orders(pop, rng)
    cumflags = sim.cumulative_flags(flags)
    budgets = [sim.budget_pages(pop, f) for f in cfg.budgets]
    ordering, depth = [], []

    def add(rows, policy, outcomes, **extra):
        for frac, budget, out in zip(cfg.budgets, budgets, outcomes):
            rows.append(dict(seed=seed, policy=policy, budget_frac=frac, budget_pages=budget, pages=out.pages,
                             hq=out.hq, hosts=out.hosts, tlds=out.tlds, **extra))

    curves = {}
    for policy in cfg.ordering_policies:
        if not _available(pop, policy):
            continue
        for rep in range(cfg.random_repeats if policy == "random" else 1):
            curves[policy] = sim.order_curve(pop, sim.policy_order(pop, policy, rng), budgets)
            add(ordering, policy, curves[policy], repeat=rep)
    if "uniform" in cfg.depth_policies:
        add(depth, "uniform", [sim.uniform_breadth(pop, b, rng) for b in budgets], k=None, detail="")
    if "hc_depth" in cfg.depth_policies and _available(pop, "hc_depth"):
        add(depth, "hc_depth", curves.get("hc") or sim.order_curve(pop, sim.policy_order(pop, "hc", rng), budgets),
            k=None, detail="")
    if "oracle" in cfg.depth_policies:
        add(depth, "oracle", curves.get("oracle") or sim.order_curve(pop, sim.policy_order(pop, "oracle", rng),
                                                                      budgets), k=None, detail="")
    if "sample_then_deepen" in cfg.depth_policies:
        # the baseline gets its best probing share in hindsight: the most generous comparison
        best = sim.sample_then_deepen(pop, cumflags, offsets, budgets, cfg.k, rng, cfg.sample_shares)
        for frac, budget, (out, share) in zip(cfg.budgets, budgets, best):
            depth.append(dict(seed=seed, policy="sample_then_deepen", budget_frac=frac, budget_pages=budget,
                              pages=out.pages, hq=out.hq, hosts=out.hosts, tlds=out.tlds, k=cfg.k,
                              detail="all hosts probed" if share >= 1.0 else f"probe share {share:g}"))
    if "eb_adaptive" in cfg.depth_policies:
        results, prior = adaptive.adaptive_policy(
            pop, flags, offsets, budgets, rng, pilot_hosts=cfg.pilot_hosts,
            use_groups=cfg.adaptive_groups, use_sizes=cfg.adaptive_sizes)
        for frac, budget, (pages, hq, tau) in zip(cfg.budgets, budgets, results):
            depth.append(dict(seed=seed, policy="eb_adaptive", budget_frac=frac, budget_pages=budget, pages=pages,
                              hq=hq, hosts=None, tlds=None, k=None, detail=f"tau {tau:g}, pilot ICC {prior.icc:.3f}"))
    reliability = [dict(seed=seed, k=k, hosts=h, spearman=rho)
                   for k, h, rho in sim.sample_reliability(pop, cumflags, offsets, cfg.reliability_ks,
                                                           cfg.min_remaining)]
    return {"ordering": ordering, "depth": depth, "reliability": reliability}


def run_sweep(population: Population | Callable[[int], Population], cfg: SweepConfig):
    """Raw per-seed rows for all seeds; ``population`` may be a factory seed -> Population."""
    raw = {"ordering": [], "depth": [], "reliability": []}
    for seed in cfg.seeds:
        pop = population(seed) if callable(population) else population
        for key, rows in run_seed(pop, seed, cfg).items():
            raw[key].extend(rows)
    return {key: pd.DataFrame(rows) for key, rows in raw.items()}


def _spread(values: pd.Series) -> dict:
    v = values.to_numpy(dtype=np.float64)
    return dict(mean=float(np.mean(v)), sd=float(np.std(v, ddof=1)) if len(v) > 1 else 0.0,
                lo=float(np.min(v)), hi=float(np.max(v)))


def summarize_ordering(raw: pd.DataFrame) -> pd.DataFrame:
    raw = raw.assign(yield_=raw.hq / raw.pages)
    rnd = raw[raw.policy == "random"].groupby(["seed", "budget_frac"]).yield_.mean().rename("random_yield")
    raw = raw.join(rnd, on=["seed", "budget_frac"])
    rows = []
    for (policy, frac), g in raw.groupby(["policy", "budget_frac"], sort=False):
        y = _spread(g.yield_)
        rows.append(dict(policy=policy, budget_frac=float(frac), budget_pages=int(g.budget_pages.iloc[0]),
                         n_runs=int(len(g)), pages_fetched=float(g.pages.mean()), hq_pages=float(g.hq.mean()),
                         yield_mean=y["mean"], yield_sd=y["sd"], yield_min=y["lo"], yield_max=y["hi"],
                         multiple_of_random=float((g.yield_ / g.random_yield).mean()),
                         hosts_fetched=float(g.hosts.mean()), distinct_tlds=float(g.tlds.mean())))
    return pd.DataFrame(rows)


def summarize_depth(raw: pd.DataFrame) -> pd.DataFrame:
    raw = raw.assign(yield_=raw.hq / raw.pages)
    per = raw.set_index(["seed", "budget_frac"])
    uni = per[per.policy == "uniform"].yield_.rename("uniform_yield")
    ora = per[per.policy == "oracle"].yield_.rename("oracle_yield")
    raw = raw.join(uni, on=["seed", "budget_frac"]).join(ora, on=["seed", "budget_frac"])
    rows = []
    for (policy, frac), g in raw.groupby(["policy", "budget_frac"], sort=False):
        y = _spread(g.yield_)
        share = _spread(g.yield_ / g.oracle_yield) if g.oracle_yield.notna().all() else None
        details = sorted(set(d for d in g.detail if d))
        rows.append(dict(policy=policy, k=None if pd.isna(g.k.iloc[0]) else int(g.k.iloc[0]), budget_frac=float(frac),
                         budget_pages=int(g.budget_pages.iloc[0]), n_seeds=int(len(g)),
                         pages_fetched=float(g.pages.mean()), hq_pages=float(g.hq.mean()),
                         yield_mean=y["mean"], yield_sd=y["sd"], yield_min=y["lo"], yield_max=y["hi"],
                         vs_uniform=float((g.yield_ / g.uniform_yield).mean()) if g.uniform_yield.notna().all() else None,
                         share_of_oracle=share["mean"] if share else None,
                         share_of_oracle_sd=share["sd"] if share else None,
                         detail="; ".join(details)[:500]))
    return pd.DataFrame(rows)


def summarize_reliability(raw: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for k, g in raw.groupby("k"):
        r = _spread(g.spearman.dropna()) if g.spearman.notna().any() else dict(mean=None, sd=None)
        rows.append(dict(k=int(k), n_hosts=int(g.hosts.mean()), n_seeds=int(len(g)),
                         spearman=r["mean"], spearman_sd=r["sd"]))
    return pd.DataFrame(rows)


def summarize(raw: dict) -> dict[str, pd.DataFrame]:
    return {"ordering_sim": summarize_ordering(raw["ordering"]), "depth_sim": summarize_depth(raw["depth"]),
            "sample_reliability": summarize_reliability(raw["reliability"])}


def label_tables(tables: dict, population: str, classifier: str, threshold: float, cfg: SweepConfig) -> dict:
    """``summarize``'s tables as the datasets hold them: which population, classifier and threshold
    each row is about (one run may simulate the data and a calibrated population)."""
    out = {}
    for name, df in tables.items():
        df = df.copy()
        df.insert(0, "population", population)
        df.insert(1, "classifier", classifier)
        df.insert(2, "threshold", threshold)
        if name == "sample_reliability":
            df["min_remaining"] = cfg.min_remaining
        out[name] = df
    return out
