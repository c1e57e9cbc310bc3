"""``crawlplan package --venv``: the lean environment archive and the lines it prints.

Unit tests check the dependency closure, the portability check and the printed spark-submit
lines; the slow ones build the archive from this venv, run its ``bin/python`` unpacked elsewhere
on another interpreter, and run the printed client-mode line on the loopback standalone cluster
(scripts/spark-cluster.sh), whose nodes' Python has neither crawlplan nor its dependencies."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from cluster_support import REPO, cluster_env, crawlplan
from warcgen import html_page, write_warc

from crawlplan.ops import environment
from crawlplan.ops.package import describe_usage, usage_lines
from crawlplan.ops.submit import spark_submit_binary

SITE = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "lxml").is_dir())
PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
NOT_SHIPPED = {"pyspark", "py4j", "pip", "setuptools", "wheel", "pytest", "moto", "flask", "docker",
               "hypothesis", "boto3", "datatrove", "protobuf", "grpcio", "crawlplan"}


def test_closure_is_the_runtime_dependencies_without_spark_installers_or_extras():
    dists = environment.closure(environment.runtime_requirements(REPO), SITE, PYTHON)
    for name in ("lxml", "trafilatura", "fasttext-wheel", "pandas", "pyarrow", "warcio", "surt", "tldextract"):
        assert name in dists, name
    assert "lxml-html-clean" in dists  # justext asks for lxml[html_clean]: extras of a dependency count
    assert not NOT_SHIPPED & set(dists), NOT_SHIPPED & set(dists)


def test_closure_names_a_missing_dependency_and_who_needs_it(tmp_path):
    with pytest.raises(environment.PackError, match=r"lxml \(needed by crawlplan\) is not installed"):
        environment.closure(["lxml>=5"], tmp_path, PYTHON)


class _FakeDist:
    version = "1.0"

    def __init__(self, tags):
        self._wheel = "Wheel-Version: 1.0\n" + "".join(f"Tag: {t}\n" for t in tags)

    def read_text(self, name):
        return self._wheel if name == "WHEEL" else None


def test_portability_accepts_manylinux_and_pure_wheels_and_refuses_local_builds():
    ok = {"a": _FakeDist(["py3-none-any"]), "b": _FakeDist(["cp311-cp311-manylinux_2_17_x86_64",
                                                            "cp311-cp311-manylinux2014_x86_64"]),
          "c": _FakeDist(["cp38-abi3-manylinux_2_28_x86_64"])}
    req = environment.check_portable(ok, "3.11")
    assert (req.python, req.machine, req.glibc) == ("3.11", "x86_64", (2, 28))
    with pytest.raises(environment.PackError, match=r"d 1.0: tags cp311-cp311-linux_x86_64 are not a manylinux"):
        environment.check_portable({**ok, "d": _FakeDist(["cp311-cp311-linux_x86_64"])}, "3.11")
    with pytest.raises(environment.PackError, match=r"e 1.0: tags cp312-cp312-manylinux_2_17_x86_64"):
        environment.check_portable({"e": _FakeDist(["cp312-cp312-manylinux_2_17_x86_64"])}, "3.11")
    with pytest.raises(environment.PackError, match="no WHEEL tags"):
        environment.check_portable({"f": _FakeDist([])}, "3.11")


def _fake_paths(tmp_path: Path) -> dict[str, Path]:
    paths = {k: tmp_path / n for k, n in (("wheel", "c.whl"), ("py_files", "c.zip"), ("env", "crawlplan-env.tar.gz"))}
    for p in paths.values():
        p.write_bytes(b"x")
    return paths


def test_usage_lines_name_each_deploy_modes_pythons(tmp_path):
    lines = usage_lines(_fake_paths(tmp_path), jobs="jobs", driver_python="/opt/py/bin/python3")
    client, cluster = shlex.split(lines["client"]), shlex.split(lines["cluster"])
    # client mode: spark.pyspark.python alone would start the driver from ./environment too
    assert client[client.index("--deploy-mode") + 1] == "client"
    assert "spark.pyspark.python=./environment/bin/python" in client
    assert "spark.pyspark.driver.python=/opt/py/bin/python3" in client
    assert f"{tmp_path}/crawlplan-env.tar.gz#environment" in client
    # cluster mode (YARN, Kubernetes): both from the archive; Spark's docs: no driver Python set
    assert cluster[cluster.index("--deploy-mode") + 1] == "cluster"
    assert "spark.pyspark.python=./environment/bin/python" in cluster
    assert not any(a.startswith("spark.pyspark.driver.python") for a in cluster)
    assert cluster[-5:] == ["jobs/$NODE.py", "--output", "$OUT", "--profile", "cluster"]
    text = describe_usage(_fake_paths(tmp_path))
    assert "local mode (--master 'local[*]'): no archive" in text


@pytest.fixture(scope="module")
def env_archive(tmp_path_factory):
    """`crawlplan package --venv` of this venv, as a user runs it; (dist folder, printed text)."""
    dist = tmp_path_factory.mktemp("envdist")
    proc = crawlplan("package", "--out", str(dist), "--venv", sys.prefix, cwd=dist, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dist, proc.stdout


def _other_python() -> str:
    """A CPython of this minor version that is not this venv's: the distribution's if there is one."""
    for cand in (f"/usr/bin/python{PYTHON}", f"/usr/local/bin/python{PYTHON}"):
        if os.access(cand, os.X_OK) and Path(cand).resolve() != Path(sys._base_executable).resolve():
            return cand
    return sys._base_executable


@pytest.mark.slow
def test_archive_is_lean_and_runs_unpacked_elsewhere_on_another_python(env_archive, tmp_path):
    dist, printed = env_archive
    archive = dist / "crawlplan-env.tar.gz"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        tar.extractall(tmp_path / "unpacked", filter="data")
    assert not [m.name for m in members if m.issym() or m.islnk()]  # nothing points at this machine
    tops = {m.name.split("/")[0] for m in members}
    assert tops == {"bin", "lib", "crawlplan-env.json"}, tops
    shipped = {m.name.split("/")[3].split("-")[0].lower() for m in members if m.name.count("/") >= 4}
    assert not {"pyspark", "py4j", "pip", "setuptools", "pytest", "moto", "flask", "docker"} & shipped
    manifest = json.loads((dist / "crawlplan-env.json").read_text())
    assert manifest["python"] == PYTHON and "lxml-html-clean" in manifest["distributions"]
    assert f"{archive.stat().st_size / 1e6:.0f} MB, {len(manifest['distributions'])} distributions" in printed

    env_root = tmp_path / "unpacked"
    node_bin = tmp_path / "node-bin"  # the node's PATH: its python3.X, nothing of this venv
    node_bin.mkdir()
    (node_bin / f"python{PYTHON}").symlink_to(_other_python())
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    code = ("import json, sys, lxml, fasttext, trafilatura, pandas, pyarrow, fastwarc, resiliparse, pycld2\n"
            "print(json.dumps({'exe': sys.executable, 'mods': [m.__file__ for m in (lxml, fasttext, trafilatura)],"
            " 'spark': __import__('importlib.util').util.find_spec('pyspark') is not None}))")
    env = {"PATH": f"{node_bin}:/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([str(env_root / "bin" / "python"), "-c", code], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    assert got["exe"] == str(node_bin / f"python{PYTHON}")
    assert all(m.startswith(str(env_root.resolve()) + "/lib/") for m in got["mods"]), got
    # no interpreter that fits: exit 127 and say what the node needs
    bad = subprocess.run([str(env_root / "bin" / "python"), "-c", "1"], cwd=elsewhere, capture_output=True,
                         text=True, env={**env, "CRAWLPLAN_NODE_PYTHON": str(tmp_path / "missing")})
    assert bad.returncode == 127
    assert f"needs CPython {PYTHON} on" in bad.stderr and "$CRAWLPLAN_NODE_PYTHON" in bad.stderr


PROBE = r'''
import json, os, sys
from pyspark.sql import SparkSession

def where(_):
    import crawlplan, fasttext, lxml, trafilatura
    yield json.dumps({"exe": sys.executable, "env": os.environ.get("CRAWLPLAN_ENVIRONMENT", ""),
                      "mods": [m.__file__ for m in (lxml, fasttext, trafilatura)], "crawlplan": crawlplan.__file__})

spark = SparkSession.builder.getOrCreate()
print("PROBE" + json.dumps(spark.sparkContext.parallelize(range(2), 2).mapPartitions(where).collect()))
'''


@pytest.mark.slow
def test_printed_client_mode_line_runs_extract_on_the_standalone_cluster(spark_cluster, env_archive, tmp_path):
    """The client-mode line exactly as `crawlplan package --venv` prints it (MASTER, NODE, OUT set;
    the job's own arguments appended): extract's executors import trafilatura, lxml, fastText from
    the unpacked archive, on the nodes' interpreter, with crawlplan from the py-files zip."""
    dist, printed = env_archive
    line = next(ln.strip() for i, ln in enumerate(printed.splitlines())
                if ln.strip().startswith("spark-submit") and "client deploy mode" in printed.splitlines()[i - 1])
    warc = write_warc(tmp_path / "pages.warc.gz", [{"url": f"https://site{i}.example/page", "body": html_page(f"Page {i}")}
                                                  for i in range(4)])
    out = tmp_path / "out"
    bin_dir = str(Path(spark_submit_binary("spark-submit")).parent)
    env = {**cluster_env(), "MASTER": spark_cluster.master, "NODE": "extract", "OUT": str(out),
           "PATH": f"{bin_dir}:{os.environ['PATH']}", "SPARK_LOCAL_IP": "127.0.0.1",
           "CRAWLPLAN_CACHE": str(tmp_path / "cache")}
    job_args = f" --input {warc} --set spark.shuffle_partitions=2"
    proc = subprocess.run(["bash", "-c", line + job_args], cwd=dist, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    marker = json.loads((out / "_markers" / "extract.json").read_text())
    assert marker["rows"]["warc_files"] == 1 and marker["rows"]["documents"] >= 1, marker["rows"]

    # the same line with a probe for the job: where the executors' imports come from
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    probe_line = line[:line.index('/"$NODE".py')].rsplit(" ", 1)[0] + f" {probe}"
    proc = subprocess.run(["bash", "-c", probe_line], cwd=dist, env=env, capture_output=True, text=True, timeout=600)
    found = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), "")
    assert found, proc.stderr[-3000:]
    workers = [json.loads(w) for w in json.loads(found[len("PROBE"):])]
    node_python = Path(sys._base_executable).resolve()
    for w in workers:
        root = w["env"]
        assert root.startswith(str(spark_cluster.dir.resolve())) and root.endswith("/environment"), w
        assert all(m.startswith(root + "/lib/") for m in w["mods"]), w
        assert Path(w["exe"]).resolve() == node_python, w
        assert "crawlplan-0.1.0-py3-none-any.zip" in w["crawlplan"], w


DRIVER_PROBE = r'''
import json, os, sys
from pyspark.sql import SparkSession

def where(_):
    import lxml
    yield json.dumps({"exe": sys.executable, "env": os.environ.get("CRAWLPLAN_ENVIRONMENT", ""), "lxml": lxml.__file__})

import lxml, trafilatura
spark = SparkSession.builder.getOrCreate()
print("PROBE" + json.dumps({"driver": {"exe": sys.executable, "env": os.environ.get("CRAWLPLAN_ENVIRONMENT", ""),
                                       "mods": [lxml.__file__, trafilatura.__file__], "cwd": os.getcwd()},
                            "executors": spark.sparkContext.parallelize(range(2), 2).mapPartitions(where).collect()}))
'''


@pytest.mark.slow
def test_cluster_mode_line_with_its_driver_beside_the_archive_on_the_harness(spark_cluster, env_archive, tmp_path):
    """The cluster-mode line cannot run on a standalone master (Spark refuses cluster deploy mode
    for Python there, docs/cluster.md section 5), so its driver side is emulated as YARN and
    Kubernetes set it up: the archive unpacked as ./environment in the driver's working folder, and
    the line's one Python setting, spark.pyspark.python=./environment/bin/python, then applying to
    the driver too. The printed cluster-mode line, run with --deploy-mode client from such a folder:
    the driver runs the nodes' interpreter with the archive's packages, and extract succeeds."""
    dist, printed = env_archive
    line = next(ln.strip() for i, ln in enumerate(printed.splitlines())
                if ln.strip().startswith("spark-submit") and "cluster deploy mode" in printed.splitlines()[i - 1])
    assert "--deploy-mode cluster" in line and "spark.pyspark.driver.python" not in line
    line = line.replace("--deploy-mode cluster", "--deploy-mode client")
    environment = dist / "environment"          # the driver container's ./environment
    with tarfile.open(dist / "crawlplan-env.tar.gz") as tar:
        tar.extractall(environment, filter="data")
    try:
        bin_dir = str(Path(spark_submit_binary("spark-submit")).parent)
        out = tmp_path / "out"
        env = {**cluster_env(), "MASTER": spark_cluster.master, "NODE": "extract", "OUT": str(out),
               "PATH": f"{bin_dir}:{os.environ['PATH']}", "SPARK_LOCAL_IP": "127.0.0.1",
               "CRAWLPLAN_CACHE": str(tmp_path / "cache"), "CRAWLPLAN_NODE_PYTHON": _other_python()}
        probe = tmp_path / "probe.py"
        probe.write_text(DRIVER_PROBE)
        probe_line = line[:line.index('/"$NODE".py')].rsplit(" ", 1)[0] + f" {probe}"
        proc = subprocess.run(["bash", "-c", probe_line], cwd=dist, env=env, capture_output=True, text=True,
                              timeout=600)
        found = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), "")
        assert found, proc.stderr[-3000:]
        got = json.loads(found[len("PROBE"):])
        driver = got["driver"]
        assert driver["env"] == str(environment.resolve()), driver
        assert all(m.startswith(str(environment.resolve()) + "/lib/") for m in driver["mods"]), driver
        assert Path(driver["exe"]).resolve() == Path(_other_python()).resolve(), driver
        for w in map(json.loads, got["executors"]):
            assert w["env"].endswith("/environment") and w["lxml"].startswith(w["env"] + "/lib/"), w

        warc = write_warc(tmp_path / "pages.warc.gz", [{"url": f"https://site{i}.example/page",
                                                        "body": html_page(f"Page {i}")} for i in range(4)])
        proc = subprocess.run(["bash", "-c", line + f" --input {warc} --set spark.shuffle_partitions=2"], cwd=dist,
                              env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
        marker = json.loads((out / "_markers" / "extract.json").read_text())
        assert marker["rows"]["warc_files"] == 1 and marker["rows"]["documents"] >= 1, marker["rows"]
    finally:
        shutil.rmtree(environment, ignore_errors=True)
