"""The local, standalone and Connect targets run as printed: `crawlplan submit main --target T
--only extract --run` (one node: the whole pipeline on the harness is tests/test_cluster*.py's)
writes extract's outputs and marker, and the same command again answers from the marker.

local: spark-submit --master local[2] with the packaged zip; standalone: the loopback harness of
scripts/spark-cluster.sh (executors that cannot import crawlplan but from the zip); connect:
spark-submit --remote against scripts/spark-connect.sh's server (the package as an artifact)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_support import REPO, crawlplan, write_yaml
from warcgen import html_page, write_warc

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def run_conf(tmp_path_factory) -> Path:
    """A run conf whose input is a four-page WARC file on this machine."""
    root = tmp_path_factory.mktemp("targets")
    warc = write_warc(root / "pages.warc.gz", [{"url": f"https://site{i}.example/page", "body": html_page(f"Page {i}")}
                                              for i in range(4)])
    return write_yaml(root / "run.yaml", {"inputs": {"warc_paths": str(warc), "warc_base": ""},
                                          "spark": {"shuffle_partitions": 2}})


def _submit_twice(target: str, conf: Path, out: Path, sets: list[str], cwd: Path, env: dict | None = None) -> str:
    args = ["submit", "main", "--target", target, "--conf", str(conf), "--only", "extract", "--run",
            *[a for s in [f"ops.out_dir={out}", *sets] for a in ("--set", s)]]
    first = crawlplan(*args, cwd=cwd, env=env, timeout=1200)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-4000:]
    marker = json.loads((out / "_markers" / "extract.json").read_text())
    assert marker["rows"]["warc_files"] == 1 and marker["rows"]["documents"] >= 1, marker["rows"]
    again = crawlplan(*args, cwd=cwd, env=env, timeout=1200)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((out / "_markers" / "extract.json").read_text()) == marker     # answered from the marker
    assert "up to date" in again.stdout, again.stdout[-2000:]
    return first.stdout


def test_local_target_runs(run_conf, tmp_path):
    dist = tmp_path / "dist"
    proc = crawlplan("package", "--out", str(dist), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = _submit_twice("local", run_conf, tmp_path / "out", [
        "ops.master=local[2]", "ops.deploy_mode=client", f"ops.wheel={dist / 'crawlplan-0.1.0-py3-none-any.zip'}",
        f"ops.code_uri={REPO / 'jobs'}", "ops.driver_memory=1g"], tmp_path)
    assert "--master local[2]" in out


def test_standalone_target_runs_on_the_harness(spark_cluster, packaged, run_conf, tmp_path):
    ops = spark_cluster.ops
    sets = [f"ops.master={spark_cluster.master}", "ops.deploy_mode=client",
            f"ops.executor_memory={ops['executor_memory']}", f"ops.executor_cores={ops['executor_cores']}",
            f"ops.driver_memory={ops['driver_memory']}", f"ops.wheel={packaged / 'crawlplan-0.1.0-py3-none-any.zip'}",
            f"ops.code_uri={REPO / 'jobs'}",
            "ops.spark_conf=" + json.dumps(ops["spark_conf"])]
    out = _submit_twice("standalone", run_conf, tmp_path / "out", sets, tmp_path)
    assert f"--master {spark_cluster.master}" in out


def test_connect_target_runs_through_the_server(spark_connect, run_conf, tmp_path):
    out = _submit_twice("connect", run_conf, tmp_path / "out", [
        f"spark.remote={spark_connect}", f"ops.code_uri={REPO / 'jobs'}", "ops.profile=local"], tmp_path)
    assert f"--remote {spark_connect}" in out
