"""``crawlplan sitemap`` and ``crawlplan crawl-sim``: SOUrCe on WARC files without Spark.

Both read the sites' pages straight from the WARC files (the files are the mirror), use the
settings of ``source.sitemaps`` (``--conf``/``--set`` as for ``crawlplan run``) and write
Parquet datasets with the same schemas as the pipeline nodes.
"""

from __future__ import annotations

import argparse


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--warc", nargs="+", required=True, metavar="PATH",
                   help="WARC files, globs or path listings (warc.paths.gz)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--method", choices=("default", "paper"), help="learner configuration (default: conf)")
    p.add_argument("--conf", metavar="FILE", help="user config file")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a config key, e.g. source.sitemaps.num_bins=mul")
    p.add_argument("--ground-truth", metavar="DIR",
                   help="demo ground_truth folder: page types of its forum hosts, for site_eval")


def register(subparsers) -> None:
    sm = subparsers.add_parser("sitemap", help="learn a SOUrCe sitemap for each site in WARC files")
    _common(sm)
    sm.add_argument("--site", action="append", metavar="HOST", help="only this site (repeatable)")
    sm.add_argument("--min-pages", type=int, default=5, help="skip sites with fewer HTML pages (default 5)")
    sm.set_defaults(func="crawlplan.source.commands:cmd_sitemap")

    cs = subparsers.add_parser("crawl-sim", help="simulate a BFS / SOUrCe UCC / SOUrCe target crawl on a site mirror")
    _common(cs)
    cs.add_argument("--site", required=True, metavar="HOST")
    cs.add_argument("--mode", required=True, choices=("bfs", "ucc", "target"))
    cs.add_argument("--example", metavar="URL", help="example page of the target type (mode target)")
    cs.add_argument("--budget", type=int, required=True, metavar="N", help="pages to fetch")
    cs.add_argument("--scoring", default="full",
                    choices=("full", "no_dsim", "no_balance", "info_only", "dsim_balance"),
                    help="UCC link score or one of the paper's ablations")
    cs.add_argument("--sitemap", metavar="FILE", help="a sitemap JSON written by 'crawlplan sitemap' (else learn one)")
    cs.set_defaults(func="crawlplan.source.commands:cmd_crawl_sim")

