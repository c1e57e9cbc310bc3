"""Record framing that a hostile file cannot bend: bounded header lines, declared lengths checked
against where a record really ends, and the re-synchronisation after a fault.

Whoever wrote a WARC file controls every byte of it, and a server can send endless bytes. warcio
trusts both: its ``readline`` grows one line until a newline comes (forever, on an endless body),
it reads a line of text as an ARC record (a text file named ``.warc.gz`` gave 500 phantom
responses), and a ``Content-Length`` that runs past the next records swallows them without a
word. Here warcio's line reader is bounded (``extract.max_header_bytes`` per header block, the
bound fastwarc has built in), the format is fixed from the file's first bytes, and each record's
declared length is checked: it must not end before its bytes do (``short``), and in a WARC the
next bytes must be the blank lines and ``WARC/`` line of the next record (``boundary``).
"""

from __future__ import annotations

import zlib

_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_MAGIC3 = b"\x1f\x8b\x08"
_RECORD_LINE = b"\nWARC/1."
_SCAN_BLOCK = 1 << 20


class HeaderTooLong(Exception):
    """A WARC or HTTP header block (or one line of it) longer than ``max_header_bytes``."""


def sniff_format(head: bytes) -> tuple[str | None, bool]:
    """(``warc`` | ``arc`` | None, gzipped) from a file's first bytes (a few KB): gzip magic then
    ``WARC/`` or ``filedesc://`` (ARC), or the same uncompressed. Nothing else is an archive."""
    gzipped = head.startswith(_GZIP_MAGIC)
    text = head
    if gzipped:
        try:
            text = zlib.decompressobj(31).decompress(head, 64)
        except zlib.error:
            return None, True
    text = text.lstrip(b"\r\n")
    if text.startswith(b"WARC/"):
        return "warc", gzipped
    if text.startswith(b"filedesc://"):
        return "arc", gzipped
    return None, gzipped


def format_begun(head: bytes) -> str | None:
    """``warc`` | ``arc`` when ``head`` is too short to tell but begins as one of them, else None.

    A stream's first decompressed bytes can be as few as one (a server that trickles, warcio's
    buffer filled from one small read): ``W`` is the start of ``WARC/``, not a non-archive."""
    text = head.lstrip(b"\r\n")
    if text and b"WARC/".startswith(text):
        return "warc"
    if text and b"filedesc://".startswith(text):
        return "arc"
    return None


def find_record_line(source, start: int) -> int | None:
    """Offset of the next ``WARC/1.`` line that starts at or after ``start`` in an uncompressed
    file (scanned in blocks: bounded memory), or None."""
    pos = max(0, start - 1)
    while True:
        source.seek(pos)
        block = source.read(_SCAN_BLOCK)
        idx = block.find(_RECORD_LINE)
        if idx != -1:
            return pos + idx + 1
        if len(block) < _SCAN_BLOCK:
            return None
        pos += len(block) - len(_RECORD_LINE)


def bounded_iterator(source, max_header_bytes: int, known_format: str | None):
    """warcio's ArchiveIterator over ``source`` with a bounded line reader and a fixed format."""
    # warcio: the default reader, loaded in the task that reads
    from warcio.archiveiterator import ArchiveIterator
    from warcio.bufferedreaders import DecompressingBufferedReader
    from warcio.recordloader import ArcWarcRecordLoader

    class BoundedReader(DecompressingBufferedReader):
        """``readline`` never returns more than what is left of the header block's budget: a
        longer line raises :class:`HeaderTooLong` (memory stays bounded). ``read`` (a body) and
        :meth:`new_block` start a new budget."""

        run = 0
        lines: list[bytes] = []
        uri_not_utf8 = False
        overflow = 0            # bytes of the line that went over (consumed, never returned)

        def new_block(self) -> None:
            self.run, self.lines, self.uri_not_utf8 = 0, [], False

        def read(self, length=None):
            self.run = 0
            return super().read(length)

        def readline(self, length=None):
            room = max_header_bytes - self.run
            if room <= 0:
                raise HeaderTooLong(f"a header block over {max_header_bytes:,} bytes")
            want = room if length is None else min(length, room)
            line = super().readline(want)
            self.run += len(line)
            if want == room and len(line) >= room and not line.endswith(b"\n"):
                self.overflow = len(line)
                raise HeaderTooLong(f"a header line over {max_header_bytes:,} bytes")
            if len(self.lines) < 64:
                self.lines.append(line[:256])
            if line[:16].lower() == b"warc-target-uri:":
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError:
                    self.uri_not_utf8 = True
            return line

    class BoundedLoader(ArcWarcRecordLoader):
        """An HTTP header block over the bound makes its record a ``bad_header`` reject; the
        record's bytes (its Content-Length) are still skipped, so the next record reads."""

        header_fault: str | None = None

        def load_http_headers(self, rec_type, uri, stream, length):
            self.header_fault = None
            iterator.reader.run = 0          # the HTTP block has a budget of its own
            try:
                return super().load_http_headers(rec_type, uri, stream, length)
            except HeaderTooLong as exc:
                self.header_fault = f"HTTP headers: {exc}"
                if hasattr(stream, "limit"):     # the record's reader never saw the bytes of that line
                    stream.limit = max(0, stream.limit - iterator.reader.overflow)
                return None

    iterator = ArchiveIterator(source, arc2warc=True, no_record_parse=False)
    iterator.reader = BoundedReader(iterator.fh, block_size=iterator.reader.block_size)
    iterator.reader.new_block()
    iterator.loader = BoundedLoader(verify_http=False, arc2warc=True)
    iterator.known_format = known_format
    return iterator


def head_of(iterator) -> bytes:
    """The first decompressed bytes where ``iterator`` starts, without consuming them."""
    reader = iterator.reader
    reader._fillbuff()
    if reader.buff is None:
        return b""
    return reader.buff.getvalue()[reader.buff.tell():reader.buff.tell() + 64]


def check_framing(iterator, record) -> str | None:
    """After a record's body was read (or not): drain it, read up to the next record, and say
    what is wrong with its declared length, if anything: ``short`` (the bytes ended first: cut
    file, or a length past its gzip member) or ``boundary`` (a WARC record not followed by blank
    lines and the next ``WARC/`` line: its length runs into, or stops before, the next record)."""
    stream = record.raw_stream
    while stream.read(1 << 16):
        pass
    short = getattr(stream, "limit", 0) > 0
    errors = iterator.err_count
    try:
        iterator.read_to_end()
    except HeaderTooLong:
        return "boundary"
    finally:
        if iterator.reader is not None:
            iterator.reader.new_block()
    if short:
        return "short"
    if iterator.known_format == "warc":
        following = iterator.next_line
        if iterator.err_count != errors or (following and not following.startswith(b"WARC/")):
            return "boundary"
    return None


def declared_length_problem(record) -> str | None:
    """A WARC record's Content-Length must be a non-negative whole number."""
    if record.format != "warc":
        return None
    value = record.rec_headers.get_header("Content-Length")
    if value is None or not value.strip().isdigit():
        return f"Content-Length {value!r:.40} is not a length"
    return None


def partial_headers(lines: list[bytes]) -> dict[str, str]:
    """What could be read of a WARC header block that went over the bound (its first lines)."""
    out: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.decode("utf-8", "replace").partition(":")
        if sep:
            out.setdefault(name.strip().lower(), value.strip())
    return out


NOT_AN_ARCHIVE = "not a WARC or ARC file: its first bytes are neither WARC/ nor filedesc:// (gzipped or not)"
FRAMING = {
    "short": "the record at offset {offset} ends before its declared Content-Length (the file or its gzip member "
             "is cut short)",
    "boundary": "the record at offset {offset} is not followed by the next record where its Content-Length "
                "says: the length is wrong",
}


def set_status(outcome, status: str, error: str) -> None:
    """``truncated`` over ``ok``, ``corrupt`` over both; the first error of the worst status stays."""
    rank = {"ok": 0, "truncated": 1, "corrupt": 2}
    if rank.get(status, 2) > rank.get(outcome.status, 2) or outcome.status == "ok":
        outcome.status, outcome.error = status, error[:500]


def fault_text(exc: Exception, offset: int) -> str:
    """The error of a fault, without the file's bytes (warcio quotes the line it failed on)."""
    message = str(exc)
    for marker in ("first line:", "Found:"):
        if marker in message:
            message = message.split(marker, 1)[0] + marker + " (not shown)"
    return f"{type(exc).__name__} near offset {offset}: {message}"[:500]


def resync(source, start: int) -> int | None:
    """The next record start at or after ``start``: a gzip member holding a WARC header, or
    (uncompressed file) a ``WARC/1.`` line."""
    source.seek(0)
    gzipped = source.read(2) == _GZIP_MAGIC[:2]
    return find_member(source, start) if gzipped else find_record_line(source, start)


def target_uri(record, reader) -> str | None:
    """WARC-Target-URI as fastwarc gives it: bytes that are not UTF-8 become U+FFFD (warcio falls
    back to Latin-1, which turns them into plausible letters), so both readers reject the URL."""
    uri = record.rec_headers.get_header("WARC-Target-URI")
    if uri is not None and getattr(reader, "uri_not_utf8", False):
        uri = uri.encode("latin-1", "replace").decode("utf-8", "replace")
    return uri


def find_member(source, start: int) -> int | None:
    """Scan forward from ``start`` for the next gzip member that decompresses to a WARC header."""
    source.seek(start)
    pos = start
    while True:
        block = source.read(1 << 20)
        if not block:
            return None
        idx = block.find(_GZIP_MAGIC3)
        while idx != -1:
            candidate = pos + idx
            source.seek(candidate)
            head = source.read(4096)
            try:
                text = zlib.decompressobj(31).decompress(head)[:8]
            except zlib.error:
                text = b""
            if text.startswith((b"WARC/", b"filedesc", b"http", b"dns:")):
                return candidate
            idx = block.find(_GZIP_MAGIC3, idx + 1)
        if len(block) < (1 << 20):
            return None
        pos += len(block) - 2
        source.seek(pos)
