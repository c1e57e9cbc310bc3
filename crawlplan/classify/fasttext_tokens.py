"""fastText's tokenizer, shared by every projected model of a process.

``Dictionary::getLine`` as fastText runs it on ``text + "\\n"``: whitespace is the seven bytes
``readWord`` splits on; a literal ``</s>`` token ends the line; tokens with the label prefix are
neither words nor part of n-grams; word n-gram hashes chain the 32-bit word hashes,
sign-extended to 64 bits, as ``addWordNgrams`` does; character n-grams follow
``computeSubwords``. :class:`TokenTable` gives each distinct token a dense index once per
process, so each model looks a token up once, not once per occurrence.
"""

from __future__ import annotations

import itertools

import numpy as np

EOS = b"</s>"
LABEL_PREFIX = b"__label__"
_NGRAM_MULTIPLIER = np.uint64(116049371)
_FNV_OFFSET, _FNV_PRIME = 2166136261, 16777619


def fasttext_hash(token: bytes) -> int:
    """fastText's FNV-1a over the token's bytes, each byte sign-extended first (``int8_t``)."""
    h = _FNV_OFFSET
    for byte in token:
        h = ((h ^ (byte | 0xFFFFFF00 if byte & 0x80 else byte)) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def _as_chained(h: int) -> int:
    """The hash as fastText chains it: stored as int32, then widened to uint64 (sign-extended)."""
    return h - (1 << 32) if h & 0x80000000 else h


_GENERATIONS = itertools.count(1)


class TokenTable:
    """Distinct tokens of this process: a dense index per token and its fastText hash.

    Models keep per-token arrays indexed the same way. ``limit`` bounds memory on an endless
    stream of new tokens: past it the table starts afresh. ``generation`` names one table in one
    of its lives, unique in the process (two tables never share one), so a model that has seen
    another table, or this one before a reset, knows to drop its per-token arrays.
    """

    def __init__(self, limit: int = 1_000_000):
        self.limit = limit
        self._reset()

    def _reset(self) -> None:
        self.generation = next(_GENERATIONS)
        self.index = _Index(self._add)
        self.tokens: list[bytes] = []
        self._hashes = np.empty(1 << 14, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def hashes(self) -> np.ndarray:
        """Chained hashes (int64, reinterpret as uint64 to chain) of tokens ``0 .. len-1``."""
        return self._hashes[: len(self.tokens)]

    def _add(self, token: bytes) -> int:
        i = len(self.tokens)
        if i == len(self._hashes):
            self._hashes = np.concatenate([self._hashes, np.empty(len(self._hashes), dtype=np.int64)])
        self._hashes[i] = _as_chained(fasttext_hash(token))
        self.tokens.append(token)
        return i

    def start_batch(self) -> None:
        """Start afresh when over ``limit``; called between batches, never inside one, so
        every batch encoded after it stays valid until the next call."""
        if len(self.tokens) > self.limit:
            self._reset()

    def encode(self, texts: list[str]) -> EncodedBatch:
        """Token indices of each text as fastText's ``getLine`` reads ``text + "\\n"``.

        Texts must be one line (the caller replaces newlines); the ``\\n`` fastText appends
        becomes the final ``</s>``.
        """
        every: list[bytes] = []
        lengths = np.empty(len(texts), dtype=np.int64)
        for d, text in enumerate(texts):
            raw = text.encode("utf-8", "replace")  # pybind11 would fail on lone surrogates
            if b"\x00" in raw:
                raw = raw.replace(b"\x00", b" ")
            tokens = raw.split()  # ASCII whitespace: the bytes fastText's readWord splits on, bar NUL
            if EOS in raw and EOS in tokens:  # getLine stops at the first </s>
                tokens = tokens[: tokens.index(EOS)]
            if LABEL_PREFIX in raw:  # label tokens are neither words nor part of n-grams
                tokens = [t for t in tokens if not t.startswith(LABEL_PREFIX)]
            tokens.append(EOS)
            every += tokens
            lengths[d] = len(tokens)
        ids = np.fromiter(map(self.index.__getitem__, every), dtype=np.int64, count=len(every))
        return EncodedBatch(ids, lengths, self)


class _Index(dict):
    """token -> index; a missing token is added on lookup, so a batch is one ``map`` in C."""

    def __init__(self, add):
        super().__init__()
        self._add = add

    def __missing__(self, token: bytes) -> int:
        self[token] = i = self._add(token)
        return i


class EncodedBatch:
    """Token indices of a batch of documents, with word n-gram hashes computed on demand."""

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, table: TokenTable):
        self.ids, self.lengths, self.table = ids, lengths, table
        self.generation = table.generation
        self.starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        self.doc_of_token = np.repeat(np.arange(len(lengths)), lengths)
        self._ngrams: dict[tuple[int, int], list] = {}

    def __len__(self) -> int:
        return len(self.lengths)

    def ngram_rows(self, n: int, bucket: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per n-gram length 2..n: (bucket index, first n-gram of each document, n-grams per document).

        ``h = h * 116049371 + hash(next word)`` in uint64, as ``addWordNgrams`` chains it; the
        input row is ``nwords + h % bucket``. Models with the same ``n`` and bucket share this.
        """
        key = (n, bucket)
        if key not in self._ngrams:
            hashes = np.take(self.table.hashes, self.ids).view(np.uint64)
            doc = self.doc_of_token
            out = []
            chain = hashes
            for step in range(1, n):
                if len(hashes) <= step:
                    break
                chain = chain[:-1] * _NGRAM_MULTIPLIER + hashes[step:]
                same_doc = doc[step:] == doc[:-step]
                buckets = (chain[same_doc] % np.uint64(bucket)).astype(np.int64)
                per_doc = np.maximum(self.lengths - step, 0)
                starts = np.concatenate([[0], np.cumsum(per_doc)[:-1]])
                out.append((buckets, starts, per_doc))
            self._ngrams[key] = out
        return self._ngrams[key]


def char_ngrams(word: bytes, minn: int, maxn: int) -> list[bytes]:
    """``computeSubwords``: the character n-grams of ``<word>``, counted in UTF-8 characters,
    without the lone ``<`` and ``>``."""
    w = b"<" + word + b">"
    size = len(w)
    out = []
    for i in range(size):
        if w[i] & 0xC0 == 0x80:  # not the first byte of a character
            continue
        j, n = i, 1
        while j < size and n <= maxn:
            j += 1
            while j < size and w[j] & 0xC0 == 0x80:
                j += 1
            if n >= minn and not (n == 1 and (i == 0 or j == size)):
                out.append(w[i:j])
            n += 1
    return out
