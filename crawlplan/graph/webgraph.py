"""Common Crawl's host- and domain-level web graphs, read as published.

A host-level release folder (e.g.
``s3://commoncrawl/projects/hyperlinkgraph/cc-main-2024-feb-apr-may/host/``) holds:

- ``<release>-host-ranks.txt.gz``: tab-separated, one header line
  ``#harmonicc_pos #harmonicc_val #pr_pos #pr_val #host_rev`` (tabs), values in Java float
  formatting (``3.4626736E7``), hosts reversed (``com.example.blog``);
- ``<release>-host-vertices.paths.gz`` / ``<release>-host-edges.paths.gz``: listings of gzip text
  parts, relative to the Common Crawl bucket root; they resolve under ``base``
  (``inputs.web_graph_base``) or the release folder, with the bucket prefix or without it
  (``crawlplan.graph.paths``); vertices are ``id<TAB>rev_host``, edges ``from_id<TAB>to_id``.

Host names drop a leading ``www.`` in releases up to 2025 and keep it from 2026 on
(``com.example.www`` next to ``com.example``); ``release_convention`` measures which on the
release's own vertices (``crawlplan.graph.www``; the release date rule when it has fewer than
``min_names``) and every reader maps names to the project's key under that convention.

The domain-level folder (``.../<release>/domain/``) has ``<release>-domain-ranks.txt.gz`` with a
sixth column ``#n_hosts`` (hosts folded into the registered domain); ``read_domain_ranks``.

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
from crawlplan.graph import paths, www
from crawlplan.graph.keys import clean_rev_host, rev_host_from_graph, rev_to_host, rev_to_surt

log = logging.getLogger("crawlplan")

RANK_COLUMNS = ("harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "host_rev")
DOMAIN_RANK_COLUMNS = RANK_COLUMNS + ("n_hosts",)
HOST_RANKS = "-host-ranks.txt.gz"
DOMAIN_RANKS = "-domain-ranks.txt.gz"
HOST_VERTICES = "-host-vertices.paths.gz"


class GraphError(ValueError):
    pass


def _list(spark: SparkSession, folder: str) -> list[str]:
    if not storage.exists(spark, folder):
        raise GraphError(f"web graph folder not found: {folder}")
    return [name for name, _ in storage.list_dir(spark, folder)]


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
    name = find_release_file(spark, path, HOST_RANKS).rstrip("/").rsplit("/", 1)[-1]
    return name[: -len(HOST_RANKS)]


def _folder_of(path: str, suffix: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[0] if path.rstrip("/").endswith(suffix) else path


def release_convention(spark: SparkSession, path: str, base: str | None = None,
                       setting: str | None = www.AUTO, min_names: int = 0) -> www.WwwConvention:
    """The release's ``www`` convention: ``setting`` when it names one, else measured on the
    release's vertices (the ranks file's names when the folder has no vertices listing), by the
    release date rule when fewer than ``min_names`` (``inputs.www_min_names``) names are there."""

    def measure() -> www.WwwConvention:
        folder = _folder_of(path, HOST_RANKS)
        release = release_name(spark, path)
        if any(n.endswith(HOST_VERTICES) for n in _list(spark, folder)):
            return www.detect(_raw_vertices(spark, folder, base), "host_rev", min_names=min_names, release=release)
        return www.detect(_raw_ranks(spark, path), "host_rev", min_names=min_names, release=release)

    return www.resolve(setting, measure)


def _convention(spark: SparkSession, path: str, base: str | None, convention) -> str:
    """A measured convention, or a setting (None / auto / kept / stripped) resolved here."""
    if not isinstance(convention, www.WwwConvention):
        convention = release_convention(spark, path, base, convention)
        log.info("web graph %s: %s", path, convention.describe())
    return convention.convention


def read_host_ranks(spark: SparkSession, path: str, *, convention: www.WwwConvention | str | None = None,
                    base: str | None = None, keep_www_duplicates: bool = False) -> DataFrame:
    """The ranks file as ``rev_host, surt_host_name, harmonicc_pos, harmonicc_val, pr_pos,
    pr_val, log_hc, log_pr``.

    ``rev_host`` is the project's key (``crawlplan.hosts``), mapped from the release's names
    under its ``www`` convention (measured when ``convention`` is None). In a www-keeping
    release ``com.example`` and ``com.example.www`` are two nodes of one key; the better-ranked
    one (lower ``harmonicc_pos``) is kept, because it is the form the web links to and the one
    Common Crawl's own crawler would have prioritised. Rows whose numbers do not parse are
    dropped (``count_bad_rank_rows`` counts them for the caller's report).
    """
    key = rev_host_from_graph(F.col("host_rev"), _convention(spark, path, base, convention))
    typed = _typed_ranks(_raw_ranks(spark, path), key).where(_valid_rank_row())
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


def read_domain_ranks(spark: SparkSession, path: str) -> DataFrame:
    """The domain-level ranks file (``path``: the ``domain/`` folder or the file) as ``rev_domain,
    registered_domain, harmonicc_pos, harmonicc_val, pr_pos, pr_val, n_hosts, log_hc, log_pr``.

    Its fifth column is named ``#host_rev`` as in the host file but holds the reversed
    registered domain (``uk.co.bbc``); ``#n_hosts`` counts the hosts folded into it. Rows that do
    not parse, or lack ``n_hosts``, are dropped (``count_bad_rank_rows(..., level="domain")``).
    """
    raw = _raw_ranks(spark, path, level="domain")
    typed = _typed_ranks(raw, clean_rev_host(F.col("host_rev")), n_hosts=True).where(
        _valid_rank_row() & F.col("n_hosts").isNotNull())
    return typed.select(
        F.col("rev_host").alias("rev_domain"), rev_to_host(F.col("rev_host")).alias("registered_domain"),
        "harmonicc_pos", "harmonicc_val", "pr_pos", "pr_val", "n_hosts",
        F.log10(F.lit(1.0) + F.col("harmonicc_val")).alias("log_hc"),
        F.log10(F.lit(1.0) + F.col("pr_val")).alias("log_pr"),
    )


def _raw_ranks(spark: SparkSession, path: str, level: str = "host") -> DataFrame:
    suffix, columns = (HOST_RANKS, RANK_COLUMNS) if level == "host" else (DOMAIN_RANKS, DOMAIN_RANK_COLUMNS)
    ranks_file = find_release_file(spark, path, suffix)
    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in columns])
    # The header's columns all start with '#', so the comment option skips it wherever it is.
    return spark.read.csv(ranks_file, sep="\t", schema=schema, header=False, comment="#", mode="PERMISSIVE")


def _typed_ranks(raw: DataFrame, key, *, n_hosts: bool = False) -> DataFrame:
    """The ranks rows with numbers parsed (null where they do not parse) and ``key`` as rev_host."""
    cols = [F.col("harmonicc_pos").try_cast("long").alias("harmonicc_pos"),
            F.col("harmonicc_val").try_cast("double").alias("harmonicc_val"),
            F.col("pr_pos").try_cast("long").alias("pr_pos"),
            F.col("pr_val").try_cast("double").alias("pr_val"),
            key.alias("rev_host")]
    if n_hosts:
        cols.append(F.col("n_hosts").try_cast("long").alias("n_hosts"))
    return raw.select(*cols)


def _valid_rank_row():
    return (F.col("rev_host").isNotNull() & (F.length("rev_host") > 0)
            & F.col("harmonicc_pos").isNotNull() & F.col("harmonicc_val").isNotNull()
            & F.col("pr_pos").isNotNull() & F.col("pr_val").isNotNull()
            & (F.col("harmonicc_val") >= 0) & (F.col("pr_val") >= 0))


def count_bad_rank_rows(spark: SparkSession, path: str, level: str = "host") -> int:
    """Rows of the ranks file that ``read_host_ranks`` / ``read_domain_ranks`` drop."""
    domain = level == "domain"
    typed = _typed_ranks(_raw_ranks(spark, path, level), clean_rev_host(F.col("host_rev")), n_hosts=domain)
    valid = _valid_rank_row() & F.col("n_hosts").isNotNull() if domain else _valid_rank_row()
    return typed.where(~F.coalesce(valid, F.lit(False))).count()


def read_paths_listing(spark: SparkSession, listing: str, base: str | None = None) -> list[str]:
    """Entries of a ``*.paths.gz`` listing as full paths under ``base`` (``inputs.web_graph_base``)
    or the listing's folder, with or without the bucket prefix (``crawlplan.graph.paths``)."""
    try:
        return paths.resolve_listing(spark, listing, base, "inputs.web_graph_base")
    except paths.ListingError as exc:
        raise GraphError(str(exc)) from None


def _raw_vertices(spark: SparkSession, path: str, base: str | None) -> DataFrame:
    parts = read_paths_listing(spark, find_release_file(spark, path, HOST_VERTICES), base)
    schema = T.StructType([T.StructField("id", T.StringType()), T.StructField("host_rev", T.StringType())])
    return spark.read.csv(parts, sep="\t", schema=schema, header=False)


def read_vertices(spark: SparkSession, path: str, base: str | None = None, *,
                  convention: www.WwwConvention | str | None = None) -> DataFrame:
    """``id, rev_host`` (the project's key, under the release's ``www`` convention) plus
    ``host_rev`` as published; the ids are the edge ids."""
    key = rev_host_from_graph(F.col("host_rev"), _convention(spark, path, base, convention))
    return _raw_vertices(spark, path, base).select(
        F.col("id").try_cast("long").alias("id"), "host_rev", key.alias("rev_host")).where(F.col("id").isNotNull())


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
