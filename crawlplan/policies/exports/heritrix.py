"""Heritrix 3: a Spring beans file of settings sheets plus the seeds file.

Per-host budgets are ``frontier.queueTotalBudget`` (a queue is retired once its expenditure
reaches it; with the default UnitCostAssignmentPolicy every URI costs 1) and the host order is
``frontier.queuePrecedencePolicy.basePrecedence`` (BaseQueuePrecedencePolicy; lower runs first),
both set in ``org.archive.spring.Sheet`` overlays. ``SurtPrefixesSheetAssociation`` binds each
sheet to its hosts' SURT prefixes. Hosts with equal settings share one sheet, so the number of
beans grows with the number of distinct (budget, precedence) pairs, not with hosts.

Within-host plans become URI precedence: a preferred cluster whose URL regex starts with a
literal path section (``/t/``) gets a SURT path prefix bound to a sheet that sets
``preparer.uriPrecedencePolicy.basePrecedence`` (BaseUriPrecedencePolicy; lower first).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pandas as pd

from crawlplan.policies.export import cluster_seeds, crawl_rows, plan_items, seed_url
from crawlplan.policies.exports.safety import crawl_surt

BEANS = "crawlplan-sheets.cxml"
SEEDS = "seeds.txt"
SHEET = "org.archive.spring.Sheet"
ASSOCIATION = "org.archive.crawler.spring.SurtPrefixesSheetAssociation"
BUDGET = "frontier.queueTotalBudget"
QUEUE_PRECEDENCE = "frontier.queuePrecedencePolicy.basePrecedence"
URI_PRECEDENCE = "preparer.uriPrecedencePolicy.basePrecedence"
_LITERAL_SECTION = re.compile(r"https\?://[^/]+/([A-Za-z_-]+)/")


def host_prefixes(surt_host_name: str) -> list[str]:
    """SURT prefixes of exactly one host (the ``)`` closes the authority), with and without the
    ``www.`` that crawlplan's host keys drop. Heritrix compares https URIs as http. Built only
    from the valid host (``safety.crawl_surt``: A-labels; a ValueError for any other key)."""
    surt = crawl_surt(surt_host_name)
    base = "http://(" + surt + ","
    return [base + ")", base + "www,)"] if not surt.endswith(",www") else [base + ")"]


def precedence(position: int, n: int, levels: int) -> int:
    """Rank bands 1..levels, equal-sized by position (1 = best hosts)."""
    return 1 + (position - 1) * levels // max(n, 1)


def _sections(item: dict) -> list[str]:
    """Literal first path sections (``t`` of ``/t/...``) of the clusters a plan row leads to,
    then of the cluster its links are on."""
    regexes = [t.get("url_pattern") or "" for t in item.get("targets") or []] + [item.get("url_pattern") or ""]
    return list(dict.fromkeys(m for rx in regexes for m in _LITERAL_SECTION.findall(rx)))


def _sheet(name: str, entries: list[tuple[str, int]]) -> list[str]:
    out = [f"<bean id={quoteattr(name)} class={quoteattr(SHEET)}>", " <property name=\"map\">", "  <map>"]
    out += [f"   <entry key={quoteattr(k)} value={quoteattr(str(v))}/>" for k, v in entries]
    return out + ["  </map>", " </property>", "</bean>"]


def _value(prefix: str) -> str:
    return f"   <value>{escape(prefix)}</value>"


def _head(name: str, entries: list[tuple[str, int]]) -> list[str]:
    """A sheet and the opening of its association; the hosts' ``<value>`` lines follow."""
    return _sheet(name, entries) + [f"<bean class={quoteattr(ASSOCIATION)}>", " <property name=\"surtPrefixes\">",
                                    "  <list>"]


def _tail(name: str) -> list[str]:
    return ["  </list>", " </property>", " <property name=\"targetSheetNames\">",
            f"  <list><value>{escape(name)}</value></list>", " </property>", "</bean>"]


def budget_sheet(budget: int, prec: int) -> tuple[list[str], list[str]]:
    """(head lines, tail lines) of the sheet of one (budget, queue precedence) pair."""
    name = f"crawlplanBudget{budget}P{prec}"
    return _head(name, [(BUDGET, budget), (QUEUE_PRECEDENCE, prec)]), _tail(name)


def uri_sheet(rank: int) -> tuple[list[str], list[str]]:
    """(head lines, tail lines) of the URI precedence sheet of one plan rank."""
    name = f"crawlplanUriP{rank}"
    return _head(name, [(URI_PRECEDENCE, rank)]), _tail(name)


def host_entry(row, pos: int, n: int, settings) -> tuple[tuple[int, int], list[str], dict[int, list[str]], list[str]]:
    """One host's share of the files: its (budget, precedence) sheet key and ``<value>`` lines,
    its URI-precedence ``<value>`` lines per plan rank, and its seed lines (the one per-row
    formatter of the pandas and the Spark export)."""
    key = (int(row.allocated_pages), precedence(pos, n, int(settings.precedence_levels)))
    prefixes = host_prefixes(row.surt_host_name)
    uri: dict[int, list[str]] = {}
    taken: set[str] = set()
    for item in plan_items(row):          # best plan rank first: a section keeps its first rank
        for section in _sections(item):
            if section not in taken:
                taken.add(section)
                uri.setdefault(int(item["rank"]), []).extend(_value(p + "/" + section + "/") for p in prefixes)
    root = seed_url(row.surt_host_name, settings.scheme)
    return key, [_value(p) for p in prefixes], uri, [root] + [url for url, _ in cluster_seeds(row, root)]


def preamble(n: int, groups: int, uri_groups: int, levels: int) -> list[str]:
    """The beans file's lines before the sheets (``n`` hosts, the numbers of sheets)."""
    return ['<?xml version="1.0" encoding="UTF-8"?>',
            "<!-- crawlplan budgets for Heritrix 3: import into crawler-beans.cxml with",
            "       <import resource=\"crawlplan-sheets.cxml\"/>",
            "     and set, in crawler-beans.cxml:",
            "       frontier: queueTotalBudget 0 (hosts outside the plan fetch nothing; -1 = no cap) and",
            f"         <property name=\"queuePrecedencePolicy\"><bean class=\"org.archive.crawler.frontier."
            f"precedence.BaseQueuePrecedencePolicy\"><property name=\"basePrecedence\" value=\"{levels + 1}\"/>"
            "</bean></property>",
            "       preparer: <property name=\"uriPrecedencePolicy\"><bean class=\"org.archive.crawler.frontier."
            "precedence.BaseUriPrecedencePolicy\"><property name=\"basePrecedence\" value=\"10\"/></bean></property>",
            "     keep the default queue assignment (one queue per host) and UnitCostAssignmentPolicy (1 per URI).",
            f"     {n} hosts, {groups} budget sheets, {uri_groups} within-host sheets. -->",
            '<beans xmlns="http://www.springframework.org/schema/beans"',
            '       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
            '       xsi:schemaLocation="http://www.springframework.org/schema/beans '
            'http://www.springframework.org/schema/beans/spring-beans-3.0.xsd">']


FOOTER = "</beans>"


def render(df: pd.DataFrame, settings) -> dict[str, str]:
    rows = crawl_rows(df, "heritrix")
    n = len(rows)
    groups: dict[tuple[int, int], list[str]] = {}
    uri_groups: dict[int, list[str]] = {}
    seeds = []
    for pos, row in enumerate(rows.itertuples(index=False), start=1):
        key, values, uri, host_seeds = host_entry(row, pos, n, settings)
        groups.setdefault(key, []).extend(values)
        for rank, lines in uri.items():
            uri_groups.setdefault(rank, []).extend(lines)
        seeds += host_seeds
    out = preamble(n, len(groups), len(uri_groups), int(settings.precedence_levels))
    for (budget, prec), values in sorted(groups.items(), key=lambda kv: (kv[0][1], -kv[0][0])):
        head, tail = budget_sheet(budget, prec)
        out += head + values + tail
    for rank, values in sorted(uri_groups.items()):
        head, tail = uri_sheet(rank)
        out += head + values + tail
    out.append(FOOTER)
    return {BEANS: "\n".join(out) + "\n", SEEDS: "\n".join(seeds) + "\n"}


def _ns(tag: str) -> str:
    return "{http://www.springframework.org/schema/beans}" + tag


def read_sheets(path: Path) -> tuple[dict[str, dict[str, int]], list[tuple[list[str], list[str]]]]:
    """(sheet name -> {bean path: value}, [(surt prefixes, sheet names)]) from a beans file."""
    root = ET.parse(path).getroot()
    sheets, assocs = {}, []
    for bean in root.iter(_ns("bean")):
        if bean.get("class") == SHEET:
            sheets[bean.get("id")] = {e.get("key"): int(e.get("value")) for e in bean.iter(_ns("entry"))}
        elif bean.get("class") == ASSOCIATION:
            props = {p.get("name"): [v.text for v in p.iter(_ns("value"))] for p in bean.iter(_ns("property"))}
            assocs.append((props["surtPrefixes"], props["targetSheetNames"]))
    return sheets, assocs


def read_back(folder: Path) -> pd.DataFrame:
    """Budget and precedence per host from the sheets, rank from the seeds' order (Heritrix
    queues seeds in file order); hosts sorted by that order."""
    sheets, assocs = read_sheets(folder / BEANS)
    per_host: dict[str, dict[str, int]] = {}
    for prefixes, names in assocs:
        for p in prefixes:
            m = re.fullmatch(r"http://\((.+?),(www,)?\)", p)
            if m:
                for name in names:
                    per_host.setdefault(m.group(1), {}).update(sheets[name])
    order = []
    for url in (folder / SEEDS).read_text(encoding="utf-8").split():
        host = url.split("://", 1)[1].split("/", 1)[0]
        surt = ",".join(reversed(host.split(".")))
        if surt in per_host and surt not in order:
            order.append(surt)
    out = pd.DataFrame({"surt_host_name": order,
                        "allocated_pages": [per_host[h][BUDGET] for h in order],
                        "precedence": [per_host[h][QUEUE_PRECEDENCE] for h in order]})
    if not out.precedence.is_monotonic_increasing:
        raise ValueError("queue precedence does not follow the seeds' rank order")
    out["rank"] = range(1, len(out) + 1)   # positions: Heritrix keeps the order, not the numbers
    return out
