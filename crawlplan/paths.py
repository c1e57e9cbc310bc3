"""Where the project's declarative resources (conf/, schemas/, pipelines/) live.

They sit at the repository root beside the package, because users edit them; an installed
wheel carries copies under ``crawlplan/_resources``. ``CRAWLPLAN_HOME`` overrides both.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def project_home() -> Path:
    env = os.environ.get("CRAWLPLAN_HOME")
    if env:
        return Path(env)
    repo = _PACKAGE_DIR.parent
    if (repo / "schemas").is_dir() and (repo / "conf").is_dir():
        return repo
    if not _PACKAGE_DIR.is_dir():  # imported from a zip: spark-submit --py-files crawlplan-*.whl
        return _unzipped_resources()
    return _PACKAGE_DIR / "_resources"


def _unzipped_resources() -> Path:
    """Files inside a zipped package cannot be globbed or opened as paths: copy the wheel's
    ``crawlplan/_resources`` once to a folder keyed by the archive's size and mtime."""
    archive = next(p for p in _PACKAGE_DIR.parents if p.is_file())
    inner = _PACKAGE_DIR.relative_to(archive).as_posix() + "/_resources/"
    st = archive.stat()
    target = Path(tempfile.gettempdir()) / f"crawlplan-resources-{st.st_size}-{int(st.st_mtime)}"
    if not (target / ".complete").is_file():
        tmp = Path(tempfile.mkdtemp(prefix="crawlplan-resources-"))
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.startswith(inner) and not name.endswith("/"):
                    dest = tmp / name[len(inner):]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(zf.read(name))
        (tmp / ".complete").write_text("ok")
        try:
            tmp.rename(target)
        except OSError:  # another process got there first
            pass
    return target if (target / ".complete").is_file() else tmp


RESOURCE_KINDS = ("conf", "schemas", "pipelines")


def package_files(package_dir: Path = _PACKAGE_DIR, home: Path | None = None) -> dict[str, bytes]:
    """Archive name -> bytes of the package as its wheel and zips carry it: the package's files
    and ``conf/``, ``schemas/``, ``pipelines/`` of ``home`` under ``crawlplan/_resources``."""
    home = project_home() if home is None else home
    files: dict[str, bytes] = {}
    for path in sorted(package_dir.rglob("*")):
        rel = path.relative_to(package_dir.parent)
        if (path.is_file() and not ({"__pycache__", "_resources"} & set(rel.parts))
                and path.suffix not in (".pyc", ".pyo")):
            files[rel.as_posix()] = path.read_bytes()
    for kind in RESOURCE_KINDS:
        for path in sorted((home / kind).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files[f"crawlplan/_resources/{kind}/{path.relative_to(home / kind).as_posix()}"] = path.read_bytes()
    return files


def resource_dir(kind: str) -> Path:
    """``kind`` is one of conf, schemas, pipelines."""
    path = project_home() / kind
    if not path.is_dir():
        raise FileNotFoundError(
            f"crawlplan resource folder {path} is missing; set CRAWLPLAN_HOME to a checkout of crawlplan"
        )
    return path


def default_cache_dir() -> Path:
    """Models and the generated demo crawl: large, regenerable, never committed."""
    env = os.environ.get("CRAWLPLAN_CACHE")
    if env:
        return Path(env)
    repo = _PACKAGE_DIR.parent
    if (repo / "pyproject.toml").is_file():
        return repo / ".cache"
    return Path.home() / ".cache" / "crawlplan"
