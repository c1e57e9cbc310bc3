"""Heritrix 3: a Spring beans file of settings sheets plus the seeds file.

Per-host budgets are ``frontier.queueTotalBudget`` (a queue is retired once its expenditure
reaches it; with the default UnitCostAssignmentPolicy every URI costs 1) and the host order is
``frontier.queuePrecedencePolicy.basePrecedence`` (BaseQueuePrecedencePolicy; lower runs first),
both set in ``org.archive.spring.Sheet`` overlays. ``SurtPrefixesSheetAssociation`` binds each
sheet to its hosts' SURT prefixes. Hosts with equal settings share one sheet, so the number of
budget beans grows with the number of distinct (budget, precedence) pairs, not with hosts.

What the frontier charges besides the plan's pages (WorkQueueFrontier.processFinish): the
``dns:`` lookup and the ``robots.txt`` a host's first URI needs are prerequisites queued on that
host's queue (CrawlURI.getPolicyBasisUURI: a prerequisite's basis is its via) and cost 1 each, so
every budget is the plan's pages plus ``heritrix_prerequisites``; a failed fetch costs its unit
plus ``frontier.errorPenaltyAmount`` (100 unless set), which every budget sheet sets to
``heritrix_error_penalty``. A host's ``www.`` name is another queue (SurtAuthorityQueueAssignment-
Policy keys by the SURT authority), so one small sheet per host sets
``preparer.queueAssignmentPolicy.forceQueueAssignment`` for both names' prefixes to the bare
host's key: a redirect to ``www.`` stays in the host's queue and spends its one budget.

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
from crawlplan.policies.exports.safety import crawl_surt, written_host

BEANS = "crawlplan-sheets.cxml"
SEEDS = "seeds.txt"
SHEET = "org.archive.spring.Sheet"
ASSOCIATION = "org.archive.crawler.spring.SurtPrefixesSheetAssociation"
BUDGET = "frontier.queueTotalBudget"
QUEUE_PRECEDENCE = "frontier.queuePrecedencePolicy.basePrecedence"
URI_PRECEDENCE = "preparer.uriPrecedencePolicy.basePrecedence"
ERROR_PENALTY = "frontier.errorPenaltyAmount"
FORCE_QUEUE = "preparer.queueAssignmentPolicy.forceQueueAssignment"
_BUDGET_SHEET = re.compile(r"crawlplanPages(\d+)P(\d+)")
_LITERAL_SECTION = re.compile(r"https\?://[^/]+/([A-Za-z_-]+)/")


def host_prefixes(surt_host_name: str) -> list[str]:
    """SURT prefixes of exactly one host (the ``)`` closes the authority), with and without the
    ``www.`` that crawlplan's host keys drop. Heritrix compares https URIs as http. Built only
    from the valid host (``safety.crawl_surt``: A-labels; a ValueError for any other key)."""
    surt = crawl_surt(surt_host_name)
    base = "http://(" + surt + ","
    return [base + ")", base + "www,)"] if not surt.endswith(",www") else [base + ")"]


def queue_key(surt_host_name: str) -> str:
    """The queue both names of a host share: the key SurtAuthorityQueueAssignmentPolicy gives the
    bare host (its SURT authority, ``com,example,``), so the bare host's queue keeps its name."""
    return crawl_surt(surt_host_name) + ","


def precedence(position: int, n: int, levels: int) -> int:
    """Rank bands 1..levels, equal-sized by position (1 = best hosts)."""
    return 1 + (position - 1) * levels // max(n, 1)


def _sections(item: dict) -> list[str]:
    """Literal first path sections (``t`` of ``/t/...``) of the clusters a plan row leads to,
    then of the cluster its links are on."""
    regexes = [t.get("url_pattern") or "" for t in item.get("targets") or []] + [item.get("url_pattern") or ""]
    return list(dict.fromkeys(m for rx in regexes for m in _LITERAL_SECTION.findall(rx)))


def _sheet(name: str, entries: list[tuple[str, int | str]]) -> list[str]:
    out = [f"<bean id={quoteattr(name)} class={quoteattr(SHEET)}>", " <property name=\"map\">", "  <map>"]
    out += [f"   <entry key={quoteattr(k)} value={quoteattr(str(v))}/>" for k, v in entries]
    return out + ["  </map>", " </property>", "</bean>"]


def _value(prefix: str) -> str:
    return f"   <value>{escape(prefix)}</value>"


def _head(name: str, entries: list[tuple[str, int | str]]) -> list[str]:
    """A sheet and the opening of its association; the hosts' ``<value>`` lines follow."""
    return _sheet(name, entries) + [f"<bean class={quoteattr(ASSOCIATION)}>", " <property name=\"surtPrefixes\">",
                                    "  <list>"]


def _tail(name: str) -> list[str]:
    return ["  </list>", " </property>", " <property name=\"targetSheetNames\">",
            f"  <list><value>{escape(name)}</value></list>", " </property>", "</bean>"]


def budget_sheet(pages: int, prec: int, settings) -> tuple[list[str], list[str]]:
    """(head lines, tail lines) of the sheet of one (planned pages, queue precedence) pair: the
    queue's budget is the pages plus its prerequisites, and a failed fetch is charged the set
    penalty on top of its unit. The name carries the planned pages (``read_back``)."""
    name = f"crawlplanPages{pages}P{prec}"
    entries = [(BUDGET, pages + int(settings.heritrix_prerequisites)), (QUEUE_PRECEDENCE, prec),
               (ERROR_PENALTY, int(settings.heritrix_error_penalty))]
    return _head(name, entries), _tail(name)


def queue_sheet(surt_host_name: str, prefixes: list[str]) -> list[str]:
    """One host's queue sheet and its association: both names' URIs (and their prerequisites,
    whose overlays follow their via) go to the bare host's queue."""
    name = "crawlplanQueue-" + written_host(surt_host_name)
    return _head(name, [(FORCE_QUEUE, queue_key(surt_host_name))]) + [_value(p) for p in prefixes] + _tail(name)


def uri_sheet(rank: int) -> tuple[list[str], list[str]]:
    """(head lines, tail lines) of the URI precedence sheet of one plan rank."""
    name = f"crawlplanUriP{rank}"
    return _head(name, [(URI_PRECEDENCE, rank)]), _tail(name)


def host_entry(row, pos: int, n: int, settings) -> tuple[tuple[int, int], list[str], dict[int, list[str]], list[str],
                                                         list[str]]:
    """One host's share of the files: its (pages, precedence) sheet key and ``<value>`` lines,
    its URI-precedence ``<value>`` lines per plan rank, its seed lines and its queue sheet's
    lines (the one per-row formatter of the pandas and the Spark export)."""
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
    seeds = [root] + [url for url, _ in cluster_seeds(row, root)]
    return key, [_value(p) for p in prefixes], uri, seeds, queue_sheet(row.surt_host_name, prefixes)


def preamble(n: int, groups: int, uri_groups: int, settings) -> list[str]:
    """The beans file's lines before the sheets (``n`` hosts, the numbers of sheets)."""
    levels = int(settings.precedence_levels)
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
            "     keep the default queue assignment (SurtAuthorityQueueAssignmentPolicy, parallelQueues 1,",
            "     deferToPrevious true) and UnitCostAssignmentPolicy (1 per URI): each host's queue sheet forces",
            "     its www. name into the bare host's queue, so both names spend one budget.",
            f"     Budgets = planned pages + {int(settings.heritrix_prerequisites)} (the dns: and robots.txt "
            "prerequisites, charged to the host's queue);",
            f"     a failed fetch costs 1 + frontier.errorPenaltyAmount, set to {int(settings.heritrix_error_penalty)} "
            "in every budget sheet (policies.export).",
            f"     {n} hosts, {groups} budget sheets, {uri_groups} within-host sheets, {n} queue sheets. -->",
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
    seeds, queues = [], []
    for pos, row in enumerate(rows.itertuples(index=False), start=1):
        key, values, uri, host_seeds, queue = host_entry(row, pos, n, settings)
        groups.setdefault(key, []).extend(values)
        for rank, lines in uri.items():
            uri_groups.setdefault(rank, []).extend(lines)
        seeds += host_seeds
        queues += queue
    out = preamble(n, len(groups), len(uri_groups), settings)
    for (pages, prec), values in sorted(groups.items(), key=lambda kv: (kv[0][1], -kv[0][0])):
        head, tail = budget_sheet(pages, prec, settings)
        out += head + values + tail
    for rank, values in sorted(uri_groups.items()):
        head, tail = uri_sheet(rank)
        out += head + values + tail
    out += queues
    out.append(FOOTER)
    return {BEANS: "\n".join(out) + "\n", SEEDS: "\n".join(seeds) + "\n"}


def _ns(tag: str) -> str:
    return "{http://www.springframework.org/schema/beans}" + tag


def _setting(text: str) -> int | str:
    return int(text) if text.lstrip("-").isdigit() else text


def read_sheets(path: Path) -> tuple[dict[str, dict[str, int | str]], list[tuple[list[str], list[str]]]]:
    """(sheet name -> {bean path: value}, [(surt prefixes, sheet names)]) from a beans file
    (numbers as int, other values as text)."""
    root = ET.parse(path).getroot()
    sheets, assocs = {}, []
    for bean in root.iter(_ns("bean")):
        if bean.get("class") == SHEET:
            sheets[bean.get("id")] = {e.get("key"): _setting(e.get("value")) for e in bean.iter(_ns("entry"))}
        elif bean.get("class") == ASSOCIATION:
            props = {p.get("name"): [v.text for v in p.iter(_ns("value"))] for p in bean.iter(_ns("property"))}
            assocs.append((props["surtPrefixes"], props["targetSheetNames"]))
    return sheets, assocs


def read_back(folder: Path) -> pd.DataFrame:
    """Planned pages (the budget sheet's name; its budget adds the prerequisites) and precedence
    per host from the sheets, rank from the seeds' order (Heritrix queues seeds in file order);
    hosts sorted by that order."""
    sheets, assocs = read_sheets(folder / BEANS)
    per_host: dict[str, dict[str, int | str]] = {}
    for prefixes, names in assocs:
        for p in prefixes:
            m = re.fullmatch(r"http://\((.+?),(www,)?\)", p)
            if m:
                for name in names:
                    found = _BUDGET_SHEET.fullmatch(name)
                    pages = {"pages": int(found.group(1))} if found else {}
                    per_host.setdefault(m.group(1), {}).update({**sheets[name], **pages})
    order = []
    for url in (folder / SEEDS).read_text(encoding="utf-8").split():
        host = url.split("://", 1)[1].split("/", 1)[0]
        surt = ",".join(reversed(host.split(".")))
        if surt in per_host and surt not in order:
            order.append(surt)
    out = pd.DataFrame({"surt_host_name": order,
                        "allocated_pages": [per_host[h]["pages"] for h in order],
                        "precedence": [per_host[h][QUEUE_PRECEDENCE] for h in order]})
    if not out.precedence.is_monotonic_increasing:
        raise ValueError("queue precedence does not follow the seeds' rank order")
    out["rank"] = range(1, len(out) + 1)   # positions: Heritrix keeps the order, not the numbers
    return out
