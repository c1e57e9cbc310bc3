"""The whole main pipeline on a real multi-process Spark cluster, driven as a user drives it.

A standalone master and two workers on 127.0.0.1 (fixture ``spark_cluster``,
scripts/spark-cluster.sh); executors on a Python that cannot import crawlplan, so the code reaches
them only through ``crawlplan package``'s zip (--py-files); the demo models shipped from the local
model cache. The run goes through the script ``crawlplan submit main --conf FILE`` prints, fails
on purpose in its third node, is fixed and relaunched as one application (``--one-application``;
the finished nodes are skipped), and every dataset then equals a local ``crawlplan run``'s.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from cluster_support import (
    REPO,
    cluster_conf,
    cluster_env,
    compare_runs,
    crawlplan,
    whole_pipeline_runs,
    write_yaml,
)

from crawlplan.dag.pipeline import load_pipeline
from crawlplan.ops.submit import spark_submit_binary

pytestmark = [pytest.mark.slow, pytest.mark.spark]

PROBE = r'''
import json
import sys
from pyspark.sql import SparkSession

def where(_):
    try:
        import crawlplan
        return [crawlplan.__file__]
    except ImportError as exc:
        return [f"ImportError: {exc}"]

spark = SparkSession.builder.getOrCreate()
sc = spark.sparkContext
before = sc.parallelize(range(2), 2).mapPartitions(where).collect()
sc.addPyFile(sys.argv[1])
after = sc.parallelize(range(2), 2).mapPartitions(where).collect()
print("PROBE" + json.dumps({"before": before, "after": after}))
'''


def test_executors_import_crawlplan_only_from_the_package(spark_cluster, packaged, tmp_path):
    """The harness's executors cannot see the checkout: `import crawlplan` fails on them until the
    packaged zip is added, and then comes from that zip."""
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    ops = spark_cluster.ops
    zipped = packaged / "crawlplan-0.1.0-py3-none-any.zip"
    cmd = [spark_submit_binary("spark-submit"), "--master", spark_cluster.master, "--deploy-mode", "client",
           "--executor-memory", ops["executor_memory"], *[a for k, v in ops["spark_conf"].items() for a in ("--conf", f"{k}={v}")],
           str(probe), str(zipped)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=cluster_env(), cwd=tmp_path, timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), "")
    assert line, proc.stderr[-3000:]
    found = json.loads(line[len("PROBE"):])
    assert len(found["before"]) == 2 and all(w.startswith("ImportError") for w in found["before"]), found
    assert all(w.startswith(f"{zipped.name}/") or f"/{zipped.name}/" in w for w in found["after"]), found
    assert not any(str(REPO) in w for w in found["after"]), found


@whole_pipeline_runs
def test_main_pipeline_on_the_cluster_resumes_and_equals_the_local_run(spark_cluster, packaged, demo_local_run,
                                                                      tmp_path):
    base, local_out = demo_local_run
    run_root = tmp_path
    out = run_root / "out"
    pipeline = load_pipeline("main")
    conf = cluster_conf(base, spark_cluster, dist=packaged, out=out)
    broken = {**conf, "stats": {**conf["stats"], "host_stats": {"classifiers": ["no_such_classifier"]}}}
    conf_file = write_yaml(run_root / "cluster-run.yaml", broken)

    proc = crawlplan("submit", "main", "--conf", str(conf_file), cwd=run_root)
    assert proc.returncode == 0, proc.stderr
    script = run_root / "run-main.sh"
    script.write_text(proc.stdout)

    # 1. node 3 (host_stats) fails on purpose: nodes 1-2 are done, nothing after them started
    first = subprocess.run(["bash", str(script)], cwd=run_root, capture_output=True, text=True, timeout=3000)
    assert first.returncode != 0
    assert "scores has none of the classifier columns" in first.stdout + first.stderr
    markers = {p.stem: json.loads(p.read_text()) for p in (out / "_markers").glob("*.json")}
    assert sorted(markers) == ["classify", "extract"], sorted(markers)
    assert markers["classify"]["counters"]["demo_models"] == 10   # the default registry, shipped to the executors

    # 2. fixed (a setting of host_stats only) and relaunched as one application (the script of
    # `submit --one-application`): extract and classify, done by their own applications, are
    # skipped, the other nine nodes run in one driver (the Airflow test relaunches node by node)
    write_yaml(conf_file, conf)
    proc = crawlplan("submit", "main", "--one-application", "--conf", str(conf_file), cwd=run_root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("spark-submit") == 1 and "--with-upstream" in proc.stdout
    one_app = run_root / "run-main-one-application.sh"
    one_app.write_text(proc.stdout)
    second = subprocess.run(["bash", str(one_app)], cwd=run_root, capture_output=True, text=True, timeout=3000)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    for name in ("extract", "classify"):
        assert json.loads((out / "_markers" / f"{name}.json").read_text()) == markers[name], name   # not rewritten
    assert "[1/11] extract: up to date, skipped" in second.stdout
    assert "[2/11] classify: up to date, skipped" in second.stdout
    assert "report with its upstream: 11 nodes, 9 run, 2 up to date" in second.stdout
    assert (out / "report" / "index.html").is_file()

    # 3. every dataset equals the local run's
    assert compare_runs(pipeline, out, local_out) == []


@whole_pipeline_runs
def test_extract_on_real_warc_files_on_the_cluster_keeps_the_record_accounting(spark_cluster, packaged, shared_data,
                                                                               tmp_path):
    """The genuine WARC/ARC files of ../shared/data/warc (truncated, non-UTF-8, brotli, ARC) read by
    the executors: every response record ends in documents or rejects, file by file."""
    import pandas as pd

    files = sorted(str(p) for p in (shared_data / "warc").rglob("*.gz") if ".wat." not in p.name
                   and ".wet." not in p.name)
    out = tmp_path / "out"
    conf = cluster_conf({"inputs": {"warc_paths": files, "warc_base": ""}}, spark_cluster, dist=packaged, out=out)
    proc = crawlplan("submit", "main", "--only", "extract", "--run", "--conf",
                     str(write_yaml(tmp_path / "extract.yaml", conf)), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    marker = json.loads((out / "_markers" / "extract.json").read_text())
    per_file = pd.read_parquet(out / "warc_files").set_index("warc_file")
    documents, rejects = pd.read_parquet(out / "documents"), pd.read_parquet(out / "rejects")
    assert marker["rows"]["warc_files"] == len(per_file) == len(files)
    assert per_file["documents"].sum() == marker["rows"]["documents"] == len(documents) > 100
    assert per_file["rejected"].sum() == marker["rows"]["rejects"] == len(rejects)
    # file by file: every response record is a document or a record-level reject (one with an offset)
    record_rejects = rejects[rejects["offset"].notna()].groupby("warc_file").size()
    for name, row in per_file.iterrows():
        assert row["responses"] == row["documents"] + record_rejects.get(name, 0), name
        assert row["documents"] == (documents["warc_file"] == name).sum(), name
