"""The client side of a Spark Connect run (crawlplan.connect), without a server: where the remote
comes from, which settings a client may send, the paths it hands the server, the package it ships."""

from __future__ import annotations

import json
import os
import zipfile

from crawlplan import connect
from crawlplan.conf import load_conf
from crawlplan.dag.arguments import conf_overrides


def test_the_remote_comes_from_the_conf_then_spark_remote_then_spark_submit(monkeypatch):
    for key in ("SPARK_REMOTE", "PYSPARK_REMOTE_INIT_CONF_LEN"):
        monkeypatch.delenv(key, raising=False)
    assert connect.remote_url(load_conf("local")) == ""
    monkeypatch.setenv("PYSPARK_REMOTE_INIT_CONF_LEN", "2")
    text = json.dumps({"spark.app.name": "extract.py", "spark.remote": "sc://submitted:15002"})
    monkeypatch.setenv("PYSPARK_REMOTE_INIT_CONF_0", text[:20])
    monkeypatch.setenv("PYSPARK_REMOTE_INIT_CONF_1", text[20:])
    assert connect.remote_url({}) == "sc://submitted:15002"
    monkeypatch.setenv("SPARK_REMOTE", "sc://from-env:15002")
    assert connect.remote_url({}) == "sc://from-env:15002"
    conf = load_conf("local", overrides=["spark.remote=sc://from-conf:443/;use_ssl=true"])
    assert connect.remote_url(conf) == "sc://from-conf:443/;use_ssl=true"


def test_remote_flag_becomes_the_conf_key_and_retry_failed_its_own():
    class Args:
        overrides = ["extract.extractor=resiliparse"]
        remote = "sc://127.0.0.1:15002"
        retry_failed = True

    assert conf_overrides(Args()) == ["extract.extractor=resiliparse", "spark.remote=sc://127.0.0.1:15002",
                                      "run.retry_failed=true"]


def test_only_session_settings_are_sent_to_a_server():
    sent = connect.session_settings({"spark.sql.session.timeZone": "UTC", "spark.driver.memory": "4g",
                                     "spark.executorEnv.PYSPARK_PYTHON": "/x", "spark.ui.showConsoleProgress": "false",
                                     "spark.master": "local[2]", "spark.sql.shuffle.partitions": "8"})
    assert sent == {"spark.sql.session.timeZone": "UTC", "spark.sql.shuffle.partitions": "8"}


def test_local_paths_reach_the_server_absolute_and_uris_unchanged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = {"inputs": {"warc_paths": "data/warc.paths.gz", "warc_base": "data/", "host_index": "s3://commoncrawl/x",
                       "web_graph": "", "cc_index": ["a", "/abs/b"], "www_min_names": 1000,
                       "gneissweb_annotations": "https://example.org/a.parquet"}}
    inputs = connect.absolute_inputs(conf)["inputs"]
    assert inputs["warc_paths"] == str(tmp_path / "data" / "warc.paths.gz")
    assert inputs["warc_base"] == str(tmp_path / "data") + "/"      # a base keeps its slash
    assert inputs["host_index"] == "s3://commoncrawl/x" and inputs["web_graph"] == ""
    assert inputs["cc_index"] == [str(tmp_path / "a"), "/abs/b"] and inputs["www_min_names"] == 1000
    assert inputs["gneissweb_annotations"] == "https://example.org/a.parquet"
    assert connect.absolute("out") == os.path.join(str(tmp_path), "out")
    assert connect.absolute("file:/x/out") == "file:/x/out"


def test_the_shipped_package_holds_the_code_and_its_resources(tmp_path):
    first = connect.package_zip(tmp_path)
    assert connect.package_zip(tmp_path) == first          # built once per code version
    with zipfile.ZipFile(first) as zf:
        names = set(zf.namelist())
    assert {"crawlplan/__init__.py", "crawlplan/connect.py", "crawlplan/_resources/conf/defaults.yaml",
            "crawlplan/_resources/pipelines/main.yaml"} <= names
    assert not any("__pycache__" in n for n in names)
