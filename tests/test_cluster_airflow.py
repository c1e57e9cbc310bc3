"""The DAG of `crawlplan airflow` executed by a real Airflow (``airflow dags test``, SQLite) through
SparkSubmitOperator against the loopback standalone cluster: a task fails on purpose, is retried
alone after the fix (its finished upstream tasks are not redone), the DAG is relaunched, and every
dataset equals the local run's.

Airflow lives in its own venv (its pins clash with ours): scripts/test-extras.sh creates
.venv-airflow, or point CRAWLPLAN_AIRFLOW_PYTHON at an interpreter with apache-airflow and
apache-airflow-providers-apache-spark.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_support import (
    airflow,
    airflow_home,
    cluster_conf,
    compare_runs,
    crawlplan,
    whole_pipeline_runs,
    write_yaml,
)

from crawlplan.dag.pipeline import load_pipeline

pytestmark = [pytest.mark.slow, pytest.mark.spark]


@pytest.fixture
def airflow_env(tmp_path, spark_cluster):
    return airflow_home(tmp_path, AIRFLOW_CONN_SPARK_DEFAULT=spark_cluster.master)


@whole_pipeline_runs
def test_airflow_runs_the_dag_on_the_cluster_and_a_retried_task_resumes(spark_cluster, packaged, demo_local_run,
                                                                       airflow_env, tmp_path):
    base, local_out = demo_local_run
    out = tmp_path / "out"
    pipeline = load_pipeline("main")
    conf = cluster_conf(base, spark_cluster, dist=packaged, out=out, retries=0)
    broken = {**conf, "stats": {**conf["stats"], "host_stats": {"classifiers": ["no_such_classifier"]}}}
    conf_file = write_yaml(tmp_path / "cluster-run.yaml", broken)
    dag_file = Path(airflow_env["AIRFLOW__CORE__DAGS_FOLDER"]) / "crawlplan_main.py"
    proc = crawlplan("airflow", "main", "--conf", str(conf_file), "--out", str(dag_file), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr

    # 1. the whole DAG: host_stats fails on purpose, its downstream tasks never start
    first = airflow(airflow_env, "dags", "test", "crawlplan_main")
    log = first.stdout + first.stderr
    markers = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    # the branches that do not need host_stats finish; everything downstream of it never starts
    assert {"extract", "classify", "site_pages", "sitemaps", "simulate", "allocate"} <= set(markers), \
        (sorted(markers), log[-4000:])
    assert not {"host_stats", "host_graph", "correlations", "host_quality", "report"} & set(markers), sorted(markers)
    assert "scores has none of the classifier columns" in log

    # 2. fixed, the failed task retried alone: its finished upstream is read, not redone. The DAG
    # carries the conf file's sections (no path of the generating machine): regenerated after the fix
    write_yaml(conf_file, conf)
    proc = crawlplan("airflow", "main", "--conf", str(conf_file), "--out", str(dag_file), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert str(conf_file) not in dag_file.read_text()
    retry = airflow(airflow_env, "tasks", "test", "crawlplan_main", "host_stats")
    assert retry.returncode == 0, (retry.stdout + retry.stderr)[-4000:]
    assert (out / "_markers" / "host_stats.json").is_file()
    for name in ("extract", "classify"):
        assert json.loads((out / "_markers" / f"{name}.json").read_text()) == markers[name]

    # 3. the DAG relaunched: the finished nodes are skipped (markers untouched), the rest run
    second = airflow(airflow_env, "dags", "test", "crawlplan_main")
    log = second.stdout + second.stderr
    assert second.returncode == 0, log[-4000:]
    done = {**markers, "host_stats": json.loads((out / "_markers" / "host_stats.json").read_text())}
    for name, marker in done.items():    # a node that ran again would have rewritten its marker
        assert json.loads((out / "_markers" / f"{name}.json").read_text()) == marker, name
    assert (out / "report" / "index.html").is_file()
    assert compare_runs(pipeline, out, local_out) == []
