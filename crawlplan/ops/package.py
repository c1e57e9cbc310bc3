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
* ``crawlplan-env.tar.gz`` for ``--archives ...#environment`` (optional, ``--venv``): crawlplan's
  runtime dependency closure (fastText, lxml, trafilatura... have C extensions, which cannot be
  imported from a zip) with a ``bin/python`` launcher that runs the node's own CPython of the same
  minor version; no pyspark, no test or bench extras. How and why: ``crawlplan.ops.environment``.
* ``requirements.txt``: the exact versions of the runtime closure (the ``dependencies`` of
  pyproject.toml, recursively, as installed here), without pyspark and py4j, for building a
  cluster image instead (``pip install -r requirements.txt && pip install --no-deps <wheel>``).
  The wheel itself does not require pyspark (it is the ``spark`` extra): on Dataproc, EMR,
  Databricks or in the Kubernetes image the platform's Spark brings pyspark, which one from PyPI
  would shadow.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shlex
import shutil
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

from crawlplan import __version__
from crawlplan.ops.environment import build_env_archive, describe_requirement, runtime_pins
from crawlplan.paths import package_files

_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: same tree, same wheel bytes


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _metadata(project: dict) -> str:
    """Core metadata: the dependencies, and each extra's requirements under its ``extra`` marker
    (so ``pip install crawlplan-*.whl`` installs no pyspark, ``crawlplan[spark]`` does)."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}", f"Requires-Python: {project.get('requires-python', '')}"]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for dep in deps:
            req = Requirement(dep)
            marker = f"({req.marker}) and " if req.marker else ""
            req.marker = None
            lines.append(f'Requires-Dist: {req}; {marker}extra == "{extra}"')
    return "\n".join(lines) + "\n"


def wheel_files(repo: Path) -> dict[str, bytes]:
    """archive name -> content for every file the wheel carries (dist-info not included)."""
    return package_files(repo / "crawlplan", repo)


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


def package(repo: Path, out_dir: Path, *, venv: Path | None = None) -> dict[str, Path]:
    """The wheel, its .zip twin, requirements.txt of the environment ``venv`` (default: this
    Python's) and, with ``venv``, the environment archive."""
    wheel = build_wheel(repo, out_dir)
    pyfiles = wheel.with_suffix(".zip")
    shutil.copyfile(wheel, pyfiles)
    out: dict[str, Path] = {"wheel": wheel, "py_files": pyfiles}
    (out_dir / "requirements.txt").write_text(runtime_pins(repo, venv or Path(sys.prefix)))
    out["requirements"] = out_dir / "requirements.txt"
    if venv is not None:
        out["env"] = build_env_archive(venv, out_dir, repo)
    return out


def usage_lines(paths: dict[str, Path], jobs: str = "jobs", driver_python: str = "") -> dict[str, str]:
    """deploy mode -> the spark-submit line that runs a node with these files, as printed; the
    shell variables MASTER, NODE and OUT are the user's. Client mode: the driver is this machine's
    Python (``spark.pyspark.driver.python``; ``spark.pyspark.python`` alone would apply to the driver
    too), the executors the archive's. Cluster mode (YARN, Kubernetes): both the archive's."""
    q = shlex.quote
    pyfiles, env, jobs = q(str(paths["py_files"])), paths.get("env") and q(str(paths["env"])), q(jobs)
    tail = f'{jobs}/"$NODE".py --output "$OUT" --profile cluster'
    if env is None:
        return {"client": f'spark-submit --master "$MASTER" --deploy-mode client --py-files {pyfiles} {tail}'}
    ship = f"--py-files {pyfiles} --archives {env}#environment --conf spark.pyspark.python=./environment/bin/python"
    driver = q(driver_python or sys.executable)
    return {"client": f'spark-submit --master "$MASTER" --deploy-mode client {ship} '
                      f"--conf spark.pyspark.driver.python={driver} {tail}",
            "cluster": f'spark-submit --master "$MASTER" --deploy-mode cluster {ship} {tail}'}


def describe_usage(paths: dict[str, Path], jobs: str = "jobs", driver_python: str = "") -> str:
    wheel, pyfiles = paths["wheel"], paths["py_files"]
    lines = [f"wheel (pip install): {wheel}  [{wheel.stat().st_size / 1e6:.1f} MB, crawlplan {__version__}]",
             f"py-files (--py-files): {pyfiles}  [same bytes; Spark only puts .zip/.egg/.jar on executor paths]"]
    if "env" in paths:
        lines.append(f"environment (--archives): {paths['env']}  [{paths['env'].stat().st_size / 1e6:.0f} MB, "
                     f"{describe_requirement(paths['env'])}]")
    if "requirements" in paths:
        lines.append(f"requirements: {paths['requirements']}")
    usage = usage_lines(paths, jobs, driver_python)
    lines.append("use (set MASTER, NODE and OUT; run from this folder):")
    lines.append(f"  client deploy mode (driver: this machine's Python{', executors: the archive' if 'env' in paths else ''}):")
    lines.append(f"    {usage['client']}")
    if "cluster" in usage:
        lines.append("  cluster deploy mode (YARN, Kubernetes; driver and executors: the archive):")
        lines.append(f"    {usage['cluster']}")
    lines.append("  local mode (--master 'local[*]'): no archive; the executors are this machine's Python: "
                 "crawlplan job NODE --output OUT")
    return "\n".join(lines)
