"""Pipelines as data and the runner: order, skipping, forcing, atomic outputs, schema checks."""

import argparse
import json

import dag_fake_jobs
import pytest

from crawlplan import storage
from crawlplan.conf import ConfError, load_conf
from crawlplan.dag.entry import run_with_upstream
from crawlplan.dag.pipeline import describe, load_pipeline
from crawlplan.dag.runner import Runner
from crawlplan.schemas import load_schema, schema_from_dict

LEASE = load_conf("local")["run"]["lease"]   # a runner's conf needs the output lease's settings

PIPELINE = """
name: fake
external: {}
nodes:
  doubled:
    job: "dag_fake_jobs:doubled"
    inputs: [numbers]
    outputs: [doubled]
  numbers:
    job: "dag_fake_jobs:numbers"
    inputs: []
    outputs: [numbers]
    params: {n: 6}
"""

SCHEMAS = {
    "numbers": {"dataset": "numbers", "columns": [{"name": "value", "type": "long", "nullable": False}]},
    "doubled": {"dataset": "doubled", "columns": [{"name": "value", "type": "long", "nullable": False},
                                                 {"name": "tag", "type": "string", "nullable": False}]},
}


@pytest.fixture()
def fake(tmp_path, monkeypatch):
    path = tmp_path / "fake.yaml"
    path.write_text(PIPELINE)
    real = load_schema

    def fake_schema(name, schema_dir=None):
        return schema_from_dict(SCHEMAS[name]) if name in SCHEMAS else real(name, schema_dir)

    monkeypatch.setattr(storage, "load_schema", fake_schema)
    dag_fake_jobs.CALLS.clear()
    dag_fake_jobs.STATE["model"] = "absent"
    return load_pipeline(str(path))


def _runner(spark, out, conf=None):
    return Runner(spark, conf or {"run": {"progress_every_s": 0, "lease": LEASE}}, str(out), echo=lambda *_: None)


def test_topological_order_and_description(fake):
    assert fake.order() == ["numbers", "doubled"]
    assert fake.last() == ["doubled"] and fake.last(["numbers"]) == ["numbers"]
    assert fake.dependencies("doubled") == ["numbers"]
    assert "1. numbers" in describe(fake)


def test_cycles_and_unknown_inputs_are_rejected(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  a: {inputs: [y], outputs: [x]}\n  b: {inputs: [x], outputs: [y]}\n")
    with pytest.raises(ConfError, match="cycle"):
        load_pipeline(str(bad))
    bad.write_text("nodes:\n  a: {inputs: [nowhere], outputs: [x]}\n")
    with pytest.raises(ConfError, match="'nowhere'"):
        load_pipeline(str(bad))


def test_main_pipeline_loads():
    main = load_pipeline("main")
    assert main.order()[0] == "extract"


@pytest.mark.spark
def test_second_run_skips_and_params_invalidate(spark, fake, tmp_path):
    out = tmp_path / "out"
    first = _runner(spark, out).run_pipeline(fake)
    assert [first[n]["status"] for n in ("numbers", "doubled")] == ["ran", "ran"]
    assert spark.read.parquet(str(out / "doubled")).count() == 6
    marker = json.loads((out / "_markers" / "doubled.json").read_text())
    assert marker["rows"] == {"doubled": 6}

    # state the first run created itself (a trained demo model) does not force the second run
    assert dag_fake_jobs.STATE["model"] == "trained-during-run"
    second = _runner(spark, out).run_pipeline(fake)
    assert {v["status"] for v in second.values()} == {"skipped"}
    assert dag_fake_jobs.CALLS == ["numbers", "doubled"]
    # ...but a change of that state (real model pulled) does
    dag_fake_jobs.STATE["model"] = "real-model"
    third = _runner(spark, out).run_pipeline(fake)
    assert third["numbers"]["status"] == "ran" and third["doubled"]["status"] == "ran"

    # --only forces one node; its downstream stays skipped only if its fingerprint is unchanged
    _runner(spark, out).run_pipeline(fake, only="doubled")
    assert dag_fake_jobs.CALLS[-1] == "doubled" and len(dag_fake_jobs.CALLS) == 5
    forced = _runner(spark, out).run_pipeline(fake, start="numbers")
    assert [forced[n]["status"] for n in ("numbers", "doubled")] == ["ran", "ran"]

    # a param change re-runs that node and (through the fingerprint chain) its consumers
    changed = _runner(spark, out, {"run": {"progress_every_s": 0, "lease": LEASE}, "dag_fake_jobs:numbers": {"n": 9}})
    fake.nodes["numbers"].params.clear()
    result = changed.run_pipeline(fake)
    assert result["numbers"]["status"] == "ran" and result["doubled"]["status"] == "ran"
    assert spark.read.parquet(str(out / "doubled")).count() == 9


@pytest.mark.spark
def test_a_job_with_its_upstream_runs_them_in_one_application_and_skips_what_is_done(spark, fake, tmp_path):
    """``spark-submit jobs/NODE.py --with-upstream`` (``crawlplan submit --one-application``)."""
    out = str(tmp_path / "out")
    conf = {"run": {"progress_every_s": 0, "lease": LEASE}}
    args = argparse.Namespace(output=out, input=[], force=False, retry_failed=False)
    assert run_with_upstream(spark, conf, fake, "doubled", args) == 0
    assert dag_fake_jobs.CALLS == ["numbers", "doubled"]
    assert spark.read.parquet(f"{out}/doubled").count() == 6
    run_with_upstream(spark, conf, fake, "doubled", args)               # relaunched: both markers current
    assert dag_fake_jobs.CALLS == ["numbers", "doubled"]
    run_with_upstream(spark, conf, fake, "doubled", argparse.Namespace(**{**vars(args), "force": True}))
    assert dag_fake_jobs.CALLS == ["numbers", "doubled"] * 2


@pytest.mark.spark
@pytest.mark.quick
def test_failed_node_leaves_no_partial_output(spark, fake, tmp_path):
    out = tmp_path / "out"
    _runner(spark, out).run_pipeline(fake)
    before = sorted(r.value for r in spark.read.parquet(str(out / "doubled")).collect())
    failing = _runner(spark, out, {"run": {"progress_every_s": 0, "lease": LEASE}, "dag_fake_jobs:doubled": {"fail": True}})
    with pytest.raises(Exception, match="column 'tag' is null"):
        failing.run_pipeline(fake, only="doubled")
    after = sorted(r.value for r in spark.read.parquet(str(out / "doubled")).collect())
    assert after == before
    leftovers = list((out / "_tmp").glob("*")) if (out / "_tmp").exists() else []
    assert leftovers == []


@pytest.mark.spark
def test_schema_mismatch_names_the_column(spark, fake, tmp_path, monkeypatch):
    SCHEMAS["numbers"]["columns"][0]["type"] = "int"
    try:
        with pytest.raises(Exception, match="column 'value' has type bigint, schema says int"):
            _runner(spark, tmp_path / "o").run_pipeline(fake)
    finally:
        SCHEMAS["numbers"]["columns"][0]["type"] = "long"
    assert not (tmp_path / "o" / "numbers").exists()


def test_unset_external_inputs_do_not_fingerprint_the_working_directory(tmp_path, monkeypatch):
    from crawlplan.dag.runner import _external_fingerprint

    monkeypatch.chdir(tmp_path)
    (tmp_path / "noise.txt").write_text("changes between runs")
    assert _external_fingerprint("") == [] and _external_fingerprint(None) == []
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.parquet").write_bytes(b"x")
    assert _external_fingerprint(str(data))[0][0] == str(data)


# --- required and optional external inputs, checked before anything runs ----------------------

def test_missing_inputs_fail_the_run_before_it_starts_and_name_what_can_run():
    from crawlplan.dag.context import InputError
    from crawlplan.dag.runner import plan_run

    main = load_pipeline("main")
    conf = {"inputs": {"warc_paths": "crawl-data/*.warc.gz"}}
    with pytest.raises(InputError) as err:
        plan_run(main, conf)
    text = str(err.value)
    assert "inputs.web_graph: needed by host_graph" in text
    assert "inputs.host_index: needed by host_quality" in text
    assert "--until host_stats,sitemaps,simulate,allocate" in text
    # optional inputs never block: simulate and allocate run without a host index or a graph
    order, forced = plan_run(main, conf, until=["simulate", "allocate"])
    assert order == ["extract", "classify", "simulate", "allocate"] and forced == set()
    with pytest.raises(InputError, match="inputs.web_graph: needed by host_graph"):
        plan_run(main, conf, only="host_graph")
    with pytest.raises(KeyError, match="unknown node 'alocate'; did you mean 'allocate'"):
        plan_run(main, conf, until=["alocate"])


def test_until_with_from_forces_only_the_selected_part(fake):
    from crawlplan.dag.runner import plan_run

    assert plan_run(fake, {}, until=["numbers"]) == (["numbers"], set())
    assert plan_run(fake, {}, until=["doubled"], start="numbers") == (["numbers", "doubled"], {"numbers", "doubled"})
    with pytest.raises(ValueError, match="--from doubled: that node is not among the nodes --until selects"):
        plan_run(fake, {}, until=["numbers"], start="doubled")
    with pytest.raises(ValueError, match="--only and --until"):
        plan_run(fake, {}, only="numbers", until=["doubled"])


def test_optional_must_name_an_external_input_of_the_node(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("external: {src: x}\nnodes:\n  a: {inputs: [src], outputs: [x], optional: [src]}\n"
                   "  b: {inputs: [x], outputs: [y], optional: [x]}\n")
    with pytest.raises(ConfError, match="node 'b' lists 'x' as optional"):
        load_pipeline(str(bad))


def test_context_input_returns_none_only_for_optional_inputs():
    from crawlplan.dag.context import InputError, JobContext

    ctx = JobContext(spark=None, node="simulate", params={}, conf={}, out_dir=".", search_roots=[],
                     external={"host_index": "", "scores_path": None}, optional=frozenset({"host_index"}))
    assert ctx.input("host_index") is None
    with pytest.raises(InputError, match="node 'simulate' needs input 'scores_path'"):
        ctx.input("scores_path")
    with pytest.raises(InputError, match="reads input 'web_graph', which its entry in the pipeline file does not list"):
        ctx.input("web_graph")


@pytest.mark.spark
def test_runner_with_a_missing_input_writes_nothing(spark, tmp_path):
    from crawlplan.dag.context import InputError

    path = tmp_path / "needs.yaml"
    path.write_text(PIPELINE.replace("external: {}", "external: {src: a listing}")
                    .replace("inputs: []", "inputs: [src]"))
    with pytest.raises(InputError, match="inputs.src: needed by numbers"):
        _runner(spark, tmp_path / "out").run_pipeline(load_pipeline(str(path)))
    assert not (tmp_path / "out").exists()


@pytest.mark.spark
@pytest.mark.quick
def test_a_finished_job_is_answered_from_its_markers_without_starting_spark(spark, fake, tmp_path, monkeypatch):
    """A relaunch (an Airflow retry, ``spark-submit jobs/NODE.py`` again, ``crawlplan run`` on a
    finished output) reads the markers in this process: no SparkSession for a skipped node."""
    from crawlplan.dag import entry
    from crawlplan.dag.runner import up_to_date

    out = str(tmp_path / "out")
    conf = load_conf("local")
    _runner(spark, out, conf).run_pipeline(fake)
    assert up_to_date(conf, fake, ["numbers", "doubled"], out)
    assert not up_to_date({**conf, "dag_fake_jobs:doubled": {"tag": "y"}}, fake, ["doubled"], out)
    assert not up_to_date(conf, fake, ["numbers"], str(tmp_path / "elsewhere"))

    def no_spark(*_a, **_k):
        raise AssertionError("a SparkSession was started for a node whose marker is current")

    monkeypatch.setattr(entry, "build_session", no_spark)
    args = argparse.Namespace(profile="local", conf=None, overrides=[], pipeline=str(tmp_path / "fake.yaml"),
                              input=[], output=out, force=False, retry_failed=False, with_upstream=True)
    assert entry.run_job_from_args("doubled", args) == 0
    assert dag_fake_jobs.CALLS == ["numbers", "doubled"]
    with pytest.raises(AssertionError, match="SparkSession was started"):
        entry.run_job_from_args("doubled", argparse.Namespace(**{**vars(args), "force": True}))
