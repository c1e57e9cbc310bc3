"""Demo models: small fastText models trained on the demo generator's labelled text.

They live with the demo generator, not in ``crawlplan.classify``: the classify library never
imports demo code; the classify node hands ``train_demo`` to ``prepare_models`` when the conf
allows demo stand-ins for missing model files.

They use the real label schemes and are stored under the registry's file names, so the demo
DAG exercises exactly the loading and scoring code that real models go through. A marker file
beside each says it is a demo model; the classify node reports that loudly, because their
scores measure nothing about real quality.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from crawlplan.classify.fasttext_model import preprocess
from crawlplan.classify.models import DEMO_SUFFIX, DEMO_WARNING, ModelError, cache_path, is_remote
from crawlplan.classify.registry import ClassifierSpec
from crawlplan.conf import section
from crawlplan.demo.text import labelled_texts

TextsFn = Callable[[str, int, int], list[tuple[str, str]]]


def demo_params(conf: dict) -> dict:
    """Conf section ``classify.demo`` as ``train_one``'s arguments (and ``n`` texts per model)."""
    demo = section(conf, "classify.demo")
    return {"n": int(demo["docs_per_model"]), "seed": int(demo["seed"]), "dim": int(demo["dim"]),
            "epoch": int(demo["epoch"]), "bucket": int(demo["bucket"])}


def train_one(spec: ClassifierSpec, examples: list[tuple[str, str]], out_path: str, *, seed: int = 0,
              dim: int = 16, epoch: int = 10, bucket: int = 100000) -> str:
    """Train one supervised model on ``(label, text)`` pairs and write it atomically.

    One thread and a fixed seed make the file reproducible; ``wordNgrams=2`` matches the real
    bigram classifiers so prediction cost has the same shape.
    """
    # fasttext: heavy native extension, loaded only to train demo models
    import fasttext

    if spec.kind != "fasttext":
        raise ModelError(f"demo models are fastText only; '{spec.name}' is a {spec.kind} classifier")
    allowed = set(spec.labels)
    bad = sorted({lab for lab, _ in examples} - allowed)
    if bad:
        raise ModelError(f"demo texts for '{spec.name}' use label {bad[0]}, not in its scheme {sorted(allowed)}")
    if len({lab for lab, _ in examples}) < 2:
        raise ModelError(f"demo texts for '{spec.name}' need at least two labels")
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crawlplan-demo-ft-") as tmp:
        train_file = Path(tmp) / "train.txt"
        with train_file.open("w", encoding="utf-8") as fh:
            for label, text in examples:
                clean, _ = preprocess(text, spec.newlines if spec.newlines != "\n" else " ", True)
                if clean:
                    fh.write(f"{label} {clean}\n")
        model = fasttext.train_supervised(
            input=str(train_file), dim=dim, epoch=epoch, lr=0.5, wordNgrams=2, minCount=1, bucket=bucket,
            thread=1, seed=seed, verbose=0, loss="softmax",
        )
        tmp_out = out.with_name(out.name + ".tmp")
        model.save_model(str(tmp_out))
        os.replace(tmp_out, out)
    return str(out)


def write_marker(path: str, spec: ClassifierSpec, n: int, seed: int) -> None:
    marker = {
        "demo": True, "classifier": spec.name, "labels": list(spec.labels), "docs": n, "seed": seed,
        "trained_from": "crawlplan.demo.text.labelled_texts",
        "trained_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "warning": DEMO_WARNING,
    }
    Path(path + DEMO_SUFFIX).write_text(json.dumps(marker, indent=2), encoding="utf-8")


def train_demo(specs: list[ClassifierSpec], conf: dict, *, texts_fn: TextsFn | None = None,
               force: bool = False, echo=print) -> dict[str, str]:
    """Train a demo model for each spec into the cache; real models already there are kept.

    ``force`` retrains existing demo models but never overwrites a real (unmarked) model.
    """
    params = demo_params(conf)
    fn = texts_fn or labelled_texts
    written: dict[str, str] = {}
    for spec in specs:
        if spec.kind != "fasttext":
            continue
        path = cache_path(spec, conf)
        if is_remote(path):
            raise ModelError(f"classify.model_dir is remote ({path}); train demo models into a local cache")
        exists = Path(path).is_file()
        is_demo = Path(path + DEMO_SUFFIX).is_file()
        if exists and not is_demo:
            echo(f"  {spec.name}: a real model is present at {path}; not replaced")
            continue
        if exists and not force:
            written[spec.name] = path
            continue
        examples = fn(spec.name, params["n"], params["seed"])
        started = time.time()
        train_one(spec, examples, path, seed=params["seed"], dim=params["dim"], epoch=params["epoch"],
                  bucket=params["bucket"])
        write_marker(path, spec, len(examples), params["seed"])
        echo(f"  {spec.name}: demo model trained on {len(examples)} texts in {time.time() - started:.1f}s "
             f"-> {path}")
        written[spec.name] = path
    return written
