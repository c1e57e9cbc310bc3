"""fastText prediction that works under numpy 2, and the registry's score rules.

``fasttext-wheel`` 0.9.2 is the build that trains reliably here (``fasttext`` 0.9.3 and
``fasttext-numpy2`` randomly abort training with "Encountered NaN"), but its Python
``predict`` ends in ``np.array(probs, copy=False)``, which numpy 2 rejects, and its
``multilinePredict`` returns wrong probabilities (the same value for every line). So every
prediction goes through the C++ binding ``model.f.predict(text, k, threshold,
on_unicode_error)``, one document at a time, with the trailing newline the Python wrapper
adds (fastText turns it into the end-of-sentence token, which changes the probabilities; the
anchors' scores include it). This module is Spark-free: the Spark code and the tests call
the same functions.
"""

from __future__ import annotations

import hashlib
import math
import os

import numpy as np

from crawlplan.classify.projected import NotProjectable, ProjectedModel, project
from crawlplan.classify.registry import ClassifierSpec

#: fastText probabilities are float32 and a softmax can come out at 1.00001.
_CLIP_LO, _CLIP_HI = 0.0, 1.0


class ScoringError(ValueError):
    pass


def load_fasttext(path: str):
    """Load a model without the wrapper's stderr warning; raise a clear error on a bad file."""
    # fasttext: heavy native extension, loaded on the worker that scores
    from fasttext.FastText import _FastText

    try:
        return _FastText(model_path=str(path))
    except ValueError as exc:  # fastText says "... has wrong file format!" or "cannot be opened"
        raise ScoringError(f"cannot load fastText model {path}: {exc}") from None


def model_labels(model) -> list[str]:
    return list(model.f.getLabels("replace")[0])


def preprocess(text: str, newlines: str = " ", strip: bool = True, max_chars: int = 0) -> tuple[str, bool]:
    """The text the classifier sees, and whether it was truncated.

    Stripping and newline replacement follow the anchors (DCLM joins stripped lines with
    spaces; FineWeb-Edu and GneissWeb replace ``\\n`` with a space). fastText splits on any
    whitespace, so ``\\r`` and tabs need no treatment. Truncation bounds per-document time and
    memory on pathological pages; it counts characters, not bytes.
    """
    if strip:
        text = text.strip()
    if newlines != "\n":
        text = text.replace("\r\n", "\n").replace("\n", newlines)
    truncated = bool(max_chars) and len(text) > max_chars
    if truncated:
        text = text[:max_chars]
    return text, truncated


def _safe_unicode(text: str) -> str:
    """Python strings can hold lone surrogates (from surrogateescape decoding) that pybind11
    cannot encode; replace them instead of failing the document."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def predict(model, text: str, k: int = -1) -> list[tuple[str, float]]:
    """``(label, probability)`` pairs, most probable first, exactly as fastText's Python
    ``predict(text, k)`` would return them (text must be one line)."""
    if "\n" in text:
        raise ScoringError("fastText predicts one line at a time; preprocess the text first")
    pairs = model.f.predict(_safe_unicode(text) + "\n", k, 0.0, "replace")
    return [(label, float(prob)) for prob, label in pairs]


def clip(value: float) -> float:
    return min(_CLIP_HI, max(_CLIP_LO, value))


def score_predictions(pairs: list[tuple[str, float]], spec: ClassifierSpec) -> float:
    """Apply the registry's score rule to a prediction.

    top1_positive: the anchors' rule, P(hq) read from the top-1 label (p, or 1 - p when the top
    label is the negative one). expected_label (FineWeb-Edu): the mean of the label values under
    the full predicted distribution, divided by the top label value, so the score is in [0, 1]
    and keeps the annotator's ordinal meaning instead of thresholding at 3.
    """
    if not pairs:
        raise ScoringError("fastText returned no prediction")
    if spec.score == "top1_positive":
        label, prob = pairs[0]
        value = prob if label == spec.positive_label else 1.0 - prob
    elif spec.score == "expected_label":
        total = 0.0
        for label, prob in pairs:
            total += int(label.removeprefix("__label__")) * prob
        value = total / spec.max_label
    else:
        raise ScoringError(f"unknown score rule '{spec.score}' for a fastText classifier")
    if not math.isfinite(value):
        raise ScoringError(f"fastText returned a non-finite probability for {spec.name}")
    return clip(value)


def score_probabilities(probs, labels: list[str], spec: ClassifierSpec):
    """:func:`score_predictions` for a batch at once (the projected engine's output).

    ``probs[d, i]`` is the probability fastText would report for ``labels[i]`` (0 when it would
    not report the label, a NaN row when it makes no prediction). Rows that give no finite score
    come back NaN; the caller records them as rejects.
    """
    if spec.score == "top1_positive":
        # the latest label wins an exact tie, as fastText's top-1 heap keeps it
        top = probs.shape[1] - 1 - np.argmax(probs[:, ::-1], axis=1)
        top_prob = probs[np.arange(len(probs)), top]
        positive = np.array([label == spec.positive_label for label in labels])[top]
        value = np.where(positive, top_prob, 1.0 - top_prob)
    elif spec.score == "expected_label":
        weights = np.array([int(label.removeprefix("__label__")) for label in labels], dtype=np.float64)
        value = probs @ weights / spec.max_label
    else:
        raise ScoringError(f"unknown score rule '{spec.score}' for a fastText classifier")
    value = np.where(np.isfinite(value), value, np.nan)
    return np.clip(value, _CLIP_LO, _CLIP_HI)


def prediction_k(spec: ClassifierSpec) -> int:
    """Top-1 is all the binary rule reads; the expected value needs the whole distribution."""
    return 1 if spec.score == "top1_positive" else -1


#: How a batch is predicted: ``projected`` (crawlplan.classify.projected, the same numbers
#: through a label-space table) or ``fasttext`` (one ``f.predict`` per document).
ENGINES = ("projected", "fasttext")


#: Bumped when the sidecar's layout changes, so old sidecars are ignored rather than misread.
PROJECTION_FORMAT = 1


def projection_path(path: str, cache_key: str) -> str:
    """Where the projected form of the model file at ``path`` (version ``cache_key``) is kept."""
    digest = hashlib.sha256(f"{PROJECTION_FORMAT}:{cache_key}".encode()).hexdigest()[:16]
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.projected-{digest}.npz")


class FastTextScorer:
    """One loaded model plus its spec: ``score(text)`` on raw document text.

    With the projected engine, ``projected`` holds the model's projected table and the fastText
    model itself is released (its input matrix is most of a 1-4 GB file); it is loaded again
    only if a document has to be predicted through fastText. ``projected`` stays None (and
    ``fallback_reason`` says why) for models the engine cannot project.
    """

    def __init__(self, spec: ClassifierSpec, path: str, model=None, engine: str = "projected", projected=None):
        if engine not in ENGINES:
            raise ScoringError(f"classify.engine is '{engine}'; expected one of {', '.join(ENGINES)}")
        self.spec = spec
        self.path = path
        self._model = None if projected is not None else (model if model is not None else load_fasttext(path))
        self.projected = projected
        self.fallback_reason = "" if engine == "projected" else "classify.engine is fasttext"
        labels = set(projected.labels if projected is not None else model_labels(self._model))
        if spec.score == "top1_positive":
            ok = labels == set(spec.labels)
        else:
            ok = all(lab.removeprefix("__label__").isdigit() for lab in labels)
        if not ok:
            raise ScoringError(f"model {path} for '{spec.name}' predicts labels {sorted(labels)}; the registry "
                               f"expects {list(spec.labels)} (score rule {spec.score})")
        self.k = prediction_k(spec)
        if engine == "projected" and projected is None:
            try:
                self.projected = project(self._model)
                self._model = None
            except NotProjectable as exc:
                self.fallback_reason = str(exc)

    @classmethod
    def open(cls, spec: ClassifierSpec, path: str, *, engine: str = "projected", cache_key: str = ""):
        """A scorer whose projection comes from the sidecar file of this model version when one
        exists (a few MB instead of a 1-4 GB model to load), and is written there otherwise.

        The sidecar sits next to the model, named after ``cache_key`` (the model's sha256 pin,
        or its size and mtime), so a replaced model never meets an old projection. A sidecar
        that cannot be read is rebuilt; one that cannot be written (read-only folder) is skipped.
        """
        if engine != "projected" or not cache_key:
            return cls(spec, path, engine=engine)

        sidecar = projection_path(path, cache_key)
        if os.path.isfile(sidecar):
            try:
                return cls(spec, path, engine=engine, projected=ProjectedModel.load(sidecar))
            except ScoringError:
                raise  # the labels do not fit the registry: the model's fault, not the sidecar's
            except Exception:  # noqa: BLE001 - a damaged or foreign sidecar is rebuilt, never fatal
                pass
        scorer = cls(spec, path, engine=engine)
        if scorer.projected is not None:
            try:
                scorer.projected.save(sidecar)
            except OSError:
                pass
        return scorer

    @property
    def model(self):
        if self._model is None:
            self._model = load_fasttext(self.path)
        return self._model

    def score_preprocessed(self, text: str) -> float:
        return score_predictions(predict(self.model, text, self.k), self.spec)

    def score(self, text: str, max_chars: int = 0) -> float:
        clean, _ = preprocess(text, self.spec.newlines, self.spec.strip, max_chars)
        return self.score_preprocessed(clean)
