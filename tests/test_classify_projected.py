"""The projected fastText engine gives fastText's own predictions (crawlplan.classify.projected).

Small models of every shape the engine handles (softmax, one-vs-all, hierarchical softmax,
word n-grams 1-3, character n-grams, six labels) are trained here and compared with
``model.f.predict`` on texts that exercise fastText's tokenizer quirks, on random text, and
through ``score_batch`` against the per-document engine.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlplan.classify import fasttext_model as ftm
from crawlplan.classify import scoring
from crawlplan.classify.projected import NotProjectable, ProjectedModel, TokenTable, fasttext_hash, project
from crawlplan.classify.registry import ClassifierSpec
from crawlplan.classify.scoring import ModelRef, score_batch

_WORDS = ("energy proteins climate rivers language markets stars cells history théorie señal "
          "знание 数据 buy cheap casino click free bonus offer deals win now today hot").split()

# Every tokenizer quirk: NUL, vertical tab, form feed, \r, runs of spaces, non-ASCII
# whitespace that fastText does not split on, label tokens, a literal </s> ending the line,
# empty and one-token texts, lone surrogates, bytes with the high bit set in the hash.
TRICKY = [
    "", " ", "energy", "energy proteins", "  energy   proteins  ", "energy\x00proteins\x0bcells\x0cstars\rrivers",
    "energy\u00a0proteins\u2003cells\x1cstars\x85rivers", "__label__hq energy __label__cc proteins __label__x",
    "energy proteins </s> casino casino casino", "</s>", "casino</s> cells", "théorie señal знание 数据 😀",
    "\ud800 energy \udfff", "buy cheap casino click " * 200, "unknownword anotherunknown",
]


def _corpus(labels: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        label = labels[i % len(labels)]
        good = labels.index(label) % 2 == 0
        pool = _WORDS[:12] if good else _WORDS[12:]
        words = [rng.choice(pool if rng.random() < 0.8 else _WORDS) for _ in range(rng.randint(3, 30))]
        lines.append(f"{label} {' '.join(words)}")
    return lines


def _train(tmp_path, name: str, labels: list[str], **kwargs):
    import fasttext

    path = tmp_path / f"{name}.txt"
    path.write_text("\n".join(_corpus(labels, 400, seed=len(name))) + "\n", encoding="utf-8")
    params = dict(dim=8, epoch=5, lr=0.5, minCount=1, thread=1, seed=0, verbose=0)
    params.update(kwargs)
    model = fasttext.train_supervised(input=str(path), **params)
    out = tmp_path / f"{name}.bin"
    model.save_model(str(out))
    return ftm.load_fasttext(str(out)), str(out)


_SHAPES = {
    "softmax_bigrams": dict(labels=2, wordNgrams=2, bucket=5000, loss="softmax"),
    "softmax_unigrams": dict(labels=2, wordNgrams=1, loss="softmax"),
    "softmax_trigrams_six": dict(labels=6, wordNgrams=3, bucket=3000, loss="softmax"),
    "ova_bigrams": dict(labels=3, wordNgrams=2, bucket=4000, loss="ova"),
    "hs_six": dict(labels=6, wordNgrams=2, bucket=4000, loss="hs"),
    "subwords": dict(labels=2, wordNgrams=2, bucket=6000, minn=2, maxn=4, loss="softmax"),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("projected")
    out = {}
    for name, shape in _SHAPES.items():
        shape = dict(shape)
        labels = [f"__label__{i}" for i in range(shape.pop("labels"))]
        out[name] = _train(root, name, labels, **shape)
    return out


def _reference(model, text: str, k: int = -1) -> list[tuple[str, float]]:
    return [(label, float(p)) for p, label in
            model.f.predict(text.encode("utf-8", "replace").decode() + "\n", k, 0.0, "replace")]


def _assert_same(ref: list[tuple[str, float]], got: list[tuple[str, float]], tol: float = 2e-6):
    assert [lab for lab, _ in got] == [lab for lab, _ in ref] or \
        max(abs(a[1] - b[1]) for a, b in zip(ref, got)) < tol, (ref, got)
    assert dict(got).keys() == dict(ref).keys()
    for label, p in ref:
        assert abs(dict(got)[label] - p) < tol, (label, p, dict(got)[label])


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_predictions_equal_fasttext_on_tricky_and_corpus_texts(models, shape):
    model, _ = models[shape]
    projected = project(model)
    texts = TRICKY + [line.split(" ", 1)[1] for line in _corpus(projected.labels, 60, seed=7)]
    batch = TokenTable().encode(texts)
    for k in (-1, 1):
        for text, got in zip(texts, projected.predictions(batch, k)):
            _assert_same(_reference(model, text, k), got)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(st.sampled_from(list(" \t\x0b\x0c\r\x00é数😀\u00a0") + _WORDS[:8] + ["</s>", "__label__0"]),
                               max_size=40).map("".join), min_size=1, max_size=6))
def test_random_texts_match_fasttext(models, texts):
    for shape in ("softmax_trigrams_six", "subwords", "hs_six"):
        model, _ = models[shape]
        projected = project(model)
        for text, got in zip(texts, projected.predictions(TokenTable().encode(texts))):
            _assert_same(_reference(model, text), got)


def test_token_table_reset_between_batches_keeps_results(models):
    model, _ = models["softmax_bigrams"]
    projected = project(model)
    table = TokenTable(limit=5)
    texts = [line.split(" ", 1)[1] for line in _corpus(projected.labels, 30, seed=3)]
    first = projected.probabilities(table.encode(texts))[0]
    before = table.generation
    table.start_batch()
    assert table.generation != before and len(table) == 0
    second = projected.probabilities(table.encode(texts))[0]
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-12)
    stale = table.encode(texts[:2])
    table._reset()
    with pytest.raises(RuntimeError, match="reset"):
        projected.probabilities(stale)


def test_one_projected_model_serves_several_token_tables(models):
    """Found in review: a second table started at the same generation number, and the model
    reused the per-token sums it had cached for the first table's indices."""
    model, _ = models["softmax_bigrams"]
    projected = project(model)
    projected.probabilities(TokenTable().encode(["energy proteins cells", "casino"]))
    texts = ["casino bonus click", "stars rivers language"]
    got = projected.predictions(TokenTable().encode(texts))
    for text, pairs in zip(texts, got):
        _assert_same(_reference(model, text), pairs)


def test_hash_matches_fasttext_on_high_bytes(models):
    """Two words whose bigram differs only through the sign-extended high bytes: if the hash
    or its widening were wrong, the bigram rows and thus the probabilities would differ."""
    assert fasttext_hash(b"") == 2166136261
    assert fasttext_hash("é".encode()) != fasttext_hash(b"e")
    model, _ = models["softmax_bigrams"]
    projected = project(model)
    texts = ["théorie señal знание", "数据 😀 théorie casino"]
    for text, got in zip(texts, projected.predictions(TokenTable().encode(texts))):
        _assert_same(_reference(model, text), got)


def test_quantized_model_is_not_projected_and_scores_through_fasttext(models, tmp_path):
    import fasttext

    _, path = models["softmax_bigrams"]
    model = fasttext.load_model(path)
    model.quantize(input=None, qnorm=False, retrain=False, cutoff=0)
    ftz = tmp_path / "q.ftz"
    model.save_model(str(ftz))
    with pytest.raises(NotProjectable, match="quantized"):
        project(ftm.load_fasttext(str(ftz)))
    spec = _spec(2)
    scorer = ftm.FastTextScorer(spec, str(ftz))
    assert scorer.projected is None and "quantized" in scorer.fallback_reason
    assert 0.0 <= scorer.score("energy proteins") <= 1.0


def _spec(labels: int) -> ClassifierSpec:
    common = dict(kind="fasttext", hf_repo="", file="", path="", sha256="", newlines=" ", strip=True, note="")
    if labels == 2:
        return ClassifierSpec(name="t2", labels=("__label__0", "__label__1"), score="top1_positive",
                              positive_label="__label__0", max_label=1, column="dclm", **common)
    return ClassifierSpec(name="t6", labels=tuple(f"__label__{i}" for i in range(labels)), score="expected_label",
                          positive_label="", max_label=labels - 1, column="fineweb_edu", **common)


@pytest.mark.parametrize("shape,labels", [("softmax_bigrams", 2), ("softmax_trigrams_six", 6), ("hs_six", 6)])
def test_score_batch_projected_equals_per_document_fasttext(models, shape, labels, monkeypatch):
    _, path = models[shape]
    spec = _spec(labels)
    texts = TRICKY + [line.split(" ", 1)[1] for line in _corpus(list(spec.labels), 40, seed=11)]
    texts += ["line one\nline two", None]
    pdf = pd.DataFrame({"text": texts, "record_id": [f"r{i}" for i in range(len(texts))]})
    out = {}
    for engine in ("projected", "fasttext"):
        ref = ModelRef(spec=spec, path=path, key="k", engine=engine)
        out[engine] = score_batch(pdf, [ref], max_chars=0, keep=["record_id"])
        assert (scoring.get_scorer(ref).projected is not None) == (engine == "projected")
    a, b = out["projected"], out["fasttext"]
    assert a["_reject_reason"].fillna("").tolist() == b["_reject_reason"].fillna("").tolist()
    assert a["_reject_detail"].fillna("").tolist() == b["_reject_detail"].fillna("").tolist()
    both = a[spec.column].notna()
    assert both.tolist() == b[spec.column].notna().tolist() and both.sum() > 40
    diff = (a[spec.column][both].astype(float) - b[spec.column][both].astype(float)).abs().max()
    assert diff < 2e-6


def test_projected_scorer_releases_the_fasttext_model_and_reloads_it_on_demand(models):
    _, path = models["softmax_bigrams"]
    scorer = ftm.FastTextScorer(_spec(2), path)
    assert scorer.projected is not None and scorer._model is None
    single = scorer.score("energy proteins cells")  # the per-document path loads the file again
    assert scorer._model is not None
    batch = TokenTable().encode(["energy proteins cells"])
    from crawlplan.classify.fasttext_model import score_probabilities

    value = score_probabilities(scorer.projected.probabilities(batch)[0], scorer.projected.labels, scorer.spec)
    assert abs(value[0] - single) < 2e-6


def test_projection_sidecar_is_written_once_and_read_instead_of_the_model(models, tmp_path, monkeypatch):
    import shutil

    _, trained_path = models["subwords"]
    path = str(tmp_path / "model.bin")
    shutil.copy(trained_path, path)
    spec = _spec(2)
    first = ftm.FastTextScorer.open(spec, path, cache_key="v1")
    sidecar = ftm.projection_path(path, "v1")
    assert first.projected is not None and (tmp_path / sidecar.rsplit("/", 1)[1]).is_file()

    def no_fasttext(_path):
        raise AssertionError("the sidecar should have been read instead of the model")

    monkeypatch.setattr(ftm, "load_fasttext", no_fasttext)
    second = ftm.FastTextScorer.open(spec, path, cache_key="v1")
    texts = TRICKY + ["energy proteins cells théorie"]
    a = first.projected.probabilities(TokenTable().encode(texts))[0]
    b = second.projected.probabilities(TokenTable().encode(texts))[0]
    np.testing.assert_array_equal(a, b)
    assert second.projected.words == first.projected.words and second.projected.maxn == first.projected.maxn
    monkeypatch.undo()

    # a new version of the file gets its own sidecar; a damaged sidecar is rebuilt
    assert ftm.projection_path(path, "v2") != sidecar
    good = open(sidecar, "rb").read()
    for damage in (b"not an npz", good[: len(good) // 2]):  # ValueError, zipfile.BadZipFile
        with open(sidecar, "wb") as fh:
            fh.write(damage)
        rebuilt = ftm.FastTextScorer.open(spec, path, cache_key="v1")
        np.testing.assert_array_equal(rebuilt.projected.probabilities(TokenTable().encode(texts))[0], a)
    assert ProjectedModel.load(sidecar).labels == first.projected.labels
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_chunked_scoring_equals_one_chunk(models, monkeypatch):
    """Chunks bound a batch's token arrays; they must not change a single score or reject."""
    _, path = models["softmax_trigrams_six"]
    spec = _spec(6)
    texts = TRICKY + [line.split(" ", 1)[1] for line in _corpus(list(spec.labels), 80, seed=5)] + ["a\nb", None]
    pdf = pd.DataFrame({"text": texts})
    ref = ModelRef(spec=spec, path=path, key="chunks", engine="projected")
    whole = score_batch(pdf, [ref], max_chars=0, keep=[])
    monkeypatch.setattr(scoring, "CHUNK_CHARS", 40)
    assert len(list(scoring._chunks(list(range(len(texts) - 1)), texts))) > 10
    chunked = score_batch(pdf, [ref], max_chars=0, keep=[])
    pd.testing.assert_frame_equal(whole, chunked)


@pytest.mark.parametrize("where,message", [("model", "projected scoring failed"),
                                           ("tokenizer", "tokenizing for the projected engine failed")])
def test_a_projected_failure_scores_the_batch_through_fasttext(models, monkeypatch, capsys, where, message):
    _, path = models["softmax_bigrams"]
    spec = _spec(2)
    ref = ModelRef(spec=spec, path=path, key=f"fail-{where}", engine="projected")
    scorer = scoring.get_scorer(ref)

    def broken(_arg):
        raise MemoryError("no room")

    if where == "model":
        monkeypatch.setattr(scorer.projected, "probabilities", broken)
    else:
        monkeypatch.setattr(scoring._TOKENS, "encode", broken)
    out = score_batch(pd.DataFrame({"text": ["energy proteins", "casino bonus"]}), [ref], max_chars=0, keep=[])
    assert out[spec.column].notna().all() and out["_reject_reason"].isna().all()
    assert abs(out[spec.column][1] - scorer.score("casino bonus")) < 1e-12
    assert message in capsys.readouterr().err
