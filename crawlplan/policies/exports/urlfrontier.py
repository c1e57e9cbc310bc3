"""URLFrontier (crawler-commons/url-frontier, API 2.6; StormCrawler's frontier): PutURLs items
and SetCrawlLimit calls as protobuf-JSON lines.

``puturls.jsonl``: one ``URLItem`` per line, each a ``DiscoveredURLItem`` whose ``URLInfo``
has the URL, its queue ``key`` (the crawlplan host key: host name without a leading ``www.``),
``metadata`` (map<string, StringList>: budget, rank, within-host cluster) and ``crawlID``.
Lines are in rank order, the host root before its preferred clusters' seeds: URLFrontier's API
has no queue priority, so the order of PutURLs and ``crawlplan.rank`` are what a spout can use.

``setcrawllimit.jsonl``: one ``CrawlLimitParams`` per key (``key``, ``limit``, ``crawlID``). The
service counts a queue's completed URLs against the limit, and refuses a limit for a queue that
does not exist yet: send them after the PutURLs. A limit of 0 means no limit, so hosts without a
budget are not put at all.

Both names of a host are one queue with one limit: the service takes an item's ``key`` as
given and only an empty key becomes the URL's host as written (``provideMissingKey``, ``www.``
kept), so a client that puts discovered URLs or redirect targets (``https://www.host/`` after
``http://host/``) must set ``key`` to ``url_queue_key(url)``, the rule the export's keys follow.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd

from crawlplan.hosts import ascii_host, strip_www, surt_host
from crawlplan.policies.export import cluster_seeds, crawl_rows, json_text, seed_url
from crawlplan.policies.exports.safety import UINT32_MAX, written_host

PUT = "puturls.jsonl"
LIMITS = "setcrawllimit.jsonl"


def queue_key(surt_host_name: str) -> str:
    """The queue key: the valid host in ASCII without a leading ``www.`` (a ValueError otherwise)."""
    return strip_www(written_host(surt_host_name))


def url_queue_key(url: str) -> str:
    """The queue key of any URL a client puts (a seed, an outlink, a redirect target): its host
    in ASCII without a leading ``www.``, as ``queue_key`` writes a planned host's ('' when the URL
    has no valid host: the client leaves it to the service)."""
    host = ascii_host(urlsplit(str(url)).hostname or "")
    return strip_www(host) if host else ""


def _line(obj: dict) -> str:
    return json_text(obj)


def _info(url: str, key: str, meta: dict[str, str | list[str]], crawl_id: str) -> dict:
    info = {"url": url, "key": key,
            "metadata": {k: {"values": v if isinstance(v, list) else [v]} for k, v in meta.items()}}
    if crawl_id:
        info["crawlID"] = crawl_id   # proto3 JSON leaves defaults out
    return info


def host_lines(row, settings) -> tuple[list[str], str]:
    """One host's PutURLs lines (its root, then its preferred clusters' seeds) and its
    SetCrawlLimit line (the one per-row formatter of the pandas and the Spark export)."""
    key = queue_key(row.surt_host_name)
    budget = int(row.allocated_pages)
    if budget > UINT32_MAX:
        raise ValueError(f"budget {budget} of {key} does not fit CrawlLimitParams.limit (uint32)")
    meta = {"crawlplan.budget": str(budget), "crawlplan.rank": str(int(row.rank)), "crawlplan.seed": "host"}
    root = seed_url(row.surt_host_name, settings.scheme)
    puts = [{"discovered": {"info": _info(root, key, meta, settings.crawl_id)}}]
    for url, item in cluster_seeds(row, root):
        cmeta = {**meta, "crawlplan.seed": "cluster", "crawlplan.cluster": str(int(item["cluster"])),
                 "crawlplan.expected_share": repr(float(item["expected_share"]))}
        if item.get("url_pattern"):
            cmeta["crawlplan.url_pattern"] = item["url_pattern"]
        targets = [t["url_pattern"] for t in item.get("targets") or [] if t.get("url_pattern")]
        if targets:
            cmeta["crawlplan.target_patterns"] = targets     # a StringList of several values
        puts.append({"discovered": {"info": _info(url, key, cmeta, settings.crawl_id)}})
    limit = {"key": key, "limit": budget}
    if settings.crawl_id:
        limit["crawlID"] = settings.crawl_id
    return [_line(p) for p in puts], _line(limit)


def render(df: pd.DataFrame, settings) -> dict[str, str]:
    puts, limits = [], []
    for row in crawl_rows(df, "urlfrontier").itertuples(index=False):
        lines, limit = host_lines(row, settings)
        puts += lines
        limits.append(limit)
    return {PUT: "".join(p + "\n" for p in puts), LIMITS: "".join(x + "\n" for x in limits)}


def read_back(folder: Path) -> pd.DataFrame:
    """Limits per key, ranks from the host items' metadata; keys map back to host keys."""
    limits = {}
    for line in (folder / LIMITS).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        limits[rec["key"]] = int(rec["limit"])
    out = []
    for line in (folder / PUT).read_text(encoding="utf-8").splitlines():
        info = json.loads(line)["discovered"]["info"]
        meta = {k: v["values"][0] for k, v in info["metadata"].items()}
        if meta["crawlplan.seed"] == "host":
            out.append({"surt_host_name": surt_host(info["key"]), "allocated_pages": limits[info["key"]],
                        "rank": int(meta["crawlplan.rank"])})
    return pd.DataFrame(out, columns=["surt_host_name", "allocated_pages", "rank"])
