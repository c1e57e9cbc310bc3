"""The classify node: every document scored by every configured classifier in one pass.

documents -> scores (record id, host keys, language, one column per classifier; a classifier
not run is null), classify_rejects (documents with no usable text or a classifier error, with
the reason) and scores_extra (the optional Transformer classifiers, long form; empty unless
classify.models names one). Scoring is one ``mapInPandas`` over Arrow batches with each model loaded
once per Python worker process; see docs/classify.md for memory sizing with real models.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from crawlplan import storage
from crawlplan.classify.models import DEMO_WARNING, demo_marker, is_remote, local, model_dir, model_path
from crawlplan.classify.prepare import ClassifySettings, demo_allowed, prepare_models, worker_reuse_note
from crawlplan.classify.registry import SCORE_COLUMNS, load_registry, select
from crawlplan.classify.scoring import DETAIL_COLUMN, REJECT_COLUMN, TRUNCATED_COLUMN
from crawlplan.classify.spark_scoring import choose_distribution, score_documents, ship
from crawlplan.demo.models import train_demo
from crawlplan.filesystems import is_connect
from crawlplan.schemas import conform, load_schema
from crawlplan.spark import master_of

# Carried through the Python worker: what scores and classify_rejects need besides the scores.
_KEEP = ["record_id", "url", "host", "surt_host_name", "rev_host", "registered_domain", "tld", "crawl",
         "language", "text_length", "warc_file", "offset"]


def fingerprint(params: dict, conf: dict) -> list:
    """Model files are inputs too: pulling a real model after a demo run re-scores."""
    out = []
    for spec in select(load_registry(conf), params.get("models") or []):
        path = model_path(spec, conf)
        if is_remote(path):
            out.append([spec.name, path])
            continue
        p = Path(local(path))
        if not p.exists() or demo_marker(path) is not None:
            # A missing file becomes a demo model during the run, trained deterministically from
            # the classify.demo params (already in the fingerprint): both states fingerprint
            # alike, so the run after the one that trained them is not a needless re-score.
            out.append([spec.name, path, "demo"])
            continue
        st = p.stat()
        out.append([spec.name, path, st.st_size, st.st_mtime_ns])
    return out


def run(ctx) -> dict[str, DataFrame]:
    settings = ClassifySettings.from_params(ctx.params)
    spark = ctx.spark
    master = master_of(spark)
    specs = select(load_registry(ctx.conf), list(settings.models))
    refs, demo = prepare_models(
        specs, ctx.conf, remote_exists=lambda p: storage.exists(spark, p), echo=print,
        demo_trainer=train_demo if demo_allowed(settings.demo_models_when_missing, master) else None,
    )
    if demo:
        print("!" * 78 + f"\n!! classify: {DEMO_WARNING.upper()} ({len(demo)} of {len(refs)} classifiers are "
              f"demo models)\n" + "!" * 78)
        ctx.note(f"{DEMO_WARNING.upper()}: {', '.join(demo)} are demo models trained on generated text "
                 f"(run `crawlplan models pull` for the real ones)")
    note = worker_reuse_note(spark)
    if note:
        ctx.note(note)
    refs = [replace(r, engine=settings.engine) for r in refs]
    mode = choose_distribution(settings.distribute, refs, master, connect=is_connect(spark))
    if mode == "addfile":
        refs = ship(spark, refs, model_dir(ctx.conf))

    batch = settings.batch_size
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    previous = spark.conf.get(key, None)
    spark.conf.set(key, str(batch))
    try:
        docs = ctx.read("documents")
        scored = score_documents(docs, refs, max_chars=settings.max_chars, keep=_KEEP)
        scored = scored.persist(StorageLevel.MEMORY_AND_DISK)
        # One pass (one Spark job) computes the scores (cached) and every counter, grouped by reject
        # reason (null = scored); the writes reuse the cache.
        groups = scored.groupBy(REJECT_COLUMN).agg(
            F.count(F.lit(1)).alias("count"),
            F.sum(F.col(TRUNCATED_COLUMN).cast("long")).alias("truncated"),
        ).collect()
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)

    reasons = [r for r in groups if r[REJECT_COLUMN] is not None]
    documents = sum(int(r["count"]) for r in groups)
    rejected = sum(int(r["count"]) for r in reasons)
    ctx.count("documents_in", documents)
    ctx.count("scored", documents - rejected)
    ctx.count("truncated", sum(int(r["truncated"] or 0) for r in groups))
    ctx.count("classifiers", len(refs))
    ctx.count("demo_models", len(demo))
    for row in reasons:
        ctx.count(f"rejected_{row[REJECT_COLUMN]}", int(row["count"]))
    not_run = [c for c in SCORE_COLUMNS if c not in {r.spec.column for r in refs}]
    if not_run:
        ctx.note(f"classifiers not run (null columns): {', '.join(not_run)}")

    scores = conform(scored.where(F.col(REJECT_COLUMN).isNull()), "scores")
    rejects = conform(
        scored.where(F.col(REJECT_COLUMN).isNotNull())
        .withColumn("stage", F.lit("classify"))
        .withColumnRenamed(REJECT_COLUMN, "reason")
        .withColumnRenamed(DETAIL_COLUMN, "detail"),
        "classify_rejects",
    )
    return {"scores": scores, "classify_rejects": rejects, "scores_extra": _extra(spark, scored, refs)}


def _extra(spark, scored: DataFrame, refs) -> DataFrame:
    """Transformer scores in long form (record_id, classifier, score): the scores dataset keeps
    its ten fixed columns, and any number of optional classifiers fit one schema."""
    schema = load_schema("scores_extra")
    parts = [scored.where(F.col(REJECT_COLUMN).isNull()).select(
        "record_id", F.lit(r.spec.name).alias("classifier"), F.col(r.spec.column).alias("score"))
        for r in refs if r.spec.kind != "fasttext"]
    if not parts:
        return spark.createDataFrame([], schema.struct())
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return conform(out, "scores_extra")
