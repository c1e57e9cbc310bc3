"""Exact ranks, Spearman matrices and quantiles over distributed data, as DataFrame transforms.

MLlib's Spearman (``pyspark.ml.stat.Correlation``) flattens every row into (column, value)
pairs, sorts them all as boxed objects and regroups them by row: 2.6x the CPU of this module
for 10 classifiers at the paper's 3M documents (docs/benchmarks.md). Here each value is ranked by a window inside a *value
bucket* of its group; a bucket is a value range, so equal values always share one, and the rows
in lower buckets (a small count table) give the bucket's rank offset. Buckets come from
approximate quantiles only when a group exceeds ``rows_per_bucket``, so the sort never needs
one task to hold a whole crawl's scores, and ranks stay exact either way. The correlations rank
distinct values (``value_ranks``) and join the ranks back, so ties cost nothing in the sort;
what reaches the driver is a row per (group, bucket) and, for quantiles, a row per order
statistic.
"""

from __future__ import annotations

import math
from itertools import accumulate

import numpy as np
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

ROWS_PER_BUCKET = 2_000_000


def _bucketed(frame: DataFrame, groups: list[str], value: str, rows_per_bucket: int) -> DataFrame:
    """``frame`` with ``_bucket``: 0, or the value range within the group when a group has more
    than ``rows_per_bucket`` rows."""
    rows = frame.groupBy(*groups).count().agg(F.max("count")).head()[0] or 0
    if rows <= rows_per_bucket:
        return frame.withColumn("_bucket", F.lit(0))
    k = math.ceil(rows / rows_per_bucket)
    probs = [i / k for i in range(1, k)]
    # approximate split points only balance the buckets; the ranks are exact whatever they are
    splits = frame.groupBy(*groups).agg(
        F.percentile_approx(value, probs, max(10_000, 100 * k)).alias("_splits")).select(
        *groups, F.array_distinct("_splits").alias("_splits"))
    with_splits = frame.join(F.broadcast(splits), groups, "left")
    bucket = F.expr(f"size(filter(coalesce(_splits, array()), s -> s <= `{value}`))")
    return with_splits.withColumn("_bucket", bucket).drop("_splits")


def ranked(frame: DataFrame, groups: list[str], value: str, weight: str | None = None, *,
           rows_per_bucket: int = ROWS_PER_BUCKET) -> tuple[DataFrame, dict]:
    """Add to every row of ``frame``, within its group ordered by ``value``:

    - ``_rank``: the 1-based average rank of the row's value, ties averaged (scipy's ``rankdata``);
    - ``_below``: how many rows have a smaller value; with ``_ties`` (how many have this value)
      the row's value fills the 0-based sorted positions ``[_below, _below + _ties)``.

    ``weight`` names a count column when each row stands for that many equal values (a
    value -> count table). Null or NaN values must be filtered out first. Returns the frame
    and every group's total count (a dict keyed by the group values: one entry a group).
    """
    w_col = F.col(weight) if weight else F.lit(1)
    bucketed = _bucketed(frame, groups, value, rows_per_bucket).withColumn("_bucket", F.col("_bucket").cast("int"))
    sizes = bucketed.groupBy(*groups, "_bucket").agg(F.sum(w_col).alias("_n")).collect()
    parts: dict[tuple, list[tuple[int, int]]] = {}
    for r in sizes:
        parts.setdefault(tuple(r[: len(groups)]), []).append((int(r["_bucket"]), int(r["_n"])))
    rows, counts = [], {}
    for key, buckets in parts.items():
        buckets.sort()
        starts = [0, *accumulate(n for _, n in buckets)]
        counts[key] = starts[-1]
        rows.extend((*key, b, s) for (b, _), s in zip(buckets, starts))
    schema = frame.select(*groups).schema.add("_bucket", T.IntegerType()).add("_offset", T.LongType())
    offset_df = frame.sparkSession.createDataFrame(rows, schema)
    w = Window.partitionBy(*groups, "_bucket").orderBy(value)
    upto = F.sum(w_col).over(w.rangeBetween(Window.unboundedPreceding, Window.currentRow))
    ties = F.sum(w_col).over(w.rangeBetween(Window.currentRow, Window.currentRow))
    out = bucketed.join(F.broadcast(offset_df), [*groups, "_bucket"]).select(
        *frame.columns, "_offset", upto.alias("_upto"), ties.alias("_ties"))
    out = out.select(
        *frame.columns,
        (F.col("_offset") + F.col("_upto") - F.col("_ties") + (F.col("_ties") + 1) / 2.0).alias("_rank"),
        (F.col("_offset") + F.col("_upto") - F.col("_ties")).alias("_below"),
        F.col("_ties").cast("long").alias("_ties"))
    return out, counts


def value_ranks(frame: DataFrame, groups: list[str], value: str, *,
                rows_per_bucket: int = ROWS_PER_BUCKET) -> tuple[DataFrame, dict]:
    """``groups, value, _rank`` for every distinct value of each group (its mid-rank among the
    group's rows), and every group's row count, as ``ranked``. The sort runs over a
    value -> count table, so a value tied on millions of rows is one row of it, not one window
    peer group held by one task; join the result back on ``[*groups, value]``."""
    values = frame.groupBy(*groups, value).agg(F.count(F.lit(1)).alias("_vn"))
    out, counts = ranked(values, groups, value, "_vn", rows_per_bucket=rows_per_bucket)
    return out.select(*groups, value, "_rank"), counts


def spearman_matrix(df: DataFrame, key: str, columns: list[str], *,
                    rows_per_bucket: int = ROWS_PER_BUCKET) -> np.ndarray:
    """Spearman matrix of ``columns`` over the rows of ``df`` (all non-null; ``key`` unique).

    Pearson of average ranks, as scipy's ``spearmanr``: ranks are centred on (n+1)/2 before the
    products are summed, so the sums stay small next to n^3 even for billions of rows."""
    long = df.select(key, F.explode(F.array(*[
        F.struct(F.lit(i).alias("_col"), F.col(c).cast("double").alias("_v")) for i, c in enumerate(columns)
    ])).alias("_p")).select(key, "_p._col", "_p._v")
    values, counts = value_ranks(long, ["_col"], "_v", rows_per_bucket=rows_per_bucket)
    n = max(counts.values(), default=0)
    centred = long.join(values, ["_col", "_v"]).select(key, "_col", (F.col("_rank") - (n + 1) / 2.0).alias("_c"))
    wide = centred.groupBy(key).pivot("_col", list(range(len(columns)))).agg(F.first("_c"))
    names = [str(i) for i in range(len(columns))]
    sums = [F.sum(F.col(a) * F.col(b)).alias(f"{a}_{b}") for i, a in enumerate(names) for b in names[i:]]
    row = wide.agg(*sums).head().asDict()
    k = len(columns)
    mat = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            mat[i, j] = mat[j, i] = row[f"{i}_{j}"] or 0.0
    diag = np.sqrt(np.diag(mat))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = mat / np.outer(diag, diag)
    np.fill_diagonal(out, np.where(diag > 0, 1.0, np.nan))
    return out


def group_spearman(frame: DataFrame, groups: list[str], x: str, y: str, weight: str | None = None, *,
                   rows_per_bucket: int = ROWS_PER_BUCKET) -> DataFrame:
    """Per group of ``frame``: ``_n`` (rows), ``_spearman`` and, with ``weight``, ``_weighted_spearman``,
    by Spark aggregations alone, so no task or worker ever holds a whole group.

    Exact: each column's mid-ranks (ties averaged, as scipy) come from ``ranked`` over the
    group's distinct values (a value -> count table, so a value tied on millions of rows is one
    row of the sort), joined back to the rows; rho is then the Pearson correlation of the ranks
    from six sums per group. The ranks are centred on (n+1)/2 first, so the sums stay near
    n^3/12 and the one-pass covariance loses nothing visible: equal to the two-pass numpy
    definitions (``reference.spearman``, ``reference.weighted_spearman``) within 1e-12 on
    small groups. ``weight`` (e.g. documents per host) weighs the Pearson of the ordinary
    ranks, as ``reference.weighted_spearman``. Fewer than 3 rows, or a constant column: NaN.
    ``x``, ``y`` and ``weight`` must be non-null.
    """
    def ranks_of(col: str, name: str) -> DataFrame:
        return value_ranks(frame, groups, col, rows_per_bucket=rows_per_bucket)[0].withColumnRenamed("_rank", name)

    sizes = frame.groupBy(*groups).agg(F.count(F.lit(1)).alias("_n"))
    rows = frame.select(*groups, x, y, (F.col(weight) if weight else F.lit(1.0)).cast("double").alias("_w"))
    joined = rows.join(ranks_of(x, "_rx"), [*groups, x]).join(ranks_of(y, "_ry"), [*groups, y]).join(
        F.broadcast(sizes), groups)
    a = F.col("_rx") - (F.col("_n") + 1) / 2.0
    b = F.col("_ry") - (F.col("_n") + 1) / 2.0
    w = F.col("_w")
    sums = joined.groupBy(*groups).agg(
        F.first("_n").alias("_n"),
        F.sum(a).alias("a"), F.sum(b).alias("b"), F.sum(a * a).alias("aa"), F.sum(b * b).alias("bb"),
        F.sum(a * b).alias("ab"), F.sum(w).alias("w"), F.sum(w * a).alias("wa"), F.sum(w * b).alias("wb"),
        F.sum(w * a * a).alias("waa"), F.sum(w * b * b).alias("wbb"), F.sum(w * a * b).alias("wab"))
    out = [*groups, F.col("_n").cast("long").alias("_n"),
           _pearson_from_sums(F.col("_n").cast("double"), "a", "b", "aa", "bb", "ab").alias("_spearman")]
    if weight:
        out.append(_pearson_from_sums(F.col("w"), "wa", "wb", "waa", "wbb", "wab").alias("_weighted_spearman"))
    return sums.select(*out)


def _pearson_from_sums(sw, sa: str, sb: str, saa: str, sbb: str, sab: str):
    """Pearson from (weighted) sums; NaN below 3 rows or for a constant column, as
    ``reference.weighted_pearson``."""
    sxx = F.col(saa) - F.col(sa) * F.col(sa) / sw
    syy = F.col(sbb) - F.col(sb) * F.col(sb) / sw
    sxy = F.col(sab) - F.col(sa) * F.col(sb) / sw
    ok = (F.col("_n") >= 3) & (sxx > 0) & (syy > 0)
    return F.when(ok, sxy / F.sqrt(sxx * syy)).otherwise(F.lit(float("nan")))


def quantiles(frame: DataFrame, groups: list[str], value: str, probs: list[float], weight: str | None = None, *,
              rows_per_bucket: int = ROWS_PER_BUCKET) -> dict[tuple, list[float]]:
    """Exact quantiles per group with linear interpolation between order statistics (numpy's
    and Spark's ``percentile`` default). Only the rows holding the two order statistics around
    each quantile are collected, however large the group. With ``weight`` (a value -> count
    table, e.g. from ``groupBy(value).count()``) the sort runs over distinct values only."""
    ranks, counts = ranked(frame, groups, value, weight, rows_per_bucket=rows_per_bucket)
    wanted = sorted({i for n in counts.values() for p in probs for i in _neighbours(p, n)})
    covers = F.exists(F.array(*[F.lit(i) for i in wanted]),
                      lambda i: (i >= F.col("_below")) & (i < F.col("_below") + F.col("_ties")))
    # one row per distinct value: without ``distinct`` every tied row at an order statistic
    # would reach the driver (a million hosts at coverage 1.0 are a million rows)
    picks = ranks.where(covers).select(*groups, "_below", "_ties", value).distinct().collect()
    spans: dict[tuple, list[tuple[int, int, float]]] = {}
    for r in picks:
        spans.setdefault(tuple(r[: len(groups)]), []).append((int(r["_below"]), int(r["_ties"]), float(r[value])))

    def at(key: tuple, i: int) -> float:
        return next(v for below, ties, v in spans[key] if below <= i < below + ties)

    out = {}
    for key, n in counts.items():
        vals = []
        for p in probs:
            lo_i, hi_i = _neighbours(p, n)
            h = p * (n - 1)
            lo, hi = at(key, lo_i), at(key, hi_i)
            vals.append(lo + (h - lo_i) * (hi - lo))
        out[key] = vals
    return out


def quantile_frame(frame: DataFrame, groups: list[str], value: str, probs: list[float], names: list[str], *,
                   rows_per_bucket: int = ROWS_PER_BUCKET) -> DataFrame:
    """``quantiles`` as a small DataFrame, one row per group (``groups`` then ``names``), ready to
    join back. The sort runs over the group's distinct values (a value -> count table), and
    Spark's ``percentile`` aggregate, which keeps every distinct value of a group in one task's
    memory, is not needed. Group keys must be non-null; null values are left out."""
    values = frame.where(F.col(value).isNotNull()).groupBy(*groups, value).agg(F.count(F.lit(1)).alias("_vn"))
    got = quantiles(values, groups, value, probs, weight="_vn", rows_per_bucket=rows_per_bucket)
    schema = frame.select(*groups).schema
    for name in names:
        schema = schema.add(name, T.DoubleType())
    return frame.sparkSession.createDataFrame([(*key, *map(float, v)) for key, v in got.items()], schema)


def _neighbours(p: float, n: int) -> tuple[int, int]:
    h = p * (n - 1)
    return math.floor(h), math.ceil(h)
