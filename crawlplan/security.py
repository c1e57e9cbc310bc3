"""Small guards used wherever untrusted values meet logs or the file system.

Secrets: S3 keys and tokens arrive through ``spark.conf`` / ``ops.spark_conf`` (e.g.
``spark.hadoop.fs.s3a.secret.key``) or as ``user:password@`` in URLs. Completion markers, the
report and logged commands are shared and kept, so values under secret-looking keys are
replaced before any of them is written.

Paths: host and site names come from crawled URLs, i.e. from strangers. A name used as a file
name is encoded so that it cannot contain a separator or be ``.``/``..``, and every join is
checked to stay under its root.
"""

from __future__ import annotations

import hashlib
import os
import re
from urllib.parse import quote

SECRET_KEY = re.compile(r"secret|password|passwd|token|access\.?key|credential|session\.key|private",
                        re.IGNORECASE)
REDACTED = "(redacted)"
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/@\s:]*):(?P<pw>[^@\s]*?)@")


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
    distinct names stay distinct; over-long names are cut and suffixed with a hash.
    """
    encoded = quote(str(name), safe="")
    encoded = encoded.replace("%2E", ".")
    if encoded in ("", ".", "..") or encoded.startswith("."):
        encoded = "%2E" + encoded[1:] if encoded else "%00"
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
