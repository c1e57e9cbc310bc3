"""Tiny jobs for the runner tests (no Python UDFs, so Spark workers never import this file)."""

from pyspark.sql import functions as F

CALLS: list[str] = []
STATE = {"model": "absent"}


def numbers_fingerprint(params, conf):
    """Like a model file a job depends on: part of the fingerprint."""
    return STATE["model"]


def numbers(ctx):
    CALLS.append("numbers")
    STATE["model"] = STATE["model"] if STATE["model"] != "absent" else "trained-during-run"
    n = int(ctx.params.get("n", 10))
    return {"numbers": ctx.spark.range(n).select(F.col("id").alias("value"))}


def doubled(ctx):
    CALLS.append("doubled")
    df = ctx.read("numbers")
    if ctx.params.get("fail"):
        # write half the output, then fail: nothing may become visible
        return {"doubled": df.select((F.col("value") * 2).alias("value"),
                                     F.when(F.col("value") > 3, F.lit(None)).otherwise(F.lit("x")).alias("tag"))}
    return {"doubled": df.select((F.col("value") * 2).alias("value"), F.lit("x").alias("tag"))}
