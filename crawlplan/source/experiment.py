"""One site end to end: sample, learn, classify, evaluate, plan. Spark-free, so the CLI, the
``sitemaps`` node (inside ``applyInPandas``) and the benchmarks share exactly one code path."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from crawlplan.conf import Settings, load_yaml, settings_from
from crawlplan.paths import resource_dir
from crawlplan.source import navigation as nav
from crawlplan.source.baselines import MDLClustering, TPMCrawler, link_schema
from crawlplan.source.crawl import CrawlSimulator, check_features, sample_apath, sample_bfs
from crawlplan.source.evaluate import (
    PageTyper,
    clustering_scores,
    cv_precision,
    harvest_ceiling,
    target_scores,
    ucc_scores,
)
from crawlplan.source.irobot import IRobotCrawler
from crawlplan.source.learner import LearnerSettings, SitemapLearner
from crawlplan.source.mirror import Mirror

ABLATIONS = ("no_dsim", "no_balance", "info_only", "dsim_balance")
# the training samplers: the paper's (one random link per page and Apath), the same refilled when its
# queue runs dry before the sample is full, and plain BFS
SAMPLERS = ("apath", "apath_refill", "bfs")


@dataclass
class SiteSpec:
    """Ground truth for one site: page types as URL regexes, which types are user-created
    content (valid for UCC crawls), and the target type with an optional example page."""

    site: str
    page_types: dict = field(default_factory=dict)
    ucc_types: list = field(default_factory=list)
    target_type: str | None = None
    example: str | None = None

    @property
    def typer(self) -> PageTyper:
        return PageTyper(self.page_types)


SITE_TYPES_FILE = "site_types.yaml"     # in conf/: the shipped sites' ground truth (data, not settings)


def site_types() -> dict[str, dict]:
    """The ground truth of the shipped labelled sites, ``conf/site_types.yaml`` (an installed
    wheel carries it under ``crawlplan/_resources/conf``): site -> page_types (URL regexes, first
    match wins), ucc_types, target_type, example. ``source.sitemaps.extra_site_types`` adds sites."""
    return load_yaml(resource_dir("conf") / SITE_TYPES_FILE)


def site_specs(types: dict, ground_truth: str | None = None) -> dict[str, SiteSpec]:
    """Specs from ``types`` (site -> the shape of conf/site_types.yaml: ``SitemapSettings.site_types``
    is that file with ``extra_site_types`` over it) and, for the demo, from its ground truth folder
    (page_types.yaml; UCC types are those pages.parquet marks ucc)."""
    specs: dict[str, SiteSpec] = {}
    for site, spec in (types or {}).items():
        specs[site] = SiteSpec(site, dict(spec.get("page_types") or {}), list(spec.get("ucc_types") or []),
                               spec.get("target_type"), spec.get("example"))
    if ground_truth:
        specs.update(_demo_specs(Path(ground_truth)))
    return specs


def _demo_specs(root: Path) -> dict[str, SiteSpec]:
    types_file = root / "page_types.yaml"
    if not types_file.is_file():
        return {}
    patterns = yaml.safe_load(types_file.read_text()) or {}
    ucc: dict[str, set] = {}
    pages = root / "pages.parquet"
    if pages.is_file():
        df = pd.read_parquet(pages, columns=["host", "page_type", "ucc"])
        for host, ptype in df.loc[df["ucc"].fillna(False).astype(bool), ["host", "page_type"]].itertuples(index=False):
            ucc.setdefault(host, set()).add(ptype)
    out = {}
    for host, pats in patterns.items():
        valid = sorted(ucc.get(host, set()))
        out[host] = SiteSpec(host, dict(pats), valid, valid[0] if valid else None)
    return out


# method default's sample floor: a sample that starves below it is refilled (issue 30's round 15:
# designed on the design sites, decided on the validation sites' whole-mirror micro-F and target
# harvest, docs/source.md "The final default")
SAMPLE_FLOOR = 50
_WHOLE = (("train_size", 1), ("sample_floor", 0), ("frontier_cap", 1), ("plan_top", 0), ("seed", 0))
_UNSET_IS_THE_METHODS = {"sample_floor"}   # "" / null: the method's preset (``sample_floor_``)


@dataclass(frozen=True)
class SitemapSettings(Settings):
    """Conf section ``source.sitemaps`` (values and meaning: conf/defaults.yaml): the learner's
    parameters (``learner``) and the experiment's. ``site_types`` is derived: the shipped sites'
    ground truth (:func:`site_types`) with ``extra_site_types`` over it."""
    SECTION = "source.sitemaps"
    learner: LearnerSettings
    train_size: int             # pages the sampler fetches for learning
    sampler: str                # SAMPLERS
    sample_floor: int | None    # apath: a dry queue is refilled while the sample is smaller (None: the method's)
    seed: int
    frontier_cap: int
    ucc_budget_share: float
    cv: bool
    plan_top: int
    extra_site_types: dict
    site_types: dict

    @classmethod
    def from_params(cls, params: dict, **derived) -> SitemapSettings:
        """Checked where the section is read (driver, CLI), so a typo fails before any site is learned."""
        for key, least in _WHOLE:
            value = params.get(key)
            whole = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
            unset = value in (None, "") and key in _UNSET_IS_THE_METHODS
            if key in params and not unset and (not whole or value < least):
                raise ValueError(f"{cls.SECTION}.{key} must be an integer >= {least}, got {value!r}")
        extra = dict(params.get("extra_site_types") or {})
        derived = {"learner": LearnerSettings.from_params(params),
                   "site_types": {**site_types(), **extra}, **derived}
        return settings_from(cls, params, cls.SECTION, **derived)

    @property
    def sample_floor_(self) -> int:
        """The size a starved sample is refilled to (:func:`crawl.sample_apath`'s ``refill_to``):
        ``SAMPLE_FLOOR`` for ``method: default`` since issue 30's round 15, 0 for the paper's
        sampler, which never refills."""
        if self.sample_floor is not None:
            return self.sample_floor
        return 0 if self.learner.method == "paper" else SAMPLE_FLOOR

    def __post_init__(self):
        SitemapLearner(self.learner).validate()
        if self.sampler not in SAMPLERS:
            raise ValueError(f"{self.SECTION}.sampler must be one of {SAMPLERS}, got {self.sampler!r}")
        if not 0 < self.ucc_budget_share <= 1:
            raise ValueError(f"{self.SECTION}.ucc_budget_share must be in (0, 1], got {self.ucc_budget_share!r}")


def feature_mode(settings: SitemapSettings) -> str:
    """The XPath variant the mirror must extract so its bags match the learner's vocabulary
    (the method's preset unless ``xpath_classes`` overrides it)."""
    return SitemapLearner(settings.learner).xpath_classes_


def train_site(mirror: Mirror, settings: SitemapSettings) -> tuple[SitemapLearner, list[str]]:
    """Sample the mirror (Apath-aware by default) and learn the sitemap from the sample."""
    if settings.sampler == "bfs":
        sample = sample_bfs(mirror, settings.train_size)
    else:
        refill_to = settings.train_size if settings.sampler == "apath_refill" else settings.sample_floor_
        sample = sample_apath(mirror, settings.train_size, seed=settings.seed, refill_to=refill_to)
    learner = SitemapLearner(settings.learner)
    check_features(mirror, learner)
    learner.fit([mirror.pages[u] for u in sample], urls=sample, resolve=mirror.resolve)
    return learner, sample


def _types_of(urls, typer) -> list:
    return [typer(u) for u in urls]


CURVE_POINTS = 20


def crawl_curve(task: str, method: str, crawled_types: list, wanted: set, available: int) -> list[dict]:
    """Precision (valid ratio / harvest rate) and recall after each of ~20 evenly spaced prefixes of
    a simulated crawl: the curves of the paper's Figures 6 and 7."""
    n = len(crawled_types)
    if n == 0:
        return []
    hits = 0
    marks = {max(1, round(n * i / CURVE_POINTS)) for i in range(1, CURVE_POINTS + 1)}
    precision_name = "valid_ratio" if task == "ucc" else "harvest_rate"
    rows = []
    for pages, t in enumerate(crawled_types, 1):
        hits += t in wanted
        if pages in marks:
            rows.append({"task": task, "method": method, "pages": pages, "metric": precision_name,
                         "value": hits / pages})
            rows.append({"task": task, "method": method, "pages": pages, "metric": "recall",
                         "value": hits / available if available else 0.0})
    return rows


def evaluate_site(mirror: Mirror, learner: SitemapLearner, sample: list[str], spec: SiteSpec,
                  settings: SitemapSettings, curves: list[dict] | None = None,
                  html: dict[str, bytes] | None = None) -> list[dict]:
    """Long-format metric rows: (task, method, metric, value) plus context columns. When ``curves``
    is a list, the crawls' progress curves (:func:`crawl_curve`) are appended to it. With the
    pages' ``html`` (mirror URL -> body), iRobot is evaluated too (its regions need the DOM)."""
    rows: list[dict] = []
    typer = spec.typer
    if not typer:
        return rows

    def add(task, method, scores: dict):
        for metric, value in scores.items():
            if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
                rows.append({"task": task, "method": method, "metric": metric, "value": float(value)})

    min_pts = learner.min_pts
    sample_types = _types_of(sample, typer)
    add("clustering", "source", clustering_scores(sample_types, learner.kind_labels_.tolist(), min_pts))
    schemas = [link_schema(mirror.pages[u].links) for u in sample]
    add("clustering", "mdl", clustering_scores(sample_types, MDLClustering().fit(schemas).labels_, min_pts))
    irobot = IRobotCrawler(mirror, html, sample) if html is not None else None
    if irobot is not None:
        add("clustering", "irobot", clustering_scores(sample_types, irobot.labels_, min_pts))
    if settings.cv:
        bags = [mirror.pages[u].xpaths for u in sample]
        add("classification", "source", cv_precision(lambda: SitemapLearner(settings.learner), bags, sample_types,
                                                     urls=sample))
    all_types = {u: typer(u) for u in mirror.pages}
    sim = CrawlSimulator(mirror, learner, frontier_cap=settings.frontier_cap)
    valid = set(spec.ucc_types)
    if valid:
        budget = max(1, int(round(settings.ucc_budget_share * len(mirror))))
        available = sum(1 for t in all_types.values() if t in valid)
        for method, mode, scoring in [("bfs", "bfs", "full"), ("source", "ucc", "full")] + [
                (f"source_{a}", "ucc", a) for a in ABLATIONS]:
            steps = sim.run(mode, budget, scoring=scoring)
            add("ucc", method, ucc_scores([all_types[s.url] for s in steps], valid, available))
            if curves is not None and method in ("bfs", "source"):
                curves += crawl_curve("ucc", method, [all_types[s.url] for s in steps], valid, available)
        if irobot is not None:
            crawled = [all_types[u] for u in irobot.run(budget)]
            add("ucc", "irobot", ucc_scores(crawled, valid, available))
            if curves is not None:
                curves += crawl_curve("ucc", "irobot", crawled, valid, available)
    target = spec.target_type
    if target:
        targets = [u for u, t in all_types.items() if t == target]
        example = spec.example if spec.example and mirror.resolve(spec.example) else (
            next((u for u in sample if all_types[u] == target), targets[0] if targets else None))
        if example:
            budget = len(targets)
            for method, mode in (("bfs", "bfs"), ("source", "target")):
                steps = sim.run(mode, budget, example=example)
                add("target", method, target_scores([all_types[s.url] for s in steps], target, len(targets)))
                if mode == "target" and steps:   # what the crawler itself counted as targets
                    add("target", "source_own", {"harvest_rate": sum(s.hit for s in steps) / len(steps)})
                if curves is not None:
                    curves += crawl_curve("target", method, [all_types[s.url] for s in steps], {target},
                                          len(targets))
            links_of = {u: [t2 for _, t in page.links if (t2 := mirror.resolve(t))] for u, page in mirror.pages.items()}
            add("target", "ceiling", {"harvest_rate": harvest_ceiling(links_of, lambda u: all_types.get(u) == target,
                                                                      budget)})
            tpm = TPMCrawler(mirror, lambda u: all_types.get(u) == target,
                             sample_size=settings.train_size)
            tpm_types = [all_types[u] for u in tpm.run(budget)]
            add("target", "tpm", target_scores(tpm_types, target, len(targets)))
            if curves is not None:
                curves += crawl_curve("target", "tpm", tpm_types, {target}, len(targets))
    return rows


def host_plan(learner: SitemapLearner, *, cluster_wanted: dict[int, float] | None = None,
              top: int) -> list[dict]:
    """Ranked (cluster, Apath) patterns with the expected share of wanted pages behind them.

    Wanted share per destination cluster: measured UCC share when page types are known,
    otherwise the cluster's normalised UCC value Info x Dsim (structure only, no labels).
    """
    if not hasattr(learner, "navigation_"):
        return []
    basis = "labels" if cluster_wanted is not None else "structure"
    if cluster_wanted is None:
        cluster_wanted = learner.ucc_states().worth()
    plan = []
    for (ci, apath), row in learner.navigation_.items():
        probs = nav.row_probabilities(row)
        share = nav.score_row(probs, cluster_wanted)
        plan.append({"cluster": int(ci), "apath": apath, "expected_share": share,
                     "links_seen": float(sum(row.values())), "wanted_basis": basis})
    plan.sort(key=lambda r: (-r["expected_share"] * math.log2(1 + r["links_seen"]), r["cluster"], r["apath"]))
    for rank, r in enumerate(plan[:top], 1):
        r["rank"] = rank
    return plan[:top]


def cluster_ucc_share(urls: list[str], labels, spec: SiteSpec) -> dict[int, float] | None:
    if not spec.page_types or not spec.ucc_types:
        return None
    typer, valid = spec.typer, set(spec.ucc_types)
    total, good = Counter(), Counter()
    for u, c in zip(urls, labels):
        total[int(c)] += 1
        good[int(c)] += typer(u) in valid
    return {c: good[c] / total[c] for c in total}
