"""Synthetic host-level inputs for ``bench_scale.py``: N hosts of the calibrated population, written
in the project's own formats, without ever holding a table proportional to N on the driver.

    PYTHONPATH=. .venv/bin/python bench/scale_inputs.py --hosts 50000 --out bench/results/scale/50000/inputs

What the host-level nodes read after ``host_stats`` starts from three inputs, written here:

- ``scores`` (dataset): one row per page of every scored host, with the calibrated population's
  page scores in the classifier columns the conf's policy nodes use (``policies.simulate`` and
  ``policies.allocate`` ``classifier``); the other classifier columns are null, as for a model not
  run. ``host_stats`` (run by the benchmark, the one way to get ``host_scores`` and ``icc``) then
  aggregates them.
- ``host_index/crawl=CC-MAIN-2024-10/`` (Common Crawl host index v2 columns,
  ``crawlplan.demo.hostindex.host_index_schema``): every scored host plus ``--index-extra`` x N hosts
  nobody scored (the exploration candidates of ``allocate``); ``fetch_200`` and ``nutch_fetched``
  are the population's Common Crawl budget, ``nutch_numRecords`` adds the host's pages to it.
- ``web_graph/bench-scale-host-ranks.txt.gz`` (the ranks file of a host-level release, tab
  separated, Java float text, reversed host names): the hosts of the graph (``--graph-share`` of
  them; the others are "not in graph"), HC and PR from the population's log HC / log PR signals and
  positions by a Spark window. Spark writes it as a folder of gzip parts under that name, which the
  release reader takes as the file (``spark.read.csv`` reads a folder). There are no vertices and
  edges listings, so the benchmark runs ``host_graph`` with ``stats.host_graph.degrees=false``.

Hosts are drawn in chunks of ``--chunk-hosts``: chunk c (hosts c*chunk .. (c+1)*chunk - 1) is one
``calibrated_population`` of ``chunk`` hosts with seed ``seed * CHUNK_SEED_STRIDE + c``, drawn inside a
``mapInPandas`` task. So a Python worker holds one chunk at a time (bounded by the argument, not by
N), the driver holds nothing but the chunk numbers, and the inputs of N hosts do not depend on the
number of partitions. Each chunk normalises its own size and quality signals and draws its own
language shifts (``calibrated_population`` does so per call): the whole is a mixture of calibrated
populations, with the same page-count law (``min_pages`` + Lomax) and the same within-host
dependence (ICC1) as one draw.

Host names are ``h<id>.<tld>``: two labels, so the registered domain is the host itself wherever the
public suffix list knows the TLD (asked once per TLD through ``crawlplan.hosts.registered_domain``;
the population's long tail of made-up two-letter codes has none, as the index would say).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from crawlplan.demo.hostindex import (  # noqa: E402
    FETCH_COLUMNS,
    NUTCH_COLUMNS,
    NUTCH_PCT,
    ROBOTS_COLUMNS,
    host_index_schema,
)
from crawlplan.hosts import registered_domain, rev_host, surt_host  # noqa: E402
from crawlplan.policies.population import CalibratedParams, calibrated_population  # noqa: E402

CRAWL = "CC-MAIN-2024-10"
RELEASE = "bench-scale"
CHUNK_SEED_STRIDE = 1_000_003      # chunk seeds of two base seeds never meet below a million chunks
TEXT_LENGTH = 2000                 # every synthetic page's text length (no node reads it for a decision)

HOST_COLUMNS = [("gid", "long"), ("host", "string"), ("surt_host_name", "string"), ("rev_host", "string"),
                ("registered_domain", "string"), ("tld", "string"), ("language", "string"), ("n", "long"),
                ("hq", "long"), ("log_hc", "double"), ("log_pr", "double"), ("cc_fetched", "long"),
                ("scored", "boolean"), ("in_graph", "boolean")]


def chunk_count(hosts: int, chunk_hosts: int) -> int:
    return max(1, -(-hosts // chunk_hosts))


def chunk_hosts_table(chunk: int, total: int, chunk_hosts: int, scored: int, seed: int,
                      graph_share: float) -> tuple[pd.DataFrame, np.ndarray]:
    """Chunk ``chunk`` of ``total`` hosts as one row per host (``HOST_COLUMNS``), and its page scores
    (one array per scored host's pages, concatenated in host order). Hosts with ``gid >= scored``
    are host-index-only: no pages, ``scored`` false."""
    first = chunk * chunk_hosts
    count = min(chunk_hosts, total - first)
    chunk_seed = seed * CHUNK_SEED_STRIDE + chunk
    pop, page_scores, host_of_page = calibrated_population(replace(CalibratedParams(), hosts=count), seed=chunk_seed,
                                                           with_scores=True)
    gid = np.arange(first, first + count, dtype=np.int64)
    tlds = np.asarray(pop.tld_names, dtype=object)[pop.tld]
    langs = np.asarray([g.split("|", 1)[1] for g in pop.group_names], dtype=object)[pop.group]
    hosts = [f"h{g}.{t}" for g, t in zip(gid.tolist(), tlds.tolist())]
    has_domain = {t: registered_domain(f"h0.{t}") == f"h0.{t}" for t in set(tlds.tolist())}
    in_graph = np.random.default_rng([chunk_seed, 4721]).random(count) < graph_share
    table = pd.DataFrame({
        "gid": gid, "host": hosts, "surt_host_name": [surt_host(h) for h in hosts],
        "rev_host": [rev_host(h) for h in hosts],
        "registered_domain": [h if has_domain[t] else None for h, t in zip(hosts, tlds.tolist())],
        "tld": tlds, "language": langs, "n": pop.n, "hq": pop.hq, "log_hc": pop.log_hc, "log_pr": pop.log_pr,
        "cc_fetched": pop.cc_fetched.astype(np.int64), "scored": gid < scored, "in_graph": in_graph,
    })
    keep_pages = (gid < scored)[host_of_page]
    return table, page_scores[keep_pages]


def chunk_pages_table(table: pd.DataFrame, page_scores: np.ndarray, classifiers: list[str]) -> pd.DataFrame:
    """The scored hosts' pages: ``scores`` columns (the ones with values; ``conform`` adds the rest)."""
    hosts = table[table.scored]
    n = hosts.n.to_numpy()
    host_of_page = np.repeat(np.arange(len(hosts)), n)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]]) if len(n) else np.zeros(0, dtype=np.int64)
    page_no = pd.Series(np.arange(len(host_of_page)) - starts[host_of_page]).astype(str)
    pick = lambda col: hosts[col].to_numpy()[host_of_page]  # noqa: E731
    name = pd.Series(pick("host"))
    out = pd.DataFrame({
        "record_id": pd.Series(pick("gid")).astype(str) + "-" + page_no,
        "url": "https://" + name + "/p" + page_no,
        "host": name, "surt_host_name": pick("surt_host_name"), "rev_host": pick("rev_host"),
        "registered_domain": pick("registered_domain"), "tld": pick("tld"), "crawl": CRAWL,
        "language": pick("language"), "text_length": np.full(len(host_of_page), TEXT_LENGTH, dtype=np.int32),
    })
    for c in classifiers:
        out[c] = page_scores
    return out


def _ddl(columns) -> str:
    return ", ".join(f"{name} {kind}" for name, kind in columns)


def write_inputs(spark, out: Path, hosts: int, *, seed: int, chunk_hosts: int, index_extra: float,
                 graph_share: float, classifiers: list[str]) -> dict:
    """``scores``, ``host_index`` and ``web_graph`` of ``hosts`` scored hosts under ``out``; returns
    bounded totals (hosts, pages) counted by Spark."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from crawlplan import storage
    from crawlplan.schemas import conform

    total = hosts + int(round(index_extra * hosts))
    chunks = chunk_count(total, chunk_hosts)
    parts = min(chunks, max(2, spark.sparkContext.defaultParallelism))

    def host_rows(batches):
        for batch in batches:
            for c in batch["id"].tolist():
                yield chunk_hosts_table(int(c), total, chunk_hosts, hosts, seed, graph_share)[0]

    def page_rows(batches):
        for batch in batches:
            for c in batch["id"].tolist():
                table, scores = chunk_hosts_table(int(c), total, chunk_hosts, hosts, seed, graph_share)
                yield chunk_pages_table(table, scores, classifiers)

    ids = spark.range(0, chunks, 1, numPartitions=parts)
    page_cols = [("record_id", "string"), ("url", "string"), ("host", "string"), ("surt_host_name", "string"),
                 ("rev_host", "string"), ("registered_domain", "string"), ("tld", "string"), ("crawl", "string"),
                 ("language", "string"), ("text_length", "int")] + [(c, "double") for c in classifiers]
    pages = conform(ids.mapInPandas(page_rows, schema=_ddl(page_cols)), "scores")
    page_count = storage.write_dataset(pages, "scores", str(out))

    host_path = str(out / "_hosts")
    ids.mapInPandas(host_rows, schema=_ddl(HOST_COLUMNS)).write.mode("overwrite").parquet(host_path)
    table = spark.read.parquet(host_path)
    _write_host_index(table, out / "host_index" / f"crawl={CRAWL}", F)
    graph = table.where("in_graph").select(
        "rev_host", (F.pow(F.lit(10.0), "log_hc") - 1.0).alias("hc"), F.pow(F.lit(10.0), "log_pr").alias("pr"))
    # positions by descending score (ties by name), as the release numbers them: one sorted pass
    graph = (graph.withColumn("hc_pos", F.row_number().over(Window.orderBy(F.desc("hc"), "rev_host")))
             .withColumn("pr_pos", F.row_number().over(Window.orderBy(F.desc("pr"), "rev_host"))))
    line = F.concat_ws("\t", F.col("hc_pos").cast("string"), F.col("hc").cast("float").cast("string"),
                       F.col("pr_pos").cast("string"), F.col("pr").cast("float").cast("string"), "rev_host")
    graph.orderBy("hc_pos").select(line.alias("value")).write.mode("overwrite").text(
        str(out / "web_graph" / f"{RELEASE}-host-ranks.txt.gz"), compression="gzip")
    counts = table.agg(F.count(F.lit(1)).alias("index_hosts"), F.sum(F.col("scored").cast("long")).alias("scored"),
                       F.sum(F.col("in_graph").cast("long")).alias("in_graph"),
                       F.sum(F.when(F.col("scored"), F.col("n"))).alias("pages"),
                       F.sum(F.when(F.col("scored"), F.col("hq"))).alias("hq_pages")).head().asDict()
    counts["score_rows"] = page_count
    return {k: int(v or 0) for k, v in counts.items()}


def _write_host_index(table, folder: Path, F) -> None:
    """Host index v2 rows (``host_index_schema``'s columns and types) from the host table."""
    schema = host_index_schema()
    known = (F.greatest(F.col("n"), F.col("cc_fetched")) + F.col("n")).cast("long")
    values = {
        "surt_host_name": F.col("surt_host_name"), "url_host_registered_domain": F.col("registered_domain"),
        "url_host_tld": F.col("tld"),
        "hcrank": F.when(F.col("in_graph"), F.pow(F.lit(10.0), "log_hc") - 1.0).otherwise(0.0),
        "prank": F.when(F.col("in_graph"), F.pow(F.lit(10.0), "log_pr")).otherwise(0.0),
        "hcrank10": F.when(F.col("in_graph"), F.round(F.least(F.greatest((F.col("log_hc") - 4.0) * 2.5, F.lit(0.0)),
                                                                  F.lit(10.0)), 3)).otherwise(0.0),
        "prank10": F.when(F.col("in_graph"), F.round(F.least(F.greatest((F.col("log_pr") + 10.0) * 2.5, F.lit(0.0)),
                                                                 F.lit(10.0)), 3)).otherwise(0.0),
        "fetch_200": F.col("cc_fetched"),
        "fetch_200_lote": F.when(F.col("language") != "en", F.col("cc_fetched")).otherwise(0),
        "fetch_200_lote_pct": F.when(F.col("language") != "en", 100).otherwise(0),
        "nutch_fetched": F.col("cc_fetched"), "nutch_numRecords": known,
        "nutch_unfetched": known - F.col("cc_fetched"),
        "nutch_unfetched_pct": F.round((known - F.col("cc_fetched")) * 100.0 / known),
        "nutch_fetched_pct": F.round(F.col("cc_fetched") * 100.0 / known),
        "robots_200": F.lit(1), "warc_record_length_av": F.lit(12_000), "warc_record_length_median": F.lit(10_000),
    }
    zero = [*FETCH_COLUMNS, *NUTCH_COLUMNS, *(c + "_pct" for c in NUTCH_PCT), *ROBOTS_COLUMNS]
    cols = []
    for f in schema:
        col = values.get(f.name, F.lit(0) if f.name in zero else None)
        if col is None:
            raise ValueError(f"no synthetic value for host index column {f.name}")
        spark_type = {"string": "string", "double": "double", "int64": "bigint", "int32": "int", "int16": "smallint",
                      "int8": "tinyint"}[str(f.type)]
        cols.append(col.cast(spark_type).alias(f.name))
    table.select(*cols).write.mode("overwrite").parquet(str(folder))


def inputs_ready(out: Path, wanted: dict) -> bool:
    """The folder holds inputs written with exactly these parameters."""
    marker = out / "_bench_inputs.json"
    return marker.is_file() and json.loads(marker.read_text()).get("params") == wanted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, required=True, help="scored hosts")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk-hosts", type=int, default=50_000, help="hosts per generator task (bounds a worker)")
    ap.add_argument("--index-extra", type=float, default=0.25, help="host-index-only hosts, as a share of --hosts")
    ap.add_argument("--graph-share", type=float, default=0.9, help="share of hosts in the web graph")
    ap.add_argument("--classifiers", default="fineweb_edu", help="comma-separated score columns to fill")
    ap.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE",
                    help="conf override for this Spark session (spark.master=local[2], ...)")
    args = ap.parse_args(argv)
    params = {"hosts": args.hosts, "seed": args.seed, "chunk_hosts": args.chunk_hosts,
              "index_extra": args.index_extra, "graph_share": args.graph_share,
              "classifiers": sorted(c for c in args.classifiers.split(",") if c)}
    if inputs_ready(args.out, params):
        print(f"inputs for {args.hosts} hosts already at {args.out}")
        return 0
    from crawlplan.conf import load_conf
    from crawlplan.spark import build_session

    spark = build_session(load_conf("local", overrides=args.overrides), app_name="crawlplan-bench-scale-inputs")
    args.out.mkdir(parents=True, exist_ok=True)
    counts = write_inputs(spark, args.out, args.hosts, seed=args.seed, chunk_hosts=args.chunk_hosts,
                          index_extra=args.index_extra, graph_share=args.graph_share,
                          classifiers=params["classifiers"])
    spark.stop()
    (args.out / "_bench_inputs.json").write_text(json.dumps({"params": params, "counts": counts}, indent=2))
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
