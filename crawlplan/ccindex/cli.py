"""``crawlplan index build``: a columnar URL index in Common Crawl's schema for any WARC files."""

from __future__ import annotations

import json
from collections import Counter

from crawlplan.ccindex.build import IndexSettings, build_index
from crawlplan.conf import load_conf
from crawlplan.warc.listing import resolve_inputs


def cmd_index_build(args) -> int:
    paths = resolve_inputs(args.warc, base=args.warc_base or "")
    if not paths:
        raise ValueError("index build: --warc names no WARC files")
    remote = [p for p in paths if "://" in p.removeprefix("file://")]
    if remote:
        raise ValueError(f"index build reads local WARC files; {remote[0]} is remote (Common Crawl publishes the "
                         f"index of its own crawls: s3://commoncrawl/cc-index/table/cc-main/warc/)")
    overrides = list(args.overrides) + ([f"index.crawl={args.crawl}"] if args.crawl else [])
    settings = IndexSettings.from_conf(load_conf(args.profile, args.conf, overrides))
    summary = build_index(paths, args.out, base=args.base or "", jobs=args.jobs, settings=settings)
    rows = sum(s["rows"] for s in summary)
    bad = [s for s in summary if s["status"] != "ok"]
    for s in bad:
        print(f"warning: {s['warc_file']}: {s['status']} ({s['error']}); {s['rows']} captures indexed")
    partitions = Counter()
    for s in summary:
        partitions.update({f"crawl={s['crawl']}/subset={k}": n for k, n in s["subsets"].items()})
    print(f"indexed {rows:,} captures of {len(summary)} WARC files into {args.out} ("
          + ", ".join(f"{k}: {n:,}" for k, n in sorted(partitions.items())) + ")")
    named = sum(1 for s in summary if s["crawl_from"] == "setting")
    if named:
        print(f"note: {named} file(s) name no Common Crawl crawl; their crawl partition is index.crawl={settings.crawl}")
    fallbacks = Counter()
    for s in summary:
        fallbacks.update(s["fetch_time_fallbacks"])
    if fallbacks:
        print("note: fetch_time taken from " + ", ".join(f"{k} for {n:,}" for k, n in sorted(fallbacks.items()))
              + " capture(s) whose WARC-Date does not parse")
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
    p.add_argument("--crawl", default="", metavar="ID",
                   help="crawl partition for files that name no CC-MAIN-YYYY-WW crawl (conf index.crawl)")
    p.add_argument("--json", action="store_true", help="print the per-file summary")
    p.add_argument("--conf", metavar="FILE", help="user config file layered over the profile")
    p.add_argument("--profile", default="local")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a config key, e.g. --set index.rows_per_file=500000")
    p.set_defaults(func=cmd_index_build)
