"""Lay out the report page from reduced frames, the run's markers and its config.

``build_html`` is pure (frames in, HTML out), so tests run it
without Spark. Every figure is drawn inside a guard: a missing dataset shows a dashed box naming
it, a figure that fails shows a red box with the error, and the rest of the page still renders.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import pandas as pd
import yaml

from crawlplan import __version__
from crawlplan.report import answers, figures_hosts, figures_source
from crawlplan.report.render import (
    CSS,
    Missing,
    banner,
    error_box,
    esc,
    figure_html,
    missing_box,
    need,
    table_html,
)

DEMO_NOTE = re.compile(r"\bdemo[ _-]?models?\b", re.IGNORECASE)
SECRET_KEY = re.compile(r"secret|password|passwd|token|access\.key|credential", re.IGNORECASE)


def redact(value, key: str = ""):
    """The config as shown on the page: values under secret-looking keys replaced (reports get
    shared; S3 keys set through spark.conf must not travel with them)."""
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if value not in (None, "") and SECRET_KEY.search(key) and "provider" not in key.lower():
        return "(redacted)"
    return value


@dataclass
class BuildStats:
    figures: int = 0
    missing: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


class Page:
    """Accumulates sections; ``figure``/``table`` never raise. Figures and tables are numbered in
    reading order; ``paper=`` names the paper's own number, shown in the caption."""

    def __init__(self, frames: dict, demo: bool = False):
        self.frames = frames
        self.demo = demo
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.answers: list[tuple[str, str, str]] = []
        self.stats = BuildStats()
        self.n_figures = 0
        self.n_tables = 0

    def section(self, anchor: str, title: str, intro: str = "") -> None:
        if self.toc:
            self.parts.append("</section>")
        self.toc.append((anchor, title))
        self.parts.append(f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>')
        if intro:
            self.parts.append(f"<p>{intro}</p>")

    def answer(self, fn, *args, scores: bool = True) -> None:
        """The section's answer, computed from the frames; ``scores``: it rests on classifier
        scores, so a run on the demo models says so."""
        try:
            text = fn(self.frames, *args)
        except Missing as m:
            text = f"No answer in this run: dataset {m.dataset} {m.why or 'was not produced'}."
        except Exception as exc:  # an answer that fails must not cost the section
            self.stats.failed.append(f"answer {self.toc[-1][0]}: {type(exc).__name__}: {exc}")
            text = f"No answer: computing it failed ({type(exc).__name__}: {str(exc)[:200]})."
        caveat = answers.DEMO_CAVEAT if scores and self.demo else ""
        anchor, title = self.toc[-1]
        self.answers.append((anchor, title, text))
        self.parts.append(f'<p class="answer"><b>Answer.</b> {esc(text)}'
                          + (f' <span class="caveat">{esc(caveat)}</span>' if caveat else "") + "</p>")

    def h3(self, text: str) -> None:
        self.parts.append(f"<h3>{esc(text)}</h3>")

    def raw(self, html: str) -> None:
        self.parts.append(html)

    def _figure_title(self, title: str, paper: str = "") -> str:
        self.n_figures += 1
        return f"Figure {self.n_figures}: {title}" + (f" (paper: {paper})" if paper else "")

    def _table_title(self, title: str, paper: str) -> str:
        self.n_tables += 1
        return f"Table {self.n_tables}: {title}" + (f" (paper: {paper})" if paper else "")

    def figure(self, title: str, caption: str, fn, *args, paper: str = "") -> None:
        title = self._figure_title(title, paper)
        self.h3(title)
        try:
            self.parts.append(figure_html(fn(self.frames, *args), title, caption))
            self.stats.figures += 1
        except Missing as m:
            self.stats.missing.append(m.dataset)
            self.parts.append(missing_box(m.dataset, m.why))
        except Exception as exc:  # a drawing bug must not cost the rest of the report
            self.stats.failed.append(f"{title}: {type(exc).__name__}: {exc}")
            self.parts.append(error_box(title, exc))

    def frame_table(self, title: str, df: pd.DataFrame, max_rows: int = 60, paper: str = "") -> None:
        self.h3(self._table_title(title, paper))
        self.parts.append(table_html(df, max_rows=max_rows))

    def table(self, title: str, name: str, dataset: str | None = None, *, columns=None, sort=None,
              query=None, max_rows: int = 60, empty_text: str = "", paper: str = "") -> None:
        title = self._table_title(title, paper)
        self.h3(title)
        try:
            df = need(self.frames, name, dataset)
            if query is not None:
                df = query(df)
            if columns:
                df = df[[c for c in columns if c in df.columns]]
            if sort:
                df = df.sort_values(sort)
            self.parts.append(table_html(df, max_rows=max_rows))
        except Missing as m:
            if empty_text and m.why and name in self.frames:  # written and empty: a result, not a gap
                self.parts.append(f'<p class="note">{esc(empty_text)}</p>')
                return
            self.stats.missing.append(m.dataset)
            self.parts.append(missing_box(m.dataset, m.why))
        except Exception as exc:
            self.stats.failed.append(f"{title}: {type(exc).__name__}: {exc}")
            self.parts.append(error_box(title, exc))

    def html(self, header: str, banners: str) -> str:
        nav = "".join(f'<a href="#{esc(a)}">{esc(t)}</a>' for a, t in self.toc)
        found = "".join(f'<li><a href="#{esc(a)}">{esc(t)}</a>: {esc(text)}</li>' for a, t, text in self.answers)
        caveat = f'<p class="caveat">{esc(answers.DEMO_CAVEAT)}</p>' if self.demo else ""
        summary = f'<div class="findings"><h2>Findings</h2>{caveat}<ul>{found}</ul></div>' if found else ""
        body = "".join(self.parts) + ("</section>" if self.toc else "")
        return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>crawlplan report</title><style>{CSS}</style></head><body>"
                f"{header}{banners}<nav>{nav}</nav><main>{summary}{body}</main></body></html>")


def demo_notes(markers: list[dict]) -> list[str]:
    """Marker notes that say demo models produced scores: the report must not pass for real."""
    return [f"{m.get('node')}: {n}" for m in markers for n in m.get("notes") or [] if DEMO_NOTE.search(str(n))]


def node_table(markers: list[dict]) -> pd.DataFrame:
    rows = []
    for m in markers:
        rows.append({
            "node": m.get("node"), "job": m.get("job"), "seconds": m.get("seconds"),
            "finished_at": m.get("finished_at"),
            "rows written": ", ".join(f"{k}={v:,}" for k, v in (m.get("rows") or {}).items()),
            "counters (processed, rejected, ...)": ", ".join(
                f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}" for k, v in (m.get("counters") or {}).items()),
        })
    return pd.DataFrame(rows)


def _inputs_table(conf: dict, markers: list[dict]) -> pd.DataFrame:
    seen: dict[str, str] = {}
    for key, value in (conf.get("inputs") or {}).items():
        seen[key] = str(value) if value not in (None, "") else "(not set)"
    for m in markers:
        for key, value in (m.get("inputs") or {}).items():
            if value not in (None, "", []):
                seen[key] = str(value)
    return pd.DataFrame({"input": list(seen), "value": list(seen.values())})


def _run_section(page: Page, conf: dict, markers: list[dict], problems: dict[str, str]) -> None:
    page.section("run", "Run: inputs, nodes, record and reject counts")
    page.answer(answers.run, scores=False)
    page.frame_table("Inputs", _inputs_table(conf, markers), max_rows=50)
    if markers:
        page.frame_table("Nodes (from the completion markers)", node_table(markers), max_rows=200)
    else:
        page.h3(page._table_title("Nodes (from the completion markers)", ""))
        page.raw(missing_box("_markers", "has no completion markers in this run"))
    page.table("WARC files by read status", "warc_files", columns=["status", "files", "records", "responses",
                                                                   "documents", "rejected", "bytes", "seconds", "retries"])
    page.table("Extract mode and sampling fraction by host size (HTML captures per host)", "sampling",
               "host_population")
    page.table("Rejected records by stage and reason (extract)", "rejects",
               empty_text="none: every response record became a document")
    page.table("Documents the classifiers could not score", "classify_rejects",
               empty_text="none: every document was scored")
    page.table("Documents by language (top 25)", "documents_by_language", "documents")
    notes = [(m.get("node"), n) for m in markers for n in m.get("notes") or []]
    if notes:
        page.h3("Notes the nodes raised")
        page.raw("<ul>" + "".join(f"<li><b>{esc(n)}</b>: {esc(t)}</li>" for n, t in notes) + "</ul>")
    if problems:
        page.h3("Datasets that could not be read")
        page.raw("".join(error_box(k, ValueError(v)) for k, v in problems.items()))
    page.raw("<details><summary>Effective configuration</summary><pre>"
             + esc(yaml.safe_dump(redact(conf), sort_keys=False, default_flow_style=False, width=110)) + "</pre></details>")


def build_html(frames: dict, markers: list[dict], conf: dict, *, title: str = "crawlplan run report",
               out_dir: str = "", problems: dict[str, str] | None = None) -> tuple[str, BuildStats]:
    page = Page(frames, demo=bool(demo_notes(markers)))
    policies = conf.get("policies") or {}
    preferred = (policies.get("simulate") or {}).get("classifier") or policies.get("classifier")
    _run_section(page, conf, markers, problems or {})

    page.section("rq1", "RQ1: is quality a host property?")
    page.answer(answers.rq1)
    page.figure("ICC1 per classifier", "Between-host share of the variance of page scores "
                "(one-way random-effects ICC1). true_quality, when present, is the demo's planted quality.",
                figures_hosts.fig_icc, paper="Figure 1")
    page.table("ICC1 by classifier and minimum documents per host", "icc", paper="Table 8",
               columns=["classifier", "min_docs", "hosts", "documents", "mean_docs", "icc1", "reliability",
                        "correlation_ceiling"], sort=["min_docs", "classifier"])

    page.section("rq2", "RQ2: does centrality find quality?")
    page.answer(answers.rq2)
    page.figure("Yield against random at a 10% budget", "Hosts are fetched whole in each policy's "
                "order; bars are the high-quality yield divided by random ordering's (dashed line = random).",
                figures_hosts.fig_yield_at_budget, paper="Figure 2")
    page.figure("Yield across budgets", "Mean yield over seeds; the band is the min-max over runs.",
                figures_hosts.fig_yield_budgets, paper="Figure 9")
    page.figure("Correlations by language", "Spearman of log harmonic centrality with each "
                "classifier's host median, pooled and per primary host language; whiskers are bootstrap CIs.",
                figures_hosts.fig_correlations_by_language, paper="Figure 3")
    page.table("Centrality against host quality", "correlations", paper="Tables 4-6",
               query=lambda d: d[d["stratum_kind"] != "tld_category"] if len(d) > 60 else d,
               columns=["metric", "classifier", "stratum_kind", "stratum", "hosts", "spearman", "ci_low", "ci_high",
                        "kendall", "weighted_spearman"], sort=["metric", "classifier", "stratum_kind", "stratum"],
               max_rows=120)
    page.table("Score distributions", "score_distributions", sort=["classifier", "stratum"], paper="Table 7")
    page.table("Rank stability between graph releases", "rank_stability", paper="Table 2",
               empty_text="not computed: set stats.host_graph.previous_release to a second graph release")

    page.section("rq3", "RQ3: how deep to crawl each host?")
    page.answer(answers.rq3)
    page.figure("k-sample reliability", "Spearman between the quality density of k sampled pages "
                "and that of the host's remaining pages (band: sd over seeds).", figures_hosts.fig_sample_reliability,
                paper="Figure 4")
    page.figure("Depth policies across budgets", "Sampled probe pages are charged to the budget; dashed "
                "*_free lines are the same policies with the sample known beforehand.", figures_hosts.fig_depth_policies,
                paper="Figure 5")
    page.table("Depth policies near a 10% budget", "depth_sim", query=_near_budget,
               columns=["population", "policy", "k", "budget_frac", "yield_mean", "vs_uniform", "share_of_oracle",
                        "detail"])

    page.section("rq4", "RQ4: does the deployed crawl follow quality?")
    page.answer(answers.rq4, preferred)
    page.figure("Coverage against quality density", "Hosts binned by crawl coverage from the host "
                "index and quality density (log colour scale).", figures_hosts.fig_coverage_density, preferred,
                paper="Figure 6")
    page.figure("Where the missed high-quality pages are", "Share of the estimated uncrawled "
                "high-quality pages in each coverage x density cell.", figures_hosts.fig_missed_heatmap, preferred,
                paper="Figure 7")
    page.table("Coverage summary", "coverage_summary", sort=["crawl", "source"], paper="Table 1",
               columns=["crawl", "source", "hosts", "spearman_coverage_density", "ci_low", "ci_high", "gems",
                        "gem_share_of_hosts", "missed_hq", "missed_share_on_gems", "missed_share_low_coverage",
                        "coverage_median", "density_p90"])
    page.table("Missed high-quality pages by TLD", "missed_by_tld", paper="Figure 11",
               query=lambda d: d.sort_values("share_of_missed", ascending=False), max_rows=30)
    page.figure("Classifier correlation matrix", "Pairwise document-level Spearman; red = agree, "
                "blue = disagree.", figures_hosts.fig_classifier_matrix, paper="Figure 12")

    page.section("budgets", "Crawl plan: per-host budgets")
    page.answer(answers.budgets)
    page.figure("Budget summary", "Allocated pages by allocation reason (rank, floors, exploration, caps) "
                "and by the hosts' primary language.", figures_hosts.fig_budget_summary)
    page.table("Budgets by policy", "budgets_by_policy", "budgets")
    page.table("Top hosts by rank", "budgets_top", "budgets", max_rows=25)

    _source_section(page)
    header = (f"<header><h1>{esc(title)}</h1><p>crawlplan {esc(__version__)} - generated "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}" + (f" - run folder {esc(out_dir)}" if out_dir else "")
              + "</p></header>")
    return page.html(header, _banners(markers)), page.stats


def _near_budget(df: pd.DataFrame, budget: float = answers.BUDGET) -> pd.DataFrame:
    sub, _ = figures_hosts.nearest_budget(df, budget)
    return sub.sort_values(["population", "yield_mean"], ascending=[True, False])


def _source_section(page: Page) -> None:
    page.section("source", "SOUrCe: per-site sitemaps and crawls")
    page.answer(answers.source, scores=False)
    page.table("Sitemaps", "sitemaps", max_rows=50, query=lambda d: figures_source.sitemap_table({"sitemaps": d}))
    try:
        sites = figures_source.sitemap_sites(page.frames)
    except Missing:
        sites = []
    if sites:
        page.h3("Sitemaps as graphs")
        page.raw('<p class="note">Clusters of pages as nodes (area ~ pages, colour ~ authority); arcs are the '
                 "cluster adjacency A[i][j], wider = more links.</p><div class=\"grid\">")
        for site in sites:
            title = page._figure_title(f"sitemap of {site}")
            try:
                page.raw(figure_html(figures_source.fig_sitemap_graph(page.frames, site), title, title))
                page.stats.figures += 1
            except Exception as exc:
                page.stats.failed.append(f"{title}: {exc}")
                page.raw(error_box(title, exc))
        page.raw("</div>")
    elif "sitemaps" in page.frames and page.frames["sitemaps"] is not None:
        page.raw(missing_box("sitemaps", "has no site with a learned sitemap in this run"))
    if page.frames.get("crawl_curves") is not None:
        page.figure("Crawl curves", "Harvest rate and recall as the simulated crawl proceeds.", figures_source.fig_crawl_curves)
    page.figure("Simulated crawls per site", "Final harvest rate and recall of SOUrCe against BFS (UCC crawl) "
                "and against BFS / TPM (target crawl).", figures_source.fig_site_eval)
    page.table("Evaluation (long format)", "site_eval", max_rows=80, sort=["site", "task", "method", "metric"])
    page.table("Pages and clusters per site", "page_clusters", max_rows=40)
    page.table("Within-host plans (top 5 link patterns per site)", "host_plans", max_rows=60)


def _banners(markers: list[dict]) -> str:
    demo = demo_notes(markers)
    if not demo:
        return ""
    items = "".join(f"<li>{esc(n)}</li>" for n in demo)
    return banner("DEMO MODELS WERE USED: the classifier scores in this report come from small demo models "
                  "trained on synthetic text, not the real quality classifiers. Do not read the numbers as "
                  f"findings about real web quality.<ul>{items}</ul>", "demo")
