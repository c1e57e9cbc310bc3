"""The classifier registry (``conf/classifiers.yaml``, loaded into ``conf["classifiers"]``).

Validated once on the driver into frozen specs, so a typo in a label or score rule fails before
any executor starts, and the specs can be pickled to the workers as plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crawlplan.conf import ConfError

# The fixed score columns of the `scores` dataset, in schema order.
SCORE_COLUMNS: tuple[str, ...] = (
    "dclm", "fineweb_edu",
    "gneissweb_quality", "gneissweb_sci", "gneissweb_edu", "gneissweb_tech", "gneissweb_med",
    "nemotron_quality", "nemotron_edu", "nemotron_info",
)

KINDS = ("fasttext", "transformer")
SCORE_RULES = {
    "fasttext": ("top1_positive", "expected_label"),
    "transformer": ("softmax_positive", "regression"),
}
LOADERS = ("sequence_classification", "embedding_head")


@dataclass(frozen=True)
class ClassifierSpec:
    name: str
    kind: str
    hf_repo: str
    file: str
    path: str
    sha256: str
    labels: tuple[str, ...]
    score: str
    positive_label: str
    max_label: float
    newlines: str
    strip: bool
    note: str
    column: str
    loader: str = ""
    embedder: str = ""
    max_tokens: int = 512
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def user_supplied(self) -> bool:
        """No public file is known (Nemotron-CC): the user must give a path or a repo."""
        return not self.hf_repo and not self.path


def _spec(name: str, raw: dict) -> ClassifierSpec:
    where = f"classifiers.{name}"
    if not isinstance(raw, dict):
        raise ConfError(f"{where} must be a mapping")
    kind = str(raw.get("kind") or "fasttext")
    if kind not in KINDS:
        raise ConfError(f"{where}.kind is '{kind}'; expected one of {', '.join(KINDS)}")
    score = str(raw.get("score") or "")
    if score not in SCORE_RULES[kind]:
        raise ConfError(f"{where}.score is '{score}'; a {kind} classifier takes one of "
                        f"{', '.join(SCORE_RULES[kind])}")
    labels = tuple(str(x) for x in (raw.get("labels") or ()))
    positive = str(raw.get("positive_label") or "")
    if kind == "fasttext":
        if not labels:
            raise ConfError(f"{where}.labels is empty")
        bad = [lab for lab in labels if not lab.startswith("__label__")]
        if bad:
            raise ConfError(f"{where}.labels: fastText labels start with __label__, got '{bad[0]}'")
        if score == "top1_positive":
            if len(labels) != 2:
                raise ConfError(f"{where}: top1_positive needs exactly two labels, got {len(labels)}")
            if positive not in labels:
                raise ConfError(f"{where}.positive_label '{positive}' is not one of its labels {list(labels)}")
        if score == "expected_label":
            try:
                [int(lab.removeprefix("__label__")) for lab in labels]
            except ValueError:
                raise ConfError(f"{where}: expected_label needs integer labels (__label__0 ...)") from None
    try:
        max_label = float(raw.get("max_label") or 1)
    except (TypeError, ValueError):
        raise ConfError(f"{where}.max_label must be a number") from None
    if max_label <= 0:
        raise ConfError(f"{where}.max_label must be positive")
    pre = raw.get("preprocess") or {}
    if not isinstance(pre, dict):
        raise ConfError(f"{where}.preprocess must be a mapping (newlines, strip)")
    column = str(raw.get("column") or name)
    if kind == "fasttext" and column not in SCORE_COLUMNS:
        raise ConfError(f"{where}.column '{column}' is not a score column; fastText classifiers fill one of "
                        f"{', '.join(SCORE_COLUMNS)}")
    loader = str(raw.get("loader") or ("sequence_classification" if kind == "transformer" else ""))
    if kind == "transformer" and loader not in LOADERS:
        raise ConfError(f"{where}.loader is '{loader}'; expected one of {', '.join(LOADERS)}")
    if raw.get("sha256") not in (None, "") and not isinstance(raw.get("sha256"), str):
        # YAML reads an all-digit hash as a number (and a leading 0 as octal): the pin would be lost
        raise ConfError(f"{where}.sha256 must be a quoted string of 64 hex digits (YAML read a "
                        f"{type(raw.get('sha256')).__name__}); write sha256: \"...\"")
    sha = str(raw.get("sha256") or "").strip().lower()
    if sha and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise ConfError(f"{where}.sha256 must be 64 hex digits, got '{sha}'")
    known = {"kind", "hf_repo", "file", "path", "sha256", "labels", "score", "positive_label", "max_label",
             "preprocess", "note", "column", "loader", "embedder", "max_tokens"}
    return ClassifierSpec(
        name=name, kind=kind, hf_repo=str(raw.get("hf_repo") or ""), file=str(raw.get("file") or ""),
        path=str(raw.get("path") or ""), sha256=sha, labels=labels, score=score, positive_label=positive,
        max_label=max_label, newlines=str(pre.get("newlines", " ")), strip=bool(pre.get("strip", True)),
        note=str(raw.get("note") or ""), column=column, loader=loader, embedder=str(raw.get("embedder") or ""),
        max_tokens=int(raw.get("max_tokens") or 512),
        extra={k: v for k, v in raw.items() if k not in known},
    )


def load_registry(conf: dict) -> dict[str, ClassifierSpec]:
    """Every registry entry, validated, in file order."""
    raw = conf.get("classifiers") or {}
    if not isinstance(raw, dict):
        raise ConfError("classifiers must be a mapping of name -> entry (conf/classifiers.yaml)")
    specs = {name: _spec(str(name), entry) for name, entry in raw.items()}
    columns = [s.column for s in specs.values() if s.kind == "fasttext"]
    dup = {c for c in columns if columns.count(c) > 1}
    if dup:
        raise ConfError(f"two fastText classifiers fill the same score column '{sorted(dup)[0]}'")
    return specs


def select(specs: dict[str, ClassifierSpec], names: list[str] | tuple[str, ...] | None) -> list[ClassifierSpec]:
    """The classifiers to run: ``classify.models`` when given, else every fastText entry.

    Transformer entries run only when named, because they need torch and (in practice) a GPU.
    """
    if not names:
        return [s for s in specs.values() if s.kind == "fasttext"]
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise ConfError(f"classify.models names unknown classifier '{unknown[0]}'; known: {', '.join(specs)}")
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return [specs[n] for n in seen]
