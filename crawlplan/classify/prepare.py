"""Driver-side model preparation for the classify node: find every configured model, train
demo stand-ins for missing ones when the caller passes a trainer (``crawlplan.demo.models.train_demo``),
check pins, and say loudly what is a demo."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crawlplan.classify.fasttext_model import ENGINES
from crawlplan.classify.models import (
    DEMO_WARNING,
    check_pin,
    demo_marker,
    is_remote,
    local,
    missing_model_error,
    model_path,
    present,
    sha256_file,
)
from crawlplan.classify.registry import ClassifierSpec
from crawlplan.classify.scoring import ModelRef
from crawlplan.conf import Settings


@dataclass(frozen=True)
class ClassifySettings(Settings):
    """Conf section ``classify`` (values and meaning: conf/defaults.yaml)."""
    SECTION = "classify"

    models: tuple[str, ...]
    distribute: str
    engine: str
    batch_size: int
    max_chars: int
    demo_models_when_missing: str

    def __post_init__(self):
        if self.engine not in ENGINES:
            raise ValueError(f"classify.engine is '{self.engine}'; expected one of {', '.join(ENGINES)}")


def worker_reuse_note(spark) -> str | None:
    """Spark's ``spark.python.worker.reuse`` (its own default: true) off means every task reloads
    every model: worth a loud note."""
    if str(spark.conf.get("spark.python.worker.reuse", "true")).lower() == "false":
        return "spark.python.worker.reuse is false: every task reloads every model; set it to true"
    return None


def demo_allowed(value, master: str) -> bool:
    """``auto`` means yes on a laptop (local master) and no on a cluster, where a missing real
    model is far more likely a mistake than a wish for demo scores."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == "auto":
        return (master or "").startswith("local")
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0", ""):
        return False
    raise ValueError(f"classify.demo_models_when_missing is '{value}'; expected true, false or auto")


def _exists(spec: ClassifierSpec, path: str, remote_exists) -> bool:
    if is_remote(path):
        return bool(remote_exists(path))
    return present(spec, path)


def _key(spec: ClassifierSpec, path: str) -> str:
    if is_remote(path):
        return "remote"
    if spec.sha256 and spec.kind == "fasttext":
        return sha256_file(path)
    st = Path(local(path)).stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def prepare_models(specs: list[ClassifierSpec], conf: dict, *, remote_exists, demo_trainer=None,
                   echo=print) -> tuple[list[ModelRef], list[str]]:
    """ModelRefs for ``specs`` and the names of those that are demo models.

    ``demo_trainer(specs, conf, echo=...)`` trains demo stand-ins for missing files; None (the
    default) allows no demo model. Raises naming the missing file and the pull command when a
    model is absent and no demo model may replace it (no trainer, not fastText, a user path).
    """
    missing = [s for s in specs if not _exists(s, model_path(s, conf), remote_exists)]
    # a pinned entry wants that exact file: a demo stand-in would be refused by its pin anyway
    trainable = [s for s in missing if demo_trainer is not None and s.kind == "fasttext" and not s.path and not s.sha256]
    for spec in missing:
        if spec not in trainable:
            raise missing_model_error(spec, model_path(spec, conf))
    if trainable:
        echo(f"classify: no model files for {', '.join(s.name for s in trainable)}; training demo models "
             f"({DEMO_WARNING})")
        demo_trainer(trainable, conf, echo=echo)
    refs: list[ModelRef] = []
    demo: list[str] = []
    for spec in specs:
        path = model_path(spec, conf)
        check_pin(spec, path)
        is_demo = demo_marker(path) is not None
        if is_demo:
            demo.append(spec.name)
        refs.append(ModelRef(spec=spec, path=path, key=_key(spec, path), demo=is_demo))
    return refs, demo
