"""The model cache: where each classifier's file lives, pin checks, pulls, demo markers.

Layout: ``<model_dir>/<name>/<file>`` with the registry's file name, so a demo model and a real
one sit at the same path and load through the same code. A demo model carries a marker file
``<file>.demo.json`` beside it; pulling the real model replaces the file and drops the marker.
``model_dir`` is conf ``classify.model_dir`` (default ``<cache>/models``); it may be an
``hdfs://`` or ``s3a://`` folder, in which case the driver only names the files and Spark
ships them (see ``crawlplan.classify.spark_scoring``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from crawlplan.classify.registry import ClassifierSpec
from crawlplan.conf import get
from crawlplan.paths import default_cache_dir

DEMO_SUFFIX = ".demo.json"
DEMO_WARNING = "demo models: scores are not real quality"   # said loudly wherever a demo model scores
_SHA_SUFFIX = ".sha256.json"


class ModelError(ValueError):
    """``offline`` marks a failure to reach the Hub, which every further pull would repeat."""

    def __init__(self, message: str, offline: bool = False):
        super().__init__(message)
        self.offline = offline


def is_remote(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def model_dir(conf: dict) -> str:
    configured = get(conf, "classify.model_dir") or ""
    return str(configured) if configured else str(default_cache_dir() / "models")


def cache_path(spec: ClassifierSpec, conf: dict) -> str:
    """Where pull and train-demo put this classifier's file (a folder for transformers)."""
    base = model_dir(conf).rstrip("/")
    if spec.kind == "transformer":
        return f"{base}/{spec.name}"
    return f"{base}/{spec.name}/{spec.file or 'model.bin'}"


def present(spec: ClassifierSpec, path: str) -> bool:
    p = Path(local(path))
    return p.is_dir() and any(p.iterdir()) if spec.kind == "transformer" else p.is_file()


def model_path(spec: ClassifierSpec, conf: dict) -> str:
    """The file scoring reads: the entry's own ``path`` when set, else the cache."""
    return spec.path or cache_path(spec, conf)


def local(path: str) -> str:
    return path.removeprefix("file://")


def demo_marker(path: str) -> dict | None:
    """The demo marker's content, or None for a real (or remote, or absent) model."""
    if is_remote(path):
        return None
    marker = Path(local(path) + DEMO_SUFFIX)
    if not marker.is_file():
        return None
    try:
        return json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"demo": True}


def sha256_file(path: str) -> str:
    """sha256 of a local file, remembered beside it by size and mtime: real models are 2-4 GB
    and ``models list`` should not re-hash them every time."""
    p = Path(local(path))
    st = p.stat()
    side = Path(str(p) + _SHA_SUFFIX)
    try:
        cached = json.loads(side.read_text(encoding="utf-8"))
        if cached.get("size") == st.st_size and cached.get("mtime_ns") == st.st_mtime_ns:
            return str(cached["sha256"])
    except (OSError, ValueError, KeyError):
        pass
    digest = hashlib.sha256()
    with p.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    value = digest.hexdigest()
    try:
        side.write_text(json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": value}),
                        encoding="utf-8")
    except OSError:
        pass
    return value


def check_pin(spec: ClassifierSpec, path: str) -> str:
    """Refuse a file whose sha256 differs from the registry pin, before anything loads it.

    Returns the pin status. A pin means "this exact file": a demo model (or anything beside a
    demo marker) never passes it, so a sidecar file cannot switch the check off. Remote files are
    checked when pulled, not per run.
    """
    if not spec.sha256:
        return "unpinned"
    if spec.kind == "transformer":
        return "pinned (folder, not checked)"
    if is_remote(path):
        return "pinned (remote, not checked)"
    actual = sha256_file(path)
    if actual != spec.sha256:
        what = "a demo model" if demo_marker(path) is not None else "a file"
        raise ModelError(f"classifier '{spec.name}': {path} is {what} with sha256 {actual}, the registry pins "
                         f"{spec.sha256}; refusing to load it. Re-download with `crawlplan models pull "
                         f"{spec.name}` or fix classifiers.{spec.name}.sha256")
    return "pinned, verified"


def missing_model_error(spec: ClassifierSpec, path: str) -> ModelError:
    if spec.user_supplied:
        how = (f"no public file is known for '{spec.name}': set classifiers.{spec.name}.path=FILE, or "
               f"classifiers.{spec.name}.hf_repo and .file and run `crawlplan models pull {spec.name}`")
    else:
        how = f"run `crawlplan models pull {spec.name}` (or set classifiers.{spec.name}.path=FILE)"
    return ModelError(f"classifier '{spec.name}': model file {path} not found; {how}. "
                      f"For demo models run `crawlplan models train-demo` or set "
                      f"classify.demo_models_when_missing=true")


@dataclass
class ModelStatus:
    name: str
    kind: str
    source: str
    path: str
    present: bool
    size: int | None
    demo: bool
    pin: str


def status(spec: ClassifierSpec, conf: dict, verify: bool = True) -> ModelStatus:
    path = model_path(spec, conf)
    if spec.path:
        source = spec.path
    elif spec.hf_repo:
        source = f"hf://{spec.hf_repo}" + (f"/{spec.file}" if spec.file else "")
    else:
        source = "user-supplied (not set)"
    found, size = False, None
    if is_remote(path):
        pin = "remote"
    else:
        p = Path(local(path))
        found = present(spec, path)
        if found and p.is_dir():
            size = sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        elif found:
            size = p.stat().st_size
        if not found:
            pin = "pinned" if spec.sha256 else "unpinned"
        elif not verify:
            pin = "pinned (not checked)" if spec.sha256 else "unpinned"
        else:
            try:
                pin = check_pin(spec, path)
            except ModelError:
                pin = "PIN MISMATCH"
    return ModelStatus(spec.name, spec.kind, source, path, found, size, demo_marker(path) is not None, pin)


def pull(spec: ClassifierSpec, conf: dict, echo=print) -> str:
    """Download one classifier's file into the cache through huggingface_hub.

    Offline (no network, or HF_HUB_OFFLINE=1 with nothing cached) fails with one clear line; a
    file that does not match its pin is deleted and refused.
    """
    if spec.path:
        raise ModelError(f"classifier '{spec.name}' uses a configured path ({spec.path}); nothing to pull")
    if not spec.hf_repo:
        raise ModelError(f"classifier '{spec.name}' has no public model: set classifiers.{spec.name}.hf_repo and "
                         f".file (or .path) to your own model first")
    target = cache_path(spec, conf)
    if is_remote(target):
        raise ModelError(f"classify.model_dir is remote ({model_dir(conf)}): pull into a local cache and copy "
                         f"the files there (hadoop fs -put / aws s3 cp)")
    dest = Path(target).parent
    dest.mkdir(parents=True, exist_ok=True)
    echo(f"pulling {spec.name}: {spec.hf_repo}/{spec.file} -> {dest}")
    try:
        # huggingface_hub: heavy, needed only by `crawlplan models pull`
        from huggingface_hub import hf_hub_download
    except ImportError:  # pragma: no cover - a declared dependency
        raise ModelError("huggingface_hub is not installed: pip install huggingface_hub") from None
    # huggingface_hub falls back to a file already at the target when the Hub is unreachable:
    # move a demo model aside first, so an offline pull fails instead of blessing the demo file.
    marker = Path(target + DEMO_SUFFIX)
    backup = Path(target + ".demo-backup")
    if marker.exists() and Path(target).exists():
        os.replace(target, backup)
    try:
        if spec.kind == "transformer":
            # huggingface_hub: heavy, needed only by `crawlplan models pull`
            from huggingface_hub import snapshot_download

            return str(snapshot_download(repo_id=spec.hf_repo, local_dir=target))
        got = hf_hub_download(repo_id=spec.hf_repo, filename=spec.file or "model.bin", local_dir=str(dest))
    except Exception as exc:  # the hub raises many types: offline, 404, gated, proxy errors
        if backup.exists():
            os.replace(backup, target)
        kind = type(exc).__name__
        offline = any(word in f"{kind} {exc}".lower() for word in
                      ("offline", "connect", "resolve", "network", "timeout", "name or service", "unreachable"))
        hint = ("cannot reach the Hugging Face Hub (offline?). Download the file elsewhere and put it at "
                f"{target}, or set classifiers.{spec.name}.path" if offline else f"{kind}: {exc}")
        raise ModelError(f"pull {spec.name} failed: {hint}", offline=offline) from None
    got = str(got)
    if os.path.abspath(got) != os.path.abspath(target):
        os.replace(got, target)
    for leftover in (marker, backup):
        if leftover.exists():
            leftover.unlink()
    if spec.sha256:
        try:
            check_pin(spec, target)
        except ModelError:
            bad = sha256_file(target)
            Path(target).unlink()
            raise ModelError(f"pull {spec.name}: downloaded file has sha256 {bad}, the registry pins "
                             f"{spec.sha256}; deleted it") from None
    return target
