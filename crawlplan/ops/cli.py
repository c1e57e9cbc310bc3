"""Operations verbs: ``crawlplan airflow``, ``crawlplan submit``, ``crawlplan package``,
``crawlplan report-check`` and ``crawlplan docs datasets``."""

from __future__ import annotations


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
    af.add_argument("--target", choices=("local", "standalone", "yarn", "k8s", "connect"),
                    help="spark-submit tasks for the cluster manager (default: the one ops.master names), or "
                         "connect: tasks that run each job as a Spark Connect client of spark.remote")
    af.set_defaults(func="crawlplan.ops.commands:cmd_airflow")

    sb = subparsers.add_parser("submit", help="print (or --run) each node's submission for a platform, in "
                               "dependency order")
    _conf_args(sb)
    sb.add_argument("--target", choices=("local", "standalone", "yarn", "k8s", "connect", "dataproc",
                                         "emr-serverless", "databricks"),
                    help="the platform (default: the cluster manager ops.master names); spark-submit lines for "
                         "local/standalone/yarn/k8s/connect, gcloud for dataproc, aws for emr-serverless, a Jobs "
                         "API job (JSON) for databricks (docs/cluster.md)")
    sb.add_argument("--run", action="store_true", help="run them one after another, stopping at the first failure "
                    "(spark-submit targets)")
    sb.add_argument("--only", metavar="NODE", action="append", help="just these nodes (repeatable)")
    sb.add_argument("--force", action="store_true",
                    help="pass --force to the jobs: redo nodes whose completion markers are current")
    sb.add_argument("--one-application", action="store_true",
                    help="the whole pipeline in one spark-submit (one driver, one set of executors; nodes still "
                         "skipped by their markers) instead of one per node")
    sb.set_defaults(func="crawlplan.ops.commands:cmd_submit")

    pk = subparsers.add_parser("package", help="build the wheel (--py-files) and optionally a venv archive (--archives)")
    pk.add_argument("--out", metavar="DIR", default="dist", help="output folder (default dist/)")
    pk.add_argument("--venv", metavar="DIR", nargs="?", const=".venv",
                    help="also pack this virtual environment (default .venv) as crawlplan-env.tar.gz")
    pk.set_defaults(func="crawlplan.ops.commands:cmd_package")

    rc = subparsers.add_parser("report-check", help="open a report in headless Chromium: loads, no console errors, "
                               "images drawn, tables fit a 1280 px window")
    rc.add_argument("html", nargs="?", default="out/report/index.html")
    rc.add_argument("--screenshot", metavar="PNG", help="also save a 1280 px wide screenshot (the docs' images)")
    rc.add_argument("--section", metavar="ID", help="with --screenshot: that section alone (run, rq1, ..., source)")
    rc.add_argument("--height", type=int, default=1000, help="with --screenshot: its height in pixels (default 1000)")
    rc.set_defaults(func="crawlplan.ops.commands:cmd_report_check")

    dc = subparsers.add_parser("docs", help="generated documentation pages")
    dc_sub = dc.add_subparsers(dest="docs_command", required=True)
    ds = dc_sub.add_parser("datasets", help="write docs/datasets.md from schemas/*.yaml")
    ds.add_argument("pipeline", nargs="?", default="main")
    ds.add_argument("--out", metavar="FILE", default="docs/datasets.md")
    ds.add_argument("--check", action="store_true", help="exit 1 when the file is out of date instead of writing")
    ds.set_defaults(func="crawlplan.ops.commands:cmd_docs_datasets")

