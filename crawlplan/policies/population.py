"""Host populations for the crawl simulations, and a generator calibrated to the paper.

A population is what every simulation needs and nothing more: per host the number of pages,
how many of them are high quality (score above the threshold), a diversity key (TLD), the
signals a policy may rank by (log HC, log PR, Common Crawl's observed budget) and a prior group
(language x TLD macro-category). Which pages of a host are the high-quality ones is not stored:
within a host pages are exchangeable, so each simulation seed draws a random page order
(``page_orders``), shared by all policies of that seed (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from crawlplan.hosts import tld_category
from crawlplan.stats import reference


@dataclass
class Population:
    n: np.ndarray                       # pages per host (int64, >= 1)
    hq: np.ndarray                      # high-quality pages per host (int64, <= n)
    tld: np.ndarray                     # TLD code per host (int32), for distinct-TLD counts
    group: np.ndarray                   # prior group code per host (int32)
    log_hc: np.ndarray | None = None    # log10(1 + harmonic centrality); NaN = not in graph
    log_pr: np.ndarray | None = None
    cc_fetched: np.ndarray | None = None  # Common Crawl's observed per-host budget (host index)
    tld_names: list[str] = field(default_factory=list)
    group_names: list[str] = field(default_factory=list)
    score_icc1: float | None = None     # ICC1 of the continuous page scores, when known

    def __post_init__(self):
        self.n = np.asarray(self.n, dtype=np.int64)
        self.hq = np.asarray(self.hq, dtype=np.int64)
        self.tld = np.asarray(self.tld, dtype=np.int32)
        self.group = np.asarray(self.group, dtype=np.int32)
        if not (len(self.n) == len(self.hq) == len(self.tld) == len(self.group)):
            raise ValueError("population arrays differ in length")
        if len(self.n) and (self.n.min() < 1 or (self.hq < 0).any() or (self.hq > self.n).any()):
            raise ValueError("population needs n >= 1 and 0 <= hq <= n per host")

    @property
    def hosts(self) -> int:
        return len(self.n)

    @property
    def pages(self) -> int:
        return int(self.n.sum())

    @property
    def density(self) -> np.ndarray:
        return self.hq / self.n

    def offsets(self) -> np.ndarray:
        """Start of each host's pages in a page-level array (hosts are contiguous)."""
        out = np.zeros(self.hosts + 1, dtype=np.int64)
        np.cumsum(self.n, out=out[1:])
        return out

    def subset(self, mask: np.ndarray) -> Population:
        pick = lambda a: None if a is None else a[mask]  # noqa: E731
        return Population(self.n[mask], self.hq[mask], self.tld[mask], self.group[mask], pick(self.log_hc),
                          pick(self.log_pr), pick(self.cc_fetched), self.tld_names, self.group_names,
                          self.score_icc1)


def page_orders(pop: Population, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random within-host page order: ``flags[offsets[i] + t]`` is page t of host i (True = hq).

    Host i's first ``hq[i]`` pages are marked high quality and then shuffled within the host by
    sorting on host index + a uniform key (one argsort over all pages, no Python loop).
    """
    offsets = pop.offsets()
    total = int(offsets[-1])
    host_of_page = np.repeat(np.arange(pop.hosts, dtype=np.int64), pop.n)
    rank_in_host = np.arange(total, dtype=np.int64) - offsets[:-1][host_of_page]
    flags = rank_in_host < pop.hq[host_of_page]
    order = np.argsort(host_of_page + rng.random(total), kind="stable")
    return flags[order], offsets


# TLDs of the calibrated population: (tld, share of hosts, main language). Shares follow the
# rough make-up of Common Crawl's host index; the long tail of ccTLDs is added with Zipf weights.
_TLDS = [
    ("com", 0.44, None), ("net", 0.045, None), ("org", 0.065, None), ("de", 0.06, "de"),
    ("uk", 0.035, "en"), ("ru", 0.03, "ru"), ("jp", 0.025, "ja"), ("fr", 0.022, "fr"),
    ("it", 0.018, "it"), ("nl", 0.016, "nl"), ("pl", 0.015, "pl"), ("br", 0.014, "pt"),
    ("es", 0.012, "es"), ("au", 0.011, "en"), ("ca", 0.009, "en"), ("edu", 0.012, "en"),
    ("gov", 0.004, "en"), ("info", 0.01, None), ("io", 0.008, None), ("xyz", 0.006, None),
    ("cn", 0.008, "zh"), ("in", 0.007, "en"), ("ch", 0.006, "de"), ("se", 0.006, "sv"),
    ("cz", 0.006, "cs"), ("be", 0.005, "nl"), ("at", 0.005, "de"), ("dk", 0.004, "da"),
]
_LANGS = ["en", "de", "fr", "es", "ru", "ja", "it", "pt", "nl", "pl", "zh", "sv", "cs", "da"]
_GENERIC_LANG_P = np.array([0.72, 0.04, 0.03, 0.05, 0.03, 0.02, 0.02, 0.03, 0.01, 0.01, 0.03, 0.005, 0.005,
                            0.01])
# Latent-scale shifts per TLD macro-category: educational classifiers rate .edu/.gov higher.
_CATEGORY_SHIFT = {"academic": 0.8, "government": 0.5, "nonprofit": 0.3, "commercial": -0.1,
                   "country-code": 0.0, "other": -0.3}


@dataclass(frozen=True)
class CalibratedParams:
    """Defaults reproduce the paper's classified sample: 532,628 hosts, ~3.01M documents, >= 3 docs
    per host, ICC1 of page scores ~0.5, a FineWeb-Edu-like share above 0.5 of ~8 %, HC weakly
    related to quality and Common Crawl's budget unrelated to it."""

    hosts: int = 532_628
    min_pages: int = 3
    size_tail: float = 1.5          # Lomax tail index of extra pages per host (heavy tail)
    size_scale: float = 1.54         # Lomax scale, tuned for ~5.65 pages per host
    max_pages: int = 20_000
    mean_latent: float = -1.75       # latent mean; sets the overall high-quality share
    sd_between: float = 1.05          # host effect sd (latent); with sd_within sets ICC1
    sd_within: float = 1.0
    group_effect: float = 1.0        # scale of language/TLD-category shifts (0 = none)
    hc_quality_corr: float = 0.08    # corr(log HC, host quality effect): weak, as in the paper
    hc_size_corr: float = 0.35       # central hosts are larger
    cc_quality_corr: float = -0.3    # gives Spearman(CC budget, density) ~ -0.1 (RQ4: -0.08)
    chunk_hosts: int = 100_000       # hosts one executor task draws at a time (calibrated_hosts)


def _host_draws(params: CalibratedParams, rng: np.random.Generator, h: int, lang_seed: int):
    """Sizes, TLDs, languages and latent host quality of ``h`` hosts (no page is drawn here)."""
    extra = np.floor(params.size_scale * (rng.random(h) ** (-1.0 / params.size_tail) - 1.0))
    n = np.minimum(params.min_pages + extra.astype(np.int64), params.max_pages)

    weights = np.array([w for _, w, _ in _TLDS])
    tail = 1.0 - weights.sum()
    # the ccTLD long tail: two-letter codes not in the head list
    tail_names = [chr(97 + i // 26 % 26) + chr(97 + i % 26) for i in range(150)]
    tail_names = [t for t in tail_names if t not in {x for x, _, _ in _TLDS}][:120]
    zipf = 1.0 / np.arange(1, len(tail_names) + 1)
    all_names = [x for x, _, _ in _TLDS] + tail_names
    all_p = np.concatenate([weights, tail * zipf / zipf.sum()])
    tld = rng.choice(len(all_names), size=h, p=all_p / all_p.sum()).astype(np.int32)

    tld_lang = {x: lang for x, _, lang in _TLDS}
    lang = np.empty(h, dtype=np.int32)
    generic = rng.choice(len(_LANGS), size=h, p=_GENERIC_LANG_P / _GENERIC_LANG_P.sum())
    national = rng.random(h) < 0.85
    for code, name in enumerate(all_names):
        sel = tld == code
        main = tld_lang.get(name)
        if main is None:
            lang[sel] = generic[sel]
        else:
            lang[sel] = np.where(national[sel], _LANGS.index(main), generic[sel])

    categories = list(_CATEGORY_SHIFT)
    cat_of_tld = np.array([categories.index(tld_category(x)) for x in all_names])
    cat = cat_of_tld[tld]
    lang_shift = np.random.default_rng(lang_seed + 7919).normal(0.0, 0.25, len(_LANGS))
    shift = params.group_effect * (np.array(list(_CATEGORY_SHIFT.values()))[cat] + lang_shift[lang])
    host_effect = rng.normal(0.0, params.sd_between, h)
    return dict(n=n, tld=tld, lang=lang, cat=cat, shift=shift, host_effect=host_effect, tld_names=all_names,
                group_names=[f"{c}|{lg}" for c in categories for lg in _LANGS])


def _signals(params: CalibratedParams, rng: np.random.Generator, d: dict) -> dict:
    """log HC, log PR and Common Crawl's budget of the hosts of ``_host_draws``."""
    h, n, shift, host_effect = len(d["n"]), d["n"], d["shift"], d["host_effect"]
    quality_z = (shift + host_effect) / np.sqrt(params.sd_between ** 2 + shift.var() + 1e-12)
    size_z = (np.log(n) - np.log(n).mean()) / np.log(n).std()
    rest = np.sqrt(max(1.0 - params.hc_quality_corr ** 2 - params.hc_size_corr ** 2, 0.0))
    hc_z = params.hc_quality_corr * quality_z + params.hc_size_corr * size_z + rest * rng.normal(size=h)
    log_hc = 6.0 + 0.35 * hc_z                      # log10(1 + HC): HC values around 1e6
    log_pr = -8.5 + 0.5 * (0.8 * hc_z + 0.6 * rng.normal(size=h))
    cc_z = 0.7 * size_z + 0.3 * hc_z + params.cc_quality_corr * quality_z + 0.6 * rng.normal(size=h)
    cc_fetched = np.maximum(1, np.round(np.exp(2.0 + 1.2 * cc_z))).astype(np.int64)
    return dict(log_hc=log_hc, log_pr=log_pr, cc_fetched=cc_fetched)


def calibrated_population(params: CalibratedParams = CalibratedParams(), seed: int = 0,
                          with_scores: bool = False):
    """Draw a population; with ``with_scores`` also return (page scores, host index per page).

    Page score = sigmoid(latent), latent = mean + group shift + host effect + page noise; a page
    is high quality when its score exceeds 0.5, i.e. latent > 0. ICC1 is measured on the scores
    (the paper's statistic) and stored on the population.
    """
    rng = np.random.default_rng(seed)
    h = params.hosts
    d = _host_draws(params, rng, h, seed)
    n = d["n"]
    host_latent = params.mean_latent + d["shift"] + d["host_effect"]
    host_of_page = np.repeat(np.arange(h), n)
    latent = host_latent[host_of_page] + rng.normal(0.0, params.sd_within, len(host_of_page))
    hq = np.bincount(host_of_page, weights=latent > 0.0, minlength=h).astype(np.int64)
    sig = _signals(params, rng, d)
    group = (d["cat"] * len(_LANGS) + d["lang"]).astype(np.int32)
    pop = Population(n=n, hq=hq, tld=d["tld"], group=group, log_hc=sig["log_hc"], log_pr=sig["log_pr"],
                     cc_fetched=sig["cc_fetched"], tld_names=d["tld_names"], group_names=d["group_names"])
    scores = 1.0 / (1.0 + np.exp(-latent))
    pop.score_icc1 = reference.icc1(scores, host_of_page).icc1
    if with_scores:
        return pop, scores, host_of_page
    return pop


CALIBRATED_HOST_COLUMNS = "host string, n long, hq long, tld string, grp string, log_hc double, log_pr double, cc double"


def calibrated_chunk(params: CalibratedParams, seed: int, chunk: int, first: int, hosts: int):
    """Hosts ``first .. first + hosts`` of a calibrated population as a ``policies.sweep`` host
    table (pandas), drawn from their chunk's own generator: a page is high quality when its latent
    (host latent + page noise) is > 0, so a host's hq is Binomial(n, Phi(host latent / sd_within)),
    the same law as ``calibrated_population``'s page draws, without drawing pages."""
    # scipy.stats: heavy, only for the normal CDF of the chunked generator
    from scipy.stats import norm

    rng = np.random.default_rng([seed, chunk])
    d = _host_draws(params, rng, hosts, seed)
    host_latent = params.mean_latent + d["shift"] + d["host_effect"]
    hq = rng.binomial(d["n"], norm.cdf(host_latent / params.sd_within))
    sig = _signals(params, rng, d)
    names, groups = np.asarray(d["tld_names"], dtype=object), np.asarray(d["group_names"], dtype=object)
    return pd.DataFrame({"host": [f"h{first + i}.calibrated" for i in range(hosts)], "n": d["n"], "hq": hq,
                         "tld": names[d["tld"]], "grp": groups[d["cat"] * len(_LANGS) + d["lang"]],
                         "log_hc": sig["log_hc"], "log_pr": sig["log_pr"],
                         "cc": sig["cc_fetched"].astype(np.float64)})


def calibrated_hosts(spark, params: CalibratedParams, seed: int):
    """A calibrated population of ``params.hosts`` hosts as a Spark host table, drawn chunk by
    chunk on the executors (no array of all hosts anywhere)."""
    chunk_hosts = params.chunk_hosts
    chunks = max(1, -(-params.hosts // chunk_hosts))

    def draw(batches):
        for pdf in batches:
            for c in pdf.id:
                first = int(c) * chunk_hosts
                yield calibrated_chunk(params, seed, int(c), first, min(chunk_hosts, params.hosts - first))

    return spark.range(chunks, numPartitions=max(1, min(chunks, 200))).mapInPandas(draw, CALIBRATED_HOST_COLUMNS)


def from_host_table(n, hq, tld, group_key, log_hc=None, log_pr=None, cc_fetched=None) -> Population:
    """A population from a per-host table (the ``scores`` aggregation); strings are coded here."""
    tld_names, tld_codes = np.unique(np.asarray(tld, dtype=object).astype(str), return_inverse=True)
    group_names, group_codes = np.unique(np.asarray(group_key, dtype=object).astype(str), return_inverse=True)
    as_float = lambda a: None if a is None else np.asarray(a, dtype=np.float64)  # noqa: E731
    return Population(n=np.asarray(n), hq=np.asarray(hq), tld=tld_codes, group=group_codes,
                      log_hc=as_float(log_hc), log_pr=as_float(log_pr), cc_fetched=as_float(cc_fetched),
                      tld_names=list(tld_names), group_names=list(group_names))
