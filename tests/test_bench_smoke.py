"""Benchmarks that cannot rot: every bench script has a ``--smoke`` mode and bench/run_all.py runs
them all (CI runs ``bench/run_all.py --smoke`` after the suite, .ci/run).

Here: run_all's list is every bench/*.py but its named libraries, each script's argparse takes
``--smoke`` (``--help`` names it), run_all refuses to run without ``--smoke``, and one quick smoke
run goes through run_all with its table. The smoke runs themselves are CI's step, not this test's.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import run_all  # noqa: E402


def test_run_all_lists_every_bench_script_but_the_libraries():
    on_disk = {p.stem for p in (REPO / "bench").glob("*.py")}
    libraries = {name.removesuffix(".py") for name in run_all.LIBRARIES}
    assert libraries <= on_disk, f"LIBRARIES names files that are gone: {sorted(libraries - on_disk)}"
    assert set(run_all.bench_scripts()) == on_disk - libraries
    assert {"bench_pipeline", "bench_scale", "source_loso"} <= set(run_all.bench_scripts())


@pytest.mark.slow
def test_every_bench_script_takes_smoke_in_its_argparse():
    def helps(name):
        return name, subprocess.run([sys.executable, str(REPO / "bench" / f"{name}.py"), "--help"], cwd=REPO,
                                    capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(4) as pool:
        results = dict(pool.map(helps, run_all.bench_scripts()))
    lacking = {name: (p.returncode, p.stderr[-500:]) for name, p in results.items()
               if p.returncode != 0 or "--smoke" not in p.stdout}
    assert not lacking, f"bench scripts whose --help has no --smoke: {lacking}"


def test_run_all_refuses_without_smoke_and_unknown_scripts(capsys):
    assert run_all.main([]) == 2
    assert "--smoke" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        run_all.main(["--smoke", "--only", "no_such_bench"])


@pytest.mark.slow
def test_run_all_runs_a_smoke_and_prints_its_row():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run_all.py"), "--smoke", "--only", "bench_policies"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [line.split("|") for line in proc.stdout.splitlines() if line.startswith("| bench_policies |")]
    assert len(rows) == 1 and rows[0][2].strip() == "ok", proc.stdout
    assert rows[0][5].strip().startswith("smoke ok:"), rows[0]


def test_run_all_skip_prints_a_row_and_runs_nothing(capsys):
    assert run_all.main(["--smoke", "--only", "bench_policies", "--skip", "bench_policies"]) == 0
    out = capsys.readouterr().out
    assert "| bench_policies | skipped (--skip) |" in out and "bench_policies --smoke ..." not in out


def test_source_loso_names_a_misspelt_configuration_and_its_near_names_not_all_of_them():
    """The candidates are seventy long names: an error (or --help) that lists them all hides the
    one line that matters, so a misspelt name gets the nearest names and where the list lives."""
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "source_loso.py"), "crawls", "--config", "defualt"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "unknown configuration 'defualt'" in proc.stderr and "did you mean ['default']" in proc.stderr
    assert "bench/source_candidates.py" in proc.stderr and len(proc.stderr) < 1000, proc.stderr
