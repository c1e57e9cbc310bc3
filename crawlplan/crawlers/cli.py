"""CLI verb of the crawlers domain: ``crawlplan crawl-loop`` (plan -> real crawl -> re-plan)."""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser("crawl-loop", help="crawl the demo with Scrapy over pywb (127.0.0.1) driven by a "
                                                 "run's budgets; yield vs prediction vs uniform; re-plan")
    p.add_argument("--run", default="out", help="run folder with budgets (+ host_plans, page_clusters); default out")
    p.add_argument("--demo", default=None, help="demo crawl folder (default: the configured demo cache)")
    p.add_argument("--out", default="out/crawl-loop", help="folder for exports, WARCs, stats, yield.md")
    p.add_argument("--replan", action="store_true", help="run `crawlplan run` on the plan crawl's WARC")
    p.add_argument("--replan-set", action="append", default=[], metavar="KEY=VALUE",
                   help="conf overrides for the re-plan run (repeatable)")
    p.set_defaults(func="crawlplan.crawlers.commands:cmd_crawl_loop")

