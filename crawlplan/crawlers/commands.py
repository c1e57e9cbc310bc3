"""What the `crawlplan` verbs of the crawlers domain do (their parsers are in ``crawlers/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

from pathlib import Path

from crawlplan.commands import prepare_default_inputs
from crawlplan.conf import load_conf
from crawlplan.crawlers import loop


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

