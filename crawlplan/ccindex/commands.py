"""What the `crawlplan` verbs of the ccindex domain do (their parsers are in ``ccindex/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import json

from crawlplan.ccindex.build import build_index
from crawlplan.warc.listing import resolve_inputs


def cmd_index_build(args) -> int:
    paths = resolve_inputs(args.warc, base=args.warc_base or "")
    if not paths:
        raise ValueError("index build: --warc names no WARC files")
    remote = [p for p in paths if "://" in p.removeprefix("file://")]
    if remote:
        raise ValueError(f"index build reads local WARC files; {remote[0]} is remote (Common Crawl publishes the "
                         f"index of its own crawls: s3://commoncrawl/cc-index/table/cc-main/warc/)")
    summary = build_index(paths, args.out, base=args.base or "", jobs=args.jobs)
    rows = sum(s["rows"] for s in summary)
    bad = [s for s in summary if s["status"] != "ok"]
    for s in bad:
        print(f"warning: {s['warc_file']}: {s['status']} ({s['error']}); {s['rows']} captures indexed")
    partitions = sorted({f"crawl={s['crawl']}/subset={s['subset']}" for s in summary})
    print(f"indexed {rows:,} captures of {len(summary)} WARC files into {args.out} ({', '.join(partitions)})")
    if args.json:
        print(json.dumps(summary, indent=1))
    print(f"use it with: --set extract.mode=sampled --set inputs.cc_index={args.out}"
          + (f" --set inputs.warc_base={args.base}" if args.base else ""))
    return 0

