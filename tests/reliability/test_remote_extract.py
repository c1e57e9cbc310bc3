"""The extract job over HTTP on 127.0.0.1 with faults (issue 16): transient faults change nothing
in the outputs, permanent ones are counted against ``extract.max_failed_files`` (noted below it,
a failed job past it), and ``--retry-failed`` re-reads only the failed files and merges them in.

Expected per case (documents / warc_files status / job result):

| case | documents | status | job |
|---|---|---|---|
| no fault | all | ok x3 | ok |
| a drop, a 503 Retry-After: 1, a reset | all | ok x3 | ok, note "3 of them after retries" |
| one file 503 for good, limit 1 | all but that file's | ok x2, unreachable | ok, note "1 of 3 ... not read in full" |
| the same, then --retry-failed | all | ok x3 | ok, only that file re-read |
| every file 404 | 0 | missing x3 | fails: "3 of 3", the errors, the base URL (CLI exit 2) |
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from faultserver import FaultServer
from warcgen import member_offsets

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner, run_single_job
from crawlplan.extract.failed_files import TooManyFailedFiles, allowed_failures

pytestmark = pytest.mark.spark
REPO = Path(__file__).resolve().parents[2]
NAMES = ("a.warc.gz", "b.warc.gz", "c.warc.gz")
FAST_RETRIES = ["remote.backoff_s=0.01", "remote.backoff_max_s=0.05", "remote.max_attempts=3",
                "remote.read_timeout_s=2", "remote.allow_private_addresses=true"]   # the server is on 127.0.0.1


@pytest.fixture(scope="module")
def served(tmp_path_factory, shared_data):
    """Three 25-record slices of realpages behind a fault server, and a listing relative to its URL."""
    folder = tmp_path_factory.mktemp("warcs")
    head = (shared_data / "realpages/realpages.warc.gz").read_bytes()[: 3 << 20]
    offsets = member_offsets(head)
    for i, name in enumerate(NAMES):
        (folder / name).write_bytes(head[offsets[25 * i]:offsets[25 * (i + 1)]])
    listing = folder / "warc.paths"
    listing.write_text("\n".join(f"crawl-data/{n}" for n in NAMES) + "\n")
    (folder / "crawl-data").mkdir()
    for name in NAMES:
        os.link(folder / name, folder / "crawl-data" / name)
    with FaultServer(root=folder) as server:
        yield server, listing


def _conf(served, *extra):
    return load_conf("local", overrides=["extract.extractor=resiliparse", f"inputs.warc_base={served[0].url}/",
                                         *FAST_RETRIES, *extra])


def _extract(spark, served, out, *extra):
    _, listing = served
    conf = _conf(served, *extra)
    pipeline = load_pipeline("main")
    return run_single_job(spark, conf, pipeline, "extract", [str(listing)], str(out), force=True,
                          echo=lambda *_: None)


def _outputs(spark, out):
    frames = {name: spark.read.parquet(str(out / name)).toPandas() for name in ("documents", "rejects", "warc_files")}
    frames["documents"] = frames["documents"].sort_values("record_id").reset_index(drop=True)
    frames["rejects"] = frames["rejects"].sort_values(["warc_file", "offset"]).reset_index(drop=True)
    files = frames["warc_files"].sort_values("warc_file").reset_index(drop=True)
    frames["warc_files"] = files[["warc_file", "status", "records", "responses", "documents", "rejected", "bytes"]]
    return frames


@pytest.fixture(scope="module")
def clean(spark, served, tmp_path_factory):
    served[0].reset()
    out = tmp_path_factory.mktemp("clean")
    _extract(spark, served, out)
    return _outputs(spark, out)


def _assert_same(got, want):
    for name in want:
        assert got[name].equals(want[name]), name


def test_transient_faults_change_nothing(spark, served, clean, tmp_path):
    server, _ = served
    server.reset()
    server.faults({"/crawl-data/a.warc.gz": [{"drop_after": 300_000}],
                   "/crawl-data/b.warc.gz": [{"status": 503, "retry_after": "1"}],
                   "/crawl-data/c.warc.gz": [{"reset_after": 200_000}]})
    result = _extract(spark, served, tmp_path)
    _assert_same(_outputs(spark, tmp_path), clean)
    files = spark.read.parquet(str(tmp_path / "warc_files")).toPandas()
    assert list(files["attempts"]) == [2, 2, 2] and files["last_error"].notna().all()
    assert any("3 of them after retries" in n for n in result["notes"])
    assert (clean["warc_files"]["status"] == "ok").all() and len(clean["documents"]) > 40


def test_a_lost_file_within_the_limit_is_noted_then_retried(spark, served, clean, tmp_path):
    server, _ = served
    server.reset()
    server.faults({"/crawl-data/c.warc.gz": [{"status": 503, "repeat": True}]})
    result = _extract(spark, served, tmp_path, "extract.max_failed_files=1")
    files = spark.read.parquet(str(tmp_path / "warc_files")).toPandas().set_index("warc_file")
    lost = files.loc[f"{server.url}/crawl-data/c.warc.gz"]
    assert (lost["status"], lost["attempts"], lost["records"]) == ("unreachable", 3, 0)
    assert "503" in lost["last_error"]
    note = next(n for n in result["notes"] if "not read in full" in n)
    assert "1 of 3 WARC files" in note and "1 unreachable" in note and "--retry-failed" in note
    assert result["counters"]["warc_files_failed"] == 1
    # the outage is over: `crawlplan run --retry-failed --until extract` re-reads only what failed
    server.reset()
    conf = _conf(served, "extract.max_failed_files=1", "run.retry_failed=true")
    conf["inputs"]["warc_paths"] = str(served[1])
    runner = Runner(spark, conf, str(tmp_path), echo=lambda *_: None)
    result = runner.run_pipeline(load_pipeline("main"), start="extract", until=["extract"])["extract"]
    assert result["counters"]["warc_files_retried"] == 1
    assert [e["path"] for e in server.log()] == ["/crawl-data/c.warc.gz"]
    _assert_same(_outputs(spark, tmp_path), clean)
    # the flag is not a parameter of the node: a plain run then finds extract up to date
    conf = _conf(served, "extract.max_failed_files=1")
    conf["inputs"]["warc_paths"] = str(served[1])
    plain = Runner(spark, conf, str(tmp_path), echo=lambda *_: None).run_pipeline(load_pipeline("main"), until=["extract"])
    assert plain["extract"]["status"] == "skipped"
    # nothing left to retry: the outputs stay as they are and no file is read
    server.reset()
    conf = _conf(served, "extract.max_failed_files=1", "run.retry_failed=true")
    conf["inputs"]["warc_paths"] = str(served[1])
    again = Runner(spark, conf, str(tmp_path), echo=lambda *_: None).run_pipeline(
        load_pipeline("main"), start="extract", until=["extract"])["extract"]
    assert any("nothing was re-read" in n for n in again["notes"]) and server.log() == []
    _assert_same(_outputs(spark, tmp_path), clean)


def test_past_the_limit_the_job_fails_naming_the_cause(spark, served, tmp_path):
    server, _ = served
    server.reset()
    server.faults({f"/crawl-data/{n}": [{"status": 404, "repeat": True}] for n in NAMES})
    with pytest.raises(TooManyFailedFiles) as failed:
        _extract(spark, served, tmp_path)
    message = str(failed.value)
    assert "3 of 3 WARC files" in message and "3 missing" in message
    assert "HTTP 404" in message and f"inputs.warc_base: {server.url}/" in message
    assert not (tmp_path / "_markers" / "extract.json").exists()
    kept = spark.read.parquet(str(tmp_path / "warc_files")).toPandas()     # kept for --retry-failed
    assert sorted(kept["status"]) == ["missing"] * 3


def test_the_cli_exits_non_zero_when_every_file_fails(served, tmp_path):
    server, listing = served
    server.reset()
    server.faults({f"/crawl-data/{n}": [{"status": 503, "repeat": True}] for n in NAMES})
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "crawlplan.cli", "job", "extract", "--input", str(listing),
           "--output", str(tmp_path), "--set", f"inputs.warc_base={server.url}/", "--set", "spark.master=local[1]",
           "--set", "extract.extractor=resiliparse"] + [a for s in FAST_RETRIES for a in ("--set", s)]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "crawlplan: error: extract failed: 3 of 3 WARC files" in done.stderr
    assert "HTTP 503" in done.stderr and "--retry-failed" in done.stderr


@pytest.mark.parametrize("setting, listed, allowed", [
    ("1%", 50, 0), ("1%", 1000, 10), ("2.5%", 90_000, 2250), (0.01, 300, 3), (5, 3, 5), ("5", 10, 5),
    (0, 10, 0), ("100%", 7, 7)])
def test_the_limit_is_a_count_or_a_share(setting, listed, allowed):
    assert allowed_failures(setting, listed) == allowed


@pytest.mark.parametrize("setting", ["2.5", "many", "-1", "150%"])
def test_a_bad_limit_is_refused(setting):
    with pytest.raises(ValueError, match="max_failed_files"):
        allowed_failures(setting, 100)



def test_retry_failed_is_refused_for_other_nodes(capsys):
    from crawlplan.cli import main

    assert main(["run", "--retry-failed", "--only", "classify"]) == 2
    assert "--retry-failed re-reads the WARC files extract could not read" in capsys.readouterr().err
    assert main(["job", "classify", "--retry-failed", "--output", "unused"]) == 2
    assert "it applies to extract, not to classify" in capsys.readouterr().err
