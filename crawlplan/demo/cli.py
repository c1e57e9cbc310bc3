"""``crawlplan demo-data``: write the embedded demo crawl to a folder."""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser("demo-data", help="generate the embedded demo crawl (WARCs, host index, web graph, "
                                                "ground truth) in Common Crawl's formats")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--hosts", type=int, default=300, help="number of crawled hosts (default 300)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--force", action="store_true", help="regenerate even if the folder is complete")
    p.set_defaults(func="crawlplan.demo.commands:cmd_demo_data")

