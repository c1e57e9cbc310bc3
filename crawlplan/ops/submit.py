"""spark-submit command lines for a pipeline's nodes, in topological order.

One function builds a node's command from the ``ops`` config section; ``crawlplan submit``
prints or runs the list and the Airflow DAG generator passes the same pieces to
``SparkSubmitOperator``, so a scheduled run and a hand-typed one are the same job.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import PurePosixPath

from crawlplan import __version__
from crawlplan.conf import section, settings_from
from crawlplan.dag.pipeline import Node, Pipeline


@dataclass
class SubmitSpec:
    """Everything about one node's spark-submit that is not the node itself: conf section ``ops``
    (values and meaning: conf/defaults.yaml), with what an empty value stands for filled in."""
    master: str
    deploy_mode: str
    spark_submit: str
    code_uri: str              # folder holding jobs/<node>.py as the cluster sees it
    wheel: str                 # --py-files
    env_archive: str           # --archives <archive>#environment
    out_dir: str
    profile: str
    executor_memory: str
    driver_memory: str
    executor_cores: int
    num_executors: int
    spark_conf: dict
    conf_file: str = ""        # not a conf key: the user's crawlplan conf, shipped with --files in cluster mode
    force: bool = False        # not a conf key: --force to every job (redo nodes whose markers are current)

    @classmethod
    def from_conf(cls, conf: dict, conf_file: str = "") -> SubmitSpec:
        ops = section(conf, "ops")
        derived = {"wheel": ops["wheel"] or f"dist/crawlplan-{__version__}-py3-none-any.zip",
                   "out_dir": ops["out_dir"] or section(conf, "run")["out_dir"], "conf_file": conf_file,
                   "spark_conf": {str(k): str(v) for k, v in (ops["spark_conf"] or {}).items()}}
        return settings_from(cls, ops, "ops", **derived)


def check(spec: SubmitSpec) -> None:
    """Combinations spark-submit refuses only after starting a JVM, refused up front."""
    if spec.master.startswith("spark://") and spec.deploy_mode == "cluster":
        raise ValueError(f"ops.deploy_mode=cluster with a standalone master ({spec.master}): Spark's standalone "
                         f"cluster manager has no cluster deploy mode for Python applications; set "
                         f"ops.deploy_mode=client (the driver runs where spark-submit runs)")


def warnings_for(spec: SubmitSpec, conf: dict) -> list[str]:
    """What would make the printed commands fail or surprise on a cluster, said before they run:
    a package that is not built, outputs relative to each node's working folder, no inputs set."""
    found = []
    local_master = spec.master.startswith("local")
    if "://" not in spec.wheel and not os.path.exists(spec.wheel):
        found.append(f"ops.wheel: {spec.wheel} does not exist; build it with `crawlplan package` "
                     f"(or set ops.wheel to the package's URI)")
    if not local_master and "://" not in spec.out_dir and not os.path.isabs(spec.out_dir):
        found.append(f"outputs are relative ({spec.out_dir}): every cluster node resolves them in its own "
                     f"working folder; set ops.out_dir to a shared URI (hdfs://, s3a://, gs://)")
    if local_master and spec.env_archive:
        found.append(f"ops.env_archive with a local master ({spec.master}): local mode unpacks archives "
                     f"outside the executors' working folder, so ./environment/bin/python is not found; "
                     f"leave ops.env_archive empty (the executors are this machine's Python)")
    inputs = section(conf, "inputs")
    if not local_master and not (inputs["warc_paths"] or inputs["cc_index"]):
        found.append("no inputs set (inputs.warc_paths or inputs.cc_index): the jobs would read the demo "
                     "crawl, generated on the machine of each job's driver")
    return found


def spark_submit_binary(configured: str) -> str:
    """``ops.spark_submit`` as given when it is a path or on PATH; otherwise the spark-submit of the
    pyspark this Python imports (``.venv/bin/crawlplan submit --run`` without an activated venv)."""
    if "/" in configured or shutil.which(configured):
        return configured
    try:
        # pyspark: heavy (starts nothing, but pulls py4j); needed only to find its bundled spark-submit
        import pyspark

        bundled = os.path.join(os.path.dirname(pyspark.__file__), "bin", configured)
    except ImportError:
        bundled = ""
    if bundled and os.access(bundled, os.X_OK):
        return bundled
    raise FileNotFoundError(f"'{configured}' is not on PATH and pyspark ships none here: set ops.spark_submit to "
                            f"its path (--set ops.spark_submit=/opt/spark/bin/spark-submit) or add Spark's bin/ to PATH")


def driver_defaults(spec: SubmitSpec, environ: dict | None = None) -> dict[str, str]:
    """Environment spark-submit needs in client mode and lacks: the driver runs this Python (which
    has crawlplan and its dependencies) unless the user chose one, since Spark would otherwise start
    ``python3`` from PATH; with a local master the executors are this machine's too."""
    environ = os.environ if environ is None else environ
    chosen = ("spark.pyspark.driver.python" in spec.spark_conf or "spark.pyspark.python" in spec.spark_conf
              or bool(spec.env_archive))  # spark_conf names both Pythons
    out: dict[str, str] = {}
    if spec.deploy_mode == "cluster" or chosen:
        return out
    if not environ.get("PYSPARK_DRIVER_PYTHON"):
        out["PYSPARK_DRIVER_PYTHON"] = sys.executable
    if spec.master.startswith("local") and not environ.get("PYSPARK_PYTHON"):
        out["PYSPARK_PYTHON"] = sys.executable
    return out


def job_file(spec: SubmitSpec, node: Node) -> str:
    """``jobs/<node>.py`` under the code location (a local folder, hdfs:// or s3a:// prefix)."""
    base = spec.code_uri.rstrip("/")
    return f"{base}/{node.name}.py"


def spark_conf(spec: SubmitSpec, driver_python: str = "python3") -> dict[str, str]:
    """``ops.spark_conf`` plus, with ``ops.env_archive``, the executors' Python from the archive.
    In client mode ``spark.pyspark.python`` would also start the driver from ./environment, which
    exists only on the executors, so the driver's Python is named too (a conf, since Spark prefers
    ``spark.pyspark.python`` over the ``PYSPARK_DRIVER_PYTHON`` variable): ``driver_python``,
    where the driver runs (`crawlplan submit`: this Python)."""
    conf = dict(spec.spark_conf)
    if spec.env_archive:
        conf.setdefault("spark.pyspark.python", "./environment/bin/python")
        if spec.deploy_mode != "cluster":
            conf.setdefault("spark.pyspark.driver.python", driver_python)
    return conf


def application_args(spec: SubmitSpec, pipeline: Pipeline, node: Node) -> list[str]:
    """Datasets are found under ``--output``; ``--input`` repeats it for nodes that read only
    upstream datasets (external inputs come from the config, never from ``--input``)."""
    args: list[str] = []
    if not pipeline.external_inputs(node.name):
        args += ["--input", spec.out_dir]
    args += ["--output", spec.out_dir]
    if spec.conf_file:
        conf_arg = PurePosixPath(spec.conf_file).name if spec.deploy_mode == "cluster" else spec.conf_file
        args += ["--conf", conf_arg]
    args += ["--profile", spec.profile]
    if spec.force:
        args.append("--force")
    if pipeline.name != "main":
        args += ["--pipeline", pipeline.name]
    return args


def files(spec: SubmitSpec) -> str:
    """``--files``: in cluster mode the driver runs on a cluster node and needs the conf file
    shipped into its working folder."""
    return spec.conf_file if (spec.conf_file and spec.deploy_mode == "cluster") else ""


def archives(spec: SubmitSpec) -> str:
    return f"{spec.env_archive}#environment" if spec.env_archive else ""


def command(spec: SubmitSpec, pipeline: Pipeline, node: Node) -> list[str]:
    cmd = [spec.spark_submit, "--master", spec.master]
    if spec.deploy_mode:
        cmd += ["--deploy-mode", spec.deploy_mode]
    cmd += ["--name", f"crawlplan-{pipeline.name}-{node.name}"]
    if spec.wheel:
        cmd += ["--py-files", spec.wheel]
    if archives(spec):
        cmd += ["--archives", archives(spec)]
    if files(spec):
        cmd += ["--files", files(spec)]
    for flag, value in (("--driver-memory", spec.driver_memory), ("--executor-memory", spec.executor_memory),
                        ("--executor-cores", spec.executor_cores), ("--num-executors", spec.num_executors)):
        if value:
            cmd += [flag, str(value)]
    for key, value in sorted(spark_conf(spec, driver_python=sys.executable).items()):
        cmd += ["--conf", f"{key}={value}"]
    return cmd + [job_file(spec, node)] + application_args(spec, pipeline, node)


def commands(spec: SubmitSpec, pipeline: Pipeline, *, one_application: bool = False) -> list[tuple[str, list[str]]]:
    """One spark-submit per node, or with ``one_application`` one per last node (a node nothing
    else depends on; ``main`` has one, ``report``) run ``--with-upstream``: the nodes share one
    driver and one set of executors instead of starting them per node."""
    if not one_application:
        return [(name, command(spec, pipeline, pipeline.nodes[name])) for name in pipeline.order()]
    return [(name, command(spec, pipeline, pipeline.nodes[name]) + ["--with-upstream"]) for name in pipeline.last()]


def render(cmds: list[tuple[str, list[str]]], env: dict[str, str] | None = None) -> str:
    """A bash script; relaunching it after a failure skips the nodes whose markers are current.
    ``env`` holds defaults exported first (the client-mode driver's Python)."""
    lines = ["#!/usr/bin/env bash", "# generated by `crawlplan submit`: the pipeline's nodes in dependency order;",
             "# rerun it after a failure: nodes whose completion markers are current are skipped",
             "set -euo pipefail"]
    lines += [f'export {k}="${{{k}:-{v}}}"' for k, v in sorted((env or {}).items())]
    for i, (name, cmd) in enumerate(cmds, 1):
        lines.append(f"\n# [{i}/{len(cmds)}] {name}")
        groups: list[list[str]] = []
        for token in cmd:
            if not groups or token.startswith("--") or token.endswith(".py"):
                groups.append([])
            groups[-1].append(shlex.quote(token))
        lines.append(" \\\n    ".join(" ".join(g) for g in groups))
    return "\n".join(lines) + "\n"
