"""Shared fixtures: one local SparkSession per test session, and the shared real data."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CRAWLPLAN_SHARED_DATA", REPO.parent / "shared" / "data"))


# fixtures that start servers or whole runs: a test using one is never in the quick tier
HEAVY_FIXTURES = {"spark_cluster", "spark_connect"}
# session fixtures a pytest-xdist worker would build again for itself, and the test files that use
# them, in two groups: test.sh's `--dist loadfile` runs each group on one worker
# (pytest_xdist_make_scheduler), so a server or the demo's reference run starts at most once per
# group. Two groups, because the server tests are the suite's critical path: the cluster group
# (the standalone cluster, its Airflow run) and the Connect group (the Connect server's runs) each
# take a worker of their own; the Connect group pays one more reference run, test_ops_targets_run
# one more Connect server.
SERVER_FIXTURES = HEAVY_FIXTURES | {"packaged", "demo_local_run"}
SERVER_GROUPS = {"tests/test_cluster.py": "servers: cluster", "tests/test_cluster_airflow.py": "servers: cluster",
                 "tests/test_env_archive.py": "servers: cluster", "tests/test_ops_targets_run.py": "servers: cluster",
                 "tests/test_connect.py": "servers: connect", "tests/test_connect_server.py": "servers: connect"}


def _test_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True, optionalhook=True)   # before pytest-xdist's own choice of scheduler
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with each of the ``SERVER_GROUPS`` as one file: whole files per worker (a
    module's fixtures are built once per run), the files of one server group all on one. (pytest-xdist's ``loadgroup``
    would say it with markers, but its group suffix is lost under pytest 9's node ids.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ServerGroupsOnOneWorkerEach(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return SERVER_GROUPS.get(_test_file(nodeid), _test_file(nodeid))

    return ServerGroupsOnOneWorkerEach(config, log)


def pytest_collection_modifyitems(config, items):
    """Every test that needs a SparkSession (directly or through another fixture) carries the
    ``spark`` marker, so ``-m "not spark"`` can be trusted without anyone remembering to mark.

    The quick tier (``./test.sh --quick``: ``not slow and (not spark or quick)``) runs the Spark
    tests marked ``quick``: tiny frames on the shared local session. A ``quick`` mark on a test that
    is also ``slow`` or uses a cluster or Connect server is a mistake the collection refuses, and so
    is a test using a server fixture outside the ``SERVER_GROUPS``' files. Under pytest-xdist
    (``--dist loadfile``) the server groups are scheduled first (one to each of the first workers),
    every worker sorting alike."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if {"spark", "spark_cluster"} & fixtures:
            item.add_marker(pytest.mark.spark)
        if item.get_closest_marker("quick") and (item.get_closest_marker("slow") or HEAVY_FIXTURES & fixtures):
            raise pytest.UsageError(f"{item.nodeid}: marked quick, but slow or on a cluster/Connect server")
        if SERVER_FIXTURES & fixtures and _test_file(item.nodeid) not in SERVER_GROUPS:
            raise pytest.UsageError(f"{item.nodeid}: uses {sorted(SERVER_FIXTURES & fixtures)}; add its file to "
                                    f"SERVER_GROUPS in tests/conftest.py (one xdist worker runs a group's files)")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # the server groups go first, the longer (cluster) first: each goes to a worker of its own,
        # and the workers fill in around them. (A worker's own `dist` option reads "no": xdist
        # resets it there, so the sort cannot ask for loadfile; every worker sorts alike.)
        items.sort(key=lambda item: SERVER_GROUPS.get(_test_file(item.nodeid), "~"))


def _spark_session_alive() -> bool:
    """Whether this process holds a classic SparkSession (without importing pyspark)."""
    session = sys.modules.get("pyspark.sql.session")
    return bool(session and getattr(session.SparkSession, "_instantiatedSession", None) is not None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A test that starts a SparkSession in this process (through the CLI's ``main``, say) without
    the ``spark`` marker would run in the quick tier and pay for a JVM there: it fails, naming the
    fix (take the ``spark`` fixture, whose session the code under test then reuses)."""
    before = _spark_session_alive()
    outcome = yield
    if not before and _spark_session_alive() and not item.get_closest_marker("spark") and outcome.excinfo is None:
        sys.modules["pyspark.sql.session"].SparkSession._instantiatedSession.stop()   # the next test starts clean
        pytest.fail(f"{item.nodeid} started a SparkSession without the spark marker: take the `spark` "
                    f"fixture (the code under test reuses its session)", pytrace=False)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real third-party test data not found at {SHARED_DATA} (../shared/data); "
                    f"set CRAWLPLAN_SHARED_DATA to its location")
    return SHARED_DATA


@pytest.fixture(scope="session")
def spark():
    from crawlplan.conf import load_conf
    from crawlplan.spark import build_session

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf = load_conf("local", overrides=["spark.master=local[2]", "spark.shuffle_partitions=2",
                                         "spark.driver_memory=2g"])
    session = build_session(conf, app_name="crawlplan-tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """A Spark standalone master and two workers on 127.0.0.1 (scripts/spark-cluster.sh), shared by
    the cluster tests and stopped by their process ids at the end of the session."""
    from cluster_support import java_missing, start_cluster, stop_cluster

    if java_missing():
        pytest.skip(java_missing())
    root = tmp_path_factory.mktemp("spark-cluster")
    cluster = start_cluster(root)
    try:
        yield cluster
    finally:
        stop_cluster(root)


@pytest.fixture(scope="session")
def spark_connect(tmp_path_factory) -> str:
    """A Spark Connect server on 127.0.0.1 (scripts/spark-connect.sh, local[2]) whose Python
    workers cannot import crawlplan; its sc:// URL. Stopped by its process id at the end of the
    session. Clients run in subprocesses: a Connect session switches this process's pyspark
    functions to Connect mode (SPARK_CONNECT_MODE_ENABLED), which the classic tests must not see."""
    from cluster_support import java_missing
    from connect_support import start_connect, stop_connect

    if java_missing():
        pytest.skip(java_missing())
    root = tmp_path_factory.mktemp("spark-connect")
    remote = start_connect(root)
    try:
        yield remote
    finally:
        stop_connect(root)


@pytest.fixture(scope="session")
def packaged(tmp_path_factory, spark_cluster):
    """`crawlplan package` output (the --py-files zip the cluster jobs run from)."""
    from cluster_support import crawlplan

    root = tmp_path_factory.mktemp("dist")
    proc = crawlplan("package", "--out", str(root), cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root


@pytest.fixture(scope="session")
def demo_local_run(tmp_path_factory):
    """`crawlplan run` in local mode on the demo crawl: the reference the cluster runs are compared
    with, and the trainer of the demo models they ship (conf, output folder)."""
    from cluster_support import crawlplan, demo_conf, write_yaml
    from demo_support import default_demo

    root = tmp_path_factory.mktemp("local-run")
    base = demo_conf(default_demo(tmp_path_factory), root / "models")
    started = time.monotonic()
    proc = crawlplan("run", "--conf", str(write_yaml(root / "run.yaml", base)), "--out", str(root / "out"), cwd=root)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"the main pipeline in local mode: {time.monotonic() - started:.0f} s")   # docs/cluster.md quotes it
    return base, root / "out"
