"""What a crawler file may carry: the checks every crawler format applies to a budget row.

Host keys, registered domains and plan seed URLs come from the open web (a crawled URL, a
hand-made budgets file), and Heritrix, Nutch and URLFrontier load these files as configuration:
a host with ``<`` or a newline would add XML elements or seed lines. So a crawler format writes
only what passes here - checked values, built only from a valid host (``hosts.ascii_host``) - and
skips (and counts) a row that fails; its writers escape on top (XML, JSON, Nutch metadata).
"""

from __future__ import annotations

import json
import math
import re
import shlex
from urllib.parse import urlsplit

from crawlplan.hosts import ascii_host, rev_to_host, strip_www, surt_to_rev

MAX_URL_LENGTH = 2083       # Heritrix refuses longer URIs (UURI.MAX_URL_LENGTH), as browsers long did
UINT32_MAX = 2**32 - 1      # urlfrontier: CrawlLimitParams.limit is a uint32
_URL_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")   # RFC 3986, nothing else


def crawl_host(surt_host_name: str) -> str:
    """The host a crawler file names for a host key: its ASCII form (``hosts.ascii_host``), '' when
    the key is not a valid host. IPv6 addresses have no host key form (keys split on dots), so ''."""
    host = ascii_host(rev_to_host(surt_to_rev(surt_host_name))) if isinstance(surt_host_name, str) else ""
    return "" if ":" in host else host


def written_host(surt_host_name: str) -> str:
    """``crawl_host``, or a ValueError: what the formatters call, so no unchecked host is written."""
    host = crawl_host(surt_host_name)
    if not host:
        raise ValueError(f"not a valid host: {str(surt_host_name)[:80]!r}")
    return host


def crawl_surt(surt_host_name: str) -> str:
    """The host key in SURT order built only from the valid host (A-labels, lower case)."""
    return ",".join(reversed(written_host(surt_host_name).split(".")))


def shell_word(text: str) -> str:
    """One word of a command file (``crawl-commands.sh``): quoted for the shell, so a path
    setting with spaces, ``;`` or ``$`` stays one argument and runs nothing."""
    return shlex.quote(str(text))


def valid_seed_url(url, host: str | None = None) -> bool:
    """Whether a crawler file may carry ``url``: RFC 3986 characters only (no space, control,
    quote or angle bracket), at most ``MAX_URL_LENGTH``, http(s), no user info, a valid host (and
    port); with ``host``, on that host (``www.`` or not)."""
    if not isinstance(url, str) or len(url) > MAX_URL_LENGTH or not _URL_CHARS.fullmatch(url):
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    name = ascii_host(parts.hostname or "")
    if parts.scheme not in ("http", "https") or "@" in parts.netloc or not name or ":" in name:
        return False
    return host is None or strip_www(name) == strip_www(host)


def _plan_ok(text, host: str) -> bool:
    """A within-host plan a crawler format can write: '' or the JSON ``site_plan`` writes, every
    seed URL a ``valid_seed_url`` on the host."""
    if text is None or text == "":
        return True
    try:
        items = json.loads(text)
    except (TypeError, ValueError):
        return False
    if not isinstance(items, list):
        return False
    for item in items:
        if not isinstance(item, dict) or not _plan_entry_ok(item, host, ("rank", "cluster")):
            return False
        share = item.get("expected_share")
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not math.isfinite(share):
            return False
        targets = item.get("targets") or []
        if not isinstance(targets, list) or not all(isinstance(t, dict) and _plan_entry_ok(t, host, ("cluster",))
                                                    for t in targets):
            return False
    return True


def _plan_entry_ok(entry: dict, host: str, ints: tuple[str, ...]) -> bool:
    if any(isinstance(entry.get(k), bool) or not isinstance(entry.get(k), int) for k in ints):
        return False
    if not isinstance(entry.get("url_pattern"), (str, type(None))):
        return False
    urls = entry.get("seed_urls") or []
    return isinstance(urls, list) and all(valid_seed_url(u, host) for u in urls)


def writable(fmt: str, surt_host_name, registered_domain, allocated_pages, plan) -> bool:
    """Whether crawler format ``fmt`` can write a budget row safely: a valid host, a valid
    registered domain (cc-nutch's limits file), a budget that fits (urlfrontier's uint32), a plan
    whose seed URLs are on the host. The one check of the pandas and the Spark export."""
    host = crawl_host(surt_host_name)
    if not host or not _plan_ok(plan, host):
        return False
    if fmt == "cc-nutch" and isinstance(registered_domain, str) and registered_domain != "":
        return ascii_host(registered_domain) != ""
    return fmt != "urlfrontier" or int(allocated_pages) <= UINT32_MAX
