"""Classification without Spark: registry, fastText prediction under numpy 2, score rules,
preprocessing, the model cache (pins, missing files, offline pulls) and demo training."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from crawlplan.classify import fasttext_model as ftm
from crawlplan.classify import models
from crawlplan.classify.registry import SCORE_COLUMNS, load_registry, select
from crawlplan.classify.scoring import ModelRef, score_batch
from crawlplan.conf import ConfError, load_conf
from crawlplan.demo.models import train_demo, train_one

_HQ = ["the theory of {a} explains how {b} shapes the {c} of living cells",
       "researchers measured the {a} of {b} across many careful {c} experiments",
       "this chapter describes the history of {a} and its influence on {b} and {c}"]
_CC = ["buy cheap {a} now click here for free {b} bonus {c}",
       "best {a} deals limited offer win {b} casino {c} today",
       "hot {a} singles click subscribe like share {b} {c} giveaway"]
_WORDS = ["energy", "proteins", "climate", "rivers", "language", "markets", "stars", "cells", "history"]


def synthetic(labels: tuple[str, ...], n: int, seed: int) -> list[tuple[str, str]]:
    """Separable toy texts in a label scheme (hq/cc or 0..5) for tests independent of crawlplan.demo."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = labels[i % len(labels)]
        good = label in ("__label__hq",) or label[-1] in "345"
        template = rng.choice(_HQ if good else _CC)
        lines = [template.format(a=rng.choice(_WORDS), b=rng.choice(_WORDS), c=rng.choice(_WORDS))
                 for _ in range(rng.randint(1, 3))]
        out.append((label, "\n".join(lines)))
    return out


@pytest.fixture(scope="module")
def conf(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return load_conf("local", overrides=[f"classify.model_dir={root}", "classify.demo.docs_per_model=300",
                                         "classify.demo.bucket=20000", "classify.demo.epoch=5"])


@pytest.fixture(scope="module")
def registry(conf):
    return load_registry(conf)


@pytest.fixture(scope="module")
def trained(conf, registry):
    """dclm (hq/cc) and fineweb_edu (0..5) demo models trained on synthetic text."""
    specs = [registry["dclm"], registry["fineweb_edu"]]
    paths = train_demo(specs, conf, texts_fn=lambda name, n, seed: synthetic(registry[name].labels, n, seed),
                       echo=lambda *_: None)
    return {name: ftm.FastTextScorer(registry[name], path) for name, path in paths.items()}


# --- registry -------------------------------------------------------------------------------

def test_registry_has_the_papers_ten_with_real_sources(registry):
    fasttext = [s for s in registry.values() if s.kind == "fasttext"]
    assert [s.column for s in fasttext] == list(SCORE_COLUMNS)
    assert registry["dclm"].hf_repo == "mlfoundations/fasttext-oh-eli5"
    assert registry["dclm"].file == "openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train.bin"
    assert registry["fineweb_edu"].hf_repo == "kenhktsui/fineweb-edu-fasttext-classifier"
    assert registry["fineweb_edu"].labels == tuple(f"__label__{i}" for i in range(6))
    assert registry["fineweb_edu"].score == "expected_label"
    assert registry["gneissweb_med"].file == "fasttext_medical.bin"
    assert registry["gneissweb_tech"].hf_repo == "ibm-granite/GneissWeb.Tech_classifier"
    for name in ("nemotron_quality", "nemotron_edu", "nemotron_info"):
        assert registry[name].user_supplied
        assert "user-supplied" in registry[name].note
    for s in fasttext:
        assert s.newlines == " "
        if s.score == "top1_positive":
            assert s.labels == ("__label__hq", "__label__cc") and s.positive_label == "__label__hq"
    assert {s.name for s in registry.values() if s.kind == "transformer"} == {"jql_edu", "fineweb2_hq"}


def test_registry_rejects_bad_entries():
    base = {"kind": "fasttext", "labels": ["__label__hq", "__label__cc"], "score": "top1_positive",
            "positive_label": "__label__hq", "column": "dclm"}
    with pytest.raises(ConfError, match="score"):
        load_registry({"classifiers": {"dclm": {**base, "score": "mean"}}})
    with pytest.raises(ConfError, match="positive_label"):
        load_registry({"classifiers": {"dclm": {**base, "positive_label": "__label__x"}}})
    with pytest.raises(ConfError, match="sha256"):
        load_registry({"classifiers": {"dclm": {**base, "sha256": "abc"}}})
    with pytest.raises(ConfError, match="not a score column"):
        load_registry({"classifiers": {"dclm": {**base, "column": "quality"}}})
    with pytest.raises(ConfError, match="integer labels"):
        load_registry({"classifiers": {"fineweb_edu": {**base, "column": "fineweb_edu",
                                                       "score": "expected_label", "max_label": 5}}})


def test_select_subset_and_default(registry):
    assert [s.name for s in select(registry, ["gneissweb_med", "dclm", "dclm"])] == ["gneissweb_med", "dclm"]
    assert len(select(registry, [])) == 10
    with pytest.raises(ConfError, match="unknown classifier 'dlcm'"):
        select(registry, ["dlcm"])


def test_conf_override_reaches_registry_entries():
    conf = load_conf("local", overrides=["classifiers.nemotron_edu.path=/models/nemo_edu.bin"])
    spec = load_registry(conf)["nemotron_edu"]
    assert spec.path == "/models/nemo_edu.bin" and not spec.user_supplied
    assert models.model_path(spec, conf) == "/models/nemo_edu.bin"


# --- preprocessing and score rules ----------------------------------------------------------

def test_preprocess_newlines_strip_truncate():
    assert ftm.preprocess("  a\nb\r\nc  ", " ", True) == ("a b c", False)
    assert ftm.preprocess("a\nb", "", True) == ("ab", False)
    text, cut = ftm.preprocess("x" * 50, " ", True, max_chars=10)
    assert text == "x" * 10 and cut
    assert ftm.preprocess("ok", " ", True, max_chars=10) == ("ok", False)


def test_top1_rule_reads_negative_label_as_complement(registry):
    spec = registry["dclm"]
    assert ftm.score_predictions([("__label__hq", 0.8)], spec) == pytest.approx(0.8)
    assert ftm.score_predictions([("__label__cc", 0.8)], spec) == pytest.approx(0.2)
    # fastText's softmax can come out just above 1: clipped
    assert ftm.score_predictions([("__label__hq", 1.00001)], spec) == 1.0
    assert ftm.score_predictions([("__label__cc", 1.00001)], spec) == 0.0
    with pytest.raises(ftm.ScoringError):
        ftm.score_predictions([], spec)
    with pytest.raises(ftm.ScoringError):
        ftm.score_predictions([("__label__hq", float("nan"))], spec)


def test_expected_label_rule_uses_full_distribution(registry):
    spec = registry["fineweb_edu"]
    pairs = [("__label__3", 0.5), ("__label__5", 0.25), ("__label__0", 0.25)]
    assert ftm.score_predictions(pairs, spec) == pytest.approx((3 * 0.5 + 5 * 0.25) / 5)
    assert ftm.score_predictions([("__label__5", 1.00001)], spec) == 1.0


# --- fastText under numpy 2 -----------------------------------------------------------------

def test_numpy2_python_predict_is_broken_and_binding_works(trained):
    """Documents why crawlplan predicts through model.f.predict (fasttext-wheel 0.9.2 + numpy 2)."""
    model = trained["dclm"].model
    assert int(np.__version__.split(".")[0]) >= 2
    with pytest.raises(ValueError):
        model.predict("the theory of energy")  # np.array(..., copy=False) under numpy 2
    pairs = ftm.predict(model, "the theory of energy", k=-1)
    assert sorted(lab for lab, _ in pairs) == ["__label__cc", "__label__hq"]
    assert sum(p for _, p in pairs) == pytest.approx(1.0, abs=1e-4)
    # same call as the wrapper makes: text plus the newline it appends
    raw = model.f.predict("the theory of energy\n", -1, 0.0, "strict")
    assert [(lab, p) for p, lab in raw] == pairs


def test_trained_models_separate_their_classes(trained):
    dclm, edu = trained["dclm"], trained["fineweb_edu"]
    good = "researchers measured the energy of proteins across many careful climate experiments"
    bad = "buy cheap energy now click here for free stars bonus cells"
    assert dclm.score(good) > 0.8 > 0.2 > dclm.score(bad)
    assert edu.score(good) > edu.score(bad)
    for s in (dclm.score(good), dclm.score(bad), edu.score(good), edu.score(bad)):
        assert 0.0 <= s <= 1.0


def test_odd_input_gets_a_score_not_a_crash(trained):
    scorer = trained["dclm"]
    for text in ["\u0000\u0001 control", "emoji 🧬🔬 and CJK 光合作用", "\ud800 lone surrogate", "\u200b\u2028x",
                 "a" * 5000]:
        value = scorer.score(text, max_chars=1000)
        assert 0.0 <= value <= 1.0 and math.isfinite(value)
    with pytest.raises(ftm.ScoringError, match="one line"):
        ftm.predict(scorer.model, "two\nlines")


def test_label_scheme_mismatch_is_refused(trained, registry):
    with pytest.raises(ftm.ScoringError, match="predicts labels"):
        ftm.FastTextScorer(registry["gneissweb_sci"], trained["fineweb_edu"].path)


# --- batches --------------------------------------------------------------------------------

def test_score_batch_rejects_empty_and_flags_truncation(trained):
    import pandas as pd

    refs = [ModelRef(spec=s.spec, path=s.path, key="k") for s in trained.values()]
    pdf = pd.DataFrame({"record_id": ["a", "b", "c", "d"],
                        "text": ["the theory of energy\nexplains cells", "   \n\t", "", "stars " * 100]})
    out = score_batch(pdf, refs, max_chars=50, keep=["record_id"])
    assert list(out["_reject_reason"].fillna("")) == ["", "empty_text", "empty_text", ""]
    assert list(out["_truncated"]) == [False, False, False, True]
    assert out.loc[1, "dclm"] is pd.NA and out.loc[2, "fineweb_edu"] is pd.NA
    direct = trained["dclm"].score("the theory of energy\nexplains cells", max_chars=50)
    assert abs(out.loc[0, "dclm"] - direct) < 1e-6  # projected engine (float64) vs fastText (float32)


def test_score_batch_isolates_a_failing_document(trained, monkeypatch):
    import pandas as pd

    scorer = ftm.FastTextScorer(trained["dclm"].spec, trained["dclm"].path, engine="fasttext")
    refs = [ModelRef(spec=scorer.spec, path=scorer.path, key="k", engine="fasttext")]
    original = scorer.score_preprocessed

    def flaky(text):
        if "poison" in text:
            raise RuntimeError("boom")
        return original(text)

    monkeypatch.setattr(scorer, "score_preprocessed", flaky)
    from crawlplan.classify import scoring

    monkeypatch.setitem(scoring._MODELS, (scorer.path, "k", "fasttext"), scorer)
    pdf = pd.DataFrame({"text": ["fine text about energy", "poison pill", "more text"]})
    out = score_batch(pdf, refs, max_chars=0, keep=[])
    assert list(out["_reject_reason"].fillna("")) == ["", "classify_error", ""]
    assert "dclm: RuntimeError: boom" in out.loc[1, "_reject_detail"]
    assert out["dclm"].notna().tolist() == [True, False, True]


# --- model cache ----------------------------------------------------------------------------

def test_demo_marker_and_status(trained, registry, conf):
    st = models.status(registry["dclm"], conf)
    assert st.present and st.demo and st.size > 0 and st.pin == "unpinned"
    marker = json.loads(open(st.path + models.DEMO_SUFFIX).read())
    assert marker["demo"] and "not real quality" in marker["warning"]
    assert not models.status(registry["gneissweb_med"], conf).present


def test_pin_mismatch_refused_before_loading(tmp_path, registry):
    from dataclasses import replace

    path = tmp_path / "model.bin"
    path.write_bytes(b"not the pinned model")
    good = __import__("hashlib").sha256(b"not the pinned model").hexdigest()
    assert models.check_pin(replace(registry["dclm"], sha256=good), str(path)) == "pinned, verified"
    with pytest.raises(models.ModelError, match="refusing to load"):
        models.check_pin(replace(registry["dclm"], sha256="0" * 64), str(path))
    assert models.status(replace(registry["dclm"], sha256="0" * 64, path=str(path)), {}).pin == "PIN MISMATCH"


def test_missing_model_error_names_file_and_pull_command(registry, conf):
    err = models.missing_model_error(registry["gneissweb_sci"], "/x/fasttext_science.bin")
    assert "/x/fasttext_science.bin" in str(err) and "crawlplan models pull gneissweb_sci" in str(err)
    err = models.missing_model_error(registry["nemotron_info"], "/x/model.bin")
    assert "classifiers.nemotron_info.path" in str(err)


def test_pull_offline_fails_clearly_and_keeps_demo_model(trained, registry, conf, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", True, raising=False)
    spec = registry["dclm"]
    path = models.cache_path(spec, conf)
    before = open(path, "rb").read()
    with pytest.raises(models.ModelError, match="pull dclm failed"):
        models.pull(spec, conf, echo=lambda *_: None)
    assert open(path, "rb").read() == before and models.demo_marker(path)
    with pytest.raises(models.ModelError, match="no public model"):
        models.pull(registry["nemotron_quality"], conf)


def test_train_one_refuses_foreign_labels(registry, tmp_path):
    with pytest.raises(models.ModelError, match="not in its scheme"):
        train_one(registry["dclm"], [("__label__3", "text"), ("__label__hq", "x")], str(tmp_path / "m.bin"))


def test_train_demo_from_the_demo_generator(registry, tmp_path):
    """The real demo text (crawlplan.demo.text.labelled_texts) trains all label schemes."""
    conf = load_conf("local", overrides=[f"classify.model_dir={tmp_path}", "classify.demo.docs_per_model=200",
                                         "classify.demo.bucket=10000", "classify.demo.epoch=3"])
    specs = [registry["fineweb_edu"], registry["gneissweb_sci"]]
    paths = train_demo(specs, conf, echo=lambda *_: None)
    for spec in specs:
        scorer = ftm.FastTextScorer(spec, paths[spec.name])
        assert set(ftm.model_labels(scorer.model)) <= set(spec.labels)
        assert models.demo_marker(paths[spec.name])["classifier"] == spec.name
    # A real (unmarked) model is never overwritten by demo training.
    real = models.cache_path(specs[1], conf)
    (tmp_path / "gneissweb_sci" / ("fasttext_science.bin" + models.DEMO_SUFFIX)).unlink()
    mtime = (tmp_path / "gneissweb_sci" / "fasttext_science.bin").stat().st_mtime_ns
    train_demo([specs[1]], conf, force=True, echo=lambda *_: None)
    assert (tmp_path / "gneissweb_sci" / "fasttext_science.bin").stat().st_mtime_ns == mtime
    assert real.endswith("gneissweb_sci/fasttext_science.bin")


# --- transformer kind (pure parts; the models need torch and are optional) -------------------

def test_transformer_score_rules(registry):
    from crawlplan.classify.transformer import score_from_output

    jql = registry["jql_edu"]
    assert score_from_output([2.5], jql) == pytest.approx(0.5)
    assert score_from_output([5.7], jql) == 1.0 and score_from_output([-0.3], jql) == 0.0
    hq = registry["fineweb2_hq"]
    assert score_from_output([0.0, 0.0], hq) == pytest.approx(0.5)
    assert score_from_output([0.0, math.log(3.0)], hq) == pytest.approx(0.75)
    assert score_from_output([0.0], hq) == pytest.approx(0.5)  # one logit: sigmoid
    with pytest.raises(ValueError):
        score_from_output([], hq)


def test_transformer_entries_are_folders_and_never_default(registry, conf):
    spec = registry["jql_edu"]
    assert models.cache_path(spec, conf).endswith("/jql_edu")
    assert spec.name not in {s.name for s in select(registry, None)}
    st = models.status(spec, conf)
    assert not st.present and st.source == "hf://JQL-AI/JQL-Edu-Heads"


# --- CLI ------------------------------------------------------------------------------------

def test_models_cli_list_train_demo_and_offline_pull(tmp_path, capsys, monkeypatch):
    from crawlplan.cli import main

    sets = ["--set", f"classify.model_dir={tmp_path}", "--set", "classify.demo.docs_per_model=100",
            "--set", "classify.demo.bucket=5000", "--set", "classify.demo.epoch=2"]
    assert main(["models", "train-demo", "dclm", "gneissweb_med", *sets]) == 0
    capsys.readouterr()
    assert main(["models", "list", *sets]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line and line.split()[0] in
             {"dclm", "gneissweb_med", "fineweb_edu", "nemotron_info"}}
    assert " demo " in lines["dclm"] and " demo " in lines["gneissweb_med"]
    assert " missing " in lines["fineweb_edu"] and "user-supplied" in lines["nemotron_info"]
    assert "not real quality" in out
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", True, raising=False)
    assert main(["models", "pull", "gneissweb_med", "dclm", *sets]) == 1
    err = capsys.readouterr().err
    assert "pull gneissweb_med failed" in err and "skipped dclm: the Hub is unreachable" in err
    assert main(["models", "pull", "no_such_model", *sets]) == 2


def test_demo_allowed_and_distribution_choice(trained):
    from crawlplan.classify.prepare import demo_allowed
    from crawlplan.classify.spark_scoring import choose_distribution

    assert demo_allowed("auto", "local[2]") and not demo_allowed("auto", "yarn")
    assert demo_allowed(True, "yarn") and not demo_allowed("false", "local[*]")
    with pytest.raises(ValueError):
        demo_allowed("maybe", "local")
    local_ref = ModelRef(spec=trained["dclm"].spec, path="/models/dclm/x.bin", key="k")
    remote_ref = ModelRef(spec=trained["dclm"].spec, path="s3a://bucket/models/dclm/x.bin", key="k")
    assert choose_distribution("auto", [local_ref], "local[2]") == "shared"
    assert choose_distribution("auto", [local_ref], "yarn") == "addfile"
    assert choose_distribution("auto", [local_ref, remote_ref], "local[2]") == "addfile"
    assert choose_distribution("shared", [local_ref], "yarn") == "shared"
    with pytest.raises(ValueError, match="remote filesystem"):
        choose_distribution("shared", [remote_ref], "yarn")
    with pytest.raises(ValueError):
        choose_distribution("scp", [local_ref], "local")


def test_node_fingerprint_sees_real_models_not_demo_training(trained, conf, tmp_path):
    from crawlplan.nodes.classify import fingerprint

    params = {"models": ["dclm", "gneissweb_sci"]}
    fp = fingerprint(params, conf)
    assert fp[0][2] == "demo" and fp[1][2] == "demo"  # a demo model and a missing one: alike
    real = tmp_path / "sci.bin"
    real.write_bytes(b"x" * 10)
    conf2 = load_conf("local", overrides=[f"classify.model_dir={conf['classify']['model_dir']}",
                                          f"classifiers.gneissweb_sci.path={real}"])
    assert fingerprint(params, conf2)[1][2:] == [10, real.stat().st_mtime_ns]


def test_a_demo_marker_does_not_switch_a_pin_off(tmp_path):
    import hashlib
    import json as _json

    from crawlplan.classify.models import ModelError, check_pin
    from crawlplan.classify.registry import ClassifierSpec

    model = tmp_path / "model.bin"
    model.write_bytes(b"tampered")
    (tmp_path / "model.bin.demo.json").write_text(_json.dumps({"demo": True}))
    fields = {f: None for f in ClassifierSpec.__dataclass_fields__}
    pinned = ClassifierSpec(**{**fields, "name": "dclm", "kind": "fasttext", "path": str(model), "file": "",
                               "sha256": hashlib.sha256(b"real").hexdigest()})
    with pytest.raises(ModelError, match="refusing to load"):
        check_pin(pinned, str(model))


def test_an_unquoted_numeric_sha256_is_an_error():
    from crawlplan.classify.registry import load_registry
    from crawlplan.conf import ConfError, load_conf

    conf = load_conf("local")
    conf["classifiers"]["dclm"]["sha256"] = 1234567890
    with pytest.raises(ConfError, match="quoted string"):
        load_registry(conf)


def test_remote_models_ship_where_they_are_under_names_that_do_not_collide(registry):
    """hdfs:// and s3a:// models are added by Spark from where they are: a unique file name as the
    file; a name several models share (model.bin) as its <classifier> folder (the cache layout);
    a shared name outside that layout is refused with what to do."""
    from types import SimpleNamespace

    from crawlplan.classify.spark_scoring import ship

    added = []
    sc = SimpleNamespace(addFile=lambda path, recursive=False: added.append((path, recursive)))
    spark = SimpleNamespace(sparkContext=sc)
    shared = [s for s in registry.values() if s.file == "model.bin"][:2]
    unique = next(s for s in registry.values() if s.file and s.file != "model.bin")
    refs = [ModelRef(spec=s, path=f"hdfs://nn/models/{s.name}/model.bin", key="remote") for s in shared]
    refs.append(ModelRef(spec=unique, path=f"s3a://bucket/models/{unique.file}", key="remote"))
    shipped = ship(spark, refs, "hdfs://nn/models")
    assert added == [(f"hdfs://nn/models/{shared[0].name}", True), (f"hdfs://nn/models/{shared[1].name}", True),
                     (f"s3a://bucket/models/{unique.file}", False)]
    assert [(r.ship_dir, r.ship_file) for r in shipped] == [(shared[0].name, ""), (shared[1].name, ""),
                                                            ("", unique.file)]
    flat = [ModelRef(spec=s, path=f"s3a://bucket/flat{i}/model.bin", key="remote") for i, s in enumerate(shared)]
    with pytest.raises(ValueError, match="<classifier>/model.bin"):
        ship(spark, flat, "hdfs://nn/models")
