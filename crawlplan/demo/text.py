"""The demo web's text model: page quality and topic are visible in the words themselves.

A page of latent quality ``q`` (standard-normal scale) is a mix of paragraphs in two styles:
long explanatory topical prose and short spam / clickbait / boilerplate lines. The share of
explanatory paragraphs is ``style_share(q)``, so a classifier trained on labelled text from the
same model (``labelled_texts``) produces page scores that rise with ``q`` but with noise, which
is what real quality classifiers do on real pages.

Everything draws from a ``random.Random`` given by the caller: same seed, same text, on every
platform and Python version (``random.Random`` with an int seed is stable across versions).
"""

from __future__ import annotations

import math
import random
import re

from crawlplan.demo.vocab import LANGUAGES, TOPICS, VOCAB

CLASSIFIERS = (
    "dclm", "fineweb_edu", "gneissweb_quality", "gneissweb_sci", "gneissweb_edu", "gneissweb_tech",
    "gneissweb_med", "nemotron_quality", "nemotron_edu", "nemotron_info",
)
_TOPIC_OF = {"gneissweb_sci": "science", "gneissweb_edu": "education", "gneissweb_tech": "technology",
             "gneissweb_med": "medicine"}
_SLOT = re.compile(r"\{([nNavpPk])\}")
# Steepness of the explanatory share in latent quality (probit slope).
_STYLE_SLOPE = 1.2
# Share of non-English training text: the real classifiers are English-trained, with some leakage.
_NON_ENGLISH_SHARE = 0.1


def style_share(quality: float) -> float:
    """Probability that a paragraph is explanatory prose (vs spam) at latent quality ``quality``."""
    return 0.5 * (1.0 + math.erf(_STYLE_SLOPE * quality / math.sqrt(2.0)))


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _fill(template: str, rng: random.Random, lang: str, topic: str) -> str:
    vocab = VOCAB[lang]

    def noun() -> str:
        # Mostly on-topic nouns, some general ones: real articles wander.
        pool = vocab["nouns"][topic if rng.random() < 0.85 else "general"]
        return rng.choice(pool)

    def repl(match: re.Match) -> str:
        slot = match.group(1)
        if slot == "n":
            return noun()
        if slot == "N":
            return _cap(noun())
        if slot == "a":
            return rng.choice(vocab["adjs"])
        if slot == "v":
            return rng.choice(vocab["verbs"])
        if slot == "p":
            return rng.choice(vocab["products"])
        if slot == "P":
            return _cap(rng.choice(vocab["products"]))
        return str(rng.choice((3, 5, 7, 10, 15, 20, 50, 70, 90, 99, 2024)))

    return _SLOT.sub(repl, template)


def _joiner(lang: str) -> str:
    return "" if lang == "ja" else " "


def page_paragraphs(rng: random.Random, lang: str, topic: str, quality: float,
                    n_paragraphs: int | None = None) -> list[str]:
    """Body paragraphs of one page; better pages are longer and mostly explanatory.

    Sentence slots are allocated between the two styles in proportion to the style share
    (stochastically rounded over the whole page, not one coin per slot), so the text tracks the
    page's latent quality closely: the noise that classifiers see comes mostly from the page's
    own quality, and their scores keep the between-host share (ICC1) of true quality.
    """
    share = style_share(quality)
    if n_paragraphs is None:
        n_paragraphs = 3 + int(5 * share + rng.random())
    sizes = [rng.randint(3, 5) for _ in range(n_paragraphs)]
    slots = sum(sizes)
    n_hq = min(slots, int(share * slots + rng.random()))
    kinds = [True] * n_hq + [False] * (slots - n_hq)
    rng.shuffle(kinds)
    hq_templates, lq_templates = VOCAB[lang]["hq"], VOCAB[lang]["lq"]
    end = "。" if lang == "ja" else "."
    out, k = [], 0
    for size in sizes:
        sentences = []
        for hq in kinds[k:k + size]:
            if hq:
                sentences.append(_fill(rng.choice(hq_templates), rng, lang, topic))
            else:
                line = _fill(rng.choice(lq_templates), rng, lang, topic)
                sentences.append(line if line[-1] in "!.。！" else line + end)
        k += size
        out.append(_joiner(lang).join(sentences))
    return out


def page_title(rng: random.Random, lang: str, topic: str, quality: float) -> str:
    vocab = VOCAB[lang]
    if rng.random() < style_share(quality):
        a, b = rng.sample(vocab["nouns"][topic], 2)
        link = {"en": " and ", "de": " und ", "fr": " et ", "es": " y ", "it": " e ", "nl": " en ",
                "ja": "と", "ru": " и "}[lang]
        return _cap(a) + link + b
    return _fill(rng.choice(vocab["lq"]), rng, lang, topic).split("!")[0][:70]


def short_line(rng: random.Random, lang: str, topic: str, quality: float) -> str:
    """One sentence in the page's style: forum post snippets, thread titles, profile bios."""
    if rng.random() < style_share(quality):
        return _fill(rng.choice(VOCAB[lang]["hq"]), rng, lang, topic)
    return _fill(rng.choice(VOCAB[lang]["lq"]), rng, lang, topic)


def _text(rng: random.Random, quality: float, topic: str, english_only: bool = False) -> str:
    lang = "en" if english_only or rng.random() >= _NON_ENGLISH_SHARE else rng.choice(LANGUAGES[1:])
    return "\n".join(page_paragraphs(rng, lang, topic, quality))


def _fineweb_edu_label(quality: float, topic: str, rng: random.Random) -> int:
    """Educational value 0-5: quality plus a topic bonus (educational and scientific text score higher)."""
    bonus = {"education": 0.9, "science": 0.7, "medicine": 0.3, "technology": 0.3, "general": 0.0}[topic]
    value = 1.6 + 1.1 * quality + bonus + rng.gauss(0.0, 0.35)
    return int(min(5, max(0, round(value))))


def labelled_texts(classifier: str, n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (label, text) pairs for training a small demo stand-in of ``classifier``.

    Labels follow the real models' schemes: ``__label__hq`` / ``__label__cc`` (positive = the
    classifier's target: quality, a topic, educational or informational value), and
    ``__label__0`` ... ``__label__5`` for fineweb_edu. Classes are balanced for hq/cc; texts come
    from the same model as the demo pages, so the trained models separate demo pages by quality
    and topic the way the real ones separate real pages.
    """
    if classifier not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {classifier!r}; expected one of {', '.join(CLASSIFIERS)}")
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    rng = random.Random(f"crawlplan-demo-labelled:{classifier}:{seed}")
    out: list[tuple[str, str]] = []
    for i in range(n):
        positive = i % 2 == 0
        if classifier == "fineweb_edu":
            topic = rng.choice(TOPICS)
            quality = rng.gauss(0.0, 1.2)
            label = f"__label__{_fineweb_edu_label(quality, topic, rng)}"
            out.append((label, _text(rng, quality, topic)))
            continue
        if classifier in _TOPIC_OF:
            target = _TOPIC_OF[classifier]
            if positive:
                topic, quality = target, rng.gauss(0.8, 0.8)
            else:
                topic = rng.choice([t for t in TOPICS if t != target])
                quality = rng.gauss(0.0, 1.0)
        elif classifier == "nemotron_edu":
            if positive:
                topic, quality = rng.choice(("education", "science")), rng.gauss(1.2, 0.6)
            else:
                topic, quality = rng.choice(TOPICS), rng.gauss(-0.4, 1.0)
        else:
            # Quality / informativeness classifiers: curated reference text against random web text.
            topic = rng.choice(TOPICS)
            quality = rng.gauss(0.9, 0.7) if positive else rng.gauss(-0.5, 0.8)
        out.append(("__label__hq" if positive else "__label__cc", _text(rng, quality, topic)))
    rng.shuffle(out)
    return out
