"""Entry shared by ``crawlplan job NODE`` and ``spark-submit jobs/NODE.py``: same arguments."""

from __future__ import annotations

import argparse
import logging
import sys

from crawlplan import connect
from crawlplan.conf import load_conf
from crawlplan.dag.arguments import add_job_arguments, conf_overrides, friendly_errors
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner, job_roots, run_single_job, single_job_external, up_to_date
from crawlplan.spark import build_session


def run_job_from_args(node_name: str, args: argparse.Namespace) -> int:
    conf = load_conf(args.profile, args.conf, conf_overrides(args))
    if connect.remote_url(conf):   # the server resolves local paths in its own working folder
        conf = connect.absolute_inputs(conf)
        args.output, args.input = connect.absolute(args.output), [connect.absolute(p) for p in args.input]
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
