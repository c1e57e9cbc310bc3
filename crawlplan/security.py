"""Small guards used wherever untrusted values meet logs or the file system.

Secrets: S3 keys and tokens arrive through ``spark.conf`` / ``ops.spark_conf`` (e.g.
``spark.hadoop.fs.s3a.secret.key``) or as ``user:password@`` in URLs. Completion markers, the
report and logged commands are shared and kept, so values under secret-looking keys are
replaced before any of them is written.

Paths: host and site names come from crawled URLs, i.e. from strangers. A name used as a file
name is encoded so that it cannot contain a separator or be ``.``/``..``, and every join is
checked to stay under its root.

Listing entries: a path listing (``warc.paths.gz``, a graph's ``*.paths.gz``, the host index's
``v2.paths.gz``) is copied from elsewhere, so each entry is confined to the listing's base:
:func:`relative_inside` (a relative entry, no ``..`` out, even %-encoded) and
:func:`url_inside` (an absolute URL under a URL base). ``crawlplan.warc.listing`` and
``crawlplan.graph.paths`` both resolve entries through these two.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from urllib.parse import quote, unquote, urlsplit

SECRET_KEY = re.compile(r"secret|password|passwd|token|access\.?key|credential|session\.key|private",
                        re.IGNORECASE)
REDACTED = "(redacted)"
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/@\s:]*):(?P<pw>[^@\s]*?)@")
_S3 = ("s3", "s3a", "s3n")


def is_secret_key(key: str) -> bool:
    """``...provider`` keys name a credentials provider class, not a credential."""
    return bool(SECRET_KEY.search(key)) and not key.lower().endswith("provider")


def redact_text(text: str) -> str:
    """``s3a://AKIA:secret@bucket/x`` -> ``s3a://AKIA:(redacted)@bucket/x``."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:{REDACTED}@", text)


def redact(value, key: str = ""):
    """A copy of a conf tree with secret values replaced; dicts, lists and ``k=v`` strings."""
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, key) for v in value]
    if value not in (None, "") and key and is_secret_key(key):
        return REDACTED
    if isinstance(value, str):
        name, sep, _ = value.partition("=")
        if sep and " " not in name and is_secret_key(name):
            return f"{name}={REDACTED}"
        return redact_text(value)
    return value


def redact_args(args: list[str]) -> list[str]:
    """A command line for logging: ``--conf spark.hadoop.fs.s3a.secret.key=X`` loses its X."""
    return [redact(a) for a in args]


def safe_name(name: str, max_len: int = 150) -> str:
    """A host/site name -> one file-name component (no separators, never ``.`` or ``..``).

    Letters, digits, ``.``, ``-`` and ``_`` are kept, everything else is percent-encoded, so
    distinct names stay distinct; over-long names are cut and suffixed with a hash. The empty
    name becomes ``%empty``, which no encoding can give (``%`` is always followed by two
    upper-case hex digits there), so it cannot meet a real name such as ``"\x00"`` (``%00``).
    """
    encoded = quote(str(name), safe="")
    if encoded in ("", ".", "..") or encoded.startswith("."):
        encoded = "%2E" + encoded[1:] if encoded else "%empty"
    if len(encoded) > max_len:
        digest = hashlib.sha256(str(name).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        encoded = f"{encoded[:max_len - 17]}-{digest}"
    return encoded


def safe_join(root, *parts: str) -> str:
    """``root/part/...`` after checking that the result stays inside ``root``."""
    base = os.path.realpath(str(root))
    path = os.path.realpath(os.path.join(base, *[str(p) for p in parts]))
    if path != base and not path.startswith(base + os.sep):
        raise ValueError(f"refusing to write outside {base}: {os.path.join(*[str(p) for p in parts])!r}")
    return path


class EntryRefused(ValueError):
    """A listing entry that would leave its base (the message says how)."""


def relative_inside(entry: str) -> str:
    """``entry`` (a relative path) normalised; :class:`EntryRefused` when it climbs out of its
    base with ``..`` (also when %-encoded) or names the base itself."""
    for form in (entry, unquote(entry)):
        normal = posixpath.normpath(form.replace("\\", "/"))
        if normal == ".." or normal.startswith("../"):
            raise EntryRefused("climbs out of the base with '..'")
        if normal in (".", ""):
            raise EntryRefused("names the base itself, not a file")
    return posixpath.normpath(entry)


def url_inside(entry: str, base: str, setting: str) -> str:
    """The part of the absolute URL ``entry`` below the URL ``base`` (normalised by
    :func:`relative_inside`): same scheme (s3, s3a and s3n alike), host or bucket and port, and
    a path inside the base's; else :class:`EntryRefused` naming ``setting`` (the base's key)."""
    got, want = urlsplit(entry), urlsplit(base)
    same_scheme = got.scheme.lower() == want.scheme.lower() or {got.scheme.lower(), want.scheme.lower()} <= set(_S3)
    if not same_scheme or got.netloc.lower() != want.netloc.lower():
        raise EntryRefused(f"another scheme or host than {setting} ({want.scheme}://{want.netloc}/)")
    prefix = want.path.rstrip("/") + "/"
    path = got.path if got.path.startswith("/") else "/" + got.path
    if not path.startswith(prefix):
        raise EntryRefused(f"outside the path of {setting}")
    return relative_inside(path[len(prefix):])
