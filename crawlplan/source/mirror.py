"""A site's WARC records as a closed web: the mirror that samplers and crawl simulations walk.

SOUrCe is evaluated on BFS-mirrored corpora: a crawler may only fetch pages the mirror holds;
links leaving it are unavailable. Records arrive in capture order, which for the real-site
mirrors is BFS order from the entry page, so the first HTML page of a site is its entry.
Redirect responses are kept as aliases of their target (a login redirect lands on the login
page, as it would for a live crawler).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urljoin

from crawlplan.hosts import host_of, registered_domain
from crawlplan.source.features import PageFeatures, extract, normalise_url
from crawlplan.warc.reader import FileOutcome, ReadLimits, iter_records, url_problem
from crawlplan.warc.remote import RetryPolicy

SAFE_SITE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,252}$")
HTML_TYPES = ("text/html", "application/xhtml+xml")


def site_key(url: str, mode: str = "host") -> str:
    """The site a URL belongs to: its host (default) or its registered domain."""
    host = host_of(url)
    if mode == "registered_domain":
        return registered_domain(host) or host
    if mode != "host":
        raise ValueError(f"site mode must be host or registered_domain, got {mode!r}")
    return host


def safe_site(site: str) -> bool:
    """Site names become Parquet partition folders: only plain host characters may pass, so a
    crafted host (``..``, ``/``, ``=``) can never address a path outside the output root."""
    return bool(SAFE_SITE.match(site)) and ".." not in site


@dataclass
class SitePage:
    url: str
    order: int
    status: int | None
    html: bytes | None = None
    location: str | None = None  # redirect target, absolute


@dataclass
class Mirror:
    """One site's pages with features; ``resolve`` follows redirects inside the mirror."""

    site: str
    pages: dict[str, PageFeatures] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    rejects: Counter = field(default_factory=Counter)
    xpath_classes: str = "none"   # the XPath variant of the page bags; a learner must use the same

    @property
    def entry(self) -> str:
        if not self.order:
            raise ValueError(f"site {self.site} has no HTML pages")
        return self.order[0]

    def resolve(self, url: str) -> str | None:
        seen = 0
        while url in self.aliases and seen < 10:
            url, seen = self.aliases[url], seen + 1
        return url if url in self.pages else None

    def __len__(self) -> int:
        return len(self.pages)


def build_mirror(site: str, pages: list[SitePage], *, xpath_classes: str = "none",
                 site_mode: str = "host") -> Mirror:
    """Features for every page; duplicates keep the first capture, errors become rejects."""
    mirror = Mirror(site=site, xpath_classes=xpath_classes)
    site_of = None if site_mode == "host" else (lambda u: site_key(u, site_mode))
    for page in sorted(pages, key=lambda p: p.order):
        try:
            url = normalise_url(page.url)
        except ValueError:  # a target URI urllib cannot split (e.g. "http://[::1")
            mirror.rejects["bad_url"] += 1
            continue
        if url in mirror.pages or url in mirror.aliases:
            mirror.rejects["duplicate"] += 1
            continue
        if page.location and page.status is not None and 300 <= page.status < 400:
            try:
                mirror.aliases[url] = normalise_url(urljoin(url, page.location))
            except ValueError:  # an unparsable Location (e.g. "http://[::1"): the redirect leads nowhere
                mirror.rejects["bad_redirect"] += 1
            continue
        feats = extract(url, page.html, xpath_classes=xpath_classes, site_of=site_of)
        if feats.error:
            mirror.rejects["unparsable"] += 1
            continue
        mirror.pages[url] = feats
        mirror.order.append(url)
    return mirror


def wants_payload(rec) -> bool:
    """The payload filter of every site_pages reader (whole files or byte ranges): responses only."""
    return rec.record_type == "response"


def record_problem(rec, limits: ReadLimits) -> str | None:
    """Why a response cannot be a page whatever its content: its framing (``bad_length``,
    ``bad_header``) or a web URL with no valid host, longer than ``limits.max_url_bytes`` or not
    UTF-8 (``bad_url``)."""
    if rec.fault:
        return rec.fault
    if rec.url and rec.url.lower().startswith(("http:", "https:")) and url_problem(rec.url, limits.max_url_bytes):
        return "bad_url"
    return None


def site_page(rec, order: int, rejects: Counter, *, bodies: bool = True) -> SitePage | None:
    """One response record of a site as a :class:`SitePage`, or None when it is not a page.

    The one rule for whole-file and byte-range reads alike: a 3xx with a Location is a redirect to
    its absolute target, an HTML response with a payload is a page (``bodies=False``: judged from
    the headers, ``html=b""``); anything else is no page. An HTML payload that could not be decoded
    and a Location that cannot be parsed are counted in ``rejects``.
    """
    status = rec.http_status
    location = rec.http_headers.get("location")
    html_type = (rec.content_type or "") in HTML_TYPES
    if status is not None and 300 <= status < 400 and location:
        try:
            target = normalise_url(urljoin(rec.url, location))
        except ValueError:
            rejects["bad_redirect"] += 1
            return None
        return SitePage(rec.url, order, status, None, target)
    if html_type and rec.payload:
        return SitePage(rec.url, order, status, rec.payload)
    if not bodies and html_type:
        return SitePage(rec.url, order, status, b"")
    if rec.payload_error and html_type:
        rejects[f"payload_{rec.payload_error.split(':')[0]}"] += 1
    return None


def iter_site_records(path: str, *, sites: set[str] | None = None, site_mode: str = "host",
                      rejects: Counter | None = None, bodies: bool = True, limits: ReadLimits,
                      remote: RetryPolicy | None = None):
    """(site, record, SitePage) for the HTML responses and redirects of one WARC file.

    Non-HTML responses are skipped silently (sub-resources are not pages); captures without a web
    host (``dns:`` lookups), undecodable payloads and unsafe site names are counted in ``rejects``. ``bodies=False`` judges from the headers
    alone and never reads a payload (the counting pass): HTML pages then come with ``html=b""``.
    ``limits`` are conf ``extract``'s read bounds (:class:`ReadLimits`); ``remote`` is the run's retry
    policy (conf ``remote``), needed for an http(s) or S3 path.
    """
    rejects = rejects if rejects is not None else Counter()
    outcome = FileOutcome(warc_file=path)
    seq = 0
    wants = wants_payload if bodies else (lambda rec: False)
    for rec in iter_records(path, outcome, limits=limits, read_payload=wants, remote=remote):
        if rec.record_type != "response" or not rec.url:
            continue
        problem = record_problem(rec, limits)
        if problem:
            rejects[problem] += 1
            continue
        site = site_key(rec.url, site_mode)
        if not site:                     # dns:, whois:, urn: captures: no web host, not a page
            rejects["no_web_host"] += 1
            continue
        if sites is not None and site not in sites:
            continue
        if not safe_site(site):
            rejects["unsafe_site_name"] += 1
            continue
        page = site_page(rec, seq, rejects, bodies=bodies)
        if page is None:
            continue
        seq += 1
        yield site, rec, page
    if outcome.status != "ok":
        rejects[f"file_{outcome.status}"] += 1


def read_site_pages(paths: list[str], *, sites: set[str] | None = None, site_mode: str = "host",
                    rejects: Counter | None = None, limits: ReadLimits,
                    remote: RetryPolicy | None = None) -> dict[str, list[SitePage]]:
    """HTML responses and redirects of the WARC files, grouped by site, in capture order."""
    out: dict[str, list[SitePage]] = {}
    order = 0
    for path in paths:
        for site, _, page in iter_site_records(path, sites=sites, site_mode=site_mode, rejects=rejects,
                                               limits=limits, remote=remote):
            page.order = order
            order += 1
            out.setdefault(site, []).append(page)
    return out


def load_mirrors(paths: list[str], *, sites: set[str] | None = None, site_mode: str = "host",
                 xpath_classes: str = "none", min_pages: int = 1, limits: ReadLimits,
                 remote: RetryPolicy | None = None) -> dict[str, Mirror]:
    grouped = read_site_pages(paths, sites=sites, site_mode=site_mode, limits=limits, remote=remote)
    return {site: build_mirror(site, pages, xpath_classes=xpath_classes, site_mode=site_mode)
            for site, pages in grouped.items()
            if sum(1 for p in pages if p.html) >= min_pages}
