"""One distributed primitive: the running sum of a column along a global order (Spark).

The allocator's rank (a running count along estimate, sample size, name) and each of its fills (a
running sum of the hosts' room along the rank, cut at a budget) are this one computation. A window
over the whole table would put every host into one task; instead the rows are range-partitioned
on the order into partitions of about ``rows_per_partition`` rows, each partition is summed by a
window of its own, and the partitions' totals (one row per partition and segment: the only thing
the driver sees, bounded by rows / rows_per_partition + segments) give each partition its offset.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

_PART, _SEG, _OFFSET = "_prefix_part", "_prefix_segment", "_prefix_offset"


def prefix_sums(df: DataFrame, value: str, order: list[Column], *, out: str, rows_per_partition: int,
                segment: str | None = None, position: str | None = None,
                rows: int | None = None) -> tuple[DataFrame, dict[str, int]]:
    """``df`` with ``out`` = the sum of ``value`` over the rows before each row in ``order`` (within
    its ``segment`` when one is given; segments must not be null), and each segment's total of
    ``value`` ('' without segments).

    ``order`` must be a total order (ties make "before" depend on the partitioning). Without
    ``position`` the rows are range-partitioned on the order and checkpointed locally, so the
    offsets collected in one job fit the rows of the next although the range bounds come from a
    sample; ``rows`` is the row count when the caller knows it. With ``position`` (a column holding
    each row's 1-based place in ``order``, as a rank computed by this function) the blocks are
    position ranges of ``rows_per_partition`` rows: no sample, nothing to checkpoint."""
    if rows_per_partition < 1:
        raise ValueError(f"rows_per_partition must be >= 1, got {rows_per_partition}")
    keys = ([F.col(segment)] if segment else []) + list(order)
    seg = F.col(segment).cast("string") if segment else F.lit("")
    if position is None:
        rows = df.count() if rows is None else rows
        parts = max(1, -(-rows // rows_per_partition))
        blocked = (df.repartitionByRange(parts, *keys).sortWithinPartitions(*keys)
                   .withColumn(_PART, F.spark_partition_id()).withColumn(_SEG, seg).localCheckpoint(eager=True))
    else:
        block = F.floor((F.col(position) - 1) / F.lit(int(rows_per_partition))).cast("int")
        blocked = df.withColumn(_PART, block).withColumn(_SEG, seg)
    blocks = blocked.groupBy(_PART, _SEG).agg(F.sum(F.col(value).cast("long")).alias("total")).collect()
    offsets, totals = [], {}
    for b in sorted(blocks, key=lambda b: b[_PART]):   # block ids ascend with the order; segments in order
        offsets.append((b[_PART], b[_SEG], totals.get(b[_SEG], 0)))
        totals[b[_SEG]] = totals.get(b[_SEG], 0) + int(b["total"] or 0)
    offsets_df = df.sparkSession.createDataFrame(offsets, f"{_PART} int, {_SEG} string, {_OFFSET} long")
    running = Window.partitionBy(_PART, _SEG).orderBy(*keys).rowsBetween(Window.unboundedPreceding,
                                                                          Window.currentRow)
    summed = (blocked.join(F.broadcast(offsets_df), [_PART, _SEG])
              .withColumn(out, (F.col(_OFFSET) + F.sum(F.col(value).cast("long")).over(running)
                                - F.col(value).cast("long")).cast("long")))
    return summed.drop(_PART, _SEG, _OFFSET), totals
