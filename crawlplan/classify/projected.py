"""fastText supervised prediction through a projected input table: the same numbers, far cheaper.

A supervised fastText model predicts ``loss(W · mean(E[ids]))``: the hidden vector is the mean of
the input rows of a document's word, subword and word n-gram ids, and the output layer ``W`` is
linear up to the loss function. So ``W · mean(E[ids]) = mean((E Wᵀ)[ids])``, and the table
``P = E Wᵀ`` (one row per input id, one column per label) replaces the model's input matrix: a
prediction sums a few floats per token instead of a ``dim``-wide row (dim 100-256 in the data
selection classifiers), and ``P`` of a 2M-row binary model is 32 MB instead of 2 GB.

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

import json
import os
import tempfile

import numpy as np

from crawlplan.classify.fasttext_tokens import (
    EOS,
    LABEL_PREFIX,
    EncodedBatch,
    TokenTable,
    char_ngrams,
    fasttext_hash,
)

_STD_LOG_EPS = 1e-5
_PROJECT_ROWS = 1 << 16


class NotProjectable(ValueError):
    """The model needs fastText's own prediction (the message says why)."""


_MAX_SIGMOID, _SIGMOID_TABLE_SIZE = 8, 512
_SIGMOID_TABLE = np.array([1.0 / (1.0 + np.exp(-np.float32(np.float32(i * 2 * _MAX_SIGMOID) / _SIGMOID_TABLE_SIZE
                                                            - _MAX_SIGMOID)))
                           for i in range(_SIGMOID_TABLE_SIZE + 1)], dtype=np.float32).astype(np.float64)


def _table_sigmoid(x: np.ndarray) -> np.ndarray:
    """``Loss::sigmoid``: the one-vs-all output reads a 513-entry table, not the exact sigmoid.

    The index is computed in float32 as fastText does: in float64 a logit a hair below a step
    (1.99999992) falls into the entry before the one fastText reads (found in review)."""
    x32 = np.nan_to_num(x, nan=0.0).astype(np.float32)
    eight, size = np.float32(_MAX_SIGMOID), np.float32(_SIGMOID_TABLE_SIZE)
    index = ((np.clip(x32, -eight, eight) + eight) * size / eight / np.float32(2)).astype(np.int64)
    out = _SIGMOID_TABLE[np.clip(index, 0, _SIGMOID_TABLE_SIZE)]
    out = np.where(x32 < -eight, 0.0, np.where(x32 > eight, 1.0, out))
    return np.where(np.isnan(x), np.nan, out)


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


def project(model) -> ProjectedModel:
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
    return ProjectedModel.from_fasttext(f, loss, args)


class ProjectedModel:
    """One model reduced to what prediction needs: ``P = E Wᵀ``, the vocabulary, the labels.

    It keeps no reference to the fastText model, so the caller can free the model's input
    matrix (the bulk of a 1-4 GB file) once this is built, and :meth:`save` writes it as one
    small ``.npz`` that later processes :meth:`load` instead of the model file. It also keeps
    the summed ``P`` rows of the tokens seen so far.
    """

    _FIELDS = ("loss", "labels", "counts", "word_ngrams", "bucket", "minn", "maxn")

    def __init__(self, *, loss: str, labels: list[str], counts: list[int], word_ngrams: int, bucket: int,
                 minn: int, maxn: int, words: list[bytes], table: np.ndarray):
        self.loss, self.labels, self.counts = loss, list(labels), [int(c) for c in counts]
        self.word_ngrams, self.bucket, self.minn, self.maxn = int(word_ngrams), int(bucket), int(minn), int(maxn)
        self.words = words
        self.vocab = {w: i for i, w in enumerate(words)}
        self.nwords = len(words)
        if table.shape[0] != self.nwords + self.bucket or table.shape[1] != len(self.labels):
            raise NotProjectable(f"a {table.shape} table for {self.nwords} words, {self.bucket} buckets and "
                                 f"{len(self.labels)} labels")
        self.table = table
        if loss == "hs":
            self.left, self.right = _huffman_tree(self.counts)
        self._generation = -1
        self._known = 0

    @classmethod
    def from_fasttext(cls, f, loss: str, args) -> ProjectedModel:
        labels, counts = f.getLabels("replace")
        # surrogateescape keeps any byte sequence of the vocabulary exactly (and unmatchable by
        # document tokens, which are valid UTF-8, when the bytes are not)
        words, _ = f.getVocab("surrogateescape")
        inputs = np.asarray(f.getInputMatrix())  # a view of fastText's own matrix, no copy
        outputs = np.asarray(f.getOutputMatrix(), dtype=np.float64)
        table = np.empty((inputs.shape[0], outputs.shape[0]), dtype=np.float64)
        for lo in range(0, inputs.shape[0], _PROJECT_ROWS):
            table[lo:lo + _PROJECT_ROWS] = inputs[lo:lo + _PROJECT_ROWS] @ outputs.T
        del inputs
        return cls(loss=loss, labels=list(labels), counts=list(counts), word_ngrams=args.wordNgrams,
                   bucket=args.bucket, minn=args.minn, maxn=args.maxn, table=table,
                   words=[w.encode("utf-8", "surrogateescape") for w in words])

    def save(self, path: str) -> None:
        """Write atomically: a unique temporary file in the same folder (unique across hosts
        sharing the folder, unlike a pid), renamed into place, removed if the write fails."""
        meta = {k: getattr(self, k) for k in self._FIELDS}
        blob = b"".join(self.words)
        offsets = np.cumsum([0] + [len(w) for w in self.words], dtype=np.int64)
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                   dir=os.path.dirname(path) or ".")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, table=self.table, words=np.frombuffer(blob, dtype=np.uint8), offsets=offsets,
                         meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    @classmethod
    def load(cls, path: str) -> ProjectedModel:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(data["meta"].tobytes())
            blob, offsets = data["words"].tobytes(), data["offsets"]
            words = [blob[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
            return cls(words=words, table=data["table"], **meta)

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
            # per token: the summed P rows, then the number of input ids in the last column, so a
            # batch gathers both with one take
            self.token_stats = np.zeros((1 << 14, self.table.shape[1] + 1))
        new = table.tokens[self._known:]
        if not new:
            return
        lo, hi = self._known, len(table.tokens)
        if hi > len(self.token_stats):
            grown = max(hi, 2 * len(self.token_stats))
            self.token_stats = np.concatenate([self.token_stats, np.zeros((grown - len(self.token_stats),
                                                                           self.token_stats.shape[1]))])
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
        self.token_stats[lo:hi, :-1] = sums
        self.token_stats[lo:hi, -1] = counts
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
        stats = np.add.reduceat(np.take(self.token_stats, batch.ids, axis=0), batch.starts, axis=0)
        sums, counts = stats[:, :-1], stats[:, -1].astype(np.int64)
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
