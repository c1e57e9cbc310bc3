"""Where the project's declarative resources (conf/, schemas/, pipelines/) live.

They sit at the repository root beside the package, because users edit them; an installed
wheel carries copies under ``crawlplan/_resources``. ``CRAWLPLAN_HOME`` overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def project_home() -> Path:
    env = os.environ.get("CRAWLPLAN_HOME")
    if env:
        return Path(env)
    repo = _PACKAGE_DIR.parent
    if (repo / "schemas").is_dir() and (repo / "conf").is_dir():
        return repo
    return _PACKAGE_DIR / "_resources"


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
