"""``crawlplan index build``: a columnar URL index in Common Crawl's schema for any WARC files."""

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


def register(subparsers) -> None:
    index = subparsers.add_parser("index", help="Common Crawl's columnar URL index (cc-index-table)")
    verbs = index.add_subparsers(dest="index_command", required=True)
    p = verbs.add_parser("build", help="write a columnar index in Common Crawl's schema for WARC files, so that "
                                       "extract.mode=sampled can read them by byte range")
    p.add_argument("--warc", nargs="+", required=True, metavar="PATH",
                   help="WARC files, globs or a warc.paths.gz listing")
    p.add_argument("--out", required=True, metavar="DIR", help="index root (crawl=/subset= partitions are made)")
    p.add_argument("--base", default="", metavar="DIR",
                   help="write warc_filename relative to this folder (as Common Crawl's are to s3://commoncrawl/)")
    p.add_argument("--warc-base", default="", help="prefix for relative entries of a listing")
    p.add_argument("--jobs", type=int, default=1, help="files indexed in parallel (processes)")
    p.add_argument("--json", action="store_true", help="print the per-file summary")
    p.set_defaults(func=cmd_index_build)
