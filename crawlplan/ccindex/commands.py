"""What the `crawlplan` verbs of the ccindex domain do (their parsers are in ``ccindex/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import json
from collections import Counter

from crawlplan.ccindex.build import IndexSettings, build_index
from crawlplan.conf import load_conf, section
from crawlplan.warc.listing import resolve_inputs
from crawlplan.warc.remote import RetryPolicy


def cmd_index_build(args) -> int:
    overrides = list(args.overrides) + ([f"index.crawl={args.crawl}"] if args.crawl else [])
    conf = load_conf(args.profile, args.conf, overrides)
    paths = resolve_inputs(args.warc, base=args.warc_base or "", policy=RetryPolicy.from_params(section(conf, "remote")))
    if not paths:
        raise ValueError("index build: --warc names no WARC files")
    remote = [p for p in paths if "://" in p.removeprefix("file://")]
    if remote:
        raise ValueError(f"index build reads local WARC files; {remote[0]} is remote (Common Crawl publishes the "
                         f"index of its own crawls: s3://commoncrawl/cc-index/table/cc-main/warc/)")
    settings = IndexSettings.from_conf(conf)
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
