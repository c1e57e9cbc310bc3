"""Entry shared by ``crawlplan job NODE`` and ``spark-submit jobs/NODE.py``: same arguments.

``python -m crawlplan.dag.check NODE ARGS`` (``check_main``) answers with the same arguments
whether the node's completion marker is current, without Spark: what the printed submit script,
``crawlplan submit --run`` and the Airflow DAG ask before they start spark-submit's JVM."""

from __future__ import annotations

import argparse
import logging

from crawlplan import connect
from crawlplan.conf import load_conf
from crawlplan.dag.arguments import add_job_arguments, conf_overrides, friendly_errors
from crawlplan.dag.pipeline import Pipeline, load_pipeline
from crawlplan.dag.runner import Runner, job_roots, run_single_job, single_job_external, up_to_date
from crawlplan.spark import build_session


def prepared(node_name: str, args: argparse.Namespace) -> tuple[dict, Pipeline]:
    """The job's conf and pipeline from its arguments (paths made absolute for a Connect server)."""
    conf = load_conf(args.profile, args.conf, conf_overrides(args))
    if connect.remote_url(conf):   # the server resolves local paths in its own working folder
        conf = connect.absolute_inputs(conf)
        args.output, args.input = connect.absolute(args.output), [connect.absolute(p) for p in args.input]
    pipeline = load_pipeline(args.pipeline)
    if node_name not in pipeline.nodes:
        raise KeyError(pipeline.unknown_node(node_name))
    if getattr(args, "retry_failed", False) and pipeline.nodes[node_name].job != "extract":
        raise ValueError(f"--retry-failed re-reads WARC files: it applies to extract, not to {node_name}")
    return conf, pipeline


def current(node_name: str, args: argparse.Namespace, conf: dict, pipeline: Pipeline) -> bool:
    """Whether the job these arguments describe would skip: its marker (and with --with-upstream
    every upstream node's) is current and its outputs exist; read without Spark."""
    if args.force or getattr(args, "retry_failed", False):
        return False
    names = pipeline.upstream([node_name]) if getattr(args, "with_upstream", False) else [node_name]
    if not up_to_date(conf, pipeline, names, args.output, roots=job_roots(args.output, args.input),
                      external=single_job_external(pipeline, node_name, conf, args.input)):
        return False
    print(f"{node_name}: {', '.join(pipeline.nodes[node_name].outputs)} under {args.output} are up to date "
          f"(checked without starting Spark; --force to redo)", flush=True)
    return True


def run_job_from_args(node_name: str, args: argparse.Namespace) -> int:
    conf, pipeline = prepared(node_name, args)
    node = pipeline.nodes[node_name]
    if current(node_name, args, conf, pipeline):
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


def check_main(argv: list[str] | None = None) -> int:
    """``python -m crawlplan.dag.check NODE JOB-ARGUMENTS``: exit 0 when the job would skip (its
    marker is current), 1 when it would run or the markers cannot be read from here."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="python -m crawlplan.dag.check",
                                     description="exit 0 when NODE's completion marker is current")
    parser.add_argument("node")
    add_job_arguments(parser)
    args = parser.parse_args(argv)

    def check() -> int:
        conf, pipeline = prepared(args.node, args)
        return 0 if current(args.node, args, conf, pipeline) else 1
    rc = friendly_errors(check)
    return 1 if rc == 2 else rc    # an unreadable setting: let the job itself say so


def main(node_name: str, argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog=f"jobs/{node_name}.py", description=f"crawlplan node '{node_name}'")
    add_job_arguments(parser)
    args = parser.parse_args(argv)
    return friendly_errors(lambda: run_job_from_args(node_name, args))
