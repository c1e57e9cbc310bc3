"""Bytes to HTML text. Declared charsets are often wrong, so the bytes come first: a body that
is valid UTF-8 is UTF-8 (multi-byte UTF-8 sequences almost never occur by accident in legacy
encodings); otherwise a declaration is trusted only if the bytes decode cleanly under it, and
failing that the bytes decide (resiliparse's detector)."""

from __future__ import annotations

import codecs
import re

_META_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)


def _normalise(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.strip().lower()).name
    except LookupError:
        return None


def meta_charset(body: bytes) -> str | None:
    match = _META_RE.search(body[:4096])
    return match.group(1).decode("ascii", "ignore") if match else None


def decode_html(body: bytes, declared: str | None = None) -> tuple[str, str]:
    """Return ``(text, charset_used)``. Never raises: the last resort replaces bad bytes."""
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    candidates = []
    for name in (declared, meta_charset(body)):
        norm = _normalise(name)
        if norm and norm not in candidates:
            candidates.append(norm)
    for name in candidates:
        try:
            return body.decode(name), name
        except (UnicodeDecodeError, LookupError):
            continue
    try:
        # resiliparse: optional fast path (falls back to the codecs below)
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding

        guess = detect_encoding(body)
        return bytes_to_str(body, guess), _normalise(guess) or guess
    except Exception:  # resiliparse missing or failing: still return something readable
        return body.decode("cp1252", errors="replace"), "cp1252"
