"""SIGKILL in the middle of a node, then a re-run: finished nodes are skipped, the killed node
leaves nothing visible, and the outputs equal those of an uninterrupted run.

Real processes: ``crawlplan run`` in a subprocess (its own process group, so the JVM and the
Python workers die with it) on a two-node pipeline: the real ``extract`` node, then a node
held at a gate (tests/reliability/kill_jobs.py) while it writes. No timing assumptions: the test
waits for the gate's ``started`` file before it kills.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from warcgen import html_page, write_warc

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow

PIPELINE = """
name: killtest
external:
  warc_paths: WARC files
nodes:
  extract:
    inputs: [warc_paths]
    outputs: [documents, rejects, warc_files, host_population]
  lengths:
    job: "kill_jobs:lengths"
    inputs: [documents]
    outputs: [doc_lengths]
"""

SCHEMA = """dataset: doc_lengths
description: text length per document (SIGKILL test)
columns:
  - {name: record_id, type: string, nullable: false}
  - {name: chars, type: long, nullable: false}
"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    home = root / "home"
    home.mkdir()
    (home / "conf").symlink_to(REPO / "conf")
    (home / "pipelines").symlink_to(REPO / "pipelines")
    shutil.copytree(REPO / "schemas", home / "schemas")
    (home / "schemas" / "doc_lengths.yaml").write_text(SCHEMA)
    (root / "killtest.yaml").write_text(PIPELINE)
    warc = write_warc(root / "tiny.warc.gz", [dict(url=f"http://k{i}.example.org/", body=html_page(f"kill {i}"))
                                              for i in range(8)])
    return root, home, warc


def _cmd(root, warc, out):
    return [sys.executable, "-m", "crawlplan.cli", "run", str(root / "killtest.yaml"), "--out", str(out),
            "--set", f"inputs.warc_paths={warc}", "--set", "spark.master=local[1]",
            "--set", "spark.shuffle_partitions=1", "--set", "extract.extractor=resiliparse"]


def _env(home, gate=None):
    env = dict(os.environ, CRAWLPLAN_HOME=str(home), PYTHONPATH=os.pathsep.join([str(HERE), str(REPO)]),
               PYSPARK_PYTHON=sys.executable)
    env.pop("CRAWLPLAN_TEST_GATE", None)
    if gate:
        env["CRAWLPLAN_TEST_GATE"] = str(gate)
    return env


def _run(root, home, warc, out, gate=None) -> str:
    proc = subprocess.run(_cmd(root, warc, out), env=_env(home, gate), cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _table(out, name, drop=()):
    df = pd.read_parquet(out / name).drop(columns=list(drop))
    return df.sort_values(list(df.columns[:2])).reset_index(drop=True)


def test_sigkill_mid_node_then_rerun_equals_uninterrupted(setup):
    root, home, warc = setup
    gate = root / "gate"
    gate.mkdir()
    out = root / "out-killed"
    proc = subprocess.Popen(_cmd(root, warc, out), env=_env(home, gate), cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.time() + 400
        while not (gate / "started").exists():
            assert proc.poll() is None, f"run ended before the gate: {proc.stdout.read()}"
            assert time.time() < deadline, "the gated node never started"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run, its JVM and its Python workers
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # killed while writing doc_lengths: extract is complete, doc_lengths is not visible
    assert (out / "_markers" / "extract.json").exists() and (out / "documents" / "_SUCCESS").exists()
    assert not (out / "doc_lengths").exists() and not (out / "_markers" / "lengths.json").exists()

    (gate / "release").touch()
    log = _run(root, home, warc, out, gate)
    assert "extract: up to date, skipped" in log
    assert "lengths: running" in log
    assert (out / "_markers" / "lengths.json").exists()

    clean = root / "out-clean"
    _run(root, home, warc, clean)
    for name, drop in (("documents", ()), ("rejects", ()), ("warc_files", ("seconds",)), ("doc_lengths", ())):
        pd.testing.assert_frame_equal(_table(out, name, drop), _table(clean, name, drop))
    assert len(_table(out, "doc_lengths")) == 8
