"""The ``crawlplan`` command's parsers. The core verbs are here; each domain adds its own through a
``register(subparsers)`` function in ``crawlplan/<domain>/cli.py`` (see ``_DOMAIN_CLIS``). A parser
names its verb as ``"module:function"`` (``crawlplan/commands.py``, ``crawlplan/<domain>/commands.py``),
imported only when that verb runs: ``crawlplan --help`` loads no Spark, pandas or domain library."""

from __future__ import annotations

import argparse
import difflib
import importlib
import logging
import re
import sys

from crawlplan import __version__
from crawlplan.dag.arguments import add_conf_arguments, add_job_arguments, friendly_errors
from crawlplan.dag.pipeline import describe, load_pipeline

_DOMAIN_CLIS = (
    "crawlplan.demo.cli",
    "crawlplan.ccindex.cli",
    "crawlplan.classify.cli",
    "crawlplan.policies.cli",
    "crawlplan.source.cli",
    "crawlplan.ops.cli",
    "crawlplan.stats.cli",
    "crawlplan.crawlers.cli",
)

def cmd_pipeline_show(args) -> int:
    print(describe(load_pipeline(args.pipeline)))
    return 0


class SuggestingParser(argparse.ArgumentParser):
    """argparse with "did you mean" for a mistyped option or verb (Python 3.11's argparse has none)."""

    def error(self, message: str):
        words = re.findall(r"(?:unrecognized arguments: |invalid choice: ')(\S+?)'?(?:\s|$)", message)
        if words:
            word = words[0]
            known = _option_strings(self) if word.startswith("-") else _choices(self)
            close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.6)
            if close:
                message += f" (did you mean {close[0]}?)"
        super().error(message)


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _subparsers(child)
    return found


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({o for p in _subparsers(parser) for a in p._actions for o in a.option_strings})


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({name for p in _subparsers(parser) for a in p._actions
                   if isinstance(a, argparse._SubParsersAction) for name in a.choices})


def build_parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(prog="crawlplan", description="Turn Common Crawl data into crawl plans for LLM "
                              "pretraining data: a DAG of Spark jobs, run whole (run) or node by node (job).")
    parser.add_argument("--version", action="version", version=f"crawlplan {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging and full tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a pipeline (default: main) on the configured or demo inputs")
    run.add_argument("pipeline", nargs="?", default="main")
    add_conf_arguments(run)
    run.add_argument("--out", metavar="DIR", help="output folder (default out/)")
    group = run.add_mutually_exclusive_group()
    group.add_argument("--only", metavar="NODE", help="run just this node, even if complete")
    group.add_argument("--from", metavar="NODE", help="force this node and everything downstream")
    run.add_argument("--retry-failed", action="store_true",
                     help="re-read only the WARC files the last extract could not read in full (warc_files status "
                          "not ok), merge them into its outputs, then rerun what follows extract")
    run.add_argument("--until", metavar="NODE[,NODE]", type=lambda v: [n.strip() for n in v.split(",") if n.strip()],
                     help="run just these nodes and what they depend on (e.g. --until allocate,sitemaps)")
    run.set_defaults(func="crawlplan.commands:cmd_run")

    pipe = sub.add_parser("pipeline", help="inspect pipelines")
    pipe_sub = pipe.add_subparsers(dest="pipeline_command", required=True)
    show = pipe_sub.add_parser("show", help="print the DAG")
    show.add_argument("pipeline", nargs="?", default="main")
    show.set_defaults(func=cmd_pipeline_show)

    job = sub.add_parser("job", help="run one node alone (same arguments as spark-submit jobs/NODE.py)")
    job.add_argument("node")
    add_job_arguments(job)
    job.set_defaults(func="crawlplan.commands:cmd_job")

    for module_name in _DOMAIN_CLIS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def verb(func):
    """A verb's function: parsers name it as ``"module:function"``, imported only when it runs."""
    if isinstance(func, str):
        module_name, _, name = func.partition(":")
        func = getattr(importlib.import_module(module_name), name)
    return func


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("py4j").setLevel(logging.WARNING)
    return friendly_errors(lambda: verb(args.func)(args))


if __name__ == "__main__":
    sys.exit(main())
