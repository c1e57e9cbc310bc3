"""What the core `crawlplan` verbs do (``run``, ``job``; their parsers are in
``crawlplan/cli.py``), loaded only when one of them runs."""

from __future__ import annotations

from pathlib import Path

from crawlplan import connect
from crawlplan.conf import get, load_conf, section
from crawlplan.dag.arguments import conf_overrides
from crawlplan.dag.entry import run_job_from_args
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner, plan_run, up_to_date
from crawlplan.demo.crawl import ensure_demo, previous_graph_path
from crawlplan.paths import default_cache_dir
from crawlplan.spark import build_session


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
    start = getattr(args, "from")
    if args.retry_failed:
        if (args.only or start or "extract") != "extract":
            raise ValueError("--retry-failed re-reads the WARC files extract could not read: use it alone "
                             "(extract and what follows it run) or with --only extract / --from extract")
        start = None if args.only else "extract"
    conf = load_conf(args.profile, args.conf, conf_overrides(args))
    pipeline = load_pipeline(args.pipeline)
    conf = prepare_default_inputs(conf)
    out_dir = args.out or section(conf, "run")["out_dir"]
    if connect.remote_url(conf):
        conf, out_dir = connect.absolute_inputs(conf), connect.absolute(out_dir)
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


def cmd_job(args) -> int:
    return run_job_from_args(args.node, args)
