"""The generated Airflow DAG under a real Airflow (a separate venv: Airflow pins clash with ours).

Create it with:
  python3 -m venv .venv-airflow && .venv-airflow/bin/pip install apache-airflow apache-airflow-providers-apache-spark
or point CRAWLPLAN_AIRFLOW_PYTHON at an interpreter that has both.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.ops import submit
from crawlplan.ops.airflow import render_dag

REPO = Path(__file__).resolve().parents[1]
AIRFLOW_PYTHON = Path(os.environ.get("CRAWLPLAN_AIRFLOW_PYTHON", REPO / ".venv-airflow" / "bin" / "python"))

CHECK = r'''
import importlib.util, json, sys
try:
    from airflow.dag_processing.dagbag import DagBag   # Airflow 3
except ImportError:
    from airflow.models.dagbag import DagBag           # Airflow 2
bag = DagBag(dag_folder=sys.argv[1])
spec = importlib.util.spec_from_file_location("generated_dag", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
dag = mod.dag
commands = {}
for task_id, task in dag.task_dict.items():
    commands[task_id] = task._get_hook()._build_spark_submit_command(task.application)
print("RESULT" + json.dumps({
    "import_errors": {str(k): str(v) for k, v in bag.import_errors.items()},
    "dag_ids": sorted(bag.dags),
    "dag_id": dag.dag_id,
    "schedule": str(getattr(dag, "schedule", None)),
    "operators": sorted({type(t).__name__ for t in dag.tasks}),
    "spark_submit": all(any(b.__name__ == "SparkSubmitOperator" for b in type(t).__mro__) for t in dag.tasks),
    "check_python": mod.CHECK_PYTHON,
    "upstream": {t: sorted(task.upstream_task_ids) for t, task in dag.task_dict.items()},
    "commands": commands,
}))
'''


def _options(cmd: list[str]) -> tuple[dict, str, list[str]]:
    """spark-submit options as a dict (order-free), the application and its arguments."""
    app = next(i for i, t in enumerate(cmd) if t.endswith(".py"))
    opts: dict = {}
    head = cmd[1:app]
    for flag, value in zip(head[::2], head[1::2]):
        opts.setdefault(flag, []).append(value)
    return {k: sorted(v) for k, v in opts.items()}, cmd[app], cmd[app + 1:]


@pytest.mark.slow
def test_generated_dag_imports_under_airflow_with_the_pipeline_task_graph(tmp_path):
    if not AIRFLOW_PYTHON.is_file():
        pytest.skip(f"no Airflow interpreter at {AIRFLOW_PYTHON}: create it with `python3 -m venv .venv-airflow && "
                    f".venv-airflow/bin/pip install apache-airflow apache-airflow-providers-apache-spark`")
    pipeline = load_pipeline("main")
    conf = load_conf("cluster", overrides=["ops.schedule=@monthly", "ops.env_archive=s3a://b/env.tar.gz"])
    dag_file = tmp_path / "dags" / "crawlplan_main.py"
    dag_file.parent.mkdir()
    conf_file = tmp_path / "run.yaml"
    conf_file.write_text("inputs:\n  warc_paths: s3://commoncrawl/crawl-data/CC-MAIN-2024-10/warc.paths.gz\n")
    dag_file.write_text(render_dag(pipeline, conf, conf_file=str(conf_file)))
    assert str(tmp_path) not in dag_file.read_text()          # issue 29: no path of the generating machine
    env = {**os.environ, "AIRFLOW_HOME": str(tmp_path / "airflow"), "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
           "AIRFLOW__CORE__DAGS_FOLDER": str(dag_file.parent), "AIRFLOW_CONN_SPARK_DEFAULT": "spark://yarn",
           "PYTHONPATH": ""}
    proc = subprocess.run([str(AIRFLOW_PYTHON), "-c", CHECK, str(dag_file)], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
    assert line, f"airflow check failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    result = json.loads(line[len("RESULT"):])
    assert result["import_errors"] == {}
    assert result["dag_ids"] == ["crawlplan_main"] and result["dag_id"] == "crawlplan_main"
    assert result["operators"] == ["CrawlplanNodeOperator"] and result["spark_submit"]
    assert result["check_python"] is None        # cluster mode: no crawlplan Python where spark-submit runs
    assert result["upstream"] == {n: pipeline.dependencies(n) for n in pipeline.order()}
    # the provider's hook builds the same spark-submit as `crawlplan submit` (option order aside)
    spec = submit.SubmitSpec.from_conf(conf, str(conf_file))
    spec.embed_conf = True                      # the DAG carries the conf file's sections, not its path
    for name in pipeline.order():
        ours, app, args = _options(submit.command(spec, pipeline, pipeline.nodes[name]))
        theirs, app2, args2 = _options(result["commands"][name])
        assert (app2, args2) == (app, args)
        for flag in ("--py-files", "--archives", "--files", "--deploy-mode", "--executor-memory", "--driver-memory",
                     "--executor-cores", "--name", "--conf"):
            assert theirs.get(flag) == ours.get(flag), (name, flag)
        assert theirs["--master"] == ["yarn"]  # from the connection
