"""Helpers of the Spark Connect tests: the loopback Connect server (scripts/spark-connect.sh) and
Python run as a Connect client in a subprocess (a Connect session must not share this process
with the classic test session: it switches pyspark's functions to Connect mode)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from cluster_support import REPO, cluster_env

SCRIPT = REPO / "scripts" / "spark-connect.sh"


def start_connect(root: Path) -> str:
    env = {**cluster_env(), "CRAWLPLAN_CONNECT_PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(SCRIPT), "start", str(root)], env=env, capture_output=True, text=True,
                          timeout=400)
    if proc.returncode != 0:
        stop_connect(root)
        raise RuntimeError(f"spark-connect.sh start failed:\n{proc.stdout}\n{proc.stderr}")
    return (root / "remote-url").read_text().strip()


def stop_connect(root: Path) -> str:
    proc = subprocess.run(["bash", str(SCRIPT), "stop", str(root)], capture_output=True, text=True, timeout=120)
    return proc.stdout + proc.stderr


def run_client(remote: str, code: str, *, cwd: Path | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python whose ``spark`` is a Connect session on ``remote``;
    the checkout is importable on this side (the client), not on the server's workers."""
    prelude = ("from pyspark.sql import SparkSession\n"
               f"spark = SparkSession.builder.remote({remote!r}).getOrCreate()\n")
    env = {**cluster_env(), "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=cwd or REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
