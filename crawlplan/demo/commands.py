"""What the `crawlplan` verbs of the demo domain do (their parsers are in ``demo/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from crawlplan.demo.crawl import ensure_demo, is_complete, previous_graph_path


def cmd_demo_data(args) -> int:
    out = Path(args.out)
    if args.force and out.exists():
        if not (out / "_SUCCESS").is_file():
            raise ValueError(f"{out} exists but is not a demo crawl folder (no _SUCCESS); refusing to replace it")
        shutil.rmtree(out)
    if is_complete(out, args.hosts, args.seed):
        print(f"demo crawl already complete in {out.resolve()} (use --force to regenerate)")
    paths = ensure_demo(out, hosts=args.hosts, seed=args.seed)
    summary = json.loads((out / "_SUCCESS").read_text())
    print(f"crawl {summary['crawl']}: {summary['warc_files']} WARC files, {summary['response_records']} "
          f"responses, {summary['html_pages']} HTML pages, {summary['hosts_crawled']} hosts "
          f"({len(summary['forum_hosts'])} forums)")
    print(f"web graph {summary['graph_release']}: {summary['graph_vertices']} hosts, {summary['graph_edges']} edges")
    print(f"previous web graph {summary['previous_graph_release']}: {summary['previous_graph_vertices']} hosts")
    for key, value in paths.items():
        print(f"inputs.{key}={value}")
    print(f"stats.host_graph.previous_release={previous_graph_path(out)}")
    return 0

