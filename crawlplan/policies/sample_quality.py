"""How good is a plan made from k pages per host? (docs/sampling.md)

For each k the sampled plan is compared with the plan the full extract gives, on the same hosts:

- host rank correlation: Spearman between each host's density (share of pages above the
  threshold) from its k-page sample and from all its pages;
- ICC1 of the page scores (or of the 0/1 flags) on the sample against all pages;
- budgets: the allocator (``policies.allocate_table``, the in-memory twin of the Spark one,
  empirical-Bayes ranking) run on the sample and on all pages, each plan's yield (expected
  high-quality pages: allocated pages x the host's true density) as a share of the oracle's
  (pages given to the truly densest hosts first, up to each host's size). The truth is the full
  extract's density: the best any plan from this crawl knows.

Spark-free: the host tables come from the columnar-index draw (Spark) or from the calibrated
population (numpy), and the studies run many plans on tables of a bench's size, so they use the
in-memory allocator, the same function the Spark allocator is tested against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from crawlplan.policies.allocate import AllocatorConfig
from crawlplan.policies.allocate_table import allocate
from crawlplan.policies.population import Population
from crawlplan.stats.reference import icc1, icc1_from_counts

BUDGET_SHARES = (0.05, 0.1, 0.2)


@dataclass
class HostSample:
    """Per host: pages and high-quality pages in the sample and in all pages, plus the prior keys."""
    name: np.ndarray
    tld: np.ndarray
    language: np.ndarray
    n_full: np.ndarray
    hq_full: np.ndarray
    n_sample: np.ndarray
    hq_sample: np.ndarray


def read_share(sizes: np.ndarray, k: int) -> float:
    """Share of all pages a k-per-host sample reads (hosts with fewer pages are read whole)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    return float(np.minimum(sizes, k).sum() / sizes.sum()) if sizes.sum() else 0.0


def calibrated_sample(pop: Population, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """k pages per host drawn without replacement: the sample's (n, hq), hypergeometric per host."""
    n_sample = np.minimum(pop.n, k)
    hq_sample = rng.hypergeometric(pop.hq, pop.n - pop.hq, np.maximum(n_sample, 1))
    return n_sample, np.minimum(hq_sample, n_sample)


def _plan(hosts: HostSample, n: np.ndarray, hq: np.ndarray, budget: int, allocator: AllocatorConfig) -> np.ndarray:
    table = pd.DataFrame({"surt_host_name": hosts.name, "registered_domain": hosts.name, "tld": hosts.tld,
                          "language": hosts.language, "n_pages": n, "hq_pages": hq, "cap_known": hosts.n_full})
    cfg = replace(allocator, total_budget=budget, explore_share=0.0, politeness_max=int(hosts.n_full.max()))
    plan = allocate(table, None, cfg).set_index("surt_host_name").allocated_pages
    return plan.reindex(hosts.name).to_numpy(dtype=np.float64)


def _oracle_yield(density: np.ndarray, size: np.ndarray, budget: int) -> float:
    order = np.argsort(-density, kind="stable")
    take = np.minimum(size[order], np.maximum(budget - np.concatenate([[0], np.cumsum(size[order])[:-1]]), 0))
    return float((take * density[order]).sum())


def plan_quality(hosts: HostSample, allocator: AllocatorConfig, *, min_pages: int, shares=BUDGET_SHARES) -> dict:
    """Rank correlation, binary ICC1 and the budgets' share of oracle, sample against all pages;
    ``allocator`` is conf section ``policies.allocate`` (budget, reserve and caps are set here);
    hosts with fewer than ``min_pages`` pages are left out (conf ``policies.simulate.min_pages``)."""
    keep = hosts.n_full >= min_pages
    h = HostSample(*(getattr(hosts, f)[keep] for f in HostSample.__dataclass_fields__))
    truth = h.hq_full / h.n_full
    sampled = h.hq_sample / np.maximum(h.n_sample, 1)
    rho = spearmanr(sampled, truth)[0] if np.std(sampled) > 0 and np.std(truth) > 0 else float("nan")
    out = {"hosts": int(len(h.n_full)), "pages": int(h.n_full.sum()), "pages_read": int(h.n_sample.sum()),
           "spearman_density": float(rho), "icc_flags_sample": icc1_from_counts(h.n_sample, h.hq_sample).icc1,
           "icc_flags_full": icc1_from_counts(h.n_full, h.hq_full).icc1}
    for share in shares:
        budget = int(round(share * h.n_full.sum()))
        oracle = _oracle_yield(truth, h.n_full.astype(np.float64), budget)
        for label, n, hq in (("full", h.n_full, h.hq_full), ("sample", h.n_sample, h.hq_sample)):
            got = float((_plan(h, n, hq, budget, allocator) * truth).sum())
            out[f"oracle_share_{label}@{share:g}"] = got / oracle if oracle else float("nan")
    return out


def score_icc(scores: pd.DataFrame, chosen: pd.Series) -> tuple[float, float]:
    """ICC1 of continuous page scores (``host``, ``score`` columns) on the chosen pages and on all."""
    def one(df):
        codes = pd.factorize(df.host)[0]
        return icc1(df.score.to_numpy(), codes).icc1
    return one(scores[chosen.to_numpy()]), one(scores)
