"""The second classifier kind: multilingual Transformer classifiers (JQL-Edu, FineWeb2-HQ).

Optional: needs ``torch`` and ``transformers`` (``pip install crawlplan[transformers]``) and, to
be useful at scale, a GPU; nothing in the default install imports this module. A model is a
folder (a Hugging Face snapshot, ``crawlplan models pull NAME``). Two loaders:

- ``sequence_classification``: any ``AutoModelForSequenceClassification`` checkpoint.
- ``embedding_head``: a frozen embedder (``embedder`` in the registry) with mean pooling, and
  a small MLP head stored as ``head.safetensors`` (Linear layers in key order, ReLU between),
  which is the shape JQL's regression heads and FineWeb2-HQ's classifiers take. The exact head
  files of those repositories were not available offline here: this loader is untested against
  them, and a head that does not fit fails at load time with the keys it found.

Score rules: ``softmax_positive`` (P of the positive class index) and ``regression`` (value /
max_label), clipped to [0, 1] like the fastText scores.
"""

from __future__ import annotations

import math
import os

from crawlplan.classify.fasttext_model import preprocess
from crawlplan.classify.registry import ClassifierSpec


def score_from_output(values: list[float], spec: ClassifierSpec) -> float:
    """One document's model output (logits, or a single regression value) to a [0, 1] score."""
    if not values:
        raise ValueError(f"{spec.name}: empty model output")
    if spec.score == "regression":
        value = values[0] / spec.max_label
    elif spec.score == "softmax_positive":
        index = int(spec.positive_label or 1)
        if len(values) == 1:  # a single logit: sigmoid
            value = 1.0 / (1.0 + math.exp(-values[0]))
        else:
            top = max(values)
            exps = [math.exp(v - top) for v in values]
            value = exps[index] / sum(exps)
    else:
        raise ValueError(f"unknown score rule '{spec.score}' for a transformer classifier")
    if not math.isfinite(value):
        raise ValueError(f"{spec.name}: non-finite model output")
    return min(1.0, max(0.0, value))


class TransformerScorer:
    def __init__(self, spec: ClassifierSpec, path: str, batch_size: int = 32):
        try:
            # torch / transformers: the optional [transformers] extra
            import torch
            import transformers  # noqa: F401
        except ImportError:
            raise ImportError(f"classifier '{spec.name}' needs torch and transformers: "
                              f"pip install 'crawlplan[transformers]'") from None
        self.spec = spec
        self.batch_size = batch_size
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        # transformers: the optional [transformers] extra
        from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

        if spec.loader == "sequence_classification":
            self.tokenizer = AutoTokenizer.from_pretrained(path)
            self.model = AutoModelForSequenceClassification.from_pretrained(path).to(self.device).eval()
            self.head = None
        else:
            source = spec.embedder or path
            self.tokenizer = AutoTokenizer.from_pretrained(source)
            self.model = AutoModel.from_pretrained(source, trust_remote_code=True).to(self.device).eval()
            self.head = self._load_head(path)

    def _load_head(self, path: str):
        # torch / transformers: the optional [transformers] extra
        import torch
        from safetensors.torch import load_file

        weights = load_file(os.path.join(path, "head.safetensors"))
        names = sorted({k.rsplit(".", 1)[0] for k in weights if k.endswith(".weight")})
        if not names:
            raise ValueError(f"{path}/head.safetensors holds no Linear weights (keys: {sorted(weights)[:5]})")
        layers: list = []
        for i, name in enumerate(names):
            w = weights[f"{name}.weight"]
            lin = torch.nn.Linear(w.shape[1], w.shape[0])
            lin.weight.data.copy_(w)
            if f"{name}.bias" in weights:
                lin.bias.data.copy_(weights[f"{name}.bias"])
            layers.append(lin)
            if i < len(names) - 1:
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers).to(self.device).eval()

    def _outputs(self, texts: list[str]) -> list[list[float]]:
        # torch / transformers: the optional [transformers] extra
        import torch

        enc = self.tokenizer(texts, truncation=True, max_length=self.spec.max_tokens, padding=True,
                             return_tensors="pt").to(self.device)
        with torch.inference_mode():
            if self.head is None:
                logits = self.model(**enc).logits
            else:
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                logits = self.head((hidden * mask).sum(1) / mask.sum(1).clamp(min=1))
        return logits.float().cpu().tolist()

    def score_batch(self, texts: list[str | None]) -> tuple[list, dict[int, str]]:
        """Scores for a batch (None stays None); a failing sub-batch is retried one by one."""
        out: list = [None] * len(texts)
        errors: dict[int, str] = {}
        idx = [i for i, t in enumerate(texts) if t is not None]
        for start in range(0, len(idx), self.batch_size):
            chunk = idx[start:start + self.batch_size]
            try:
                for i, values in zip(chunk, self._outputs([texts[i] for i in chunk])):
                    out[i] = score_from_output(values, self.spec)
            except Exception:  # noqa: BLE001
                for i in chunk:
                    try:
                        out[i] = score_from_output(self._outputs([texts[i]])[0], self.spec)
                    except Exception as exc:  # noqa: BLE001
                        errors[i] = f"{self.spec.name}: {type(exc).__name__}: {exc}"[:500]
        return out, errors

    def score(self, text: str, max_chars: int = 0) -> float:
        clean, _ = preprocess(text, self.spec.newlines, self.spec.strip, max_chars)
        values, errors = self.score_batch([clean])
        if errors:
            raise ValueError(errors[0])
        return values[0]
