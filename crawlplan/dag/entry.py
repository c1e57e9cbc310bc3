"""Entry shared by ``crawlplan job NODE`` and ``spark-submit jobs/NODE.py``: same arguments."""

from __future__ import annotations

import argparse
import logging
import sys

from crawlplan.conf import ConfError, load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner, job_roots, run_single_job, single_job_external, up_to_date
from crawlplan.spark import build_session

_EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ConfError, FileNotFoundError, KeyError, ValueError)


def friendly_errors(fn) -> int:
    """Expected user errors print one clear line instead of a traceback (every verb and job entry)."""
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        print("crawlplan: interrupted", file=sys.stderr)
        return 130
    except _EXPECTED_ERRORS as exc:
        if logging.getLogger().isEnabledFor(logging.DEBUG):
            raise
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"crawlplan: error: {msg}", file=sys.stderr)
        return 2


def add_conf_arguments(parser: argparse.ArgumentParser) -> None:
    """The config layers every running verb takes: --conf FILE, --profile, --set key=value."""
    parser.add_argument("--conf", metavar="FILE", help="user config file layered over the profile")
    parser.add_argument("--profile", default="local", help="config profile: local (default) or cluster")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                        help="override one config key, e.g. --set extract.extractor=resiliparse")


def add_job_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", action="append", default=[], metavar="PATH",
                        help="input path(s): a WARC path listing or glob for extract, "
                             "or a folder holding upstream datasets; repeatable")
    parser.add_argument("--output", required=True, metavar="DIR", help="output folder (datasets go to DIR/<name>)")
    add_conf_arguments(parser)
    parser.add_argument("--pipeline", default="main", help="pipeline that defines the node (default main)")
    parser.add_argument("--force", action="store_true",
                        help="run even when the node's completion marker under --output is current")
    parser.add_argument("--with-upstream", action="store_true",
                        help="first run every node upstream of this one in the same Spark application, each "
                             "skipped when its marker is current (what `crawlplan submit --one-application` uses)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="extract only: re-read just the WARC files whose warc_files status under --output "
                             "is not ok and merge them into the outputs there")


def run_job_from_args(node_name: str, args: argparse.Namespace) -> int:
    overrides = list(args.overrides) + (["run.retry_failed=true"] if getattr(args, "retry_failed", False) else [])
    conf = load_conf(args.profile, args.conf, overrides)
    pipeline = load_pipeline(args.pipeline)
    if node_name not in pipeline.nodes:
        print(f"crawlplan: {pipeline.unknown_node(node_name)}", file=sys.stderr)
        return 2
    node = pipeline.nodes[node_name]
    if getattr(args, "retry_failed", False) and node.job != "extract":
        raise ValueError(f"--retry-failed re-reads WARC files: it applies to extract, not to {node_name}")
    if not args.force and not getattr(args, "retry_failed", False):
        names = pipeline.upstream([node_name]) if getattr(args, "with_upstream", False) else [node_name]
        if up_to_date(conf, pipeline, names, args.output, roots=job_roots(args.output, args.input),
                      external=single_job_external(pipeline, node_name, conf, args.input)):
            print(f"{node_name}: {', '.join(node.outputs)} under {args.output} are up to date "
                  f"(checked without starting Spark; --force to redo)")
            return 0
    spark = build_session(conf, app_name=f"crawlplan-{node_name}")
    if getattr(args, "with_upstream", False):
        return run_with_upstream(spark, conf, pipeline, node_name, args)
    result = run_single_job(spark, conf, pipeline, node_name, args.input, args.output, force=args.force)
    if result["status"] == "skipped":
        print(f"{node_name}: {', '.join(node.outputs)} under {args.output} are up to date (--force to redo)")
    else:
        print(f"{node_name}: wrote {', '.join(node.outputs)} under {args.output}")
    return 0


def run_with_upstream(spark, conf: dict, pipeline, node_name: str, args: argparse.Namespace) -> int:
    """The node and everything upstream of it in this one application: on a cluster every
    application pays its own driver, executor JVMs and Python workers (about 30 s a node on the
    two-worker harness, docs/cluster.md), which a pipeline of small nodes pays once here. Each node
    is still skipped by its completion marker, so a relaunch after a failure starts at that node."""
    start = "extract" if getattr(args, "retry_failed", False) else None
    runner = Runner(spark, conf, args.output, roots=job_roots(args.output, args.input))
    results = runner.run_pipeline(pipeline, until=[node_name], start=start, force=args.force)
    ran = [name for name, result in results.items() if result["status"] != "skipped"]
    print(f"{node_name} with its upstream: {len(results)} nodes, {len(ran)} run, "
          f"{len(results) - len(ran)} up to date; datasets under {args.output}")
    return 0


def main(node_name: str, argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog=f"jobs/{node_name}.py", description=f"crawlplan node '{node_name}'")
    add_job_arguments(parser)
    args = parser.parse_args(argv)
    return friendly_errors(lambda: run_job_from_args(node_name, args))
