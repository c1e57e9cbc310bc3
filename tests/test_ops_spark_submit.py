"""``crawlplan package`` output used for real: the extract job through spark-submit --py-files,
in local mode, with an interpreter that cannot import crawlplan except from the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crawlplan.ops.package import package

REPO = Path(__file__).resolve().parents[1]


def _spark_submit() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-submit"


def isolated_python(root: Path) -> Path:
    """A venv that sees this venv's third-party packages (a .pth line) but not its editable
    crawlplan install (that hook lives in a .pth file, which plain path entries do not run)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python3*/site-packages"))
    ours = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "pyspark").is_dir())
    (site / "deps.pth").write_text(str(ours) + "\n")
    return root / "bin" / "python"


@pytest.mark.slow
def test_extract_runs_from_the_packaged_zip_under_spark_submit(tmp_path, shared_data):
    warc = shared_data / "warc" / "warcio-example.warc.gz"
    if not warc.is_file():
        pytest.skip(f"{warc} not in the shared data")
    if not _spark_submit().is_file():
        pytest.skip("pyspark ships no bin/spark-submit here")
    dist = package(REPO, tmp_path / "dist")
    python = isolated_python(tmp_path / "env")
    probe = subprocess.run([str(python), "-c", "import crawlplan"], capture_output=True, text=True, cwd=tmp_path)
    assert probe.returncode != 0, "the isolated interpreter must not see the checkout's crawlplan"

    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRAWLPLAN_HOME", "SPARK_HOME")}
    env.update(PYSPARK_PYTHON=str(python), PYSPARK_DRIVER_PYTHON=str(python), CRAWLPLAN_CACHE=str(tmp_path / "cache"))
    cmd = [str(_spark_submit()), "--master", "local[2]", "--driver-memory", "1g",
           "--py-files", str(dist["py_files"]), str(REPO / "jobs" / "extract.py"),
           "--input", str(warc), "--output", str(out), "--profile", "local",
           "--set", "spark.shuffle_partitions=2", "--set", "spark.driver_memory=1g"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert "extract: wrote documents, rejects, warc_files" in proc.stdout
    marker = json.loads((out / "_markers" / "extract.json").read_text())
    assert marker["rows"]["warc_files"] == 1
    assert marker["rows"]["documents"] + marker["rows"]["rejects"] >= 1
    assert (out / "documents").is_dir() and (out / "warc_files").is_dir()
