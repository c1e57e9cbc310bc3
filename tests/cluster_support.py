"""Helpers of the cluster tests: the loopback standalone cluster (scripts/spark-cluster.sh), the
demo run's conf files, the CLI as a user runs it, and dataset-by-dataset comparison of two runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "spark-cluster.sh"
# The whole-pipeline runs on the cluster and through Airflow run by default (CI included: one
# session-scoped harness, one shared local reference run; timed in docs/cluster.md). Set
# CRAWLPLAN_CLUSTER_PIPELINE=0 to leave them out of a quick local run.
whole_pipeline_runs = pytest.mark.skipif(
    os.environ.get("CRAWLPLAN_CLUSTER_PIPELINE", "1") == "0",
    reason="whole-pipeline cluster runs left out by CRAWLPLAN_CLUSTER_PIPELINE=0",
)

# columns that measure the run, not the data
VOLATILE = {"warc_files": ["seconds"], "sitemaps": ["train_seconds"]}


@dataclass
class Cluster:
    dir: Path
    master: str
    ops: dict           # the harness's submit.yaml: master, client mode, executors' Python, loopback driver

    def pids(self) -> list[int]:
        return [int(p.read_text()) for p in sorted(self.dir.glob("*.pid"))]


def cluster_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("SPARK_HOME", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}


def start_cluster(root: Path) -> Cluster:
    env = {**cluster_env(), "CRAWLPLAN_CLUSTER_PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(SCRIPT), "start", str(root)], env=env, capture_output=True, text=True,
                          timeout=400)
    if proc.returncode != 0:
        stop_cluster(root)
        raise RuntimeError(f"spark-cluster.sh start failed:\n{proc.stdout}\n{proc.stderr}")
    ops = yaml.safe_load((root / "submit.yaml").read_text())["ops"]
    return Cluster(dir=root, master=(root / "master-url").read_text().strip(), ops=ops)


def stop_cluster(root: Path) -> str:
    proc = subprocess.run(["bash", str(SCRIPT), "stop", str(root)], capture_output=True, text=True, timeout=120)
    return proc.stdout + proc.stderr


def demo_conf(demo: Path, model_dir: Path) -> dict:
    """The demo's inputs set explicitly (what `crawlplan run` fills in by itself), shared by the local
    run and the cluster jobs, and one model folder: the local run trains the demo models into it."""
    return {
        "inputs": {"warc_paths": str(demo / "warc.paths.gz"), "warc_base": "", "host_index": str(demo / "host_index"),
                   "web_graph": str(demo / "graph"), "ground_truth": str(demo / "ground_truth")},
        "stats": {"host_graph": {"previous_release": str(demo / "graph_previous")}},
        "classify": {"model_dir": str(model_dir)},
    }


def cluster_conf(base: dict, cluster: Cluster, *, dist: Path, out: Path, **ops) -> dict:
    conf = {k: dict(v) for k, v in base.items()}
    conf["ops"] = {**cluster.ops, "wheel": str(dist / "crawlplan-0.1.0-py3-none-any.zip"),
                   "code_uri": str(REPO / "jobs"), "out_dir": str(out), **ops}
    return conf


def write_yaml(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def crawlplan(*args: str, cwd: Path, env: dict | None = None, timeout: int = 3000) -> subprocess.CompletedProcess:
    """The CLI as installed (.venv/bin/crawlplan), with no activated venv on PATH."""
    exe = Path(sys.executable).parent / "crawlplan"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "crawlplan.cli"]
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not Path(p, "spark-submit").exists())
    return subprocess.run(cmd + list(args), cwd=cwd, env={**cluster_env(), "PATH": path, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def parquet_datasets(pipeline, root: Path) -> list[str]:
    return [d for n in pipeline.order() for d in pipeline.nodes[n].outputs if (root / d / "_SUCCESS").exists()
            or any((root / d).glob("*.parquet")) or any((root / d).glob("*/*.parquet"))]


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in a fixed order; nested values (arrays, maps) as text so they sort and compare."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].map(lambda v: repr(v.tolist() if isinstance(v, np.ndarray) else v))
        elif isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype(str)
    keys = [c for c in out.columns if not pd.api.types.is_float_dtype(out[c])] or list(out.columns)
    return out.sort_values(keys + [c for c in out.columns if c not in keys], kind="mergesort").reset_index(drop=True)


def compare_runs(pipeline, a: Path, b: Path) -> list[str]:
    """Every dataset of run ``a`` against ``b``: same rows (order aside), floats within 1e-9
    relative. Returns the differences, one line per dataset; empty when the runs agree."""
    problems = []
    names = parquet_datasets(pipeline, a)
    if set(names) != set(parquet_datasets(pipeline, b)):
        problems.append(f"datasets differ: {sorted(set(names) ^ set(parquet_datasets(pipeline, b)))}")
    for name in names:
        left, right = (pd.read_parquet(root / name).drop(columns=VOLATILE.get(name, [])) for root in (a, b))
        difference = compare_frames(left, right)
        if difference:
            problems.append(f"{name}: {difference}")
    return problems


def compare_frames(left: pd.DataFrame, right: pd.DataFrame) -> str:
    """"" when both hold the same rows (order aside, floats within 1e-9 relative), else the difference."""
    if len(left) != len(right) or sorted(left.columns) != sorted(right.columns):
        return f"{len(left)} vs {len(right)} rows, columns {sorted(left.columns)} vs {sorted(right.columns)}"
    left, right = _canonical(left), _canonical(right[left.columns])
    try:
        pd.testing.assert_frame_equal(left, right, check_dtype=False, rtol=1e-9, atol=1e-12)
    except AssertionError as exc:
        return f"{str(exc).splitlines()[0]} {' '.join(str(exc).split())[:400]}"
    return ""


def java_missing() -> str:
    return "" if shutil.which("java") else "no java on PATH (the standalone cluster runs on a JVM)"


AIRFLOW_PYTHON = Path(os.environ.get("CRAWLPLAN_AIRFLOW_PYTHON", REPO / ".venv-airflow" / "bin" / "python"))


def airflow(env: dict, *args: str, timeout: int = 3000) -> subprocess.CompletedProcess:
    """``python -m airflow ARGS`` of the Airflow venv, in ``env["AIRFLOW_HOME"]``."""
    return subprocess.run([str(AIRFLOW_PYTHON), "-m", "airflow", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=env["AIRFLOW_HOME"])


def airflow_home(tmp_path: Path, **extra_env: str) -> dict:
    """A fresh Airflow (SQLite under ``tmp_path/airflow``, DAGs in ``tmp_path/dags``, our pyspark's
    spark-submit on PATH, no PYTHONPATH) with its database migrated: the environment to run it in.
    Skips the test when the Airflow venv is missing (scripts/test-extras.sh makes it)."""
    # crawlplan.ops.submit: the spark-submit of the pyspark the tests use
    from crawlplan.ops.submit import spark_submit_binary

    if not AIRFLOW_PYTHON.is_file():
        pytest.skip(f"no Airflow interpreter at {AIRFLOW_PYTHON}: run scripts/test-extras.sh (creates .venv-airflow) "
                    f"or set CRAWLPLAN_AIRFLOW_PYTHON")
    home = tmp_path / "airflow"
    (tmp_path / "dags").mkdir()
    home.mkdir()
    bin_dir = str(Path(spark_submit_binary("spark-submit")).parent)
    env = {**cluster_env(), "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__DAGS_FOLDER": str(tmp_path / "dags"),
           "AIRFLOW__CORE__LOAD_EXAMPLES": "False", "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "PYTHONPATH": "", **extra_env}
    proc = airflow(env, "db", "migrate", timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return env
