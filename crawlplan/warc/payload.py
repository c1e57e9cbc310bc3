"""HTTP body decoding: de-chunking and Content-Encoding, tolerant of what servers really send.

Archived bodies are often mislabelled (gzip header on a plain body, chunked framing already
removed by the crawler). Each step therefore falls back to the bytes it was given when they
already look decoded, and reports an error only when nothing usable is left.
"""

from __future__ import annotations

import zlib


def dechunk(raw: bytes) -> bytes | None:
    """Undo ``Transfer-Encoding: chunked``; None if ``raw`` is not chunked framing."""
    out = bytearray()
    pos = 0
    while True:
        eol = raw.find(b"\r\n", pos)
        if eol == -1:
            return bytes(out) if out else None
        size_field = raw[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_field, 16)
        except ValueError:
            return bytes(out) if out else None
        if size == 0:
            return bytes(out)
        start = eol + 2
        out += raw[start:start + size]
        pos = start + size + 2
        if pos >= len(raw):
            return bytes(out)


def _inflate(raw: bytes, limit: int) -> bytes:
    for wbits in (31, 15, -15):
        try:
            decomp = zlib.decompressobj(wbits)
            data = decomp.decompress(raw, limit + 1)
            return data
        except zlib.error:
            continue
    raise ValueError("not gzip/deflate data")


def _unbrotli(raw: bytes, limit: int) -> bytes:
    # brotli: native extension, only for a brotli-encoded payload
    import brotli

    decomp = brotli.Decompressor()
    data = decomp.process(raw)
    if len(data) > limit:
        return data[: limit + 1]
    return data


def _unzstd(raw: bytes, limit: int) -> bytes:
    try:
        # zstandard: optional, only for a zstd-encoded payload
        import zstandard
    except ImportError as exc:
        raise ValueError("zstd body but the zstandard package is not installed") from exc
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=limit + 1)


_DECODERS = {"gzip": _inflate, "x-gzip": _inflate, "deflate": _inflate, "br": _unbrotli, "zstd": _unzstd}


def decode_body(raw: bytes, headers: dict[str, str], limit: int) -> tuple[bytes | None, str | None]:
    """Return ``(body, error)``; ``error`` is None, 'oversize' or 'decode_error: ...'."""
    body = raw
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = dechunk(body) or body
    encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",") if e.strip()]
    for encoding in reversed(encodings):
        if encoding in ("identity", "none", ""):
            continue
        decoder = _DECODERS.get(encoding)
        if decoder is None:
            return None, f"decode_error: unsupported Content-Encoding {encoding}"
        try:
            body = decoder(body, limit)
        except Exception as exc:  # mislabelled: keep the bytes if they already look like text
            if _looks_decoded(body):
                continue
            return None, f"decode_error: {encoding}: {type(exc).__name__}: {exc}"[:300]
    if len(body) > limit:
        return None, "oversize"
    return body, None


def _looks_decoded(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<", b"{", b"[")) or (bool(head) and b"\x00" not in head and head.isascii())
