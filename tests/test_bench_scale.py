"""The scale benchmark (bench/bench_scale.py) and its chunked input generator (bench/scale_inputs.py).

The generator is checked against the calibrated population's laws without Spark: page counts are
min_pages + floor(Lomax), high-quality pages are the pages scored above 0.5, a seed fixes every
chunk. The benchmark itself runs once at its smoke size: every node gets a row, the last line has
the promised form. No timing is asserted.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import bench_scale  # noqa: E402
import scale_inputs  # noqa: E402

from crawlplan.hosts import registered_domain, rev_host, surt_host  # noqa: E402
from crawlplan.policies.population import CalibratedParams  # noqa: E402

HOSTS, CHUNK = 20_000, 5_000


def _hosts(seed: int = 0, total: int = HOSTS, scored: int = HOSTS):
    return [scale_inputs.chunk_hosts_table(c, total, CHUNK, scored, seed, 0.9)
            for c in range(scale_inputs.chunk_count(total, CHUNK))]


def test_chunked_generator_follows_the_calibrated_parameters():
    p = CalibratedParams()
    tables = [t for t, _ in _hosts()]
    n = np.concatenate([t.n.to_numpy() for t in tables])
    hq = np.concatenate([t.hq.to_numpy() for t in tables])
    assert len(n) == HOSTS and n.min() >= p.min_pages and n.max() <= p.max_pages
    assert abs(n.mean() - 5.65) < 0.6                      # the size law's mean (~5.65 pages per host)
    for k in (1, 5, 20):                                   # P(n >= min_pages + k) = (1 + k / scale) ** -tail
        expected = (1.0 + k / p.size_scale) ** -p.size_tail
        assert abs((n >= p.min_pages + k).mean() - expected) < 0.015
    assert ((hq >= 0) & (hq <= n)).all()
    assert 0.04 < hq.sum() / n.sum() < 0.14               # a FineWeb-Edu-like share above 0.5 (~8 %)
    gids = np.concatenate([t.gid.to_numpy() for t in tables])
    assert (gids == np.arange(HOSTS)).all()


def test_generator_is_deterministic_per_seed_and_chunk():
    a, b, other = _hosts(seed=3), _hosts(seed=3), _hosts(seed=4)
    for (ta, sa), (tb, sb) in zip(a, b):
        assert ta.equals(tb) and np.array_equal(sa, sb)
    assert not a[0][0].n.equals(other[0][0].n)
    # a chunk does not depend on how many hosts follow it
    longer = scale_inputs.chunk_hosts_table(1, 3 * CHUNK, CHUNK, 3 * CHUNK, 3, 0.9)
    assert longer[0].equals(a[1][0])


def test_pages_carry_the_hosts_keys_and_high_quality_counts():
    table, page_scores = scale_inputs.chunk_hosts_table(0, 1200, 1000, 900, 0, 0.9)
    assert table.scored.sum() == 900 and not table[table.gid >= 900].scored.any()   # index-only hosts
    pages = scale_inputs.chunk_pages_table(table, page_scores, ["fineweb_edu"])
    scored = table[table.scored]
    assert len(pages) == scored.n.sum() and pages.record_id.is_unique
    per_host = pages.assign(hq=pages.fineweb_edu > 0.5).groupby("surt_host_name").agg(n=("hq", "size"), hq=("hq", "sum"))
    joined = scored.set_index("surt_host_name")[["n", "hq"]].join(per_host, rsuffix="_pages")
    assert (joined.n == joined.n_pages).all() and (joined.hq == joined.hq_pages).all()
    for row in table.sample(50, random_state=0).itertuples():    # the one way to spell host keys
        assert row.surt_host_name == surt_host(row.host) and row.rev_host == rev_host(row.host)
        assert row.registered_domain == registered_domain(row.host)


def test_sampler_follows_a_process_through_its_exec(tmp_path):
    """PySpark forks the JVM's launcher from Python and execs java in the same pid; a poll between
    the fork and the exec must not leave the JVM counted as a Python worker (CI saw jvm_mb 0)."""
    java = tmp_path / "java"                      # a program named java, as the sampler tells a JVM
    java.symlink_to("/bin/sleep")
    child = (f"import os, time; time.sleep(0.8); os.execv({str(java)!r}, [{str(java)!r}, '0.8'])")
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    result = bench_scale.measure([sys.executable, "-c", parent], tmp_path / "log", 0.05, None)
    assert result["status"] == "ok"
    assert result["jvm_mb"] > 0 and result["driver_python_mb"] > 0
    assert result["workers_seen"] == 0            # the forked Python was the JVM-to-be, not a worker


@pytest.mark.spark
@pytest.mark.slow
def test_smoke_run_has_every_node_and_the_ratio_line(tmp_path):
    out = tmp_path / "scale.json"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "bench_scale.py"), "--smoke", "--work",
                           str(tmp_path / "work"), "--json", str(out), "--export-format", "csv"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    rows = {cells[2].strip(): cells for cells in (ln.split("|") for ln in lines if ln.startswith("| 2,000 |"))}
    for node in (*bench_scale.NODES, bench_scale.EXPORT):
        assert node in rows, f"no row for {node}:\n{proc.stdout}"
        assert rows[node][3].strip() == "ok", rows[node]
    m = re.fullmatch(r"scale: driver peak RSS at (\d+) hosts / at (\d+) hosts = (\d+\.\d\d)", lines[-1])
    assert m and m.group(1) == m.group(2) == str(bench_scale.SMOKE_HOSTS)
    assert math.isfinite(float(m.group(3)))
    result = json.loads(out.read_text())
    nodes = result["sizes"][str(bench_scale.SMOKE_HOSTS)]["nodes"]
    assert nodes["simulate"]["jvm_mb"] > 0 and nodes["simulate"]["driver_python_mb"] > 0
    assert nodes["correlations"]["worker_mb"] > 0          # its applyInPandas runs in Python workers
    assert all(r["cpu_s"] > 0 for r in nodes.values())
