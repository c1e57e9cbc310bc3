"""spark-submit command lines for a pipeline's nodes, in topological order.

One function builds a node's command from the ``ops`` config section; ``crawlplan submit``
prints or runs the list and the Airflow DAG generator passes the same pieces to
``SparkSubmitOperator``, so a scheduled run and a hand-typed one are the same job. The target
(``--target``, else the one ``ops.master`` names) decides the master's form and the settings
the platform needs: this module covers the spark-submit targets (local, standalone, yarn, k8s,
connect), ``crawlplan.ops.platforms`` the managed ones (Dataproc, EMR Serverless, Databricks),
from the same ``SubmitSpec``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import PurePosixPath

from crawlplan import __version__
from crawlplan.conf import get, load_yaml, section, settings_from
from crawlplan.dag.pipeline import Node, Pipeline
from crawlplan.security import redact

SPARK_SUBMIT_TARGETS = ("local", "standalone", "yarn", "k8s", "connect")
TARGETS = SPARK_SUBMIT_TARGETS + ("dataproc", "emr-serverless", "databricks")
# where a job runs on machines that do not have the --conf file: its sections travel as --set values
EMBED_CONF_TARGETS = ("k8s", "dataproc", "emr-serverless", "databricks")


@dataclass(frozen=True)
class K8sSettings:
    """Conf section ``ops.k8s``: what Spark on Kubernetes needs besides the master."""
    image: str
    namespace: str
    service_account: str
    upload_path: str


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
    ship_package: bool
    k8s: K8sSettings
    target: str = ""           # not a conf key: --target, else the one ops.master names
    remote: str = ""           # spark.remote: the Connect server of --target connect
    conf_file: str = ""        # not a conf key: the user's crawlplan conf, shipped with --files in cluster mode
    embed_conf: bool = False   # not a conf key: pass conf_file's sections as --set values (embedded_conf)
    force: bool = False        # not a conf key: --force to every job (redo nodes whose markers are current)

    @classmethod
    def from_conf(cls, conf: dict, conf_file: str = "", target: str = "") -> SubmitSpec:
        ops = section(conf, "ops")
        target = target or target_of(str(ops["master"]))
        derived = {"wheel": ops["wheel"] or f"dist/crawlplan-{__version__}-py3-none-any.zip",
                   "out_dir": ops["out_dir"] or section(conf, "run")["out_dir"], "conf_file": conf_file,
                   "spark_conf": {str(k): str(v) for k, v in (ops["spark_conf"] or {}).items()},
                   "k8s": settings_from(K8sSettings, ops["k8s"], "ops.k8s"), "target": target,
                   "remote": str(get(conf, "spark.remote") or ""), "embed_conf": target in EMBED_CONF_TARGETS}
        if target == "connect":         # the driver is this machine's Python, the cluster the server's
            derived["deploy_mode"] = "client"
        return settings_from(cls, ops, "ops", **derived)


def target_of(master: str) -> str:
    """The spark-submit target a master URL names (``crawlplan submit`` without ``--target``)."""
    for prefix, target in (("local", "local"), ("spark://", "standalone"), ("k8s://", "k8s"), ("yarn", "yarn")):
        if master.startswith(prefix):
            return target
    raise ValueError(f"ops.master={master!r} names no cluster manager (local[N], spark://HOST:PORT, yarn, "
                     f"k8s://https://HOST:PORT); set it, or give --target ({', '.join(TARGETS)})")


_MASTER_FORMS = {"local": ("local", "local[N]"), "standalone": ("spark://", "spark://HOST:PORT"),
                 "yarn": ("yarn", "yarn"), "k8s": ("k8s://", "k8s://https://HOST:PORT")}


def is_uri(path: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", path)) and not path.startswith("file:")


def check(spec: SubmitSpec) -> None:
    """What the target needs and spark-submit (or the pods) would refuse only after starting a JVM,
    refused up front with the setting to change."""
    if spec.target in _MASTER_FORMS:
        prefix, form = _MASTER_FORMS[spec.target]
        if not spec.master.startswith(prefix):
            raise ValueError(f"--target {spec.target} submits to --master {form}: ops.master is {spec.master!r} "
                             f"(--set ops.master={form})")
    if spec.target == "standalone" and spec.deploy_mode == "cluster":
        raise ValueError(f"ops.deploy_mode=cluster with a standalone master ({spec.master}): Spark's standalone "
                         f"cluster manager has no cluster deploy mode for Python applications; set "
                         f"ops.deploy_mode=client (the driver runs where spark-submit runs)")
    if spec.target == "connect" and not spec.remote:
        raise ValueError("--target connect runs the jobs through a Spark Connect server: set spark.remote "
                         "(--set spark.remote=sc://HOST:15002, or in the --conf file's spark section)")
    if spec.target == "k8s":
        check_k8s(spec)


def check_k8s(spec: SubmitSpec) -> None:
    """Spark on Kubernetes: the image is required ("Must specify the driver container image"), the
    driver runs in a pod (cluster mode), and a path on this machine reaches the pods only through
    ``spark.kubernetes.file.upload.path`` ("Please specify spark.kubernetes.file.upload.path")."""
    if not spec.k8s.image:
        raise ValueError("--target k8s needs ops.k8s.image: the image the driver and executor pods run "
                         "(docker/Dockerfile: crawlplan and its dependencies on the official spark image)")
    if spec.deploy_mode != "cluster":
        raise ValueError("--target k8s runs the driver in a pod: set ops.deploy_mode=cluster (client mode needs "
                         "the submitting machine reachable from every executor pod)")
    paths = {"ops.code_uri": spec.code_uri, "ops.env_archive": spec.env_archive}
    if spec.ship_package:
        paths["ops.wheel"] = spec.wheel
    local = [f"{k}={v}" for k, v in paths.items() if v and not is_uri(v)]
    if local and not spec.k8s.upload_path:
        raise ValueError(f"{', '.join(local)}: a path on this machine, which the pods cannot read; use "
                         f"local:///opt/crawlplan/... (in the image of docker/Dockerfile) or a URI (s3a://...), "
                         f"or set ops.k8s.upload_path (spark.kubernetes.file.upload.path) for spark-submit to "
                         f"upload it")
    if not is_uri(spec.out_dir) or spec.out_dir.startswith("local:"):
        raise ValueError(f"ops.out_dir={spec.out_dir}: every pod needs the run folder; set ops.out_dir to a "
                         f"shared URI (s3a://, gs://, hdfs://, abfss://)")


def embedded_conf(conf_file: str) -> list[str]:
    """The --conf file as ``--set SECTION=<JSON>`` arguments, one per top-level section: the job
    deep-merges each over its profile exactly as it would the file, and nothing refers to a path
    of the machine that generated the command (an Airflow DAG, a platform's job spec). A secret in
    the file is refused: these texts are stored and shown (Airflow UI, job pages); credentials
    belong to the platform (instance roles, connections). ``{`` before ``{``, ``%`` or ``#`` is
    written ``\\u007b``: Airflow renders task arguments as Jinja templates."""
    data = load_yaml(conf_file)
    if redact(data) != data:
        raise ValueError(f"{conf_file} holds a secret (a key like *secret*, *token*, *password*, or "
                         f"user:password@ in a URL): it would be written into the generated job; pass "
                         f"credentials through the platform (instance role, Airflow connection, environment)")
    out = []
    for key, value in data.items():
        text = json.dumps(value, separators=(",", ":"), sort_keys=True)
        out += ["--set", f"{key}=" + re.sub(r"\{(?=[{%#])", r"\\u007b", text)]
    return out


def warnings_for(spec: SubmitSpec, conf: dict) -> list[str]:
    """What would make the printed commands fail or surprise on a cluster, said before they run:
    a package that is not built, outputs relative to each node's working folder, no inputs set."""
    found = []
    local_master = spec.target in ("local", "connect")     # one machine's (or the server's) folders
    if spec.ship_package and spec.target in ("local", "standalone", "yarn", "k8s") and not is_uri(spec.wheel) \
            and not os.path.exists(spec.wheel):
        found.append(f"ops.wheel: {spec.wheel} does not exist; build it with `crawlplan package` "
                     f"(or set ops.wheel to the package's URI)")
    if not local_master and not is_uri(spec.out_dir) and not os.path.isabs(spec.out_dir):
        found.append(f"outputs are relative ({spec.out_dir}): every cluster node resolves them in its own "
                     f"working folder; set ops.out_dir to a shared URI (hdfs://, s3a://, gs://)")
    if spec.target == "local" and spec.env_archive:
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
              or bool(spec.env_archive)) and spec.target != "connect"  # spark_conf names both Pythons
    out: dict[str, str] = {}
    if spec.deploy_mode == "cluster" or chosen:
        return out
    if not environ.get("PYSPARK_DRIVER_PYTHON"):
        out["PYSPARK_DRIVER_PYTHON"] = sys.executable
    if spec.target in ("local", "connect") and not environ.get("PYSPARK_PYTHON"):
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
    if spec.target == "k8s":
        k8s = {"spark.kubernetes.container.image": spec.k8s.image, "spark.kubernetes.namespace": spec.k8s.namespace,
               "spark.kubernetes.authenticate.driver.serviceAccountName": spec.k8s.service_account,
               "spark.kubernetes.file.upload.path": spec.k8s.upload_path}
        for key, value in k8s.items():
            if value:
                conf.setdefault(key, value)
    return conf


def application_args(spec: SubmitSpec, pipeline: Pipeline, node: Node) -> list[str]:
    """Datasets are found under ``--output``; ``--input`` repeats it for nodes that read only
    upstream datasets (external inputs come from the config, never from ``--input``)."""
    args: list[str] = []
    if not pipeline.external_inputs(node.name):
        args += ["--input", spec.out_dir]
    args += ["--output", spec.out_dir]
    if spec.conf_file and spec.embed_conf:
        args += embedded_conf(spec.conf_file)
    elif spec.conf_file:
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
    return spec.conf_file if (spec.conf_file and spec.deploy_mode == "cluster" and not spec.embed_conf) else ""


def archives(spec: SubmitSpec) -> str:
    return f"{spec.env_archive}#environment" if spec.env_archive else ""


def command(spec: SubmitSpec, pipeline: Pipeline, node: Node) -> list[str]:
    if spec.target == "connect":   # the server's resources and Python; the package ships as an artifact
        return [spec.spark_submit, "--remote", spec.remote, job_file(spec, node), *application_args(spec, pipeline, node)]
    cmd = [spec.spark_submit, "--master", spec.master]
    if spec.deploy_mode:
        cmd += ["--deploy-mode", spec.deploy_mode]
    cmd += ["--name", f"crawlplan-{pipeline.name}-{node.name}"]
    if spec.wheel and spec.ship_package:
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


def planned(pipeline: Pipeline, *, one_application: bool = False, only: list[str] | None = None
            ) -> list[tuple[str, list[str]]]:
    """(node, extra job arguments) of each submission: every node in dependency order (``only``
    these), or with ``one_application`` each last node (a node nothing else depends on; ``main``
    has one, ``report``) run ``--with-upstream``: the nodes share one driver and one set of
    executors instead of starting them per node."""
    if one_application and only:
        raise ValueError("--one-application runs the whole pipeline in one submission; --only picks nodes "
                         "to submit one by one: give one of them")
    if one_application:
        return [(name, ["--with-upstream"]) for name in pipeline.last()]
    unknown = sorted(set(only or ()) - set(pipeline.nodes))
    if unknown:
        raise KeyError(pipeline.unknown_node(unknown[0]))
    return [(name, []) for name in pipeline.order() if not only or name in only]


def commands(spec: SubmitSpec, pipeline: Pipeline, *, one_application: bool = False, only: list[str] | None = None
             ) -> list[tuple[str, list[str]]]:
    """One spark-submit per node, or per last node ``--with-upstream`` (``planned``)."""
    return [(name, command(spec, pipeline, pipeline.nodes[name]) + extra)
            for name, extra in planned(pipeline, one_application=one_application, only=only)]


def check_args(spec: SubmitSpec, pipeline: Pipeline, name: str, extra: list[str]) -> list[str]:
    """``python -m crawlplan.dag.check`` arguments for the job of ``name``: its own arguments, run
    where spark-submit runs (the --conf file by the path given here, as in client mode)."""
    local = dataclasses.replace(spec, deploy_mode="client")
    return [name, *application_args(local, pipeline, pipeline.nodes[name]), *extra]


def checks(spec: SubmitSpec, pipeline: Pipeline, *, one_application: bool = False, only: list[str] | None = None
           ) -> dict[str, list[str]]:
    """node -> its marker check's arguments, for the printed script (``render``)."""
    return {name: check_args(spec, pipeline, name, extra)
            for name, extra in planned(pipeline, one_application=one_application, only=only)}


YARN_CONF_CHECK = (': "${HADOOP_CONF_DIR:-${YARN_CONF_DIR:?spark-submit --master yarn reads the cluster address from '
                   'HADOOP_CONF_DIR or YARN_CONF_DIR, the folder with yarn-site.xml and core-site.xml, '
                   '/etc/hadoop/conf on EMR and Dataproc nodes}}"')


def yarn_conf_missing(spec: SubmitSpec, environ: dict) -> str:
    """Said before spark-submit's own "either HADOOP_CONF_DIR or YARN_CONF_DIR must be set"."""
    if spec.target != "yarn" or environ.get("HADOOP_CONF_DIR") or environ.get("YARN_CONF_DIR"):
        return ""
    return ("--target yarn: set HADOOP_CONF_DIR (or YARN_CONF_DIR) to the folder holding the cluster's "
            "yarn-site.xml and core-site.xml (/etc/hadoop/conf on EMR and Dataproc nodes); spark-submit "
            "--master yarn finds the ResourceManager there")


def render(cmds: list[tuple[str, list[str]]], env: dict[str, str] | None = None, *,
           header: list[str] | None = None, checks: list[str] | None = None,
           guards: dict[str, list[str]] | None = None) -> str:
    """A bash script; relaunching it after a failure skips the nodes whose markers are current.
    ``env`` holds defaults exported first (the client-mode driver's Python), ``checks`` lines that
    stop the script with a message before the first node (YARN_CONF_CHECK), ``guards`` per node
    the arguments of its marker check (``checks``): ``$CRAWLPLAN_PYTHON -m crawlplan.dag.check ...
    ||`` before its spark-submit, so a node whose marker is current starts no JVM."""
    lines = list(header or ["#!/usr/bin/env bash",
                       "# generated by `crawlplan submit`: the pipeline's nodes in dependency order;",
                       "# rerun it after a failure: nodes whose completion markers are current are skipped",
                       "set -euo pipefail"])
    lines += list(checks or [])
    lines += [f'export {k}="${{{k}:-{v}}}"' for k, v in sorted((env or {}).items())]
    for i, (name, cmd) in enumerate(cmds, 1):
        lines.append(f"\n# [{i}/{len(cmds)}] {name}")
        if guards and name in guards:
            lines.append('"$CRAWLPLAN_PYTHON" -m crawlplan.dag.check ' + " ".join(map(shlex.quote, guards[name]))
                         + " || \\")
        groups: list[list[str]] = []
        for token in cmd:
            if not groups or token.startswith("--") or token.endswith(".py"):
                groups.append([])
            groups[-1].append(shlex.quote(token))
        lines.append(" \\\n    ".join(" ".join(g) for g in groups))
    return "\n".join(lines) + "\n"
