"""CLI verb of the crawlers domain: ``crawlplan crawl-loop`` (plan -> real crawl -> re-plan)."""

from __future__ import annotations

from pathlib import Path

from crawlplan.cli import prepare_default_inputs
from crawlplan.conf import load_conf
from crawlplan.crawlers import loop


def register(subparsers) -> None:
    p = subparsers.add_parser("crawl-loop", help="crawl the demo with Scrapy over pywb (127.0.0.1) driven by a "
                                                 "run's budgets; yield vs prediction vs uniform; re-plan")
    p.add_argument("--run", default="out", help="run folder with budgets (+ host_plans, page_clusters); default out")
    p.add_argument("--demo", default=None, help="demo crawl folder (default: the configured demo cache)")
    p.add_argument("--out", default="out/crawl-loop", help="folder for exports, WARCs, stats, yield.md")
    p.add_argument("--replan", action="store_true", help="run `crawlplan run` on the plan crawl's WARC")
    p.add_argument("--replan-set", action="append", default=[], metavar="KEY=VALUE",
                   help="conf overrides for the re-plan run (repeatable)")
    p.set_defaults(func=cmd_crawl_loop)


def cmd_crawl_loop(args) -> int:
    demo = Path(args.demo) if args.demo else _demo_dir()
    out = Path(args.out)
    plan = loop.export_plan(Path(args.run), out / "export")
    extra = [x for kv in args.replan_set for x in ("--set", kv)]
    result = loop.closed_loop(plan, demo, out, do_replan=args.replan, replan_args=extra)
    print((out / "yield.md").read_text())
    print(f"caps held: {result['caps_held']}; details in {out / 'loop.json'}")
    return 0


def _demo_dir() -> Path:
    """The demo crawl ``crawlplan run`` reads when no inputs are configured (generated if missing)."""
    conf = prepare_default_inputs(load_conf("local"), echo=lambda *_: None)
    return Path(conf["inputs"]["warc_paths"]).parent
