"""Scoring a batch of documents with every configured classifier (Spark-free).

The Spark side (``spark_scoring``) hands this module one Arrow batch at a time as a pandas
DataFrame; tests and the benchmark call it directly. A document either gets every score or
becomes a counted reject (empty text, a classifier error), never a crash of the job.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pyspark import SparkFiles

from crawlplan.classify.fasttext_model import FastTextScorer, ScoringError, preprocess, score_probabilities
from crawlplan.classify.projected import TokenTable
from crawlplan.classify.registry import ClassifierSpec
from crawlplan.classify.transformer import TransformerScorer

REJECT_COLUMN = "_reject_reason"
DETAIL_COLUMN = "_reject_detail"
TRUNCATED_COLUMN = "_truncated"


@dataclass(frozen=True)
class ModelRef:
    """What a worker needs to find and cache one model: plain data, pickled to executors.

    ``key`` (sha256 when pinned, else size and mtime) makes the per-process cache notice a
    replaced file; ``ship_dir``/``ship_file`` name the file in SparkFiles when it was shipped
    with ``SparkContext.addFile`` instead of being read from a shared path.
    """

    spec: ClassifierSpec
    path: str
    key: str
    demo: bool = False
    ship_dir: str = ""
    ship_file: str = ""
    engine: str = "projected"

    def local_path(self) -> str:
        if self.ship_dir or self.ship_file:
            if self.ship_dir and self.spec.kind == "transformer":
                return SparkFiles.get(self.ship_dir)
            if self.ship_dir:
                return os.path.join(SparkFiles.get(self.ship_dir), os.path.basename(self.path))
            return SparkFiles.get(self.ship_file)
        return self.path.removeprefix("file://")


# One entry per model per Python process: with spark.python.worker.reuse (the default) a worker
# process serves many tasks, so a 2-4 GB model is read once per process, not once per batch.
_MODELS: dict[tuple[str, str, str], object] = {}
_LOADS: list[str] = []
# Distinct tokens seen by this process, shared by every projected model (crawlplan.classify.projected).
_TOKENS = TokenTable()


def load_count() -> int:
    """How many model loads this process has done (tests check the cache with it)."""
    return len(_LOADS)


def get_scorer(ref: ModelRef):
    cache_key = (ref.path, ref.key, ref.engine)
    scorer = _MODELS.get(cache_key)
    if scorer is None:
        # A replaced file under the same path: drop the stale model before loading the new one.
        for old in [k for k in _MODELS if k[0] == ref.path]:
            del _MODELS[old]
        if ref.spec.kind == "fasttext":
            scorer = FastTextScorer.open(ref.spec, ref.local_path(), engine=ref.engine, cache_key=ref.key)
            if ref.engine == "projected" and scorer.projected is None:
                print(f"classify: {ref.spec.name} predicts through fastText, not projected: "
                      f"{scorer.fallback_reason}", file=sys.stderr)
        else:
            scorer = TransformerScorer(ref.spec, ref.local_path())
        _MODELS[cache_key] = scorer
        _LOADS.append(ref.spec.name)
    return scorer


def _score_fasttext(scorer: FastTextScorer, texts: list[str | None]) -> tuple[list, dict[int, str]]:
    """Scores for one model over a batch; a failing document is isolated, not fatal."""
    fn = scorer.score_preprocessed
    try:
        return [None if t is None else fn(t) for t in texts], {}
    except Exception:  # noqa: BLE001 - retry one by one to find and record the bad documents
        pass
    out: list = []
    errors: dict[int, str] = {}
    for i, t in enumerate(texts):
        if t is None:
            out.append(None)
            continue
        try:
            out.append(fn(t))
        except Exception as exc:  # noqa: BLE001
            out.append(None)
            errors[i] = f"{scorer.spec.name}: {type(exc).__name__}: {exc}"[:500]
    return out, errors


#: Documents are tokenized and scored in chunks of about this many characters, so the token
#: arrays of a batch (tens of bytes per token, per model) never all exist at once.
CHUNK_CHARS = 1_000_000


def _chunks(positions: list[int], texts: list[str | None], budget: int = 0):
    budget = budget or CHUNK_CHARS
    chunk: list[int] = []
    size = 0
    for i in positions:
        chunk.append(i)
        size += len(texts[i])
        if size >= budget:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _score_projected(scorers: list[FastTextScorer], texts: list[str | None]) -> list[tuple[list, dict[int, str]]]:
    """Scores of several projected models over texts with the same preprocessing: each chunk
    is tokenized once for all of them. The same values and rejects as :func:`_score_fasttext`;
    a model whose projected scoring fails unexpectedly scores the batch through fastText."""
    n = len(texts)
    positions = [i for i, t in enumerate(texts) if t is not None and "\n" not in t]
    multiline = [i for i, t in enumerate(texts) if t is not None and "\n" in t]
    values: list[list] = [[None] * n for _ in scorers]
    errors: list[dict[int, str]] = [{} for _ in scorers]
    failed: set[int] = set()
    for chunk in _chunks(positions, texts):
        # the table may start afresh between chunks (a chunk's batch is used up before the next),
        # so high-entropy text (URLs, ids) cannot grow it past its limit within one Arrow batch
        _TOKENS.start_batch()
        try:
            batch = _TOKENS.encode([texts[i] for i in chunk])
        except Exception as exc:  # noqa: BLE001 - never lose the batch; fastText scores it instead
            print(f"classify: tokenizing for the projected engine failed ({type(exc).__name__}: {exc}); "
                  f"this batch predicts through fastText", file=sys.stderr)
            failed.update(range(len(scorers)))
            break
        for m, scorer in enumerate(scorers):
            if m in failed:
                continue
            name = scorer.spec.name
            try:
                probs, _ = scorer.projected.probabilities(batch)
                scores = score_probabilities(probs, scorer.projected.labels, scorer.spec)
            except Exception as exc:  # noqa: BLE001 - never lose the batch; fastText scores it instead
                print(f"classify: projected scoring failed for {name} ({type(exc).__name__}: {exc}); "
                      f"this batch predicts through fastText", file=sys.stderr)
                failed.add(m)
                continue
            for row, i in enumerate(chunk):
                if np.isnan(scores[row]):
                    reason = "fastText returned no prediction" if np.isnan(probs[row]).all() else \
                        f"fastText returned a non-finite probability for {name}"
                    errors[m][i] = f"{name}: ScoringError: {reason}"
                else:
                    values[m][i] = float(scores[row])
    for m, scorer in enumerate(scorers):
        if m in failed:
            values[m], errors[m] = _score_fasttext(scorer, texts)
            continue
        for i in multiline:
            errors[m][i] = f"{scorer.spec.name}: ScoringError: fastText predicts one line at a time; " \
                           f"preprocess the text first"
    return list(zip(values, errors))


def score_batch(pdf: pd.DataFrame, refs: list[ModelRef], max_chars: int, keep: list[str]) -> pd.DataFrame:
    """``keep`` columns of ``pdf`` plus one column per classifier and the reject/truncation flags.

    Each distinct preprocessing (newline replacement, strip) is computed once per document and
    shared by the models that use it.
    """
    raw = pdf["text"].tolist()
    n = len(raw)
    reasons: list[str | None] = [None] * n
    details: list[str | None] = [None] * n
    for i, text in enumerate(raw):
        if text is None or not text.strip():
            reasons[i] = "empty_text"
    prepared: dict[tuple[str, bool], tuple[list, list]] = {}
    for ref in refs:
        mode = (ref.spec.newlines, ref.spec.strip)
        if mode not in prepared:
            texts, truncs = [], []
            for i, text in enumerate(raw):
                if reasons[i] is not None:
                    texts.append(None)
                    truncs.append(False)
                else:
                    clean, cut = preprocess(text, ref.spec.newlines, ref.spec.strip, max_chars)
                    texts.append(clean)
                    truncs.append(cut)
            prepared[mode] = (texts, truncs)
    # projected models first, grouped by preprocessing so each group tokenizes once
    groups: dict[tuple[str, bool], list[ModelRef]] = {}
    for ref in refs:
        if ref.spec.kind == "fasttext" and get_scorer(ref).projected is not None:
            groups.setdefault((ref.spec.newlines, ref.spec.strip), []).append(ref)
    projected: dict[str, tuple[list, dict[int, str]]] = {}
    for mode, members in groups.items():
        results = _score_projected([get_scorer(r) for r in members], prepared[mode][0])
        projected.update({r.spec.column: result for r, result in zip(members, results)})
    out = pdf[keep].copy() if keep else pd.DataFrame(index=pdf.index)
    for ref in refs:
        spec = ref.spec
        texts, _ = prepared[(spec.newlines, spec.strip)]
        scorer = get_scorer(ref)
        if spec.column in projected:
            values, errors = projected[spec.column]
        elif spec.kind == "fasttext":
            values, errors = _score_fasttext(scorer, texts)
        else:
            values, errors = scorer.score_batch(texts)
        for i, msg in errors.items():
            if reasons[i] is None:
                reasons[i], details[i] = "classify_error", msg
        out[spec.column] = pd.array(values, dtype="Float64")
    truncated = [any(p[1][i] for p in prepared.values()) for i in range(n)]
    for ref in refs:  # a rejected document gets no scores at all
        col = out[ref.spec.column]
        out[ref.spec.column] = col.mask(pd.Series([r is not None for r in reasons], index=out.index))
    out[TRUNCATED_COLUMN] = truncated
    out[REJECT_COLUMN] = pd.array(reasons, dtype="string")
    out[DETAIL_COLUMN] = pd.array(details, dtype="string")
    return out


def direct_scores(text: str, refs: list[ModelRef], max_chars: int = 0) -> dict[str, float]:
    """Single-document, single-process reference (tests compare the Spark scores with it)."""
    return {r.spec.column: get_scorer(r).score(text, max_chars) for r in refs}


__all__ = ["ModelRef", "score_batch", "get_scorer", "load_count", "direct_scores", "ScoringError",
           "REJECT_COLUMN", "DETAIL_COLUMN", "TRUNCATED_COLUMN"]
