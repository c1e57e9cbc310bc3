"""``crawlplan package``: what spark-submit needs to run crawlplan on executors.

* ``crawlplan-<version>-py3-none-any.whl``: the package plus ``conf/``, ``schemas/`` and
  ``pipelines/`` under ``crawlplan/_resources`` (``crawlplan.paths`` reads them from there,
  unzipping them when Python imports the package straight from the archive). Written directly
  with ``zipfile`` (a wheel is a zip with a dist-info folder): no build backend, no network,
  byte-identical for the same tree. ``pip install`` it into cluster images.
* ``crawlplan-<version>-py3-none-any.zip`` for ``--py-files``: the same bytes. PySpark puts
  ``--py-files`` entries on the executors' ``sys.path`` only when they end in .zip, .egg or
  .jar (``SparkContext.PACKAGE_EXTENSIONS``); a ``.whl`` reaches the driver and then fails on
  the executors with "No module named 'crawlplan'".
* ``crawlplan-env.tar.gz`` for ``--archives ...#environment`` (optional, ``--venv``): the
  virtual environment's third-party packages (fastText, lxml, trafilatura... have C extensions,
  which cannot be imported from a zip). pyspark is left out: executors use their Spark's own.
* ``requirements.txt``: the exact versions, for building a cluster image instead.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

from crawlplan import __version__

RESOURCE_KINDS = ("conf", "schemas", "pipelines")
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: same tree, same wheel bytes
_SKIP_PARTS = {"__pycache__", "_resources"}
# Never shipped in the environment archive: Spark brings its own pyspark, and the rest are
# installers or this project's own editable hooks.
_ENV_EXCLUDE = re.compile(r"^(pyspark|py4j|pip|setuptools|wheel|_distutils_hack|crawlplan|__editable__"
                          r"|distutils-precedence\.pth)", re.IGNORECASE)


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _metadata(project: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}", f"Requires-Python: {project.get('requires-python', '')}"]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def wheel_files(repo: Path) -> dict[str, bytes]:
    """archive name -> content for every file the wheel carries (dist-info not included)."""
    files: dict[str, bytes] = {}
    pkg = repo / "crawlplan"
    for path in sorted(pkg.rglob("*")):
        rel = path.relative_to(repo)
        if path.is_file() and not (_SKIP_PARTS & set(rel.parts)) and path.suffix not in (".pyc", ".pyo"):
            files[rel.as_posix()] = path.read_bytes()
    for kind in RESOURCE_KINDS:
        for path in sorted((repo / kind).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files[f"crawlplan/_resources/{kind}/{path.relative_to(repo / kind).as_posix()}"] = path.read_bytes()
    return files


def build_wheel(repo: Path, out_dir: Path) -> Path:
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files = wheel_files(repo)
    scripts = project.get("scripts", {})
    files[f"{dist_info}/METADATA"] = _metadata(project).encode()
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: crawlplan package\nRoot-Is-Purelib: true\n"
                                   b"Tag: py3-none-any\n")
    if scripts:
        files[f"{dist_info}/entry_points.txt"] = ("[console_scripts]\n" + "".join(
            f"{k} = {v}\n" for k, v in scripts.items())).encode()
    record = "".join(f"{n},{_digest(d)},{len(d)}\n" for n, d in files.items()) + f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{name}-{version}-py3-none-any.whl"
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in files.items():
            info = zipfile.ZipInfo(arcname, _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    os.replace(tmp, target)
    return target


def site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"{venv} is not a virtual environment (no lib/python3*/site-packages)")
    return found[0]


def build_env_archive(venv: Path, out_dir: Path) -> Path:
    """A tar.gz laid out as a venv (bin/python, lib/pythonX.Y/site-packages): unpacked by Spark as
    ``./environment``, used with ``spark.pyspark.python=./environment/bin/python``. ``bin/python``
    links to the base interpreter, which must exist at the same path on the nodes (one image);
    otherwise build the image from ``requirements.txt``."""
    sp = site_packages(venv)
    target = out_dir / "crawlplan-env.tar.gz"
    tmp = target.with_suffix(".tmp")
    with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
        for name in ("pyvenv.cfg",):
            if (venv / name).is_file():
                tar.add(venv / name, arcname=name)
        for py in sorted(venv.glob("bin/python*")):
            tar.add(py, arcname=f"bin/{py.name}")
        for entry in sorted(sp.iterdir()):
            if _ENV_EXCLUDE.match(entry.name):
                continue
            tar.add(entry, arcname=f"{sp.relative_to(venv).as_posix()}/{entry.name}",
                    filter=lambda ti: None if "__pycache__" in ti.name else ti)
    os.replace(tmp, target)
    return target


def freeze(python: str) -> str:
    out = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable"], capture_output=True, text=True,
                         check=True).stdout
    keep = [line for line in out.splitlines() if line and not re.match(r"(?i)crawlplan\b", line)]
    return "\n".join(keep) + "\n"


def package(repo: Path, out_dir: Path, *, venv: Path | None = None, python: str | None = None) -> dict[str, Path]:
    wheel = build_wheel(repo, out_dir)
    pyfiles = wheel.with_suffix(".zip")
    shutil.copyfile(wheel, pyfiles)
    out: dict[str, Path] = {"wheel": wheel, "py_files": pyfiles}
    try:
        (out_dir / "requirements.txt").write_text(freeze(python or sys.executable))
        out["requirements"] = out_dir / "requirements.txt"
    except (subprocess.CalledProcessError, OSError):
        pass
    if venv is not None:
        out["env"] = build_env_archive(venv, out_dir)
    return out


def describe_usage(paths: dict[str, Path]) -> str:
    wheel, pyfiles = paths["wheel"], paths["py_files"]
    lines = [f"wheel (pip install): {wheel}  [{wheel.stat().st_size / 1e6:.1f} MB, crawlplan {__version__}]",
             f"py-files (--py-files): {pyfiles}  [same bytes; Spark only puts .zip/.egg/.jar on executor paths]"]
    if "env" in paths:
        lines.append(f"environment (--archives): {paths['env']}  [{paths['env'].stat().st_size / 1e6:.0f} MB]")
    if "requirements" in paths:
        lines.append(f"requirements: {paths['requirements']}")
    lines.append("use:")
    lines.append(f"  spark-submit --py-files {pyfiles.name}"
                 + (f" --archives {paths['env'].name}#environment --conf spark.pyspark.python=./environment/bin/python"
                    if "env" in paths else "") + " jobs/<node>.py --output DIR --profile cluster")
    return "\n".join(lines)


