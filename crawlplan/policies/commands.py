"""What the `crawlplan` verbs of the policies domain do (their parsers are in ``policies/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import difflib
import json
import time
from pathlib import Path

import pandas as pd

from crawlplan.conf import load_conf, section
from crawlplan.policies import export
from crawlplan.policies.exports import stream
from crawlplan.policies.exports.within_host import budgets_frame
from crawlplan.policies.population import CalibratedParams, calibrated_population
from crawlplan.policies.simulate import label_tables, run_sweep, summarize, sweep_config
from crawlplan.report import figures_hosts
from crawlplan.report.render import save_png
from crawlplan.spark import build_session

COMPARED = ("uniform", "hc_depth", "sample_then_deepen", "eb_adaptive")


def cmd_export_budgets(args) -> int:
    """The budgets in one format or all: a Spark job (``exports.stream.export_budgets``), so a
    crawl's budgets never come to the driver."""
    if args.format != "all" and args.format not in export.FORMATS:
        close = difflib.get_close_matches(args.format, export.FORMATS, n=1)
        raise ValueError(f"--format {args.format}: not a format; one of {', '.join(export.FORMATS)}, all"
                         + (f" (did you mean {close[0]}?)" if close else ""))
    conf = load_conf(args.profile, args.conf, args.overrides)
    settings = export.ExportSettings.from_conf(conf, scheme=args.scheme, segments=args.segments,
                                               fetch_interval=args.fetch_interval,
                                               precedence_levels=args.precedence_levels,
                                               partition_pages=args.partition_pages, crawl_id=args.crawl_id,
                                               hostdb=args.hostdb)
    job = stream.StreamSettings.from_params(section(conf, stream.StreamSettings.SECTION))
    spark = build_session(conf, app_name="crawlplan-export")
    frame, used = budgets_frame(spark, args.input, plans=args.plans, page_clusters=args.page_clusters,
                                sitemaps=args.sitemaps, top=args.plan_top)
    if used:
        _, _, planned = stream.summary(frame)
        print(f"within-host plans for {planned} hosts from " + ", ".join(str(p) for p in used.values()))
    formats = export.FORMATS if args.format == "all" else (args.format,)
    for fmt in formats:
        target = args.out
        if args.format == "all":     # every format into one folder: the tables by their file names
            target = str(Path(args.out) / (fmt if fmt in export.CRAWLER_FORMATS else export.TABLE_FILES[fmt]))
        done = stream.export_budgets(spark, frame, fmt, target, settings, job)
        if fmt in export.TABLE_FORMATS:
            print(f"{fmt}: {done.path} ({done.rows} hosts; a table keeps every row, its writer quotes any text)")
        else:
            print(f"{fmt}: {done.path} ({done.rows} hosts; skipped_unsafe {done.skipped_unsafe}: rows with pages "
                  f"whose host, domain or seed URL {fmt} files cannot carry safely)")
    return 0


def comparison_table(raw_depth: pd.DataFrame, budgets=(0.01, 0.02, 0.03, 0.05, 0.075, 0.1)) -> pd.DataFrame:
    """Share of the oracle per policy (mean ± sd over seeds) and the paired margin of eb_adaptive
    over sample_then_deepen (same seed, population and budget)."""
    d = raw_depth.assign(y=raw_depth.hq / raw_depth.pages)
    wide = d.pivot_table(index=["budget_frac", "seed"], columns="policy", values="y")
    rows = []
    for frac in budgets:
        if frac not in wide.index.get_level_values(0):
            continue
        w = wide.loc[frac]
        row = {"budget": f"{frac * 100:g}%", "seeds": len(w)}
        for policy in COMPARED:
            if policy in w:
                share = w[policy] / w["oracle"]
                row[policy] = f"{share.mean():.3f} ± {share.std(ddof=1):.3f}"
        if {"eb_adaptive", "sample_then_deepen"} <= set(w.columns):
            margin = (w["eb_adaptive"] - w["sample_then_deepen"]) / w["oracle"]
            row["new - std (min over seeds)"] = f"{margin.min():+.3f}"
            row["seeds new > std"] = f"{int((margin > 0).sum())}/{len(w)}"
        rows.append(row)
    return pd.DataFrame(rows)


def markdown(df: pd.DataFrame) -> str:
    """A pipe table (no tabulate dependency)."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def cmd_simulate_calibrated(args) -> int:
    conf = load_conf("local")
    p = section(conf, "policies.simulate")
    budgets = tuple(float(x) for x in args.budgets.split(",")) if args.budgets else tuple(p["budgets"])
    cfg = sweep_config(p, budgets=budgets, seeds=tuple(range(args.seeds)), adaptive_groups=args.groups,
                       adaptive_sizes=not args.no_sizes)
    params = CalibratedParams(hosts=args.hosts, group_effect=args.group_effect)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    gen_s = [0.0]

    def factory(seed):
        t = time.perf_counter()
        pop = calibrated_population(params, seed=seed)
        if args.min_pages > 3:
            pop = pop.subset(pop.n >= args.min_pages)
        gen_s[0] += time.perf_counter() - t
        print(f"seed {seed}: {pop.hosts:,} hosts, {pop.pages:,} pages, hq share {pop.hq.sum() / pop.pages:.3f}, "
              f"page-score ICC1 {pop.score_icc1:.3f}")
        return pop

    raw = run_sweep(factory, cfg)
    total = time.perf_counter() - started
    tables = summarize(raw)
    for name, df in tables.items():
        df.to_csv(out / f"{name}.csv", index=False)
    raw["depth"].to_csv(out / "depth_raw.csv", index=False)
    table = comparison_table(raw["depth"])
    (out / "comparison.md").write_text(markdown(table) + "\n")
    (out / "timing.json").write_text(json.dumps({"seconds_total": round(total, 2), "seconds_generate": round(gen_s[0], 2),
                                                 "seconds_simulate": round(total - gen_s[0], 2),
                                                 "seeds": args.seeds, "hosts": args.hosts}, indent=2))
    if not args.no_figures:   # the report's figures (Figures 4, 5 and 9), one set for both
        frames = label_tables(tables, "calibrated", str(p["classifier"]), float(p["threshold"]), cfg)
        save_png(figures_hosts.fig_depth_policies(frames), out / "depth.png")
        save_png(figures_hosts.fig_yield_budgets(frames), out / "ordering.png")
        save_png(figures_hosts.fig_sample_reliability(frames), out / "reliability.png")
    print(markdown(table))
    print(f"sweep: {total:.1f}s ({gen_s[0]:.1f}s generating populations); tables and figures in {out}/")
    return 0

