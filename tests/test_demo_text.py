"""The demo text model: deterministic, real label schemes, and quality/topic visible in the words."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from crawlplan.demo.text import CLASSIFIERS, labelled_texts, page_paragraphs, style_share


@pytest.mark.parametrize("classifier", CLASSIFIERS)
def test_labelled_texts_schemes_and_determinism(classifier):
    pairs = labelled_texts(classifier, 200, seed=3)
    assert len(pairs) == 200
    assert pairs == labelled_texts(classifier, 200, seed=3)
    assert pairs != labelled_texts(classifier, 200, seed=4)
    labels = Counter(label for label, _ in pairs)
    if classifier == "fineweb_edu":
        assert set(labels) <= {f"__label__{k}" for k in range(6)}
        assert len(labels) >= 5  # a graded scale, not a binary one
    else:
        assert labels == {"__label__hq": 100, "__label__cc": 100}
    assert all(text.strip() for _, text in pairs)


def test_labelled_texts_rejects_unknown_classifier():
    with pytest.raises(ValueError, match="unknown classifier"):
        labelled_texts("fineweb2_hq", 10, 0)


def test_labelled_texts_mostly_english():
    texts = [t for _, t in labelled_texts("dclm", 400, 0)]
    english = sum(1 for t in texts if re.search(r"\b(the|and|to|for|you)\b", t, re.I))
    assert 0.8 < english / len(texts) < 0.97


def _words_per_sentence(text: str) -> float:
    sentences = [s for s in re.split(r"[.!?\n]+", text) if s.strip()]
    return sum(len(s.split()) for s in sentences) / len(sentences)


def test_quality_is_visible_in_the_text():
    rng = random.Random(0)
    good = " ".join(p for _ in range(20) for p in page_paragraphs(rng, "en", "science", 2.0))
    bad = " ".join(p for _ in range(20) for p in page_paragraphs(rng, "en", "science", -2.0))
    assert len(good) > 2 * len(bad)
    assert _words_per_sentence(good) > 1.5 * _words_per_sentence(bad)
    assert bad.count("!") > good.count("!")
    assert style_share(2.0) > 0.99 and style_share(-2.0) < 0.01 and style_share(0.0) == pytest.approx(0.5)


def test_hq_labels_separate_by_simple_text_features():
    """The positive class is written in longer explanatory sentences than the negative class."""
    pairs = labelled_texts("gneissweb_quality", 400, 0)
    hq = [_words_per_sentence(t) for label, t in pairs if label == "__label__hq"]
    cc = [_words_per_sentence(t) for label, t in pairs if label == "__label__cc"]
    assert sum(hq) / len(hq) > 1.3 * sum(cc) / len(cc)


def test_topic_classifier_positives_use_topic_vocabulary():
    pairs = labelled_texts("gneissweb_med", 300, 0)
    med_words = ("patient", "diagnosis", "treatment", "vaccine", "therapy", "symptom")

    def rate(label):
        texts = [t.lower() for lab, t in pairs if lab == label]
        return sum(any(w in t for w in med_words) for t in texts) / len(texts)

    assert rate("__label__hq") > 0.8 > 0.5 > rate("__label__cc")
