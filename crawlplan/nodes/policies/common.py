"""Shared by the policy nodes: merged parameters, the host table, pandas -> schema-typed Spark."""

from __future__ import annotations

import pandas as pd

from crawlplan.policies import hostdata
from crawlplan.schemas import load_schema


def params(ctx) -> dict:
    """The node's conf section (``policies.<node>``) with the node's pipeline params: exactly what
    the runner fingerprints, so changing any of it reruns the node."""
    return dict(ctx.params)


def host_index_rows(ctx, scores, p: dict):
    """One crawl of the host index (or None when no host index is configured)."""
    path = ctx.input("host_index")
    if not path:
        ctx.note("no host index: Common Crawl's ordering and per-host caps are not available")
        return None
    from pyspark.sql import functions as F

    from crawlplan.graph.hostindex import read_host_index

    cols = sorted({p["cc_budget_column"], p["known_column"], p["fetched_column"], "url_host_registered_domain",
                   "url_host_tld"})
    index = read_host_index(ctx.spark, path, columns=cols, notes=ctx.notes)
    crawl = hostdata.pick_crawl(index, scores, str(p.get("host_index_crawl") or ""))
    ctx.note(f"host index crawl used: {crawl}")
    return index.where(F.col("crawl") == crawl)


def sampled_population(ctx):
    """``host_population`` when the extract sampled hosts (None after a full extract or when absent)."""
    if not ctx.has("host_population"):
        return None
    from pyspark.sql import functions as F

    population = ctx.read("host_population")
    if not population.where(F.col("mode") == "sampled").limit(1).count():
        return None
    fractions = population.agg(F.sum("selected"), F.sum("html_captures")).head()
    ctx.note(f"sampled extract: {int(fractions[0] or 0):,} of {int(fractions[1] or 0):,} HTML captures read; "
             "host sizes come from the columnar index")
    return population


def host_ranks(ctx):
    path = ctx.input("web_graph")
    if not path:
        ctx.note("no web graph: HC and PR policies are left out")
        return None
    from crawlplan.graph.webgraph import read_host_ranks, release_convention

    convention = release_convention(ctx.spark, path)
    ctx.note(f"web graph: {convention.describe()}")
    return read_host_ranks(ctx.spark, path, convention=convention)


def to_spark(spark, pdf: pd.DataFrame, dataset: str):
    """A pandas table as a DataFrame typed exactly as ``schemas/<dataset>.yaml``.

    Columns are cast to pandas' nullable dtypes first (NaN -> null), so the conversion goes
    through Arrow in bulk instead of row by row: a budgets table of millions of hosts is fine."""
    schema = load_schema(dataset)
    nullable = {"int": "Int32", "bigint": "Int64", "double": "Float64", "string": "string", "boolean": "boolean"}
    out = pd.DataFrame(index=pdf.index)
    for col in schema.columns:
        kind = col.type.simpleString()
        values = pdf[col.name]
        if kind in ("int", "bigint", "double"):
            values = pd.to_numeric(values, errors="coerce")
        out[col.name] = values.astype(nullable.get(kind, "object"))
    return spark.createDataFrame(out.reset_index(drop=True), schema=schema.struct())
