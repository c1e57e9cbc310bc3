"""``crawlplan airflow PIPELINE``: an Airflow DAG file whose tasks mirror the pipeline.

The DAG file is generated, not hand-written, so a node added to ``pipelines/<name>.yaml``
appears in the schedule the next time the file is generated, with the same dependencies the
local runner uses. Each task is a ``SparkSubmitOperator`` (apache-airflow-providers-apache-spark)
calling ``jobs/<node>.py`` with the same arguments as ``crawlplan submit`` prints. The master comes
from the Airflow connection (``ops.conn_id``, host ``yarn``, ``k8s://...`` or ``spark://...``).
With ``--target connect`` (a Spark Connect server, ``spark.remote``) each task runs the job in the
worker's Python as a Connect client instead: no spark-submit and no JVM on the worker.
The file imports under Airflow 3 (``airflow.sdk``) and Airflow 2 (``airflow.DAG``).

The DAG runs on Airflow's workers, not where it was generated, so it holds no path of this
machine: the ``--conf`` file's sections are embedded as ``--set`` arguments
(``submit.embedded_conf``; regenerate the DAG after editing the file), and the header names the
file by its base name only.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from crawlplan import __version__
from crawlplan.conf import section
from crawlplan.dag.pipeline import Pipeline
from crawlplan.ops import airflow_templates as templates
from crawlplan.ops import submit


def operator_kwargs(spec: submit.SubmitSpec, pipeline: Pipeline, name: str) -> dict:
    node = pipeline.nodes[name]
    kw: dict = {
        "application": submit.job_file(spec, node),
        "application_args": submit.application_args(spec, pipeline, node),
        "name": f"crawlplan-{pipeline.name}-{name}",
    }
    optional = {"py_files": spec.wheel if spec.ship_package else "", "archives": submit.archives(spec), "files": submit.files(spec),
                "deploy_mode": spec.deploy_mode, "executor_memory": spec.executor_memory,
                "driver_memory": spec.driver_memory, "executor_cores": spec.executor_cores or None,
                "num_executors": spec.num_executors or None, "conf": submit.spark_conf(spec) or None}
    kw.update({k: v for k, v in optional.items() if v})
    return kw


def _literal(value) -> str:
    """A Python literal of JSON-able data (JSON's true/false/null replaced)."""
    text = json.dumps(value, indent=4, sort_keys=False)
    return re.sub(r"\b(true|false|null)\b", lambda m: {"true": "True", "false": "False", "null": "None"}[m.group(1)],
                  text)


def render_dag(pipeline: Pipeline, conf: dict, *, conf_file: str = "", target: str = "") -> str:
    """Tasks for a spark-submit target (``SparkSubmitOperator``, the master from the Airflow
    connection), or for ``target="connect"`` tasks that run each job in the worker's Python as a
    Spark Connect client of ``spark.remote`` (Databricks serverless and shared clusters take no
    spark-submit)."""
    spec = submit.SubmitSpec.from_conf(conf, conf_file, target=target)
    spec.embed_conf = True
    if spec.target not in submit.SPARK_SUBMIT_TARGETS:
        raise ValueError(f"crawlplan airflow writes spark-submit or Spark Connect tasks; for --target {spec.target} "
                         f"schedule what `crawlplan submit --target {spec.target}` prints with the platform's own "
                         f"Airflow operators")
    if spec.target == "connect":
        submit.check(spec)
    ops = section(conf, "ops")
    order = pipeline.order()
    if spec.target == "connect":
        how = f"Tasks run jobs/<node>.py as Spark Connect\nclients of {spec.remote}."
        nodes = {n: {"application": submit.job_file(spec, pipeline.nodes[n]),
                     "application_args": [*submit.application_args(spec, pipeline, pipeline.nodes[n]),
                                          "--remote", spec.remote]} for n in order}
        tasks = templates.CONNECT_TASKS.format(
            nodes=_literal(nodes), check_python=spec.spark_conf.get("spark.pyspark.driver.python") or "python3")
    else:
        how = f"Tasks run jobs/<node>.py through\nspark-submit on the cluster of the Airflow connection '{ops['conn_id']}'."
        nodes = {n: operator_kwargs(spec, pipeline, n) for n in order}
        tasks = templates.SPARK_SUBMIT_TASKS.format(
            pipeline=pipeline.name, nodes=_literal(nodes), conn_id=str(ops["conn_id"]),
            check_python=spec.spark_conf.get("spark.pyspark.driver.python") if spec.deploy_mode == "client" else None)
    header = templates.HEADER.format(
        pipeline=pipeline.name, description=pipeline.description or "crawlplan", version=__version__, how=how,
        conf_flag=f" --conf {PurePosixPath(conf_file).name}" if conf_file else "")
    body = templates.DAG_BODY.format(
        pipeline=pipeline.name, upstream=_literal({n: pipeline.dependencies(n) for n in order}),
        dag_id=str(ops["dag_id"] or f"crawlplan_{pipeline.name}"),
        dag_description=(pipeline.description or f"crawlplan {pipeline.name}")[:200],
        schedule=ops["schedule"] or None, retries=int(ops["retries"] or 0))
    return header + "\n" + tasks + body
