"""One run per output folder (issue #27): the lease, its takeover rules, the output test write."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import dag_fake_jobs
import pytest

from crawlplan import storage
from crawlplan.conf import load_conf
from crawlplan.dag.lease import LEASE_FILE, LeaseSettings, OutputInUse, OutputLease, OutputNotWritable
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner
from crawlplan.schemas import load_schema, schema_from_dict

REPO = Path(__file__).resolve().parents[1]
SETTINGS = LeaseSettings.from_conf(load_conf("local"))
PIPELINE = """
name: one
external: {}
nodes:
  numbers:
    job: "dag_fake_jobs:numbers"
    inputs: []
    outputs: [numbers]
    params: {n: 4}
"""


@pytest.fixture()
def one_node(tmp_path, monkeypatch):
    path = tmp_path / "one.yaml"
    path.write_text(PIPELINE)
    real = load_schema
    monkeypatch.setattr(storage, "load_schema", lambda name, schema_dir=None: schema_from_dict(
        {"dataset": "numbers", "columns": [{"name": "value", "type": "long", "nullable": False}]})
        if name == "numbers" else real(name, schema_dir))
    dag_fake_jobs.CALLS.clear()
    return load_pipeline(str(path))


def _conf(**lease):
    conf = load_conf("local")
    conf["run"] = {**conf["run"], "progress_every_s": 0, "lease": {**conf["run"]["lease"], **lease}}
    return conf


def _write_lease(out: Path, **fields) -> None:
    out.mkdir(parents=True, exist_ok=True)
    record = {"run_id": "other-run", "host": "elsewhere.example", "pid": 1, "started_at": time.time(),
              "heartbeat_at": time.time(), **fields}
    (out / LEASE_FILE).write_text(json.dumps(record))


def test_create_new_is_exclusive_between_racing_threads(tmp_path):
    path = str(tmp_path / "lock")
    wins: list[bool] = []
    gate = threading.Barrier(8)

    def race(i):
        gate.wait()
        wins.append(storage.create_new(None, path, f"t{i}"))

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 7 + [True]
    assert Path(path).read_text().startswith("t")


@pytest.mark.spark
def test_a_second_run_on_a_held_folder_refuses_naming_the_holder(spark, one_node, tmp_path):
    out = tmp_path / "out"
    with OutputLease(spark, str(out), SETTINGS) as held:
        record = json.loads((out / LEASE_FILE).read_text())
        assert record["run_id"] == held.run_id and record["pid"] == os.getpid()
        assert record["host"] == socket.gethostname()
        with pytest.raises(OutputInUse, match=f"in use by run {held.run_id}.*pid {os.getpid()}"):
            Runner(spark, _conf(), str(out), echo=lambda *_: None).run_pipeline(one_node)
        assert dag_fake_jobs.CALLS == []                      # refused before any node ran
    assert not (out / LEASE_FILE).exists()                    # released
    Runner(spark, _conf(), str(out), echo=lambda *_: None).run_pipeline(one_node)
    assert dag_fake_jobs.CALLS == ["numbers"] and not (out / LEASE_FILE).exists()


@pytest.mark.spark
def test_a_stale_lease_is_taken_over_with_a_warning_and_only_its_run_tmp_is_cleaned(
        spark, one_node, tmp_path, caplog):
    out = tmp_path / "out"
    _write_lease(out, heartbeat_at=time.time() - SETTINGS.stale_after_s - 5)
    (out / "_tmp" / "other-run").mkdir(parents=True)
    (out / "_tmp" / "other-run" / "half-written.parquet").write_text("x")
    (out / "_tmp" / "someone-else").mkdir()
    with caplog.at_level("WARNING", logger="crawlplan"):
        Runner(spark, _conf(), str(out), echo=lambda *_: None).run_pipeline(one_node)
    assert "taking over the lease of run other-run" in caplog.text and "no heartbeat" in caplog.text
    assert dag_fake_jobs.CALLS == ["numbers"]
    assert not (out / "_tmp" / "other-run").exists()          # the dead run's own temporary folder
    assert (out / "_tmp" / "someone-else").is_dir()           # nothing else under _tmp is touched
    assert not (out / LEASE_FILE).exists()


@pytest.mark.spark
def test_a_lease_of_a_dead_process_on_this_host_is_taken_over_at_once(spark, one_node, tmp_path):
    """A driver killed with -9 and relaunched at once resumes: its pid is gone."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    out = tmp_path / "out"
    _write_lease(out, host=socket.gethostname(), pid=int(dead.stdout), pid_start="1")
    Runner(spark, _conf(), str(out), echo=lambda *_: None).run_pipeline(one_node)
    assert dag_fake_jobs.CALLS == ["numbers"]


@pytest.mark.spark
def test_a_fresh_lease_of_another_host_is_respected(spark, one_node, tmp_path):
    out = tmp_path / "out"
    _write_lease(out)
    with pytest.raises(OutputInUse, match="host elsewhere.example, pid 1"):
        Runner(spark, _conf(), str(out), echo=lambda *_: None).run_pipeline(one_node)
    assert json.loads((out / LEASE_FILE).read_text())["run_id"] == "other-run"   # left to its holder


@pytest.mark.spark
def test_the_heartbeat_refreshes_and_a_lost_lease_stops_the_run(spark, tmp_path):
    out = tmp_path / "out"
    lease = OutputLease(spark, str(out), LeaseSettings(heartbeat_s=0.05, stale_after_s=60)).acquire()
    try:
        first = json.loads((out / LEASE_FILE).read_text())["heartbeat_at"]
        deadline = time.time() + 30
        while json.loads((out / LEASE_FILE).read_text())["heartbeat_at"] == first and time.time() < deadline:
            time.sleep(0.05)
        assert json.loads((out / LEASE_FILE).read_text())["heartbeat_at"] > first
        _write_lease(out, run_id="usurper")                  # another run took it over meanwhile
        while lease.lost is None and time.time() < deadline:
            time.sleep(0.05)
        with pytest.raises(OutputInUse, match="usurper"):
            lease.check()
    finally:
        lease.release()
    assert json.loads((out / LEASE_FILE).read_text())["run_id"] == "usurper"   # not ours to delete


def test_a_heartbeat_leaves_a_lease_file_it_cannot_read_to_its_writer(tmp_path):
    """A taker's ``create_new`` makes the lease file, then writes it: a beat that read the file
    in between took it for its own and buried the taker's lease (the heartbeat test above
    failed so once, 2026-12-07). One beat at a time, no thread timing: the interval is an hour."""
    out = tmp_path / "out"
    lease = OutputLease(None, str(out), LeaseSettings(heartbeat_s=3600, stale_after_s=60)).acquire()
    path = out / LEASE_FILE
    try:
        for unreadable in ("", '{"run_id": "tak'):           # created, not yet (fully) written
            path.write_text(unreadable)
            assert lease._beat_once() and path.read_text() == unreadable and lease.lost is None
        path.unlink()                                        # gone: created again, atomically
        assert lease._beat_once() and json.loads(path.read_text())["run_id"] == lease.run_id
        _write_lease(out, run_id="usurper")
        assert not lease._beat_once() and "usurper" in lease.lost
        assert json.loads(path.read_text())["run_id"] == "usurper"
    finally:
        lease.release()
    assert json.loads(path.read_text())["run_id"] == "usurper"   # not ours to delete


@pytest.mark.spark
def test_an_output_that_is_a_file_fails_before_any_node(spark, one_node, tmp_path):
    target = tmp_path / "plain-file"
    target.write_text("not a folder")
    with pytest.raises(OutputNotWritable, match=f"cannot write the output folder {target}"):
        Runner(spark, _conf(), str(target), echo=lambda *_: None).run_pipeline(one_node)
    assert dag_fake_jobs.CALLS == [] and target.read_text() == "not a folder"


def _cli(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "crawlplan"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "crawlplan.cli"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYSPARK_PYTHON": sys.executable}
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=600, cwd=REPO, env=env)


@pytest.mark.spark
def test_cli_two_processes_one_folder_and_unwritable_outputs_exit_2_in_one_line(spark, tmp_path):
    """The same checks through ``crawlplan job`` (what spark-submit jobs/NODE.py and Airflow run)."""
    out = tmp_path / "out"
    with OutputLease(spark, str(out), SETTINGS) as held:
        proc = _cli("job", "simulate", "--input", str(tmp_path / "nothing"), "--output", str(out))
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("crawlplan: error:")]
    assert len(errors) == 1 and held.run_id in errors[0] and "Traceback" not in proc.stderr
    target = tmp_path / "plain-file"
    target.write_text("x")
    proc = _cli("job", "simulate", "--input", str(tmp_path / "nothing"), "--output", str(target))
    assert proc.returncode == 2, proc.stderr
    assert f"crawlplan: error: cannot write the output folder {target}" in proc.stderr
    assert "Traceback" not in proc.stderr and "Py4J" not in proc.stderr
