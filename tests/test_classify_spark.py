"""The classify node on Spark: scores equal a direct single-process fastText call, models load
once per worker process, bad documents become counted rejects, missing models fail clearly."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from crawlplan import storage
from crawlplan.classify.fasttext_model import load_fasttext
from crawlplan.classify.registry import SCORE_COLUMNS, load_registry
from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import run_single_job
from crawlplan.schemas import load_schema

pytestmark = pytest.mark.spark

TEXTS = [
    "The theory of photosynthesis explains how plants convert light into chemical energy.\n"
    "Researchers measured the rate across many careful experiments.",
    "Buy cheap watches now! Click here for a free bonus.\nLimited offer, subscribe today!",
    "Die Theorie erklärt, wie Pflanzen Licht in chemische Energie umwandeln.",
    "emoji 🧬🔬 光合作用 \u0000 control \u200b zero-width and \u2028 separators",
    "  \n\t  ",                                   # whitespace only: rejected as empty_text
    "history of science " * 3000,                # 57k chars: truncated at max_chars
    "",                                           # empty: rejected
    "short",
]
MAX_CHARS = 5000


def _doc(i: int, text: str) -> dict:
    host = f"host{i % 3}.example.org"
    return {
        "record_id": f"<urn:uuid:{i:08d}>", "url": f"https://{host}/page/{i}", "host": host,
        "surt_host_name": f"org,example,host{i % 3}", "rev_host": f"org.example.host{i % 3}",
        "registered_domain": "example.org", "tld": "org", "crawl": "CC-MAIN-2024-10",
        "warc_file": "crawl-data/x.warc.gz", "offset": 1000 * i, "fetch_time": datetime(2024, 3, 1),
        "status": 200, "content_type": "text/html", "charset": "utf-8", "language": "en",
        "language_confidence": 0.9, "text": text, "text_length": len(text), "extractor": "trafilatura",
    }


@pytest.fixture(scope="module")
def model_root(tmp_path_factory):
    return tmp_path_factory.mktemp("classify-models")


def _conf(model_root, *extra):
    return load_conf("local", overrides=[
        f"classify.model_dir={model_root}", "classify.demo.docs_per_model=200", "classify.demo.bucket=20000",
        "classify.demo.epoch=3", f"classify.max_chars={MAX_CHARS}", "classify.batch_size=3", *extra])


@pytest.fixture(scope="module")
def docs_dir(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("classify-docs"))
    schema = load_schema("documents")
    df = spark.createDataFrame([_doc(i, t) for i, t in enumerate(TEXTS)], schema.struct()).repartition(3)
    storage.write_dataset(df, "documents", root)
    return root


def _run(spark, conf, docs_dir, out):
    return run_single_job(spark, conf, load_pipeline("main"), "classify", [docs_dir], str(out), force=True,
                          echo=lambda *_: None)


@pytest.fixture(scope="module")
def full_run(spark, model_root, docs_dir, tmp_path_factory):
    """The node with no models present: demo models are trained, then every document scored."""
    out = tmp_path_factory.mktemp("classify-out")
    conf = _conf(model_root)
    result = _run(spark, conf, docs_dir, out)
    return conf, out, result


def _reference(spec, path: str, text: str) -> float:
    """Independent single-process fastText call: the anchors' preprocessing and score rules,
    written out here rather than imported, through the binding the Python wrapper uses."""
    model = load_fasttext(path)
    clean = text.strip().replace("\r\n", "\n").replace("\n", " ")[:MAX_CHARS]
    pairs = [(label, prob) for prob, label in model.f.predict(clean + "\n", -1, 0.0, "strict")]
    if spec.score == "expected_label":
        value = sum(int(label[len("__label__"):]) * prob for label, prob in pairs) / 5.0
    else:
        label, prob = pairs[0]
        value = prob if label == "__label__hq" else 1.0 - prob
    return min(1.0, max(0.0, value))


def test_scores_equal_direct_fasttext_calls(spark, full_run):
    conf, out, result = full_run
    scores = spark.read.parquet(str(out / "scores")).toPandas().set_index("record_id")
    assert len(scores) == 6 and result["rows"]["scores"] == 6
    registry = load_registry(conf)
    compared = 0
    for i, text in enumerate(TEXTS):
        rid = f"<urn:uuid:{i:08d}>"
        if not text.strip():
            assert rid not in scores.index
            continue
        row = scores.loc[rid]
        assert row["host"] == f"host{i % 3}.example.org" and row["surt_host_name"].startswith("org,example")
        for column in SCORE_COLUMNS:
            spec = registry[column]
            path = str(conf["classify"]["model_dir"]) + f"/{column}/{spec.file}"
            expected = _reference(spec, path, text)
            assert abs(row[column] - expected) <= 1e-6, (column, i, row[column], expected)
            compared += 1
    assert compared == 6 * 10


@pytest.mark.quick
def test_bad_input_is_counted_and_demo_noted(spark, full_run):
    conf, out, result = full_run
    rejects = spark.read.parquet(str(out / "classify_rejects")).toPandas()
    assert sorted(rejects["record_id"]) == ["<urn:uuid:00000004>", "<urn:uuid:00000006>"]
    assert set(rejects["reason"]) == {"empty_text"} and set(rejects["stage"]) == {"classify"}
    assert set(rejects["warc_file"]) == {"crawl-data/x.warc.gz"}
    marker = json.loads((out / "_markers" / "classify.json").read_text())
    counters = marker["counters"]
    assert counters["documents_in"] == 8 and counters["scored"] == 6
    assert counters["rejected_empty_text"] == 2 and counters["truncated"] == 1
    assert counters["demo_models"] == 10 and counters["classifiers"] == 10
    assert any("DEMO MODELS: SCORES ARE NOT REAL QUALITY" in n for n in marker["notes"])
    assert spark.read.parquet(str(out / "scores_extra")).count() == 0


@pytest.mark.quick
def test_models_load_once_per_worker_process(spark, full_run):
    """Many small Arrow batches over several tasks: each process loads each model once."""
    conf, _, _ = full_run
    from crawlplan.classify import scoring
    from crawlplan.classify.prepare import prepare_models
    from crawlplan.classify.registry import select

    refs, _ = prepare_models(select(load_registry(conf), ["dclm", "fineweb_edu"]), conf,
                             remote_exists=lambda p: False)
    texts = [(f"r{i}", f"text number {i} about energy and cells") for i in range(60)]
    df = spark.createDataFrame(texts, "record_id string, text string").repartition(6)

    def fn(batches):
        import pandas as pd

        for pdf in batches:
            before = scoring.load_count()
            scored = scoring.score_batch(pdf, refs, 0, ["record_id"])
            n = len(scored)
            yield pd.DataFrame({"pid": [os.getpid()] * n, "before": [before] * n,
                                "after": [scoring.load_count()] * n, "dclm": scored["dclm"].astype(float)})

    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    spark.conf.set(key, "4")
    try:
        rows = df.mapInPandas(fn, "pid long, before long, after long, dclm double").collect()
    finally:
        spark.conf.unset(key)
    assert len(rows) == 60 and all(0.0 <= r["dclm"] <= 1.0 for r in rows)
    pids = {r["pid"] for r in rows}
    batches = {pid: len({(r["before"], r["after"]) for r in rows if r["pid"] == pid}) for pid in pids}
    assert sum(1 for r in rows) / 4 >= 15
    for pid in pids:
        mine = [r for r in rows if r["pid"] == pid]
        new_loads = max(r["after"] for r in mine) - min(r["before"] for r in mine)
        # Without the per-process cache this would be 2 loads per batch; it is at most 2 in all
        # (0 when a reused worker already holds these files from an earlier test).
        assert new_loads <= 2, (pid, new_loads, batches[pid])
    assert max(sum(1 for r in rows if r["pid"] == pid) for pid in pids) > 4  # some process ran >1 batch


def test_subset_addfile_shipping_gives_same_scores(spark, full_run, docs_dir, tmp_path):
    """fineweb_edu ships as its cache folder, gneissweb_med as a user-given file (a copy outside
    the cache, so not a demo model): both found through SparkFiles on the workers."""
    conf, out, _ = full_run
    own = tmp_path / "own-models" / "fasttext_medical.bin"
    own.parent.mkdir()
    own.write_bytes(open(f"{conf['classify']['model_dir']}/gneissweb_med/fasttext_medical.bin", "rb").read())
    conf2 = _conf(conf["classify"]["model_dir"], "classify.models=[gneissweb_med, fineweb_edu]",
                  "classify.distribute=addfile", f"classifiers.gneissweb_med.path={own}")
    result = _run(spark, conf2, docs_dir, tmp_path)
    assert result["counters"]["classifiers"] == 2 and result["counters"]["demo_models"] == 1
    a = spark.read.parquet(str(out / "scores")).toPandas().set_index("record_id").sort_index()
    b = spark.read.parquet(str(tmp_path / "scores")).toPandas().set_index("record_id").sort_index()
    assert list(a.index) == list(b.index)
    for column in ("gneissweb_med", "fineweb_edu"):
        assert (abs(a[column] - b[column]) <= 1e-12).all()
    for column in set(SCORE_COLUMNS) - {"gneissweb_med", "fineweb_edu"}:
        assert b[column].isna().all()
    assert any("not run" in n and "dclm" in n for n in result["notes"])


def test_missing_model_without_demo_fails_naming_file_and_command(spark, docs_dir, tmp_path):
    conf = _conf(tmp_path / "empty-models", "classify.demo_models_when_missing=false",
                 "classify.models=[gneissweb_sci]")
    with pytest.raises(ValueError) as err:
        _run(spark, conf, docs_dir, tmp_path / "out")
    msg = str(err.value)
    assert "fasttext_science.bin" in msg and "crawlplan models pull gneissweb_sci" in msg


def test_pinned_mismatch_refused_in_node(spark, full_run, docs_dir, tmp_path):
    conf, _, _ = full_run
    from crawlplan.classify.models import DEMO_SUFFIX

    # copy one demo model as if it were a real file, with a wrong pin
    src = f"{conf['classify']['model_dir']}/dclm/openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train.bin"
    fake = tmp_path / "real.bin"
    fake.write_bytes(open(src, "rb").read())
    assert not os.path.exists(str(fake) + DEMO_SUFFIX)
    bad = _conf(conf["classify"]["model_dir"], f"classifiers.dclm.path={fake}", f"classifiers.dclm.sha256={'ab' * 32}",
                "classify.models=[dclm]")
    with pytest.raises(ValueError, match="refusing to load"):
        _run(spark, bad, docs_dir, tmp_path / "out")


def test_models_sharing_a_file_name_ship_under_distinct_names(spark, tmp_path):
    """The registry has four `model.bin` files; Spark keeps one shipped file per name, and refuses to
    ship a local folder off a local master, so each file is staged as `<classifier>-<version>--<file>`
    (with its projection sidecar) and found there through SparkFiles; shipping again reuses them."""
    from crawlplan.classify.fasttext_model import projection_path
    from crawlplan.classify.registry import load_registry
    from crawlplan.classify.scoring import ModelRef
    from crawlplan.classify.spark_scoring import ship
    from crawlplan.conf import load_conf

    specs = [s for s in load_registry(load_conf("local")).values() if s.file == "model.bin"]
    assert len(specs) >= 3
    refs = []
    for spec in specs:
        path = tmp_path / "models" / spec.name / "model.bin"
        path.parent.mkdir(parents=True)
        path.write_text(f"weights of {spec.name}")
        refs.append(ModelRef(spec=spec, path=str(path), key=f"key-{spec.name}"))
    Path(projection_path(refs[0].path, refs[0].key)).write_text("sidecar")
    shipped = ship(spark, refs, str(tmp_path / "models"))
    assert len({r.ship_file for r in shipped}) == len(specs)
    assert all(r.ship_file.startswith(f"{r.spec.name}-") and r.ship_file.endswith("--model.bin") for r in shipped)
    assert [r.ship_file for r in ship(spark, refs, str(tmp_path / "models"))] == [r.ship_file for r in shipped]

    def read(_):
        yield [(r.spec.name, open(r.local_path()).read()) for r in shipped] + [
            ("sidecar", open(projection_path(shipped[0].local_path(), shipped[0].key)).read())]

    found = spark.sparkContext.parallelize([0], 1).mapPartitions(read).collect()[0]
    assert dict(found) == {**{s.name: f"weights of {s.name}" for s in specs}, "sidecar": "sidecar"}
