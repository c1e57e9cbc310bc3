"""Batched scoring on Spark: ``mapInPandas`` over Arrow batches, models cached per worker.

Columns other than the text pass through the Python worker unchanged, so scoring needs no
join (no shuffle) to get the host keys back. Model files are either read in place from a path
every executor sees (local disk in local mode, NFS) or shipped with ``SparkContext.addFile``
(any Hadoop filesystem: local, HDFS, S3A; a Spark Connect session's ``addArtifacts``) and
found with ``SparkFiles.get`` on the executor.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from crawlplan.classify.fasttext_model import projection_path
from crawlplan.classify.models import is_remote, local
from crawlplan.classify.scoring import DETAIL_COLUMN, REJECT_COLUMN, TRUNCATED_COLUMN, ModelRef, score_batch
from crawlplan.filesystems import is_connect

DISTRIBUTE_MODES = ("auto", "shared", "addfile")


def choose_distribution(mode: str, refs: list[ModelRef], master: str, *, connect: bool = False) -> str:
    """auto: read in place in local mode with local files, ship with addFile otherwise. A Spark
    Connect session (``connect``) always ships: its server need not see this client's disk, even
    with a local master."""
    if mode not in DISTRIBUTE_MODES:
        raise ValueError(f"classify.distribute is '{mode}'; expected one of {', '.join(DISTRIBUTE_MODES)}")
    remote = [r.path for r in refs if is_remote(r.path)]
    if mode == "shared" and remote:
        raise ValueError(f"classify.distribute=shared reads model files in place, but {remote[0]} is on a "
                         f"remote filesystem; use addfile (or auto)")
    if mode != "auto":
        return mode
    if connect or remote or not (master or "").startswith("local"):
        return "addfile"
    return "shared"


def ship(spark, refs: list[ModelRef], cache_root: str) -> list[ModelRef]:
    """Register each model with Spark and return refs that find it in SparkFiles on the executors.

    Every shipped name is unique, because registry files share names (``model.bin``) and Spark
    keeps one file per name. Local files (the model cache) are hard-linked into a staging folder as
    ``<classifier>-<version>--<file>`` (with their projection sidecar when there is one) and added
    one by one: Spark refuses ``addFile`` of a local *folder* when the master is not local. A local
    model folder (transformers) goes as an archive ``<classifier>-<version>.zip``. Remote files and folders
    (hdfs://, s3a://) are added where they are; a remote file whose name another model shares is
    shipped as its folder when that is named after the classifier (the cache layout). A Spark
    Connect session ships local files as artifacts (``addArtifacts``: found with ``SparkFiles.get``
    on its workers too) and cannot ship a remote path.
    """
    shipper = _Shipper(spark)
    remote_names = Counter(r.path.rstrip("/").rsplit("/", 1)[-1] for r in refs if is_remote(r.path))
    stage = None
    out = []
    for ref in refs:
        try:
            if not is_remote(ref.path):
                stage = stage or _staging_dir()
                out.append(_ship_local(shipper, ref, stage))
                continue
            name = ref.path.rstrip("/").rsplit("/", 1)[-1]
            parent = ref.path.rsplit("/", 1)[0]
            if ref.spec.kind == "transformer":
                shipper.add_file(ref.path, recursive=True)
                out.append(_replace(ref, ship_dir=name))
            elif remote_names[name] == 1:
                shipper.add_file(ref.path)
                out.append(_replace(ref, ship_file=name))
            elif parent.rsplit("/", 1)[-1] == ref.spec.name:
                shipper.add_file(parent, recursive=True)
                out.append(_replace(ref, ship_dir=ref.spec.name))
            else:
                raise ValueError(f"{remote_names[name]} remote model files are named '{name}'; keep them as "
                                 f"<folder>/<classifier>/{name} (the cache layout) or give them distinct names")
        except Exception as exc:  # py4j wraps Spark's IllegalArgumentException
            raise ValueError(f"cannot ship model {ref.path} for '{ref.spec.name}' to the executors: "
                             f"{str(exc).splitlines()[0][:300]}. Or set classify.distribute=shared with a "
                             f"path every executor can read") from None
    return out


class _Shipper:
    """``addFile`` / ``addArchive`` of the SparkContext, or of a Spark Connect session, which has no
    SparkContext and ships files from this client's disk as artifacts."""

    def __init__(self, spark):
        self.spark = spark
        self.connect = is_connect(spark)

    def add_file(self, path: str, recursive: bool = False) -> None:
        if self.connect:
            if is_remote(path):
                raise ValueError("a Spark Connect session ships models from this client's disk only: copy it to a "
                                 "local classify.model_dir, or set classify.distribute=shared with a path the "
                                 "server's workers read (a /Volumes/... path on Databricks)")
            self.spark.addArtifacts(path, file=True)
        else:
            self.spark.sparkContext.addFile(path, recursive=recursive)

    def add_archive(self, path: str) -> None:
        if self.connect:
            self.spark.addArtifacts(path, archive=True)
        else:
            self.spark.sparkContext.addArchive(path)


def _staging_dir() -> str:
    """One folder per user for the staged links: a name, once registered with a SparkContext, must
    keep its path, so a model shipped again (a second run in the same session) reuses its link."""
    path = os.path.join(tempfile.gettempdir(), f"crawlplan-models-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def _ship_local(shipper: _Shipper, ref: ModelRef, stage: str) -> ModelRef:
    """``<classifier>-<version>--<file>``: the version (a hash of the path and the model's key: its
    pin, or size and mtime) gives a replaced model a new name instead of a stale shipped copy."""
    source = os.path.abspath(local(ref.path).rstrip("/"))
    version = hashlib.sha256(f"{source}\0{ref.key}".encode()).hexdigest()[:10]
    prefix = os.path.join(stage, f"{ref.spec.name}-{version}")
    if os.path.isdir(source):   # a transformer folder: one archive, unpacked under its name
        archive = prefix + ".zip"
        if not os.path.isfile(archive):
            shutil.move(shutil.make_archive(prefix + ".tmp", "zip", source), archive)
        shipper.add_archive(archive)
        return _replace(ref, ship_dir=os.path.basename(archive))
    staged = f"{prefix}--{os.path.basename(source)}"
    _link_or_copy(source, staged)
    shipper.add_file(staged)
    sidecar = projection_path(source, ref.key)
    if os.path.isfile(sidecar):   # a few MB the executors load instead of the 1-4 GB model
        _link_or_copy(sidecar, projection_path(staged, ref.key))
        shipper.add_file(projection_path(staged, ref.key))
    return _replace(ref, ship_file=os.path.basename(staged))


def _link_or_copy(source: str, target: str) -> None:
    """A hard link (Spark resolves symbolic links and would see the shared name again), or a copy
    when the staging folder is on another filesystem; kept when already there."""
    if os.path.isfile(target):
        return
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _replace(ref: ModelRef, **changes) -> ModelRef:
    return replace(ref, **changes)


def output_schema(docs: DataFrame, keep: list[str], refs: list[ModelRef]) -> T.StructType:
    fields = [docs.schema[c] for c in keep]
    fields += [T.StructField(r.spec.column, T.DoubleType(), True) for r in refs]
    fields += [T.StructField(TRUNCATED_COLUMN, T.BooleanType(), False),
               T.StructField(REJECT_COLUMN, T.StringType(), True),
               T.StructField(DETAIL_COLUMN, T.StringType(), True)]
    return T.StructType(fields)


def make_partition_fn(refs: list[ModelRef], max_chars: int, keep: list[str]):
    """The function ``mapInPandas`` runs: closes over plain data only (specs, paths, ints)."""

    def score_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for pdf in batches:
            yield score_batch(pdf, refs, max_chars, keep)

    return score_partition


def score_documents(docs: DataFrame, refs: list[ModelRef], *, max_chars: int, keep: list[str]) -> DataFrame:
    """``keep`` columns + one double column per classifier + truncation and reject flags."""
    missing = [c for c in keep + ["text"] if c not in docs.columns]
    if missing:
        raise ValueError(f"documents lack column '{missing[0]}'")
    fn = make_partition_fn(refs, max_chars, keep)
    return docs.select(*keep, "text").mapInPandas(fn, schema=output_schema(docs, keep, refs))

