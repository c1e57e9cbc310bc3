"""Security checks: safe YAML and no eval, output paths that cannot leave their root, pinned
models verified before loading, and no credentials in markers, reports or logged commands."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlplan.conf import ConfError, load_conf
from crawlplan.security import REDACTED, redact, redact_args, safe_join, safe_name

LEASE = load_conf("local")["run"]["lease"]   # a runner's conf needs the output lease's settings

REPO = Path(__file__).resolve().parents[2]
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

BANNED_CALLS = {("yaml", "load"), ("yaml", "unsafe_load"), ("yaml", "full_load"), ("pickle", "load"),
                ("pickle", "loads"), ("marshal", "loads"), ("os", "system")}


def _python_files():
    for folder in ("crawlplan", "jobs", "bench"):
        yield from sorted((REPO / folder).rglob("*.py"))


def test_no_unsafe_yaml_eval_exec_or_pickle_in_the_code():
    found = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id in ("eval", "exec"):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {fn.id}()")
            if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and \
                    (fn.value.id, fn.attr) in BANNED_CALLS:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {fn.value.id}.{fn.attr}()")
            if any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} shell=True")
    assert found == []


def test_conf_yaml_cannot_construct_python_objects(tmp_path):
    marker = tmp_path / "pwned"
    user = tmp_path / "user.yaml"
    user.write_text(f"run:\n  out_dir: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises((ConfError, ValueError)):
        load_conf("local", str(user))
    # a --set value that is not safe YAML stays a plain string
    conf = load_conf("local", overrides=[f"run.out_dir=!!python/object/apply:os.system ['touch {marker}']"])
    assert isinstance(conf["run"]["out_dir"], str)
    assert not marker.exists()


# --- paths ----------------------------------------------------------------------------------

ODD_NAMES = ["../../etc/passwd", "..", ".", "a/b", "/abs", "x\\y", "x%2Fy", "ex ample.com", "日本.jp",
             "a" * 400, "", "con", "host:8080", ".hidden", "a\x00b"]


@given(st.text(min_size=0, max_size=300))
@settings(max_examples=300, deadline=None)
def test_safe_name_is_one_harmless_component(name):
    out = safe_name(name)
    assert "/" not in out and "\\" not in out and "\x00" not in out
    assert out not in ("", ".", "..") and not out.startswith(".")
    assert len(out) <= 150


@given(st.text(max_size=60), st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_safe_name_keeps_distinct_names_distinct(a, b):
    if a != b:
        assert safe_name(a) != safe_name(b)


def test_safe_name_of_the_empty_name_meets_no_real_name():
    """hypothesis found '' and '\x00' both named '%00'; the empty name now has a name no
    percent-encoding gives."""
    assert safe_name("") == "%empty"
    assert len({safe_name(n) for n in ("", "\x00", "%", "%empty", "%00")}) == 5


def test_safe_join_refuses_escapes(tmp_path):
    for name in ODD_NAMES:
        path = safe_join(tmp_path, safe_name(name) + ".json")
        assert Path(path).parent == tmp_path.resolve()
    for bad in ("../x", "a/../../x", "/etc/passwd"):
        with pytest.raises(ValueError, match="outside"):
            safe_join(tmp_path, bad)


@pytest.mark.spark
def test_partition_values_from_hostile_hosts_stay_under_the_dataset(spark, tmp_path):
    """Spark escapes partition values itself; write_dataset must keep every file under out/<dataset>."""
    from crawlplan import storage
    from crawlplan.schemas import schema_from_dict

    schema = schema_from_dict({"dataset": "hostile", "partition_by": ["site"], "columns": [
        {"name": "site", "type": "string", "nullable": False}, {"name": "n", "type": "long", "nullable": False}]})
    # partition directories are single path components: 255 bytes at most (DNS caps hosts at 253)
    names = [n for n in ODD_NAMES if n and "\x00" not in n and len(n) < 200] + ["a" * 240]
    df = spark.createDataFrame([(n, i) for i, n in enumerate(names)], "site string, n long")
    out = tmp_path / "out"
    storage.write_dataset(df, "hostile", str(out), schema=schema)
    root = (out / "hostile").resolve()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert path.resolve().is_relative_to(root) or path.resolve().is_relative_to(out / "_tmp"), path
    assert not (tmp_path / "etc").exists() and not Path("/abs").exists()
    back = {r.site: r.n for r in spark.read.parquet(str(out / "hostile")).collect()}
    assert back == {n: i for i, n in enumerate(names)}


def test_sitemap_json_names_are_encoded():
    assert safe_name("../../x") == "%2E.%2F..%2Fx"
    assert safe_name("docs.python.org") == "docs.python.org"


# --- models ---------------------------------------------------------------------------------

def _spec(tmp_path, sha):
    from crawlplan.classify.registry import load_registry

    model = tmp_path / "model.bin"
    model.write_bytes(b"not really a fastText model")
    conf = load_conf("local", overrides=[f"classify.model_dir={tmp_path / 'cache'}",
                                         f"classifiers.dclm.path={model}", f"classifiers.dclm.sha256={sha}"])
    return conf, load_registry(conf)["dclm"], str(model)


def test_wrong_sha256_is_refused_before_loading(tmp_path, monkeypatch):
    from crawlplan.classify import fasttext_model
    from crawlplan.classify.models import ModelError
    from crawlplan.classify.prepare import prepare_models

    loads = []
    monkeypatch.setattr(fasttext_model, "load_model", lambda *a, **k: loads.append(a), raising=False)
    conf, spec, path = _spec(tmp_path, "f" * 64)
    with pytest.raises(ModelError) as err:
        prepare_models([spec], conf, remote_exists=lambda p: False, echo=lambda *_: None)
    assert path in str(err.value) and "refusing to load" in str(err.value)
    assert loads == []


def test_right_sha256_passes(tmp_path):
    import hashlib

    from crawlplan.classify.models import check_pin

    model = tmp_path / "m.bin"
    model.write_bytes(b"x")
    conf, spec, path = _spec(tmp_path, hashlib.sha256(b"not really a fastText model").hexdigest())
    assert check_pin(spec, path) == "pinned, verified"


def test_missing_model_names_the_file_and_the_command(tmp_path):
    from crawlplan.classify.models import ModelError
    from crawlplan.classify.prepare import prepare_models
    from crawlplan.classify.registry import load_registry

    conf = load_conf("local", overrides=[f"classify.model_dir={tmp_path / 'none'}"])
    spec = load_registry(conf)["gneissweb_sci"]
    with pytest.raises(ModelError) as err:
        prepare_models([spec], conf, remote_exists=lambda p: False, echo=lambda *_: None)
    assert "fasttext_science.bin" in str(err.value) and "crawlplan models pull gneissweb_sci" in str(err.value)
    assert not (tmp_path / "none").exists() or not any((tmp_path / "none").rglob("*.bin"))


# --- credentials ----------------------------------------------------------------------------

def test_redact_covers_conf_trees_urls_and_args():
    conf = {"spark": {"conf": {"spark.hadoop.fs.s3a.secret.key": SECRET, "spark.hadoop.fs.s3a.access.key": "AKIA1",
                               "spark.hadoop.fs.s3a.aws.credentials.provider": "Env"}},
            "inputs": {"warc_paths": f"s3a://AKIA1:{SECRET}@commoncrawl/crawl-data/x.paths.gz"}}
    out = redact(conf)
    text = json.dumps(out)
    assert SECRET not in text and "AKIA1:" not in text.replace(f"AKIA1:{REDACTED}", "")
    assert out["spark"]["conf"]["spark.hadoop.fs.s3a.aws.credentials.provider"] == "Env"
    args = redact_args(["spark-submit", "--conf", f"spark.hadoop.fs.s3a.secret.key={SECRET}", "--conf",
                        "spark.executor.memory=4g"])
    assert SECRET not in " ".join(args) and "spark.executor.memory=4g" in args


def test_report_redacts_the_same_keys():
    from crawlplan.report.build import redact as report_redact

    text = json.dumps(report_redact({"spark": {"conf": {"spark.hadoop.fs.s3a.secret.key": SECRET,
                                                         "spark.hadoop.fs.s3a.session.token": SECRET}}}))
    assert SECRET not in text


@pytest.mark.spark
def test_markers_never_store_secrets(spark, tmp_path, monkeypatch):
    import dag_fake_jobs

    from crawlplan import storage
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import Runner
    from crawlplan.schemas import load_schema, schema_from_dict

    (tmp_path / "p.yaml").write_text(
        "name: s\nexternal: {warc_paths: x}\nnodes:\n  numbers:\n    job: 'dag_fake_jobs:numbers'\n"
        "    inputs: [warc_paths]\n    outputs: [numbers]\n"
        f"    params: {{n: 3, spark.hadoop.fs.s3a.secret.key: '{SECRET}', nested: {{api_token: '{SECRET}'}}}}\n")
    real = load_schema
    monkeypatch.setattr(storage, "load_schema", lambda name, schema_dir=None: schema_from_dict(
        {"dataset": "numbers", "columns": [{"name": "value", "type": "long", "nullable": False}]})
        if name == "numbers" else real(name, schema_dir))
    conf = {"run": {"progress_every_s": 0, "lease": LEASE}, "inputs": {"warc_paths": f"s3a://AKIA1:{SECRET}@bucket/p.gz"}}
    lines: list[str] = []
    Runner(spark, conf, str(tmp_path / "out"), echo=lambda m: lines.append(str(m))).run_pipeline(
        load_pipeline(str(tmp_path / "p.yaml")))
    marker = (tmp_path / "out" / "_markers" / "numbers.json").read_text()
    assert SECRET not in marker and SECRET not in "\n".join(lines)
    assert json.loads(marker)["params"]["n"] == 3
    assert dag_fake_jobs.CALLS[-1] == "numbers"


def test_overlong_hosts_are_no_hosts():
    from crawlplan import hosts

    assert hosts.host_of("http://" + "a" * 300 + ".com/") == ""
    assert hosts.host_of("http://" + "a" * 60 + ".com/") == "a" * 60 + ".com"
