"""Dataset I/O through Hadoop's FileSystem API (or, with no JVM at hand, pyarrow's: see
``crawlplan.filesystems``), so the same code moves files on a laptop, HDFS or S3A. Writes go to
a hidden sibling first and are renamed into place only when the whole dataset is written: a failed node leaves nothing half-written where readers look.
"""

from __future__ import annotations

import json
import os
import uuid

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

from crawlplan import filesystems
from crawlplan.schemas import DatasetSchema, check_schema, enforce, load_schema


def _files(spark: SparkSession | None):
    return filesystems.for_spark(spark)


def join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/")] + [p.strip("/") for p in parts])


def exists(spark: SparkSession | None, path: str) -> bool:
    return _files(spark).exists(path)


def delete(spark: SparkSession | None, path: str) -> None:
    _files(spark).delete(path)


def move(spark: SparkSession | None, src: str, dst: str) -> None:
    """Replace ``dst`` by ``src``. The old copy is renamed aside before it is deleted."""
    files = _files(spark)
    parent = dst.rstrip("/").rsplit("/", 1)[0]
    if parent and parent != dst and not files.exists(parent):
        files.mkdirs(parent)
    old = None
    if files.exists(dst):
        old = f"{dst}.old-{uuid.uuid4().hex[:8]}"
        if not files.rename(dst, old):
            raise OSError(f"could not move {dst} aside")
    if not files.rename(src, dst):
        raise OSError(f"could not rename {src} to {dst}")
    if old is not None:
        files.delete(old)


def write_text(spark: SparkSession | None, path: str, text: str) -> None:
    """Write ``text`` at ``path`` through a sibling temporary file renamed into place."""
    data = text.encode("utf-8")
    _files(spark).replace_with_temp(path, lambda write, _copy: write(data))


def local_file(path: str) -> str | None:
    """The OS path of a local ``path`` (no scheme, or ``file:``), None for any other file system."""
    if path.startswith("file:"):
        return "/" + path[len("file:"):].lstrip("/")
    return None if "://" in path else path


def create_new(spark: SparkSession | None, path: str, text: str) -> bool:
    """Create ``path`` holding ``text`` only if it does not exist; False if it does. Atomic where
    the file system offers it: ``O_EXCL`` on a local disk, the name node's create on HDFS. An
    object store's create is a check then a put (docs/security.md: one writer per folder there)."""
    local = local_file(path)
    if local is not None:
        try:
            fd = os.open(local, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return True
    return _files(spark).write_bytes(path, text.encode("utf-8"), overwrite=False)


def replace_text(spark: SparkSession | None, path: str, text: str) -> None:
    """Overwrite ``path`` with no moment where it is missing (``write_text`` deletes, then renames):
    ``os.replace`` on a local disk, an overwriting create elsewhere (one name-node call on HDFS,
    one put on an object store). For a file others test for existence, such as a lease."""
    local = local_file(path)
    if local is not None:
        tmp = f"{local}.tmp-{uuid.uuid4().hex[:8]}"
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, local)
        return
    _files(spark).write_bytes(path, text.encode("utf-8"), overwrite=True)


def rename(spark: SparkSession | None, src: str, dst: str) -> bool:
    """Rename one file; False when ``src`` is gone (another process moved it first)."""
    return _files(spark).rename(src, dst)


def is_dir(spark: SparkSession | None, path: str) -> bool:
    return _files(spark).is_dir(path)


def list_dir(spark: SparkSession | None, folder: str) -> list[tuple[str, bool]]:
    """(name, is a folder) of each entry of ``folder``, sorted by name; [] when it does not exist."""
    files = _files(spark)
    if not files.exists(folder):
        return []
    return sorted((name, is_folder) for name, is_folder, _ in files.listing(folder))


def part_files(spark: SparkSession | None, folder: str) -> list[str]:
    """The ``part-NNNNN-*`` files Spark wrote into ``folder``, in partition order (by number:
    partition 100000 has a longer name than 99999)."""
    names = [name for name, is_folder, _ in _files(spark).listing(folder) if not is_folder]
    parts = [n for n in names if n.startswith("part-") and n.split("-")[1].isdigit()]
    return [join(folder, n) for n in sorted(parts, key=lambda n: (int(n.split("-")[1]), n))]


def concat_text(spark: SparkSession | None, folder: str, path: str, *, head: str, tail: str, empty: str,
                buffer_bytes: int) -> int:
    """Write ``head``, the ``part-*`` files of ``folder`` in order, then ``tail`` into one file at
    ``path`` (atomically, as ``write_text``); ``empty`` stands for the parts when they hold no
    bytes. The bytes are copied through a buffer of ``buffer_bytes`` (inside the JVM on a classic
    session), so a file of any size passes through bounded memory. Returns the bytes of the parts."""
    files = _files(spark)
    sizes = {name: size for name, is_folder, size in files.listing(folder) if not is_folder}
    parts = part_files(spark, folder)

    def fill(write, copy_file) -> int:
        body = 0
        write(head.encode("utf-8"))
        for part in parts:
            size = sizes[part.rsplit("/", 1)[-1]]
            if size:
                copy_file(part, buffer_bytes)
            body += size
        if not body:
            write(empty.encode("utf-8"))
        write(tail.encode("utf-8"))
        return body

    return files.replace_with_temp(path, fill)


def read_text(spark: SparkSession | None, path: str) -> str | None:
    data = _files(spark).read_bytes(path)
    return None if data is None else data.decode("utf-8")


def read_json(spark: SparkSession | None, path: str) -> dict | None:
    text = read_text(spark, path)
    return json.loads(text) if text else None


def write_dataset(df: DataFrame, dataset: str, out_dir: str, *, context: str = "",
                  schema: DatasetSchema | None = None, tmp_dir: str = "") -> int:
    """Write ``df`` as Parquet at ``out_dir/dataset`` atomically; return the row count.

    ``tmp_dir`` is the run's own temporary folder (``JobContext.tmp_dir``). The count is observed while the rows are written (``DataFrame.observe``), not read back
    in a second Spark job: on small inputs each extra job costs more than the write itself.
    """
    schema = schema or load_schema(dataset)
    observed = Observation(f"rows_{dataset}")
    checked = enforce(df, schema, context=context).observe(observed, F.count(F.lit(1)).alias("rows"))
    final = join(out_dir, dataset)
    tmp = join(tmp_dir or join(out_dir, "_tmp"), f"{dataset}-{uuid.uuid4().hex[:12]}")
    writer = checked.write.mode("overwrite")
    for column in schema.plain_columns:
        writer = writer.option(f"parquet.enable.dictionary#{column}", "false")
    if schema.partition_by:
        writer = writer.partitionBy(*schema.partition_by)
    try:
        writer.parquet(tmp)
    except Exception:
        delete(df.sparkSession, tmp)
        raise
    rows = int(observed.get["rows"])
    move(df.sparkSession, tmp, final)
    return rows


def read_dataset(spark: SparkSession, dataset: str, path: str) -> DataFrame:
    """Read a declared dataset, keeping exactly the schema's columns in the schema's order."""
    schema = load_schema(dataset)
    try:
        df = spark.read.parquet(path)
    except AnalysisException as exc:
        # a dataset written empty (e.g. partitioned, no rows) has no file to infer a schema from:
        # it is still that dataset, with no rows
        if "UNABLE_TO_INFER_SCHEMA" not in str(exc):
            raise
        return spark.createDataFrame([], schema.struct())
    check_schema(df.select(*[c for c in df.columns if c in schema.names]).schema, schema,
                 context=f"reading {path}")
    return df.select(*schema.names)
