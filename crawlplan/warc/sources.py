"""Open a WARC path for reading: local files, ``https://`` (data.commoncrawl.org) or ``s3://``.

Local files are seekable, which lets the reader resync after a corrupt gzip member and check
the last member for truncation; remote streams are read once, front to back.
"""

from __future__ import annotations

import os
import urllib.request


def normalise(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def open_source(path: str):
    path = normalise(path)
    if path.startswith(("http://", "https://")):
        request = urllib.request.Request(path, headers={"User-Agent": "crawlplan (+https://commoncrawl.org)"})
        return _Unseekable(urllib.request.urlopen(request, timeout=120))  # noqa: S310 (http(s) only)
    if path.startswith(("s3://", "s3a://", "s3n://")):
        return _open_s3(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such WARC file: {path}")
    return open(path, "rb")


def _open_s3(path: str):
    try:
        # boto3 / botocore: the optional [s3] extra, only for s3:// paths
        import boto3
        from botocore import UNSIGNED
        from botocore.config import Config
    except ImportError as exc:
        raise OSError(f"reading {path} needs boto3 (pip install boto3), or use the HTTPS mirror "
                      f"https://data.commoncrawl.org/ as inputs.warc_base") from exc
    bucket_key = path.split("://", 1)[1]
    bucket, key = bucket_key.split("/", 1)
    # Common Crawl answers unsigned requests with 403: sign with the default credentials chain
    # (environment, profile, instance role); unsigned only on request, for public buckets that allow it.
    unsigned = os.environ.get("CRAWLPLAN_S3_UNSIGNED", "") == "1"
    client = boto3.client("s3", config=Config(signature_version=UNSIGNED) if unsigned else None)
    try:
        body = client.get_object(Bucket=bucket, Key=key)["Body"]
    except Exception as exc:  # botocore's errors: make the fix obvious
        raise OSError(f"cannot read {path}: {exc}. Common Crawl needs AWS credentials on S3; without them "
                      f"set inputs.warc_base=https://data.commoncrawl.org/") from exc
    return _Unseekable(body)


class _Unseekable:
    def __init__(self, raw):
        self.raw = raw
        self.position = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read() if n is None or n < 0 else self.raw.read(n)
        self.position += len(data)
        return data

    def tell(self) -> int:
        return self.position

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.raw.close()
