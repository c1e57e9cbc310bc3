"""Host keys. Common Crawl spells one host three ways, and joins fail silently when they differ:

- the host index uses SURT form without the leading ``www.``: ``com,example,blog``
- the host-level web graph uses reversed dotted form: ``com.example.blog``
- documents carry the plain host from the URL: ``www.blog.example.com``

The mapping between the first two is exact (``,`` <-> ``.``) because host labels contain neither.

The project's key (``rev_host``, ``surt_host_name``) drops one leading ``www.`` label, as Common
Crawl's host-level web graphs did from 2017 to 2025. Releases from 2026 on keep it
(commoncrawl/cc-pyspark#56, #57): ``www.example.com`` is the node ``com.example.www`` there, next
to ``com.example``. ``graph_host_name`` and ``rev_host_from_graph`` translate between a document's
host and a release's name under either convention (``WWW_STRIPPED`` / ``WWW_KEPT``).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import urlsplit

TLD_CATEGORIES = ("academic", "commercial", "country-code", "nonprofit", "government", "other")
GENERIC_OTHER_TLDS = {"info", "biz", "io", "co", "me", "tv", "xyz", "online", "site", "top", "app", "dev", "club"}


MAX_HOST_LENGTH = 253  # DNS; longer "hosts" are junk and would not fit a partition directory name
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"            # RFC 1123: letters, digits, inner hyphens
_DNS_NAME = re.compile(rf"(?:{_LABEL}\.)*{_LABEL}")


def ascii_host(host: str) -> str:
    """``host`` as crawlers and DNS see it - IDNA A-labels (IDNA 2003, what Java's ``IDN`` and
    Heritrix use), lower case - when it is a valid DNS name or IP literal; '' otherwise.

    Host names come from the open web and end up in crawler configuration files, so only what a
    resolver could ask for passes: RFC 1123 labels of at most 63 characters, at most 253 in all,
    no empty label (strip the root dot first, as ``host_of`` does), a top label that is not all
    digits, Punycode that decodes; or an IPv4 / IPv6 address (no zone, no brackets)."""
    if not isinstance(host, str) or not host or len(host) > 4 * MAX_HOST_LENGTH:
        return ""
    if ":" in host or host.rsplit(".", 1)[-1].isdigit():   # an IP literal, or invalid: no top label is all digits
        try:
            return str(ipaddress.ip_address(host)) if "%" not in host else ""
        except ValueError:
            return ""
    try:
        text = host.lower() if host.isascii() else host.encode("idna").decode("ascii").lower()
        if len(text) > MAX_HOST_LENGTH or not _DNS_NAME.fullmatch(text):
            return ""
        if "xn--" in text:
            text.encode("ascii").decode("idna")       # Punycode that does not decode raises
    except UnicodeError:
        return ""
    return text


def valid_host(host: str) -> bool:
    """Whether ``host`` is a valid DNS name or IP literal (``ascii_host`` says what passes)."""
    return ascii_host(host) != ""


def host_of(url: str) -> str:
    """Lower-cased host of a URL without user info, port, brackets or trailing dot; '' if there
    is none or it is not a valid host (:func:`valid_host`)."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    host = host.rstrip(".").lower()
    return host if valid_host(host) else ""


def strip_www(host: str) -> str:
    return host[4:] if host.startswith("www.") and host.count(".") >= 2 else host


def surt_host(host: str) -> str:
    """``www.blog.example.com`` -> ``com,example,blog`` (host index form)."""
    return ",".join(reversed(strip_www(host.lower().rstrip(".")).split(".")))


def rev_host(host: str) -> str:
    """``www.blog.example.com`` -> ``com.example.blog`` (web graph form)."""
    return ".".join(reversed(strip_www(host.lower().rstrip(".")).split(".")))


WWW_STRIPPED = "stripped"
WWW_KEPT = "kept"
WWW_CONVENTIONS = (WWW_STRIPPED, WWW_KEPT)


def has_www_label(rev: str) -> bool:
    """``com.example.www`` (``www.example.com``) but not ``com.www`` (``www.com``): the names a
    www-stripping release cannot produce except for ``www.www.`` hosts."""
    return rev.endswith(".www") and rev.count(".") >= 2


def graph_host_name(host: str, convention: str) -> str:
    """The reversed name a web graph release of ``convention`` gives the plain ``host``."""
    if convention == WWW_STRIPPED:
        return rev_host(host)
    if convention == WWW_KEPT:
        return ".".join(reversed(host.lower().rstrip(".").split(".")))
    raise ValueError(f"www convention must be one of {WWW_CONVENTIONS}, got {convention!r}")


def rev_host_from_graph(name: str, convention: str) -> str:
    """A release's reversed host name to the project's ``rev_host``: under ``WWW_KEPT`` the leading
    ``www`` label goes (as for documents); under ``WWW_STRIPPED`` it already went, so a remaining
    one belongs to a ``www.www.`` host and stays."""
    name = name.strip().lower().lstrip(".")
    if convention == WWW_STRIPPED:
        return name
    if convention == WWW_KEPT:
        return rev_host(rev_to_host(name))
    raise ValueError(f"www convention must be one of {WWW_CONVENTIONS}, got {convention!r}")


def surt_to_rev(surt: str) -> str:
    return surt.replace(",", ".")


def rev_to_surt(rev: str) -> str:
    return rev.replace(".", ",")


def rev_to_host(rev: str) -> str:
    return ".".join(reversed(rev.split(".")))


def tld_of(host: str) -> str:
    return host.rstrip(".").rsplit(".", 1)[-1].lower() if host else ""


@functools.lru_cache(maxsize=1)
def _extractor():
    # tldextract: loads the public suffix list, so only when a registered domain is asked for
    import tldextract

    # The bundled public suffix list snapshot: no network access at run time.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@functools.lru_cache(maxsize=200_000)
def registered_domain(host: str) -> str | None:
    """Public suffix + one label (``news.bbc.co.uk`` -> ``bbc.co.uk``); None for IPs and bare suffixes."""
    if not host:
        return None
    parts = _extractor()(host)
    if not parts.domain or not parts.suffix:
        return None
    return f"{parts.domain}.{parts.suffix}"


def is_ip(host: str) -> bool:
    """Whether ``host`` is an IPv4 or IPv6 address (brackets allowed)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=200_000)
def host_suffixes(host: str) -> tuple[str | None, str | None, str | None, str | None]:
    """(registry suffix, registered domain, private suffix, private domain) of ``host``, the four
    columns Common Crawl's URL index derives from the public suffix list: the ICANN section gives
    the registry suffix (``co.uk``) and the domain one label below it; the list with its private
    section gives the private suffix (``blogspot.com``, ``s3.amazonaws.com``) and the domain below
    that. None for IP addresses, for a host that is itself the suffix (no domain) and for a host
    under no listed suffix, as there."""
    if not host or is_ip(host):
        return None, None, None, None
    icann = _extractor()(host)
    private = _extractor()(host, include_psl_private_domains=True)
    return (icann.suffix or None, f"{icann.domain}.{icann.suffix}" if icann.domain and icann.suffix else None,
            private.suffix or None, f"{private.domain}.{private.suffix}" if private.domain and private.suffix else None)


def tld_category(host_or_tld: str) -> str:
    """The paper's TLD macro-categories (Table 6)."""
    labels = host_or_tld.lower().rstrip(".").split(".")
    tld = labels[-1]
    second = labels[-2] if len(labels) >= 2 else ""
    if tld == "edu" or second in ("ac", "edu"):
        return "academic"
    if tld == "gov" or second in ("gov", "gouv", "go", "govt") or tld == "mil":
        return "government"
    if tld in ("com", "net"):
        return "commercial"
    if tld == "org":
        return "nonprofit"
    if len(tld) == 2 and tld.isalpha() and tld not in GENERIC_OTHER_TLDS:
        return "country-code"
    return "other"
