"""What the `crawlplan` verbs of the ops domain do (their parsers are in ``ops/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from crawlplan.conf import ConfError, load_conf
from crawlplan.dag import entry
from crawlplan.dag.arguments import add_job_arguments
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import check_inputs
from crawlplan.ops import platforms, submit
from crawlplan.ops.airflow import render_dag
from crawlplan.ops.docs import render_datasets
from crawlplan.ops.package import describe_usage, package
from crawlplan.paths import project_home
from crawlplan.report.browser import check_in_browser, problems, screenshot
from crawlplan.security import redact_args


def _load(args):
    return load_pipeline(args.pipeline), load_conf(args.profile, args.conf, args.overrides)


def _warn(found: list[str], verb: str) -> None:
    for line in found:
        print(f"crawlplan {verb}: warning: {line}", file=sys.stderr)


def cmd_airflow(args) -> int:
    pipeline, conf = _load(args)
    spec = submit.SubmitSpec.from_conf(conf, args.conf or "", target=args.target or "")
    _warn(submit.warnings_for(spec, conf), "airflow")
    text = render_dag(pipeline, conf, conf_file=args.conf or "", target=spec.target)
    out = Path(args.out or f"dags/crawlplan_{pipeline.name}.py")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out} ({len(pipeline.nodes)} tasks: {', '.join(pipeline.order())})")
    return 0


def cmd_submit(args) -> int:
    pipeline, conf = _load(args)
    spec = submit.SubmitSpec.from_conf(conf, args.conf or "", target=args.target or "")
    spec.force = args.force
    if spec.target in platforms.PLATFORM_TARGETS:
        if args.run:
            raise ValueError(f"--run runs spark-submit targets; for --target {spec.target} run what it prints "
                             f"(docs/cluster.md, section \"--target {spec.target}\")")
        text = platforms.render_platform(spec, conf, pipeline, one_application=args.one_application, only=args.only)
        _warn(submit.warnings_for(spec, conf) + platforms.platform_warnings(spec), "submit")
        print(text, end="")
        return 0
    submit.check(spec)
    _warn(submit.warnings_for(spec, conf), "submit")
    spec.spark_submit = submit.spark_submit_binary(spec.spark_submit)
    cmds = submit.commands(spec, pipeline, one_application=args.one_application, only=args.only)
    guards = submit.checks(spec, pipeline, one_application=args.one_application, only=args.only)
    env = {**submit.driver_defaults(spec, environ={}), "CRAWLPLAN_PYTHON": sys.executable}
    if not args.run:
        print(submit.render(cmds, env, checks=[submit.YARN_CONF_CHECK] if spec.target == "yarn" else [],
                            guards=guards), end="")
        return 0

    # before the first cluster job, not after; against the conf the jobs get (--conf and the
    # submit profile: --set values are not passed on to them)
    submitted = [n for n, _ in cmds]
    nodes = pipeline.upstream(submitted) if args.one_application else submitted
    check_inputs(pipeline, nodes, load_conf(spec.profile, args.conf), verb="submit")
    missing = submit.yarn_conf_missing(spec, os.environ)
    if missing:
        raise ValueError(missing)
    env = {**os.environ, **submit.driver_defaults(spec)}
    for i, (name, cmd) in enumerate(cmds, 1):
        print(f"[{i}/{len(cmds)}] {name}: {' '.join(redact_args(cmd))}", flush=True)  # logs keep no secrets
        if node_current(guards[name]):      # no spark-submit, no JVM for a node that would skip
            continue
        rc = subprocess.call(cmd, env=env)
        if rc != 0:
            print(f"crawlplan submit: node {name} failed (exit {rc}); later nodes not started. Fix it and "
                  f"relaunch the same command: the nodes before it are skipped (their markers are current)",
                  file=sys.stderr)
            return rc
    return 0


def node_current(check_args: list[str]) -> bool:
    """The job's own marker check (``crawlplan.dag.entry.current``), in this process: the imports
    are paid once for every node, and a current node never starts spark-submit."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("node")
    add_job_arguments(parser)
    job = parser.parse_args(check_args)
    try:
        conf, pipeline = entry.prepared(job.node, job)
        return entry.current(job.node, job, conf, pipeline)
    except (ConfError, KeyError, ValueError, OSError):
        return False      # the job itself will say what is wrong


def cmd_package(args) -> int:
    repo = project_home()
    if not (repo / "pyproject.toml").is_file():
        raise FileNotFoundError(f"crawlplan package runs from a source checkout; {repo} has no pyproject.toml")
    paths = package(repo, Path(args.out), venv=Path(args.venv) if args.venv else None)
    print(describe_usage(paths, jobs=os.path.relpath(repo / "jobs")))
    return 0


def cmd_docs_datasets(args) -> int:
    text = render_datasets(load_pipeline(args.pipeline))
    out = Path(args.out)
    if args.check:
        current = out.read_text() if out.is_file() else ""
        if current != text:
            print(f"{out} is out of date: run `crawlplan docs datasets`", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out} ({text.count(chr(10) + '## ')} sections)")
    return 0


def cmd_report_check(args) -> int:
    if not Path(args.html).is_file():
        raise FileNotFoundError(f"no report at {args.html}: run `crawlplan run` (node report) first")
    result = check_in_browser(args.html)
    found = problems(result)
    print(f"{args.html}: {len(result.get('images', []))} images, {result.get('tables', 0)} tables, "
          f"title {result.get('title')!r}, via {result['chromium']}")
    for line in found:
        print(f"  problem: {line}")
    print("clean" if not found else f"{len(found)} problem(s)")
    if args.screenshot:
        png = screenshot(args.html, args.screenshot, height=args.height, section=args.section)
        print(f"wrote {png} ({png.stat().st_size // 1024} KiB)")
    return 0 if not found else 1

