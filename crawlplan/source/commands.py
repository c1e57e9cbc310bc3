"""What the `crawlplan` verbs of the source domain do (their parsers are in ``source/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from crawlplan.conf import load_conf, section
from crawlplan.schemas import load_schema
from crawlplan.security import safe_name
from crawlplan.source.crawl import CrawlSimulator
from crawlplan.source.experiment import SitemapSettings, feature_mode, site_specs, train_site
from crawlplan.source.learner import SitemapLearner
from crawlplan.source.mirror import load_mirrors
from crawlplan.source.sitemaps import empty_sitemap, site_tables, sitemap_json
from crawlplan.warc.listing import resolve_inputs
from crawlplan.warc.reader import ReadLimits
from crawlplan.warc.remote import RetryPolicy


def _settings(args) -> tuple[dict, SitemapSettings]:
    conf = load_conf("local", args.conf, args.overrides)
    params = dict(section(conf, SitemapSettings.SECTION))
    if args.method:
        params["method"] = args.method
    return conf, SitemapSettings.from_params(params)


def _mirrors(args, conf, xpath_classes: str, sites, min_pages):
    remote = RetryPolicy.from_params(section(conf, "remote"))     # the run's, its overrides included
    paths = resolve_inputs(args.warc, policy=remote)
    if not paths:
        raise FileNotFoundError(f"no WARC files found for {args.warc}")
    return load_mirrors(paths, sites=set(sites) if sites else None,
                        site_mode=section(conf, "source.site_pages")["site_key"],
                        xpath_classes=xpath_classes, min_pages=min_pages,
                        limits=ReadLimits.from_params(section(conf, "extract")), remote=remote)


def _write(out: Path, name: str, rows: list[dict]) -> None:
    schema = load_schema(name)
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(rows, columns=schema.names)
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), folder / "part-00000.parquet")


def cmd_sitemap(args) -> int:
    conf, settings = _settings(args)
    mirrors = _mirrors(args, conf, feature_mode(settings), args.site, args.min_pages)
    if args.site:
        missing = sorted(set(args.site) - set(mirrors))
        if missing:
            raise ValueError(f"site(s) not found with >= {args.min_pages} HTML pages: {', '.join(missing)}")
    if not mirrors:
        raise ValueError(f"no site with >= {args.min_pages} HTML pages in {args.warc}")
    specs = site_specs(settings.site_types, args.ground_truth)
    out = Path(args.out)
    tables: dict[str, list] = {"sitemaps": [], "page_clusters": [], "site_eval": [], "crawl_curves": [],
                               "host_plans": []}
    (out / "sitemap_json").mkdir(parents=True, exist_ok=True)
    for site, mirror in sorted(mirrors.items()):
        try:
            result = site_tables(mirror, settings, specs.get(site))
        except Exception as exc:  # one odd site must not stop the others (as in the node)
            result = {"sitemaps": [empty_sitemap(site, len(mirror), f"learning failed: {type(exc).__name__}: {exc}")],
                      "page_clusters": [], "site_eval": [], "crawl_curves": [], "host_plans": []}
        for key, rows in result.items():
            tables[key].extend(rows)
        row = result["sitemaps"][0]
        if row["model_json"]:
            (out / "sitemap_json" / f"{safe_name(site)}.json").write_text(sitemap_json(row))  # site names come from URLs
        f = {r["metric"]: r["value"] for r in result["site_eval"]
             if r["task"] == "clustering" and r["method"] == "source"}
        eps = "-" if row["eps"] is None else f"{row['eps']:.3f}"
        kinds = len({r["kind"] for r in result["page_clusters"] if r["in_training"] and r["kind"] != -1})
        print(f"{site}: {row['pages']} pages, trained on {row['train_pages']}, {row['n_clusters']} clusters "
              f"({kinds} kinds), "
              f"eps {eps} ({row['eps_source']}), outliers {row['outlier_share'] or 0:.2f}"
              + (f", micro-F {f['micro_f']:.3f}" if "micro_f" in f else "")
              + (f" [{row['error']}]" if row["error"] else ""))
    for key, rows in tables.items():
        _write(out, key, rows)
    print(f"wrote {', '.join(tables)} and sitemap_json/ under {out.resolve()}")
    return 0


def cmd_crawl_sim(args) -> int:
    conf, settings = _settings(args)
    if args.mode == "target" and not args.example:
        raise ValueError("--mode target needs --example URL (a page of the type to collect)")
    if args.budget < 1:
        raise ValueError("--budget must be at least 1")
    learner, xpath_classes = None, feature_mode(settings)
    if args.sitemap:   # the mirror must extract the XPath variant the sitemap was learned on
        data = json.loads(Path(args.sitemap).read_text())
        learner = SitemapLearner.from_json(data.get("model", data))
        xpath_classes = learner.xpath_classes_
    mirrors = _mirrors(args, conf, xpath_classes, [args.site], 1)
    if args.site not in mirrors:
        raise ValueError(f"site {args.site} has no HTML pages in {args.warc}")
    mirror = mirrors[args.site]
    if learner is None:
        learner, _ = train_site(mirror, settings)
    steps = CrawlSimulator(mirror, learner, frontier_cap=settings.frontier_cap).run(
        args.mode, args.budget, example=args.example, scoring=args.scoring)
    rows = [{"site": args.site, "mode": args.mode, "step": s.step, "url": s.url, "cluster": s.cluster,
             "score": s.score} for s in steps]
    _write(Path(args.out), "crawl_order", rows)
    spec = site_specs(settings.site_types, args.ground_truth).get(args.site)
    summary = f"{args.site} {args.mode}: {len(steps)} pages fetched of {len(mirror)} in the mirror"
    if spec and spec.page_types:
        typer = spec.typer
        types = [typer(s.url) for s in steps]
        if args.mode == "target":
            t = typer(args.example)
            summary += f", harvest rate {sum(x == t for x in types) / max(1, len(types)):.3f} ({t})"
        elif spec.ucc_types:
            summary += f", valid ratio {sum(x in set(spec.ucc_types) for x in types) / max(1, len(types)):.3f}"
    print(summary)
    print(f"wrote crawl_order under {Path(args.out).resolve()}")
    return 0

