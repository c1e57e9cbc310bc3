"""Operations verbs: ``crawlplan airflow``, ``crawlplan submit``, ``crawlplan package``,
``crawlplan report-check`` and ``crawlplan docs datasets``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import check_inputs
from crawlplan.ops import submit
from crawlplan.ops.airflow import render_dag
from crawlplan.ops.docs import render_datasets
from crawlplan.ops.package import describe_usage, package
from crawlplan.paths import project_home
from crawlplan.report.browser import check_in_browser, problems
from crawlplan.security import redact_args


def _conf_args(p) -> None:
    p.add_argument("pipeline", nargs="?", default="main", help="pipeline name or YAML file (default main)")
    p.add_argument("--conf", metavar="FILE", help="crawlplan config layered over the profile; shipped to the jobs")
    p.add_argument("--profile", default="cluster", help="config profile read for the ops section (default cluster)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override a config key, e.g. --set ops.wheel=s3://bucket/crawlplan.whl")


def register(subparsers) -> None:
    af = subparsers.add_parser("airflow", help="write an Airflow DAG file (SparkSubmitOperator per pipeline node)")
    _conf_args(af)
    af.add_argument("--out", metavar="FILE", help="DAG file to write (default dags/crawlplan_<pipeline>.py)")
    af.set_defaults(func=cmd_airflow)

    sb = subparsers.add_parser("submit", help="print (or --run) the spark-submit commands in dependency order")
    _conf_args(sb)
    sb.add_argument("--run", action="store_true", help="run them one after another, stopping at the first failure")
    sb.add_argument("--only", metavar="NODE", action="append", help="just these nodes (repeatable)")
    sb.add_argument("--force", action="store_true",
                    help="pass --force to the jobs: redo nodes whose completion markers are current")
    sb.add_argument("--one-application", action="store_true",
                    help="the whole pipeline in one spark-submit (one driver, one set of executors; nodes still "
                         "skipped by their markers) instead of one per node")
    sb.set_defaults(func=cmd_submit)

    pk = subparsers.add_parser("package", help="build the wheel (--py-files) and optionally a venv archive (--archives)")
    pk.add_argument("--out", metavar="DIR", default="dist", help="output folder (default dist/)")
    pk.add_argument("--venv", metavar="DIR", nargs="?", const=".venv",
                    help="also pack this virtual environment (default .venv) as crawlplan-env.tar.gz")
    pk.set_defaults(func=cmd_package)

    rc = subparsers.add_parser("report-check", help="open a report in headless Chromium: loads, no console errors, images drawn")
    rc.add_argument("html", nargs="?", default="out/report/index.html")
    rc.set_defaults(func=cmd_report_check)

    dc = subparsers.add_parser("docs", help="generated documentation pages")
    dc_sub = dc.add_subparsers(dest="docs_command", required=True)
    ds = dc_sub.add_parser("datasets", help="write docs/datasets.md from schemas/*.yaml")
    ds.add_argument("pipeline", nargs="?", default="main")
    ds.add_argument("--out", metavar="FILE", default="docs/datasets.md")
    ds.add_argument("--check", action="store_true", help="exit 1 when the file is out of date instead of writing")
    ds.set_defaults(func=cmd_docs_datasets)


def _load(args):
    return load_pipeline(args.pipeline), load_conf(args.profile, args.conf, args.overrides)


def _warn(found: list[str], verb: str) -> None:
    for line in found:
        print(f"crawlplan {verb}: warning: {line}", file=sys.stderr)


def cmd_airflow(args) -> int:
    pipeline, conf = _load(args)
    _warn(submit.warnings_for(submit.SubmitSpec.from_conf(conf, args.conf or ""), conf), "airflow")
    text = render_dag(pipeline, conf, conf_file=args.conf or "")
    out = Path(args.out or f"dags/crawlplan_{pipeline.name}.py")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out} ({len(pipeline.nodes)} tasks: {', '.join(pipeline.order())})")
    return 0


def cmd_submit(args) -> int:
    pipeline, conf = _load(args)
    spec = submit.SubmitSpec.from_conf(conf, args.conf or "")
    submit.check(spec)
    _warn(submit.warnings_for(spec, conf), "submit")
    spec.spark_submit = submit.spark_submit_binary(spec.spark_submit)
    spec.force = args.force
    if args.one_application and args.only:
        raise ValueError("--one-application runs the whole pipeline in one spark-submit; --only picks nodes "
                         "to submit one by one: give one of them")
    cmds = submit.commands(spec, pipeline, one_application=args.one_application)
    if args.only:
        unknown = set(args.only) - set(pipeline.nodes)
        if unknown:
            raise KeyError(pipeline.unknown_node(sorted(unknown)[0]))
        cmds = [(n, c) for n, c in cmds if n in args.only]
    env = submit.driver_defaults(spec, environ={})
    if not args.run:
        print(submit.render(cmds, env), end="")
        return 0

    # before the first cluster job, not after; against the conf the jobs get (--conf and the
    # submit profile: --set values are not passed on to them)
    submitted = [n for n, _ in cmds]
    nodes = pipeline.upstream(submitted) if args.one_application else submitted
    check_inputs(pipeline, nodes, load_conf(spec.profile, args.conf), verb="submit")
    env = {**os.environ, **submit.driver_defaults(spec)}
    for i, (name, cmd) in enumerate(cmds, 1):
        print(f"[{i}/{len(cmds)}] {name}: {' '.join(redact_args(cmd))}", flush=True)  # logs keep no secrets
        rc = subprocess.call(cmd, env=env)
        if rc != 0:
            print(f"crawlplan submit: node {name} failed (exit {rc}); later nodes not started. Fix it and "
                  f"relaunch the same command: the nodes before it are skipped (their markers are current)",
                  file=sys.stderr)
            return rc
    return 0


def cmd_package(args) -> int:
    repo = project_home()
    if not (repo / "pyproject.toml").is_file():
        raise FileNotFoundError(f"crawlplan package runs from a source checkout; {repo} has no pyproject.toml")
    paths = package(repo, Path(args.out), venv=Path(args.venv) if args.venv else None)
    print(describe_usage(paths))
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
    print(f"{args.html}: {len(result.get('images', []))} images, title {result.get('title')!r}, via {result['chromium']}")
    for line in found:
        print(f"  problem: {line}")
    print("clean" if not found else f"{len(found)} problem(s)")
    return 0 if not found else 1
