"""A node must not run on an empty required input: fail loudly, naming why it is empty.

A run whose every WARC file was unreadable writes ``documents=0`` and, without this check, passes
empty datasets from node to node and ends "successfully" with an empty report. Which datasets
must have rows (and how many) is conf ``run.min_input_rows``; ``run.empty_inputs_ok`` lists the
nodes that read whatever exists (the report shows an empty run's record accounting). The row
counts come from the producer's completion marker, so the check costs no Spark job; the
explanation quotes that marker (counters, notes, the external inputs in force) and the producer's
per-file status outputs (any of its datasets with ``status`` and ``error`` columns).
"""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.conf import get
from crawlplan.dag.pipeline import Node, Pipeline
from crawlplan.schemas import load_schema
from crawlplan.security import redact

_FIRST_ERRORS = 3


class EmptyInputError(RuntimeError):
    """A required input dataset has fewer rows than ``run.min_input_rows`` asks for."""


def check_required_rows(spark, conf: dict, pipeline: Pipeline, node: Node, upstream_marker, roots: list[str]) -> None:
    """Raise :class:`EmptyInputError` when an input of ``node`` named in ``run.min_input_rows`` has
    fewer rows than that. ``upstream_marker(dataset, producer)`` finds the producer's marker; a
    dataset passed without one (``--input`` of a copied folder) is not checked here."""
    minimum = {str(k): int(v) for k, v in (get(conf, "run.min_input_rows", {}) or {}).items()}
    if node.name in (get(conf, "run.empty_inputs_ok", []) or []):
        return
    producer = pipeline.producer()
    for dataset in node.inputs:
        need = minimum.get(dataset, 0)
        if need <= 0 or dataset not in producer:
            continue
        marker = upstream_marker(dataset, producer[dataset])
        rows = (marker or {}).get("rows", {}).get(dataset)
        if rows is None or int(rows) >= need:
            continue
        raise EmptyInputError(
            f"node '{node.name}' cannot run: its input '{dataset}' has {rows} rows "
            f"(run.min_input_rows.{dataset} = {need}); node '{producer[dataset]}' produced nothing useful.\n"
            + explain(spark, conf, pipeline, producer[dataset], marker, roots))


def explain(spark, conf: dict, pipeline: Pipeline, producer: str, marker: dict, roots: list[str]) -> str:
    """What the producer's marker and status datasets say about why its output is empty."""
    lines = []
    rows = ", ".join(f"{k}={v:,}" for k, v in (marker.get("rows") or {}).items())
    counters = ", ".join(f"{k}={v:,}" for k, v in (marker.get("counters") or {}).items())
    lines.append(f"  {producer} wrote: {rows or 'nothing'}" + (f" | {counters}" if counters else ""))
    for note in marker.get("notes") or []:
        lines.append(f"  {producer} noted: {note}")
    # the producer's external inputs, and the settings that say where such inputs are read from
    # (inputs.warc_base): conf inputs that are no dataset of the pipeline
    inputs = {f"inputs.{k}": v for k, v in (marker.get("inputs") or {}).items()}
    inputs.update({f"inputs.{k}": v for k, v in (get(conf, "inputs", {}) or {}).items()
                   if k not in pipeline.external and v not in (None, "", [])})
    if inputs:
        lines.append("  inputs in force: " + ", ".join(f"{k}={_short(v)}" for k, v in redact(inputs).items()))
    for dataset in pipeline.nodes[producer].outputs:
        lines += _status_summary(spark, dataset, roots)
    return "\n".join(lines)


def _status_summary(spark, dataset: str, roots: list[str]) -> list[str]:
    """For a dataset with ``status`` and ``error`` columns (extract's warc_files): rows by status and
    the first distinct errors."""
    try:
        schema = load_schema(dataset)
    except FileNotFoundError:
        return []
    if not {"status", "error"} <= set(schema.names):
        return []
    for root in roots:
        path = storage.join(root, dataset)
        if not storage.exists(spark, path):
            continue
        df = spark.read.parquet(path)
        statuses = df.groupBy("status").count().orderBy(F.desc("count")).collect()
        errors = [r["error"] for r in df.where(F.col("error").isNotNull()).select("error").distinct()
                  .limit(_FIRST_ERRORS).collect()]
        total = sum(int(r["count"]) for r in statuses)
        out = [f"  {dataset}: {total:,} rows, status " + ", ".join(f"{r['status']}={int(r['count']):,}"
                                                                   for r in statuses)]
        out += [f"  first error: {str(e)[:300]}" for e in errors]
        return out
    return []


def _short(value) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= 200 else text[:200] + "..."
