"""fastText supervised prediction through a projected input table: the same numbers, far cheaper.

A supervised fastText model predicts ``loss(W · mean(E[ids]))``: the hidden vector is the mean of
the input rows of a document's word, subword and word n-gram ids, and the output layer ``W`` is
linear up to the loss function. So ``W · mean(E[ids]) = mean((E Wᵀ)[ids])``, and the table
``P = E Wᵀ`` (one row per input id, one column per label) replaces the model's input matrix: a
prediction sums a few floats per token instead of a ``dim``-wide row (dim 100-256 in the data
selection classifiers), and ``P`` of a 2M-row model is a few MB, small enough to stay in cache.

On top of that, the per-token work is shared: a document is split into tokens once for all models
with the same preprocessing, each distinct token is hashed and looked up once per process
(:class:`TokenTable`), and each model keeps the summed ``P`` rows of each token it has seen. Word
n-gram ids are hashes of neighbouring tokens, computed once per batch with numpy.

Everything fastText does in ``predictLine`` is reproduced, including its quirks, and tested
against ``model.f.predict`` (``tests/test_classify_projected.py``): whitespace is the seven
bytes fastText splits on; a literal ``</s>`` token ends the document; tokens with the label
prefix are dropped; n-gram hashes chain the 32-bit word hashes sign-extended to 64 bits; the
reported probability is ``exp(log(p + 1e-5))``, i.e. ``p + 1e-5``; hierarchical softmax walks
the same Huffman tree and prunes leaves below ``log(1e-5)``; one-vs-all reads fastText's
sigmoid table. Quantized models (``.ftz``) and
label prefixes other than ``__label__`` are not projected; :func:`project` says why and the
caller falls back to fastText's own prediction.
"""

from __future__ import annotations

import numpy as np

EOS = b"</s>"
LABEL_PREFIX = b"__label__"
_NGRAM_MULTIPLIER = np.uint64(116049371)
_FNV_OFFSET, _FNV_PRIME = 2166136261, 16777619
_STD_LOG_EPS = 1e-5
_PROJECT_ROWS = 1 << 16


class NotProjectable(ValueError):
    """The model needs fastText's own prediction (the message says why)."""


def fasttext_hash(token: bytes) -> int:
    """fastText's FNV-1a over the token's bytes, each byte sign-extended first (``int8_t``)."""
    h = _FNV_OFFSET
    for byte in token:
        h = ((h ^ (byte | 0xFFFFFF00 if byte & 0x80 else byte)) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def _as_chained(h: int) -> int:
    """The hash as fastText chains it: stored as int32, then widened to uint64 (sign-extended)."""
    return h - (1 << 32) if h & 0x80000000 else h


class TokenTable:
    """Distinct tokens of this process: a dense index per token and its fastText hash.

    Models keep per-token arrays indexed the same way. ``limit`` bounds memory on an endless
    stream of new tokens: past it the table starts afresh and ``generation`` tells the models
    to drop their arrays too.
    """

    def __init__(self, limit: int = 2_000_000):
        self.limit = limit
        self.generation = 0
        self._reset()

    def _reset(self) -> None:
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
            self.generation += 1
            self._reset()

    def encode(self, texts: list[str]) -> "EncodedBatch":
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


_MAX_SIGMOID, _SIGMOID_TABLE_SIZE = 8, 512
_SIGMOID_TABLE = np.array([1.0 / (1.0 + np.exp(-np.float32(np.float32(i * 2 * _MAX_SIGMOID) / _SIGMOID_TABLE_SIZE
                                                            - _MAX_SIGMOID)))
                           for i in range(_SIGMOID_TABLE_SIZE + 1)], dtype=np.float32).astype(np.float64)


def _table_sigmoid(x: np.ndarray) -> np.ndarray:
    """``Loss::sigmoid``: the one-vs-all output reads a 513-entry table, not the exact sigmoid."""
    index = ((np.clip(x, -_MAX_SIGMOID, _MAX_SIGMOID) + _MAX_SIGMOID)
             * _SIGMOID_TABLE_SIZE / _MAX_SIGMOID / 2).astype(np.int64)
    out = _SIGMOID_TABLE[np.clip(index, 0, _SIGMOID_TABLE_SIZE)]
    return np.where(x < -_MAX_SIGMOID, 0.0, np.where(x > _MAX_SIGMOID, 1.0, out))


def _huffman_tree(counts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(left, right) children of fastText's hierarchical-softmax tree (``buildTree``)."""
    osz = len(counts)
    size = 2 * osz - 1
    left, right = np.full(size, -1), np.full(size, -1)
    count = [1e15] * size
    count[:osz] = counts
    leaf, node = osz - 1, osz
    for i in range(osz, size):
        mini = [0, 0]
        for j in range(2):
            if leaf >= 0 and count[leaf] < count[node]:
                mini[j], leaf = leaf, leaf - 1
            else:
                mini[j], node = node, node + 1
        left[i], right[i] = mini
        count[i] = count[mini[0]] + count[mini[1]]
    return left, right


def project(model) -> "ProjectedModel":
    """The projected form of a loaded ``fasttext`` model, or :class:`NotProjectable`."""
    f = model.f
    args = f.getArgs()
    if f.isQuant():
        raise NotProjectable("a quantized model (.ftz) keeps its input matrix compressed")
    if args.model.name != "supervised":
        raise NotProjectable(f"model type {args.model.name} cannot predict")
    if args.label != LABEL_PREFIX.decode():
        raise NotProjectable(f"label prefix {args.label!r} (only {LABEL_PREFIX.decode()!r} is projected)")
    loss = args.loss.name
    if loss not in ("softmax", "ova", "ns", "hs"):
        raise NotProjectable(f"loss {loss}")
    return ProjectedModel(f, loss, args)


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


class ProjectedModel:
    """One model reduced to what prediction needs: ``P = E Wᵀ``, the vocabulary, the labels.

    It keeps no reference to the fastText model, so the caller can free the model's input
    matrix (the bulk of a 1-4 GB file) once this is built. It also keeps the summed ``P`` rows
    of the tokens seen so far.
    """

    def __init__(self, f, loss: str, args):
        self.loss = loss
        labels, counts = f.getLabels("replace")
        self.labels = list(labels)
        self.word_ngrams = int(args.wordNgrams)
        self.bucket = int(args.bucket)
        self.minn, self.maxn = int(args.minn), int(args.maxn)
        # surrogateescape keeps any byte sequence of the vocabulary exactly (and unmatchable by
        # document tokens, which are valid UTF-8, when the bytes are not)
        words, _ = f.getVocab("surrogateescape")
        self.vocab = {w.encode("utf-8", "surrogateescape"): i for i, w in enumerate(words)}
        inputs = np.asarray(f.getInputMatrix())  # a view of fastText's own matrix, no copy
        self.nwords = inputs.shape[0] - self.bucket
        if self.nwords != len(words):
            raise NotProjectable(f"{inputs.shape[0]} input rows for {len(words)} words and {self.bucket} buckets")
        outputs = np.asarray(f.getOutputMatrix(), dtype=np.float64)
        table = np.empty((inputs.shape[0], outputs.shape[0]), dtype=np.float64)
        for lo in range(0, inputs.shape[0], _PROJECT_ROWS):
            table[lo:lo + _PROJECT_ROWS] = inputs[lo:lo + _PROJECT_ROWS] @ outputs.T
        del inputs
        self.table = table
        if loss == "hs":
            self.left, self.right = _huffman_tree(list(counts))
        self._generation = -1
        self._known = 0

    def input_ids(self, token: bytes) -> list[int]:
        """The input rows fastText adds for one token (``Dictionary::addSubwords``)."""
        wid = self.vocab.get(token, -1)
        ids = [wid] if wid >= 0 else []
        if self.maxn > 0 and token != EOS:
            ids += [self.nwords + fasttext_hash(g) % self.bucket for g in char_ngrams(token, self.minn, self.maxn)]
        return ids

    def _catch_up(self, table: TokenTable) -> None:
        """Summed ``P`` rows and id counts for the tokens added to ``table`` since last time."""
        if self._generation != table.generation:
            self._generation, self._known = table.generation, 0
            self.token_sums = np.zeros((1 << 14, self.table.shape[1]))
            self.token_counts = np.zeros(1 << 14, dtype=np.int64)
        new = table.tokens[self._known:]
        if not new:
            return
        lo, hi = self._known, len(table.tokens)
        if hi > len(self.token_counts):
            grown = max(hi, 2 * len(self.token_counts))
            self.token_sums = np.concatenate([self.token_sums, np.zeros((grown - len(self.token_sums),
                                                                         self.table.shape[1]))])
            self.token_counts = np.concatenate([self.token_counts, np.zeros(grown - len(self.token_counts),
                                                                            dtype=np.int64)])
        if self.maxn > 0:  # word id (when known) plus the hashed character n-grams of <word>
            rows = [self.input_ids(token) for token in new]
            counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
            flat = np.fromiter((r for row in rows for r in row), dtype=np.int64, count=int(counts.sum()))
            sums = np.zeros((len(new), self.table.shape[1]))
            has = counts > 0
            if has.any():
                starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[has]
                sums[has] = np.add.reduceat(np.take(self.table, flat, axis=0), starts, axis=0)
        else:
            get = self.vocab.get
            wids = np.fromiter((get(token, -1) for token in new), dtype=np.int64, count=len(new))
            counts = (wids >= 0).astype(np.int64)
            sums = np.where(counts[:, None] > 0, np.take(self.table, np.maximum(wids, 0), axis=0), 0.0)
        self.token_sums[lo:hi] = sums
        self.token_counts[lo:hi] = counts
        self._known = hi

    def logits(self, batch: EncodedBatch) -> tuple[np.ndarray, np.ndarray]:
        """``W · hidden`` per document (float64), and the number of input ids per document."""
        if batch.generation != batch.table.generation:
            raise RuntimeError("the token table was reset after this batch was encoded")
        self._catch_up(batch.table)
        ndocs, nout = len(batch), self.table.shape[1]
        if not len(batch.ids):
            return np.zeros((ndocs, nout)), np.zeros(ndocs, dtype=np.int64)
        # np.take, not fancy indexing: several times faster for row gathers
        sums = np.add.reduceat(np.take(self.token_sums, batch.ids, axis=0), batch.starts, axis=0)
        counts = np.add.reduceat(np.take(self.token_counts, batch.ids), batch.starts)
        if self.word_ngrams > 1 and self.bucket > 0:
            for buckets, starts, per_doc in batch.ngram_rows(self.word_ngrams, self.bucket):
                if not len(buckets):
                    continue
                has = per_doc > 0  # reduceat cannot express an empty range: skip those documents
                rows = np.take(self.table, buckets + self.nwords, axis=0)
                sums[has] += np.add.reduceat(rows, starts[has], axis=0)
                counts = counts + per_doc
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / counts[:, None], counts

    def probabilities(self, batch: EncodedBatch) -> tuple[np.ndarray, np.ndarray]:
        """The probability fastText reports for each (document, label), and which documents
        have no prediction at all (no known input id). Pruned hierarchical-softmax leaves are 0."""
        logits, counts = self.logits(batch)
        empty = counts == 0
        if self.loss == "softmax":
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = shifted / shifted.sum(axis=1, keepdims=True) + _STD_LOG_EPS
        elif self.loss in ("ova", "ns"):
            probs = _table_sigmoid(logits) + _STD_LOG_EPS
        else:
            probs = self._hs_probabilities(logits)
        probs[empty] = np.nan
        return probs, empty

    def _hs_probabilities(self, logits: np.ndarray) -> np.ndarray:
        """Leaf probabilities along the tree as ``dfs`` scores them, pruned below log(1e-5)."""
        osz = len(self.labels)
        probs = np.zeros((logits.shape[0], osz))
        floor = np.log(_STD_LOG_EPS)
        stack = [(2 * osz - 2, np.zeros(logits.shape[0]))]
        while stack:
            node, score = stack.pop()
            if node < osz:
                probs[:, node] = np.where(score >= floor, np.exp(score), 0.0)
                continue
            f = 1.0 / (1.0 + np.exp(-logits[:, node - osz]))
            alive = score >= floor
            stack.append((self.left[node], np.where(alive, score + np.log(1.0 - f + _STD_LOG_EPS), -np.inf)))
            stack.append((self.right[node], np.where(alive, score + np.log(f + _STD_LOG_EPS), -np.inf)))
        return probs

    def predictions(self, batch: EncodedBatch, k: int = -1) -> list[list[tuple[str, float]]]:
        """``(label, probability)`` pairs per document, most probable first, as ``f.predict``
        returns them (for tests and for rules that need the full list)."""
        probs, empty = self.probabilities(batch)
        k = len(self.labels) if k < 0 else k
        out = []
        for d in range(len(batch)):
            if empty[d]:
                out.append([])
                continue
            # the latest label wins exact ties, as fastText's heap keeps it
            order = sorted(range(len(self.labels)), key=lambda i: (-probs[d, i], -i))
            out.append([(self.labels[i], float(probs[d, i])) for i in order[:k] if probs[d, i] > 0])
        return out
