"""Common Crawl's host-level web graph, read as published.

A release folder (e.g. ``s3://commoncrawl/projects/hyperlinkgraph/cc-main-2024-feb-apr-may/host/``)
holds:

- ``<release>-host-ranks.txt.gz``: tab-separated, one header line
  ``#harmonicc_pos #harmonicc_val #pr_pos #pr_val #host_rev`` (tabs), values in Java float
  formatting (``3.4626736E7``), hosts reversed and with their ``www`` label (``com.example.www``);
- ``<release>-host-vertices.paths.gz`` / ``<release>-host-edges.paths.gz``: listings of gzip text
  parts, relative to the Common Crawl bucket root for the real release (hence ``base``) or to
  the folder for a local copy; vertices are ``id<TAB>rev_host``, edges ``from_id<TAB>to_id``.

Centrality enters the statistics as ``log10(1 + x)``: both measures span many orders of
magnitude and are zero for some hosts, so the log keeps Pearson-type summaries meaningful
while rank statistics are unaffected.
"""

from __future__ import annotations

import logging

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan import storage
from crawlplan.graph.keys import normalize_rev_host, rev_to_surt

log = logging.getLogger("crawlplan")

RANK_COLUMNS = ("harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "host_rev")


class GraphError(ValueError):
    pass


def _list(spark: SparkSession, folder: str) -> list[str]:
    fs, hpath = storage._fs(spark, folder)
    if not fs.exists(hpath):
        raise GraphError(f"web graph folder not found: {folder}")
    return sorted(str(st.getPath().getName()) for st in fs.listStatus(hpath))


def find_release_file(spark: SparkSession, path: str, suffix: str) -> str:
    """``path`` is either the file itself or the release folder holding one ``*<suffix>``."""
    if path.rstrip("/").endswith(suffix):
        return path
    names = [n for n in _list(spark, path) if n.endswith(suffix)]
    if len(names) != 1:
        raise GraphError(f"expected exactly one '*{suffix}' in {path}, found {names or 'none'}")
    return storage.join(path, names[0])


def release_name(spark: SparkSession, path: str) -> str:
    """``cc-main-2024-feb-apr-may`` from the ranks file name: labels the rank-stability table."""
    name = find_release_file(spark, path, "-host-ranks.txt.gz").rstrip("/").rsplit("/", 1)[-1]
    return name[: -len("-host-ranks.txt.gz")]


def read_host_ranks(spark: SparkSession, path: str, *, keep_www_duplicates: bool = False) -> DataFrame:
    """The ranks file as ``rev_host, surt_host_name, harmonicc_pos, harmonicc_val, pr_pos,
    pr_val, log_hc, log_pr``.

    ``rev_host`` is normalised as in ``crawlplan.hosts`` (``www`` dropped) so it joins with the
    documents' key. When a release has both ``com.example`` and ``com.example.www`` they collapse
    to one key; the better-ranked entry (lower ``harmonicc_pos``) is kept, because it is the one
    Common Crawl's own crawler would have prioritised. Rows whose numbers do not parse are
    dropped (``count_bad_rank_rows`` counts them for the caller's report).
    """
    typed = _typed_ranks(spark, path).where(_valid_rank_row())
    if not keep_www_duplicates:
        best = F.min(F.struct("harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val")).alias("best")
        typed = typed.groupBy("rev_host").agg(best).select("rev_host", "best.*")
    return typed.select(
        "rev_host",
        rev_to_surt(F.col("rev_host")).alias("surt_host_name"),
        "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val",
        F.log10(F.lit(1.0) + F.col("harmonicc_val")).alias("log_hc"),
        F.log10(F.lit(1.0) + F.col("pr_val")).alias("log_pr"),
    )


def _raw_ranks(spark: SparkSession, path: str) -> DataFrame:
    ranks_file = find_release_file(spark, path, "-host-ranks.txt.gz")
    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in RANK_COLUMNS])
    # The header's columns all start with '#', so the comment option skips it wherever it is.
    return spark.read.csv(ranks_file, sep="\t", schema=schema, header=False, comment="#", mode="PERMISSIVE")


def _typed_ranks(spark: SparkSession, path: str) -> DataFrame:
    """The ranks file with numbers parsed (null where they do not parse) and the project's key."""
    return _raw_ranks(spark, path).select(
        F.col("harmonicc_pos").try_cast("long").alias("harmonicc_pos"),
        F.col("harmonicc_val").try_cast("double").alias("harmonicc_val"),
        F.col("pr_pos").try_cast("long").alias("pr_pos"),
        F.col("pr_val").try_cast("double").alias("pr_val"),
        normalize_rev_host(F.col("host_rev")).alias("rev_host"),
    )


def _valid_rank_row():
    return (F.col("rev_host").isNotNull() & (F.length("rev_host") > 0)
            & F.col("harmonicc_pos").isNotNull() & F.col("harmonicc_val").isNotNull()
            & F.col("pr_pos").isNotNull() & F.col("pr_val").isNotNull()
            & (F.col("harmonicc_val") >= 0) & (F.col("pr_val") >= 0))


def count_bad_rank_rows(spark: SparkSession, path: str) -> int:
    """Rows of the ranks file that ``read_host_ranks`` drops (unparseable or negative values)."""
    return _typed_ranks(spark, path).where(~F.coalesce(_valid_rank_row(), F.lit(False))).count()


def read_paths_listing(spark: SparkSession, listing: str, base: str | None = None) -> list[str]:
    """Entries of a ``*.paths.gz`` listing as full paths.

    Relative entries resolve against ``base`` when given (``s3://commoncrawl/`` for the real
    release, whose listings are relative to the bucket root) and otherwise against the folder
    holding the listing (a local copy).
    """
    # Spark's text source decompresses .gz and reaches s3a/hdfs alike; a listing is a few
    # thousand short lines, so collecting it is cheap.
    if not storage.exists(spark, listing):
        raise GraphError(f"listing not found: {listing}")
    lines = [r.value for r in spark.read.text(listing).collect()]
    folder = listing.rstrip("/").rsplit("/", 1)[0]
    out = []
    for line in lines:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if "://" in entry or entry.startswith("/"):
            out.append(entry)
        elif base:
            out.append(base.rstrip("/") + "/" + entry)
        else:
            out.append(storage.join(folder, entry))
    if not out:
        raise GraphError(f"listing {listing} names no files")
    return out


def read_vertices(spark: SparkSession, path: str, base: str | None = None) -> DataFrame:
    """``id, rev_host`` (normalised key) plus ``host_rev`` as published; the ids are the edge ids."""
    parts = read_paths_listing(spark, find_release_file(spark, path, "-host-vertices.paths.gz"), base)
    schema = T.StructType([T.StructField("id", T.StringType()), T.StructField("host_rev", T.StringType())])
    df = spark.read.csv(parts, sep="\t", schema=schema, header=False)
    return df.select(F.col("id").try_cast("long").alias("id"), "host_rev",
                     normalize_rev_host(F.col("host_rev")).alias("rev_host")).where(F.col("id").isNotNull())


def read_edges(spark: SparkSession, path: str, base: str | None = None) -> DataFrame:
    """``from_id, to_id`` as longs; malformed lines are dropped."""
    parts = read_paths_listing(spark, find_release_file(spark, path, "-host-edges.paths.gz"), base)
    schema = T.StructType([T.StructField("from_id", T.StringType()), T.StructField("to_id", T.StringType())])
    df = spark.read.csv(parts, sep="\t", schema=schema, header=False)
    return df.select(F.col("from_id").try_cast("long").alias("from_id"),
                     F.col("to_id").try_cast("long").alias("to_id")).where(
        F.col("from_id").isNotNull() & F.col("to_id").isNotNull())


def host_degrees(vertices: DataFrame, edges: DataFrame) -> DataFrame:
    """``rev_host, in_degree, out_degree``: host features from the edge list (hosts without edges
    get 0). Duplicated ``www`` variants are summed onto the normalised key."""
    outd = edges.groupBy(F.col("from_id").alias("id")).agg(F.count(F.lit(1)).alias("out_degree"))
    ind = edges.groupBy(F.col("to_id").alias("id")).agg(F.count(F.lit(1)).alias("in_degree"))
    joined = vertices.join(ind, "id", "left").join(outd, "id", "left")
    return joined.groupBy("rev_host").agg(
        F.sum(F.coalesce("in_degree", F.lit(0))).cast("long").alias("in_degree"),
        F.sum(F.coalesce("out_degree", F.lit(0))).cast("long").alias("out_degree"),
    )
