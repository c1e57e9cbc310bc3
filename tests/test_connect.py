"""The whole demo DAG through Spark Connect (`crawlplan run --remote`), as on Databricks serverless
or a shared cluster: a server on 127.0.0.1 (scripts/spark-connect.sh, local[2]) whose Python
workers cannot import crawlplan, so the package, the models and every file operation have to go
through the Connect client. Every dataset must equal the local run's, and a relaunch skips every
node — through `crawlplan run` and through one node's `crawlplan job`; a job's `spark-submit --remote`
entry runs; and a real Airflow runs `crawlplan airflow --target connect`'s DAG through the server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest
from cluster_support import (
    REPO,
    airflow,
    airflow_home,
    cluster_env,
    compare_frames,
    compare_runs,
    crawlplan,
    whole_pipeline_runs,
    write_yaml,
)

from crawlplan.dag.pipeline import load_pipeline
from crawlplan.ops.submit import spark_submit_binary

pytestmark = [pytest.mark.slow]


@whole_pipeline_runs
def test_main_pipeline_through_spark_connect_equals_the_local_run(spark_connect, demo_local_run, tmp_path):
    base, local_out = demo_local_run
    out = tmp_path / "out"
    conf_file = write_yaml(tmp_path / "connect-run.yaml", base)
    pipeline = load_pipeline("main")

    started = time.monotonic()
    proc = crawlplan("run", "--conf", str(conf_file), "--out", "out", "--remote", spark_connect, cwd=tmp_path)
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"the main pipeline through Spark Connect: {seconds:.0f} s")   # docs/cluster.md quotes it

    assert compare_runs(pipeline, local_out, out) == []
    markers = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    assert sorted(markers) == sorted(pipeline.nodes)
    assert markers["classify"]["counters"]["demo_models"] == 10   # shipped to the server as artifacts

    again = crawlplan("run", "--conf", str(conf_file), "--out", "out", "--remote", spark_connect, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"all {len(pipeline.nodes)} nodes are up to date" in again.stdout

    # a scheduler's relaunch of one node (what Airflow runs): answered from its marker
    job = crawlplan("job", "host_stats", "--conf", str(conf_file), "--input", str(out), "--output", str(out),
                    "--remote", spark_connect, cwd=tmp_path)
    assert job.returncode == 0, job.stderr[-3000:]
    assert "up to date" in job.stdout
    after = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    assert after == markers   # nothing was rewritten

    # a job's spark-submit entry with --remote (its Python gets the remote from spark-submit),
    # forced to run again: the same rows
    before = {name: pd.read_parquet(out / name) for name in pipeline.nodes["host_stats"].outputs}
    cmd = [spark_submit_binary("spark-submit"), "--remote", spark_connect, str(REPO / "jobs" / "host_stats.py"),
           "--input", str(out), "--output", str(out), "--conf", str(conf_file), "--force"]
    env = {**cluster_env(), "PYSPARK_DRIVER_PYTHON": sys.executable, "PYSPARK_PYTHON": sys.executable}
    submitted = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert submitted.returncode == 0, submitted.stdout[-3000:] + submitted.stderr[-3000:]
    assert "host_stats: wrote" in submitted.stdout
    rerun = json.loads((out / "_markers" / "host_stats.json").read_text())
    assert rerun["finished_at"] != markers["host_stats"]["finished_at"]      # it ran, through the server
    assert {name: compare_frames(frame, pd.read_parquet(out / name)) for name, frame in before.items()} == \
        {name: "" for name in before}


@whole_pipeline_runs
def test_airflow_runs_the_connect_dag_through_the_server(spark_connect, demo_local_run, tmp_path):
    """`crawlplan airflow main --target connect`: each task runs its job in the worker's Python as a
    Connect client (no spark-submit). On a copy of the local run without host_stats, `airflow dags
    test` answers the finished nodes from their markers, runs host_stats through the server, and
    every dataset equals the local run's."""
    base, local_out = demo_local_run
    out = tmp_path / "out"
    shutil.copytree(local_out, out)
    pipeline = load_pipeline("main")
    for dataset in pipeline.nodes["host_stats"].outputs:
        shutil.rmtree(out / dataset)
    (out / "_markers" / "host_stats.json").unlink()
    before = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    env = airflow_home(tmp_path)
    conf_file = write_yaml(tmp_path / "connect-run.yaml", base)
    dag_file = tmp_path / "dags" / "crawlplan_main.py"
    proc = crawlplan("airflow", "main", "--target", "connect", "--conf", str(conf_file), "--out", str(dag_file),
                     "--set", f"spark.remote={spark_connect}", "--set", f"ops.code_uri={REPO / 'jobs'}",
                     "--set", f"ops.out_dir={out}", "--set", "ops.profile=local",
                     "--set", "ops.spark_conf=" + json.dumps({"spark.pyspark.driver.python": sys.executable}),
                     cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = dag_file.read_text()
    assert "CrawlplanConnectOperator" in text and "SparkSubmitOperator" not in text and str(conf_file) not in text

    run = airflow(env, "dags", "test", "crawlplan_main")
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-4000:]
    after = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    assert "host_stats" in after, log[-4000:]                            # its marker was deleted: it ran
    for name in ("extract", "classify", "site_pages", "sitemaps"):    # not upstream or downstream of it
        assert after[name] == before[name], name
    assert compare_runs(pipeline, local_out, out) == []
