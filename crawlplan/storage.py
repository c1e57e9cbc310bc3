"""Dataset I/O through Hadoop's FileSystem API, so the same code moves files on a laptop,
HDFS or S3A. Writes go to a hidden sibling first and are renamed into place only when the
whole dataset is written: a failed node leaves nothing half-written where readers look.
"""

from __future__ import annotations

import json
import os
import uuid

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

from crawlplan.schemas import DatasetSchema, check_schema, enforce, load_schema


def _fs(spark: SparkSession, path: str):
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    return fs, hpath


def join(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/")] + [p.strip("/") for p in parts])


def exists(spark: SparkSession, path: str) -> bool:
    fs, hpath = _fs(spark, path)
    return bool(fs.exists(hpath))


def delete(spark: SparkSession, path: str) -> None:
    fs, hpath = _fs(spark, path)
    if fs.exists(hpath):
        fs.delete(hpath, True)


def move(spark: SparkSession, src: str, dst: str) -> None:
    """Replace ``dst`` by ``src``. The old copy is renamed aside before it is deleted."""
    fs, src_path = _fs(spark, src)
    _, dst_path = _fs(spark, dst)
    jvm = spark.sparkContext._jvm
    parent = dst_path.getParent()
    if parent is not None and not fs.exists(parent):
        fs.mkdirs(parent)
    old = None
    if fs.exists(dst_path):
        old = jvm.org.apache.hadoop.fs.Path(f"{dst}.old-{uuid.uuid4().hex[:8]}")
        if not fs.rename(dst_path, old):
            raise OSError(f"could not move {dst} aside")
    if not fs.rename(src_path, dst_path):
        raise OSError(f"could not rename {src} to {dst}")
    if old is not None:
        fs.delete(old, True)


def _plain(spark: SparkSession, fs):
    """The file system itself under Hadoop's checksumming local one, so that a file written for
    people and crawlers has no hidden ``.crc`` sibling."""
    checksummed = spark.sparkContext._jvm.java.lang.Class.forName("org.apache.hadoop.fs.ChecksumFileSystem")
    return fs.getRawFileSystem() if checksummed.isInstance(fs) else fs


def write_text(spark: SparkSession, path: str, text: str) -> None:
    fs, hpath = _fs(spark, path)
    raw = _plain(spark, fs)
    tmp = spark.sparkContext._jvm.org.apache.hadoop.fs.Path(f"{path}.tmp-{uuid.uuid4().hex[:8]}")
    stream = raw.create(tmp, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()
    if fs.exists(hpath):
        fs.delete(hpath, False)      # with its .crc, if an older write left one
    raw.rename(tmp, hpath)


def local_file(path: str) -> str | None:
    """The OS path of a local ``path`` (no scheme, or ``file:``), None for any other file system."""
    if path.startswith("file:"):
        return "/" + path[len("file:"):].lstrip("/")
    return None if "://" in path else path


def create_new(spark: SparkSession, path: str, text: str) -> bool:
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
    fs, hpath = _fs(spark, path)
    try:
        stream = _plain(spark, fs).create(hpath, False)
    except Exception as exc:  # py4j wraps the Java FileAlreadyExistsException
        if "FileAlreadyExists" in str(exc) or fs.exists(hpath):
            return False
        raise
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()
    return True


def replace_text(spark: SparkSession, path: str, text: str) -> None:
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
    fs, hpath = _fs(spark, path)
    stream = _plain(spark, fs).create(hpath, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()


def rename(spark: SparkSession, src: str, dst: str) -> bool:
    """Rename one file; False when ``src`` is gone (another process moved it first)."""
    fs, src_path = _fs(spark, src)
    _, dst_path = _fs(spark, dst)
    return bool(fs.rename(src_path, dst_path))


def is_dir(spark: SparkSession, path: str) -> bool:
    fs, hpath = _fs(spark, path)
    return bool(fs.exists(hpath)) and bool(fs.getFileStatus(hpath).isDirectory())


def part_files(spark: SparkSession, folder: str) -> list[str]:
    """The ``part-NNNNN-*`` files Spark wrote into ``folder``, in partition order (by number:
    partition 100000 has a longer name than 99999)."""
    fs, hpath = _fs(spark, folder)
    names = [str(st.getPath().getName()) for st in fs.listStatus(hpath) if st.isFile()]
    parts = [n for n in names if n.startswith("part-") and n.split("-")[1].isdigit()]
    return [join(folder, n) for n in sorted(parts, key=lambda n: (int(n.split("-")[1]), n))]


def concat_text(spark: SparkSession, folder: str, path: str, *, head: str, tail: str, empty: str,
                buffer_bytes: int) -> int:
    """Write ``head``, the ``part-*`` files of ``folder`` in order, then ``tail`` into one file at
    ``path`` (atomically, as ``write_text``); ``empty`` stands for the parts when they hold no
    bytes. The bytes are copied inside the JVM through a buffer of ``buffer_bytes``, so a file of
    any size passes through bounded memory. Returns the bytes of the parts."""
    fs, hpath = _fs(spark, path)
    jvm = spark.sparkContext._jvm
    raw = _plain(spark, fs)
    tmp = jvm.org.apache.hadoop.fs.Path(f"{path}.tmp-{uuid.uuid4().hex[:8]}")
    parts = part_files(spark, folder)
    body = 0
    stream = raw.create(tmp, True)
    try:
        stream.write(bytearray(head.encode("utf-8")))
        for part in parts:
            pfs, ppath = _fs(spark, part)
            size = int(pfs.getFileStatus(ppath).getLen())
            if size:
                source = pfs.open(ppath)
                try:
                    jvm.org.apache.hadoop.io.IOUtils.copyBytes(source, stream, int(buffer_bytes), False)
                finally:
                    source.close()
            body += size
        if not body:
            stream.write(bytearray(empty.encode("utf-8")))
        stream.write(bytearray(tail.encode("utf-8")))
    finally:
        stream.close()
    if fs.exists(hpath):
        fs.delete(hpath, False)
    raw.rename(tmp, hpath)
    return body


def read_text(spark: SparkSession, path: str) -> str | None:
    fs, hpath = _fs(spark, path)
    if not fs.exists(hpath):
        return None
    jvm = spark.sparkContext._jvm
    stream = fs.open(hpath)
    try:
        reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(stream, "UTF-8"))
        lines = []
        line = reader.readLine()
        while line is not None:
            lines.append(line)
            line = reader.readLine()
        return "\n".join(lines)
    finally:
        stream.close()


def read_json(spark: SparkSession, path: str) -> dict | None:
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
