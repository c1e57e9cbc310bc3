"""The two ways ``crawlplan.storage`` reaches a file system: through the Spark driver's JVM
(Hadoop's FileSystem API) or from this Python process (pyarrow's file systems).

Hadoop's API is the one a classic Spark application uses, so the output folder is reached with
the same credentials and connectors (``spark.hadoop.fs.s3a.*``, HDFS, ABFS) as its datasets.
Two callers have no JVM to ask: a Spark Connect client (Databricks serverless and shared
clusters, ``--remote``), whose session lives on a server, and a job that checks its completion
marker before it starts Spark at all. They use pyarrow's client-side file systems: the local disk,
``s3://`` / ``s3a://`` (AWS's usual credential chain), ``gs://``, ``hdfs://`` (with libhdfs) and
``abfs://`` where pyarrow has them. A path neither can open raises a clear error naming it.
"""

from __future__ import annotations

import os
import uuid


def for_spark(spark):
    """Hadoop's file systems through ``spark``'s JVM, or the client-side ones when ``spark`` is None
    or a Spark Connect session (which has no JVM in this process)."""
    if spark is None or is_connect(spark):
        return ClientFiles()
    return HadoopFiles(spark)


def is_connect(spark) -> bool:
    """A Spark Connect session: its classes live under ``pyspark.sql.connect``."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


class HadoopFiles:
    """Paths through the driver JVM's ``org.apache.hadoop.fs.FileSystem``."""

    def __init__(self, spark):
        self.jvm = spark.sparkContext._jvm
        self.hadoop_conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _fs(self, path: str):
        hpath = self.jvm.org.apache.hadoop.fs.Path(path)
        return hpath.getFileSystem(self.hadoop_conf), hpath

    def _plain(self, fs):
        """The file system itself under Hadoop's checksumming local one, so that a file written for
        people and crawlers has no hidden ``.crc`` sibling."""
        checksummed = self.jvm.java.lang.Class.forName("org.apache.hadoop.fs.ChecksumFileSystem")
        return fs.getRawFileSystem() if checksummed.isInstance(fs) else fs

    def exists(self, path: str) -> bool:
        fs, hpath = self._fs(path)
        return bool(fs.exists(hpath))

    def is_dir(self, path: str) -> bool:
        fs, hpath = self._fs(path)
        return bool(fs.exists(hpath)) and bool(fs.getFileStatus(hpath).isDirectory())

    def delete(self, path: str) -> None:
        fs, hpath = self._fs(path)
        if fs.exists(hpath):
            fs.delete(hpath, True)

    def mkdirs(self, path: str) -> None:
        fs, hpath = self._fs(path)
        fs.mkdirs(hpath)

    def rename(self, src: str, dst: str) -> bool:
        fs, src_path = self._fs(src)
        _, dst_path = self._fs(dst)
        try:
            return bool(fs.rename(src_path, dst_path))
        except Exception as exc:  # py4j wraps the local file system's FileNotFoundException
            if "FileNotFoundException" in str(exc):
                return False
            raise

    def listing(self, folder: str) -> list[tuple[str, bool, int]]:
        """(name, is a folder, bytes) of each entry of ``folder``."""
        fs, hpath = self._fs(folder)
        return [(str(st.getPath().getName()), bool(st.isDirectory()), int(st.getLen()))
                for st in fs.listStatus(hpath)]

    def read_bytes(self, path: str) -> bytes | None:
        fs, hpath = self._fs(path)
        if not fs.exists(hpath):
            return None
        stream = fs.open(hpath)
        try:
            out = self.jvm.java.io.ByteArrayOutputStream()
            self.jvm.org.apache.hadoop.io.IOUtils.copyBytes(stream, out, 65536, False)
            return bytes(out.toByteArray())
        finally:
            stream.close()

    def write_bytes(self, path: str, data: bytes, *, overwrite: bool = True) -> bool:
        """Write ``data`` at ``path``; with ``overwrite=False`` False when it exists (the name
        node's create is atomic on HDFS; an object store's is a check then a put)."""
        fs, hpath = self._fs(path)
        try:
            stream = self._plain(fs).create(hpath, overwrite)
        except Exception as exc:  # py4j wraps the Java FileAlreadyExistsException
            if not overwrite and ("FileAlreadyExists" in str(exc) or fs.exists(hpath)):
                return False
            raise
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()
        return True

    def replace_with_temp(self, path: str, fill) -> int:
        """Write a sibling temporary file through ``fill(write, copy_file)``, then put it in place of
        ``path``; returns what ``fill`` returns. ``copy_file(src, buffer_bytes)`` copies a file
        inside the JVM, so a part of any size passes through bounded memory."""
        fs, hpath = self._fs(path)
        raw = self._plain(fs)
        tmp = self.jvm.org.apache.hadoop.fs.Path(f"{path}.tmp-{uuid.uuid4().hex[:8]}")
        stream = raw.create(tmp, True)

        def copy_file(src: str, buffer_bytes: int) -> None:
            sfs, spath = self._fs(src)
            source = sfs.open(spath)
            try:
                self.jvm.org.apache.hadoop.io.IOUtils.copyBytes(source, stream, int(buffer_bytes), False)
            finally:
                source.close()

        try:
            result = fill(lambda data: stream.write(bytearray(data)), copy_file)
        finally:
            stream.close()
        if fs.exists(hpath):
            fs.delete(hpath, False)      # with its .crc, if an older write left one
        raw.rename(tmp, hpath)
        return result


class ClientFiles:
    """Paths through pyarrow's file systems in this process (no JVM)."""

    def _fs(self, path: str):
        import pyarrow.fs as pafs  # pyarrow's file systems load their C++ connectors: only a client-side caller pays

        if "://" not in path or path.startswith("file:"):
            local = "/" + path[len("file:"):].lstrip("/") if path.startswith("file:") else os.path.abspath(path)
            return pafs.LocalFileSystem(), local, pafs
        uri = "s3://" + path[len("s3a://"):] if path.startswith("s3a://") else path
        try:
            fs, inner = pafs.FileSystem.from_uri(uri)
        except (ValueError, OSError) as exc:   # pyarrow's ArrowInvalid is a ValueError
            raise OSError(f"{path}: no client-side file system reaches it ({exc}); run with a classic "
                          "Spark session, whose Hadoop connectors do") from exc
        return fs, inner, pafs

    @staticmethod
    def _make_parent(fs, inner: str) -> None:
        """Hadoop's create makes missing parent folders; pyarrow's local one does not."""
        parent = inner.rstrip("/").rsplit("/", 1)[0]
        if parent:
            fs.create_dir(parent, recursive=True)

    def _info(self, path: str):
        fs, inner, pafs = self._fs(path)
        return fs, inner, pafs, fs.get_file_info(inner)

    def exists(self, path: str) -> bool:
        _, _, pafs, info = self._info(path)
        return info.type != pafs.FileType.NotFound

    def is_dir(self, path: str) -> bool:
        _, _, pafs, info = self._info(path)
        return info.type == pafs.FileType.Directory

    def delete(self, path: str) -> None:
        fs, inner, pafs, info = self._info(path)
        if info.type == pafs.FileType.Directory:
            fs.delete_dir(inner)
        elif info.type != pafs.FileType.NotFound:
            fs.delete_file(inner)

    def mkdirs(self, path: str) -> None:
        fs, inner, _ = self._fs(path)
        fs.create_dir(inner, recursive=True)

    def rename(self, src: str, dst: str) -> bool:
        fs, inner, pafs, info = self._info(src)
        if info.type == pafs.FileType.NotFound:
            return False
        _, dst_inner, _ = self._fs(dst)
        self._make_parent(fs, dst_inner)
        fs.move(inner, dst_inner)
        return True

    def listing(self, folder: str) -> list[tuple[str, bool, int]]:
        fs, inner, pafs = self._fs(folder)
        infos = fs.get_file_info(pafs.FileSelector(inner, allow_not_found=False))
        return [(i.base_name, i.type == pafs.FileType.Directory, int(i.size or 0)) for i in infos]

    def read_bytes(self, path: str) -> bytes | None:
        fs, inner, pafs, info = self._info(path)
        if info.type != pafs.FileType.File:
            return None
        with fs.open_input_stream(inner) as stream:
            return stream.read()

    def write_bytes(self, path: str, data: bytes, *, overwrite: bool = True) -> bool:
        fs, inner, pafs, info = self._info(path)
        if not overwrite and info.type != pafs.FileType.NotFound:
            return False
        self._make_parent(fs, inner)
        with fs.open_output_stream(inner) as out:
            out.write(data)
        return True

    def replace_with_temp(self, path: str, fill) -> int:
        fs, inner, _ = self._fs(path)
        tmp = f"{inner}.tmp-{uuid.uuid4().hex[:8]}"
        self._make_parent(fs, inner)

        with fs.open_output_stream(tmp) as out:
            def copy_file(src: str, buffer_bytes: int) -> None:
                sfs, sinner, _ = self._fs(src)
                with sfs.open_input_stream(sinner) as source:
                    while chunk := source.read(int(buffer_bytes)):
                        out.write(chunk)

            result = fill(out.write, copy_file)
        fs.move(tmp, inner)
        return result
