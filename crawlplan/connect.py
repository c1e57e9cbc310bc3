"""What a Spark Connect session needs from this client: Databricks serverless and shared clusters,
``--remote sc://HOST:PORT`` / ``SPARK_REMOTE`` / ``spark.remote`` in the conf.

A Connect session lives on a server. Its JVM settings (driver memory, Java options, log level)
are the server's business and cannot be set from here; its SQL settings can, per session. Its
Python workers have their own interpreter, where crawlplan need not be installed, so the package
reaches them as an artifact (``addArtifacts(pyfile=True)``: on the workers' ``sys.path``).
A local path means the server's disk, so the paths a run hands to Spark are made absolute here,
where the client's working folder is known (right when client and server share a file system,
as on one machine or one NFS; a remote server needs URIs it can read: s3://, /Volumes/...).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from crawlplan.conf import get
from crawlplan.paths import package_files

log = logging.getLogger(__name__)

# session settings a Connect server refuses to take from a client (JVM-wide or static)
_SERVER_SIDE = ("spark.master", "spark.driver.", "spark.executor.", "spark.executorEnv.", "spark.ui.",
                "spark.pyspark.", "spark.jars", "spark.submit.", "spark.app.")


def remote_url(conf: dict) -> str:
    """``spark.remote`` of the conf (``--remote`` sets it), else ``SPARK_REMOTE``, else the one
    ``spark-submit --remote`` hands its Python; "" for a classic session."""
    return str(get(conf, "spark.remote") or os.environ.get("SPARK_REMOTE", "") or _submitted_remote())


def _submitted_remote() -> str:
    """``spark-submit --remote URL app.py`` starts no JVM session: it passes its conf to the Python
    process as JSON in ``PYSPARK_REMOTE_INIT_CONF_0..N-1`` (read by pyspark's session builder)."""
    chunks = int(os.environ.get("PYSPARK_REMOTE_INIT_CONF_LEN", "0") or 0)
    if not chunks:
        return ""
    text = "".join(os.environ.get(f"PYSPARK_REMOTE_INIT_CONF_{i}", "") for i in range(chunks))
    try:
        return str(json.loads(text).get("spark.remote", "") or "")
    except ValueError:
        return ""


def session_settings(settings: dict[str, str]) -> dict[str, str]:
    """The settings a client may set on its Connect session (the SQL ones)."""
    return {k: v for k, v in settings.items() if not k.startswith(_SERVER_SIDE)}


def build_connect_session(remote: str, app_name: str, settings: dict[str, str], *, ship_package: bool = True):
    # pyspark: heavy (py4j, and grpc for Connect); only a session needs it
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(remote).appName(app_name).getOrCreate()
    for key, value in session_settings(settings).items():
        try:
            spark.conf.set(key, value)
        except Exception as exc:   # a static setting, or one the platform pins (serverless)
            log.info("Spark Connect server kept its own %s (%s)", key, str(exc).splitlines()[0][:200])
    if ship_package:
        spark.addArtifacts(str(package_zip()), pyfile=True)
    return spark


def package_zip(cache_dir: Path | None = None) -> Path:
    """crawlplan as one zip (the package and its conf/, schemas/, pipelines/ under
    ``crawlplan/_resources``, as in ``crawlplan package``'s --py-files zip), named by its content."""
    cache = cache_dir or Path(tempfile.gettempdir()) / "crawlplan-artifacts"
    cache.mkdir(parents=True, exist_ok=True)
    package_dir = Path(__file__).resolve().parent
    if not package_dir.is_dir():                       # imported from a zip already: ship that
        archive = next(p for p in package_dir.parents if p.is_file())
        target = cache / archive.name
        shutil.copyfile(archive, target)
        return target
    files = package_files(package_dir)
    digest = hashlib.sha256()
    for name, data in files.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    target = cache / f"crawlplan-{digest.hexdigest()[:16]}.zip"
    if target.is_file():
        return target
    tmp = target.with_suffix(f".tmp-{os.getpid()}")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    os.replace(tmp, target)
    return target


def absolute(path: str) -> str:
    """A scheme-less path made absolute against this process's working folder; URIs unchanged."""
    if not path or "://" in path or path.startswith(("file:", "dbfs:")) or os.path.isabs(path):
        return path
    return os.path.abspath(path) + ("/" if path.endswith("/") else "")


def absolute_inputs(conf: dict) -> dict:
    """``inputs.*`` with every local path absolute (a Connect server resolves a relative one
    against its own working folder)."""
    inputs = dict(conf.get("inputs") or {})
    for key, value in inputs.items():
        if isinstance(value, str) and value:
            inputs[key] = absolute(value)
        elif isinstance(value, list):
            inputs[key] = [absolute(v) if isinstance(v, str) else v for v in value]
    return {**conf, "inputs": inputs}
