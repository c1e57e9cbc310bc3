"""One place that builds the SparkSession, so local runs, tests and spark-submit agree.

Locally the session is ``local[*]`` with Arrow on and the workers pinned to the driver's own
interpreter: without ``PYSPARK_PYTHON`` the workers start whatever ``python3`` is on PATH and
fail with "No module named pandas". Under spark-submit the master and resources come from the
submit command and ``conf/cluster.yaml``; nothing here overrides what the launcher already set.
"""

from __future__ import annotations

import logging
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from crawlplan import connect
from crawlplan.conf import get, section
from crawlplan.paths import resource_dir

log = logging.getLogger(__name__)


def _under_spark_submit() -> bool:
    return "SPARK_ENV_LOADED" in os.environ or "spark.master" in os.environ.get("PYSPARK_SUBMIT_ARGS", "")


def _quiet_log4j_file() -> str | None:
    try:
        path = resource_dir("conf") / "log4j2.properties"
    except FileNotFoundError:
        return None
    return str(path) if path.is_file() else None


def build_session(conf: dict, app_name: str = "crawlplan"):
    """A classic session, or with ``spark.remote`` / ``SPARK_REMOTE`` set a Spark Connect one
    (``crawlplan.connect``: the same SQL settings, the package shipped to the server)."""
    spark_conf: dict = dict(get(conf, "spark.conf", {}) or {})
    remote = connect.remote_url(conf)
    defaults = {
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        # shuffle partitions sized to the data: AQE coalesces the configured count down to what the
        # stage's bytes need, so the demo runs in a handful of tasks and a crawl in thousands
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.adaptive.coalescePartitions.enabled": "true",
        "spark.sql.adaptive.advisoryPartitionSizeInBytes": "64m",
        # ... also inside persisted frames (extract's duplicates, the stats' shared tables): without
        # this a cached plan keeps all spark.sql.shuffle.partitions (2000 in the cluster profile) and
        # every later union or join of it runs 2000 near-empty tasks
        "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning": "true",
        # lower() by the JVM, not ICU: the same result on host names and MIME types (ASCII), no
        # ICU case tables built per JVM and a cheaper call per row (the extract's JVM CPU 8.6 s
        # with ICU, 5.6 s without: docs/benchmarks.md, bench/bench_extract.py --set)
        "spark.sql.icu.caseMappings.enabled": "false",
    }
    partitions = get(conf, "spark.shuffle_partitions")
    if partitions:
        defaults["spark.sql.shuffle.partitions"] = str(partitions)
    if remote:
        return connect.build_connect_session(remote, app_name,
                                             {**defaults, **{str(k): str(v) for k, v in spark_conf.items()}})
    if not _under_spark_submit():
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    master = get(conf, "spark.master")
    if master and not _under_spark_submit():
        builder = builder.master(str(master))
    if not _under_spark_submit():
        defaults["spark.executorEnv.PYSPARK_PYTHON"] = sys.executable
        log4j = _quiet_log4j_file()
        # spark.java_options reach the driver JVM only when this process starts it; under
        # spark-submit the JVM runs already and the setting has no effect
        java_options = [f"-Dlog4j2.configurationFile=file:{log4j}"] if log4j else []
        java_options += str(section(conf, "spark")["java_options"] or "").split()
        if java_options:
            defaults["spark.driver.extraJavaOptions"] = " ".join(java_options)
        if log4j:
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    driver_memory = get(conf, "spark.driver_memory")
    if driver_memory:
        defaults["spark.driver.memory"] = str(driver_memory)
    for key, value in {**defaults, **{str(k): str(v) for k, v in spark_conf.items()}}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(str(section(conf, "spark")["log_level"]))
    return spark


def master_of(spark) -> str:
    """The session's master URL (``local[2]``, ``spark://...``, ``yarn``), from its conf rather than
    ``sparkContext`` (which a Spark Connect session has not); "" where the server does not say
    (a Databricks serverless session)."""
    try:
        return str(spark.conf.get("spark.master", "") or "")
    except Exception:  # a Connect server may refuse to show the key
        return ""


def spread_rows(spark, rows: list[tuple], schema: str, slices: int):
    """``rows`` as a frame of ``slices`` partitions of consecutive rows, in order: what
    ``sparkContext.parallelize(rows, numSlices)`` gave, in a Spark Connect session too (which has
    no RDDs). A driver-side listing (WARC paths) becomes tasks of a known size this way: a range of
    row numbers in that many partitions, joined to the rows as a broadcast, which keeps the
    range's partitioning (no shuffle, no coalescing by AQE)."""
    numbered = spark.createDataFrame([(i, *row) for i, row in enumerate(rows)], f"_row long, {schema}")
    spine = spark.range(0, len(rows), 1, max(1, int(slices))).withColumnRenamed("id", "_row")
    return spine.join(F.broadcast(numbered), "_row").sortWithinPartitions("_row").drop("_row")
