"""Batched scoring on Spark: ``mapInPandas`` over Arrow batches, models cached per worker.

Columns other than the text pass through the Python worker unchanged, so scoring needs no
join (no shuffle) to get the host keys back. Model files are either read in place from a path
every executor sees (local disk in local mode, NFS) or shipped with ``SparkContext.addFile``
(any Hadoop filesystem: local, HDFS, S3A) and found with ``SparkFiles.get`` on the executor.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import types as T

from crawlplan.classify.models import is_remote
from crawlplan.classify.scoring import DETAIL_COLUMN, REJECT_COLUMN, TRUNCATED_COLUMN, ModelRef, score_batch

DISTRIBUTE_MODES = ("auto", "shared", "addfile")


def choose_distribution(mode: str, refs: list[ModelRef], master: str) -> str:
    """auto: read in place in local mode with local files, ship with addFile otherwise."""
    if mode not in DISTRIBUTE_MODES:
        raise ValueError(f"classify.distribute is '{mode}'; expected one of {', '.join(DISTRIBUTE_MODES)}")
    remote = [r.path for r in refs if is_remote(r.path)]
    if mode == "shared" and remote:
        raise ValueError(f"classify.distribute=shared reads model files in place, but {remote[0]} is on a "
                         f"remote filesystem; use addfile (or auto)")
    if mode != "auto":
        return mode
    if remote or not (master or "").startswith("local"):
        return "addfile"
    return "shared"


def ship(spark, refs: list[ModelRef], cache_root: str) -> list[ModelRef]:
    """Register each model with ``addFile`` and return refs that look it up in SparkFiles.

    Files in the cache layout (``<model_dir>/<name>/<file>``) are shipped as their folder,
    named after the classifier, because several registry files share a name (``model.bin``).
    """
    sc = spark.sparkContext
    out = []
    root = cache_root.rstrip("/") + "/"
    for ref in refs:
        parent = ref.path.rsplit("/", 1)[0]
        try:
            if ref.spec.kind == "transformer":  # a model folder, named after the classifier in the cache
                sc.addFile(ref.path, recursive=True)
                out.append(_replace(ref, ship_dir=ref.path.rstrip("/").rsplit("/", 1)[-1]))
            elif ref.path.startswith(root) and parent.rsplit("/", 1)[-1] == ref.spec.name:
                sc.addFile(parent, recursive=True)
                out.append(_replace(ref, ship_dir=ref.spec.name))
            else:
                sc.addFile(ref.path)
                out.append(_replace(ref, ship_file=ref.path.rsplit("/", 1)[-1]))
        except Exception as exc:  # py4j wraps Spark's IllegalArgumentException
            raise ValueError(f"cannot ship model {ref.path} for '{ref.spec.name}' with addFile: "
                             f"{str(exc).splitlines()[0][:300]}. Give model files distinct names or set "
                             f"classify.distribute=shared with a path all executors can read") from None
    return out


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

