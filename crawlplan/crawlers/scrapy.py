"""Scrapy driven by a crawlplan budget export (``budgets.jsonl`` of ``crawlplan export budgets``).

What the plan sets, and where Scrapy enforces it:

* per-host page caps: ``BudgetMiddleware`` (downloader middleware) lets a request of a host
  through only while the host's fetches stay below its ``allocated_pages``; every fetch costs 1,
  redirects and errors included (as Heritrix's unit cost). A global cap keeps the total.
* host priority: request ``priority`` = host term (best rank highest) + within-host bonus; the
  scheduler pops the highest priority first, BFS inside a host (``DEPTH_PRIORITY``).
* within-host priorities: links matching the URL regex of a cluster the plan's links lead to
  (``within_host_plan`` targets, from the sitemaps) get a bonus proportional to the expected
  share of wanted pages; links to the hub pages those links are on get half of it.
* ``uniform`` mode is the baseline: every host of the plan file, equal share of breadth (the
  k-th URL found on a host gets priority -k, so hosts are served round-robin), same total.

Only hosts of the plan are crawled. With ``--replay URL`` every fetch goes to a pywb replay
server on 127.0.0.1 (``/<collection>/id_/<original url>``) while the crawl logic, the response
and the WARC keep the original URL; a non-loopback replay address is refused. Without it the
spider fetches the live web with Scrapy's own handlers and obeys robots.txt (not exercised by
the tests, which have no network). Records go to
one gzipped WARC file (request + response per fetch, warcio).

    .venv-crawl/bin/python -m crawlplan.crawlers.scrapy --plan budgets.jsonl --replay \\
        http://127.0.0.1:PORT/demo/id_/ --warc crawl.warc.gz --stats stats.json [--mode uniform --total N]
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import math
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from io import BytesIO
from urllib.parse import urlsplit

from crawlplan.hosts import ascii_host, strip_www

MODES = ("plan", "uniform")
HUB_WEIGHT = 0.5       # a hub page (where the plan's links are) is worth half a wanted page
_BONUS = 99            # within-host bonus range; host terms are multiples of 100
_ORIG = "x-archive-orig-"
_REPLAY_ONLY = {"link", "memento-datetime", "content-location", "vary"}


def host_key(url: str) -> str:
    return strip_www((urlsplit(url).hostname or "").lower())


@dataclass
class HostPlan:
    key: str
    budget: int
    position: int                     # 1 = best host
    seeds: list[str]
    patterns: list[tuple[re.Pattern, float]] = field(default_factory=list)
    found: int = 0                    # URLs scheduled so far (uniform mode's round robin)

    def bonus(self, url: str) -> int:
        best = max((share for rx, share in self.patterns if rx.search(url)), default=0.0)
        return int(round(_BONUS * min(max(best, 0.0), 1.0)))


def _plan_host(row: dict) -> str:
    """The row's host in ASCII, '' when it is no valid host or its plan is no list: the budgets
    table keeps such rows as data, the crawl (as every crawler format) leaves them out."""
    host = ascii_host(".".join(reversed(str(row["surt_host_name"]).split(","))))
    return host if ":" not in host and isinstance(row.get("within_host_plan") or [], list) else ""


def load_plan(path: str, scheme: str = "https") -> list[HostPlan]:
    """Hosts of a budgets JSONL export in rank order (all rows with a valid host; budget 0 hosts
    included)."""
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    rows = sorted((r for r in rows if _plan_host(r)), key=lambda r: (int(r["rank"]), r["surt_host_name"]))
    hosts = []
    for pos, r in enumerate(rows, start=1):
        host = _plan_host(r)
        seeds, patterns = [f"{scheme}://{host}/"], []
        for item in r.get("within_host_plan") or []:
            share = float(item["expected_share"])
            for target in item.get("targets") or []:     # the wanted pages the plan's links lead to
                seeds += [u for u in target.get("seed_urls") or [] if u not in seeds]
                if target.get("url_pattern"):
                    patterns.append((re.compile(target["url_pattern"]), share))
            seeds += [u for u in item.get("seed_urls") or [] if u not in seeds]
            if item.get("url_pattern"):                   # the pages those links are on: worth less
                patterns.append((re.compile(item["url_pattern"]), HUB_WEIGHT * share))
        hosts.append(HostPlan(strip_www(host), int(r["allocated_pages"]), pos, seeds, patterns))
    return hosts


def uniform_caps(hosts: list[HostPlan], total: int) -> None:
    """Uniform breadth: every host the same cap, total/hosts rounded up (the global cap keeps the
    total; round robin spends it evenly)."""
    cap = math.ceil(total / max(len(hosts), 1))
    for h in hosts:
        h.budget, h.patterns = cap, []


def check_loopback(url: str) -> str:
    host = urlsplit(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise ValueError(f"replay server must be on a loopback address, got {url!r}")
    return url if url.endswith("/") else url + "/"


def warc_headers(headers) -> list[tuple[str, str]]:
    """The archived response's own headers: pywb's X-Archive-Orig-* renamed back, replay-only
    headers dropped."""
    out = []
    for raw_name, values in headers.items():
        name = raw_name.decode("latin-1")
        low = name.lower()
        if low in _REPLAY_ONLY:
            continue
        if low.startswith(_ORIG):
            name = name[len(_ORIG):]
        out += [(name, v.decode("latin-1")) for v in values]
    return out


def build_process(args):
    """The Scrapy process, spider class and settings (imports Scrapy only here)."""
    # Scrapy (and warcio beside it): the optional crawl venv (.venv-crawl), so imported only here
    import scrapy
    from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import TextResponse
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    hosts = load_plan(args.plan, args.scheme)
    if args.mode == "uniform":
        uniform_caps(hosts, args.total)
    by_key = {h.key: h for h in hosts if h.budget > 0}
    total = args.total if args.total else sum(h.budget for h in by_key.values())
    stats = {"mode": args.mode, "hosts_planned": len(by_key), "total_cap": total, "fetches": 0,
             "fetches_by_host": {}, "refused_over_cap": 0, "html_200": 0, "not_archived": 0}

    class ReplayDownloadHandler(HTTP11DownloadHandler):
        """The network is the replay server: original URL in, original URL out."""
        lazy = False

        def __init__(self, crawler):
            super().__init__(crawler)
            self.prefix = check_loopback(crawler.settings.get("CRAWLPLAN_REPLAY"))

        async def download_request(self, request):
            response = await super().download_request(request.replace(url=self.prefix + request.url))
            if b"Memento-Datetime" not in response.headers:   # pywb's 404 for a URL it does not hold
                stats["not_archived"] += 1
            return response.replace(url=request.url)

    class BudgetMiddleware:
        """Per-host caps and the global cap, counted when a fetch is about to happen."""

        def process_request(self, request, spider=None):
            h = by_key.get(host_key(request.url))
            spent = stats["fetches_by_host"].get(h.key, 0) if h else 0
            if h is None or spent >= h.budget or stats["fetches"] >= total:
                stats["refused_over_cap"] += 1
                raise IgnoreRequest(f"over budget: {request.url}")
            stats["fetches_by_host"][h.key] = spent + 1
            stats["fetches"] += 1
            return None

    class WarcMiddleware:
        """A request and a response record per fetch, before decompression and redirects."""

        def __init__(self):
            self.fh = open(args.warc, "wb")
            self.writer = WARCWriter(self.fh, gzip=True)
            info = self.writer.create_warcinfo_record(args.warc.rsplit("/", 1)[-1], {
                "software": f"Scrapy {scrapy.__version__} + crawlplan.crawlers.scrapy",
                "format": "WARC File Format 1.0", "operator": "crawlplan closed-loop crawl", "mode": args.mode})
            self.writer.write_record(info)

        def process_response(self, request, response, spider=None):
            date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            path = urlsplit(request.url)
            target = (path.path or "/") + (f"?{path.query}" if path.query else "")
            req_head = StatusAndHeaders(f"{request.method} {target} HTTP/1.1",
                                        [("Host", path.netloc), *[(k.decode(), v[0].decode())
                                                                  for k, v in request.headers.items()]],
                                        is_http_request=True)
            req = self.writer.create_warc_record(request.url, "request", payload=BytesIO(b""),
                                                 http_headers=req_head, warc_headers_dict={"WARC-Date": date})
            head = StatusAndHeaders(f"{response.status} {_reason(response.status)}", warc_headers(response.headers),
                                    protocol="HTTP/1.1")
            resp = self.writer.create_warc_record(request.url, "response", payload=BytesIO(response.body),
                                                  http_headers=head, warc_headers_dict={"WARC-Date": date})
            req.rec_headers.add_header("WARC-Concurrent-To", resp.rec_headers.get_header("WARC-Record-ID"))
            self.writer.write_record(resp)
            self.writer.write_record(req)
            return response

        def close(self):
            self.fh.close()

    warc = WarcMiddleware()

    class PlanSpider(scrapy.Spider):
        name = "crawlplan"

        def priority(self, h: HostPlan, url: str) -> int:
            h.found += 1
            if args.mode == "uniform":
                return -h.found
            return (len(hosts) - h.position) * (_BONUS + 1) + h.bonus(url)

        async def start(self):
            for h in hosts:
                if h.key in by_key:
                    for url in h.seeds:
                        yield scrapy.Request(url, callback=self.parse, priority=self.priority(h, url),
                                             meta={"download_slot": h.key})

        def parse(self, response):
            if response.status == 200 and isinstance(response, TextResponse):
                stats["html_200"] += 1
                for href in response.css("a::attr(href)").getall():
                    url = response.urljoin(href.strip()).split("#", 1)[0]
                    h = by_key.get(host_key(url))
                    if h is not None and url.startswith(("http://", "https://")):
                        yield scrapy.Request(url, callback=self.parse, priority=self.priority(h, url),
                                             meta={"download_slot": h.key})

        def closed(self, reason):
            warc.close()
            stats["close_reason"] = reason

    settings = {
        "ROBOTSTXT_OBEY": not args.replay,    # the replayed archive is the whole web
        "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING", "USER_AGENT": "crawlplan-closed-loop (+https://example.invalid/crawlplan)",
        "DEPTH_PRIORITY": 1, "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "CONCURRENT_REQUESTS": args.concurrency, "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "DOWNLOAD_DELAY": 0 if args.replay else 1.0,   # loopback replay needs no politeness delay
        "RETRY_ENABLED": False, "DOWNLOAD_TIMEOUT": 30, "HTTPERROR_ALLOW_ALL": True,
        "DOWNLOADER_MIDDLEWARES": {BudgetMiddleware: 50, _Instance(warc): 960},
    }
    if args.replay:
        settings.update({"CRAWLPLAN_REPLAY": args.replay,
                         "DOWNLOAD_HANDLERS": {"http": ReplayDownloadHandler, "https": ReplayDownloadHandler}})
    return CrawlerProcess(settings), PlanSpider, stats


def _Instance(obj):
    """A middleware class whose instance is ``obj`` (Scrapy instantiates middleware classes)."""
    return type(type(obj).__name__ + "Ref", (), {"from_crawler": classmethod(lambda cls, crawler: obj)})


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m crawlplan.crawlers.scrapy", description=__doc__.split("\n")[0])
    ap.add_argument("--plan", required=True, help="budgets JSONL export (crawlplan export budgets --format jsonl)")
    ap.add_argument("--replay", default="", help="pywb replay prefix on 127.0.0.1, e.g. http://127.0.0.1:PORT/demo/id_/ "
                                                 "(default: none, fetch the live web)")
    ap.add_argument("--warc", required=True, help="WARC file to write (gzipped)")
    ap.add_argument("--stats", required=True, help="JSON file for the crawl's counters")
    ap.add_argument("--mode", choices=MODES, default="plan")
    ap.add_argument("--total", type=int, default=0, help="global page cap (default: the plan's total; required "
                                                        "for uniform)")
    ap.add_argument("--scheme", default="https")
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args(argv)
    if args.mode == "uniform" and args.total <= 0:
        ap.error("--mode uniform needs --total (the plan crawl's page count)")
    if args.replay:
        check_loopback(args.replay)
    process, spider, stats = build_process(args)
    process.crawl(spider)
    process.start()
    stats["fetches_by_host"] = dict(sorted(stats["fetches_by_host"].items()))
    with open(args.stats, "w", encoding="utf-8") as fh:
        json.dump(stats, fh, indent=1, sort_keys=True)
    print(f"scrapy {args.mode}: {stats['fetches']} fetches on {len(stats['fetches_by_host'])} hosts "
          f"({stats['html_200']} HTML 200, {stats['not_archived']} not in the archive) -> {args.warc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
