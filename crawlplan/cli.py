"""The ``crawlplan`` command. Core verbs live here; each domain adds its own verbs through a
``register(subparsers)`` function in ``crawlplan/<domain>/cli.py`` (see ``_DOMAIN_CLIS``)."""

from __future__ import annotations

import argparse
import difflib
import importlib
import logging
import re
import sys
from pathlib import Path

from crawlplan import __version__
from crawlplan.conf import get, load_conf, section
from crawlplan.dag.entry import add_conf_arguments, add_job_arguments, friendly_errors, run_job_from_args
from crawlplan.dag.pipeline import describe, load_pipeline
from crawlplan.dag.runner import Runner, plan_run, up_to_date
from crawlplan.demo import ensure_demo, previous_graph_path
from crawlplan.paths import default_cache_dir
from crawlplan.spark import build_session

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

def prepare_default_inputs(conf: dict, echo=print) -> dict:
    """No inputs given: generate (once, cached) the embedded demo crawl and read that, with its earlier
    graph release as ``stats.host_graph.previous_release`` when the graph is the demo's too and no
    previous release is set."""
    inputs = dict(get(conf, "inputs", {}) or {})
    if inputs.get("warc_paths") or inputs.get("cc_index"):
        return conf

    demo = section(conf, "demo")
    hosts, seed = int(demo["hosts"]), int(demo["seed"])
    demo_dir = Path(get(conf, "demo.dir") or default_cache_dir() / f"demo-h{hosts}-s{seed}")
    echo(f"no inputs configured: using the embedded demo crawl at {demo_dir} ({hosts} hosts, seed {seed})")
    paths = ensure_demo(demo_dir, hosts=hosts, seed=seed, echo=echo)
    graph_from_demo = not inputs.get("web_graph")
    for key, value in paths.items():
        if key in inputs and not inputs.get(key):
            inputs[key] = str(value)
    conf = dict(conf)
    conf["inputs"] = inputs
    host_graph = dict(get(conf, "stats.host_graph", {}) or {})
    if graph_from_demo and not host_graph.get("previous_release"):   # never pair the demo's with another graph
        host_graph["previous_release"] = previous_graph_path(demo_dir)
        conf["stats"] = {**(conf.get("stats") or {}), "host_graph": host_graph}
    return conf


def cmd_run(args) -> int:
    overrides = list(args.overrides)
    start = getattr(args, "from")
    if args.retry_failed:
        if (args.only or start or "extract") != "extract":
            raise ValueError("--retry-failed re-reads the WARC files extract could not read: use it alone "
                             "(extract and what follows it run) or with --only extract / --from extract")
        overrides.append("run.retry_failed=true")
        start = None if args.only else "extract"
    conf = load_conf(args.profile, args.conf, overrides)
    pipeline = load_pipeline(args.pipeline)
    conf = prepare_default_inputs(conf)
    out_dir = args.out or section(conf, "run")["out_dir"]
    selection = {"only": args.only, "start": start, "until": args.until}
    order, forced = plan_run(pipeline, conf, **selection)   # fails on missing inputs before Spark starts
    if not forced and up_to_date(conf, pipeline, order, out_dir):
        print(f"pipeline {pipeline.name}: all {len(order)} nodes are up to date under {Path(out_dir).resolve()} "
              "(read from their markers, Spark not started; --from NODE to redo)")
        return 0
    spark = build_session(conf, app_name=f"crawlplan-{pipeline.name}")
    print(f"pipeline {pipeline.name}: {len(order)} of {len(pipeline.nodes)} nodes, outputs under "
          f"{Path(out_dir).resolve()}")
    Runner(spark, conf, out_dir).run_pipeline(pipeline, **selection)
    print(f"done. datasets are under {Path(out_dir).resolve()}/")
    report = Path(out_dir) / "report" / "index.html"
    if report.is_file():
        print(f"report: {report.resolve()}")
    return 0


def cmd_pipeline_show(args) -> int:
    print(describe(load_pipeline(args.pipeline)))
    return 0


def cmd_job(args) -> int:
    return run_job_from_args(args.node, args)


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
    run.set_defaults(func=cmd_run)

    pipe = sub.add_parser("pipeline", help="inspect pipelines")
    pipe_sub = pipe.add_subparsers(dest="pipeline_command", required=True)
    show = pipe_sub.add_parser("show", help="print the DAG")
    show.add_argument("pipeline", nargs="?", default="main")
    show.set_defaults(func=cmd_pipeline_show)

    job = sub.add_parser("job", help="run one node alone (same arguments as spark-submit jobs/NODE.py)")
    job.add_argument("node")
    add_job_arguments(job)
    job.set_defaults(func=cmd_job)

    for module_name in _DOMAIN_CLIS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("py4j").setLevel(logging.WARNING)
    return friendly_errors(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
