"""Budgets as the crawlers enforce them (issue #28, part 3): each crawler's own rule, written from
the facts in tests/fixtures/crawler_api/ (read in the crawlers' sources, not copied), applied to
the files the export writes.

- Heritrix: the frontier charges the ``dns:`` and ``robots.txt`` prerequisites to the host's queue
  and a failed fetch ``errorPenaltyAmount`` on top of its unit; a ``www.`` name is another queue
  unless a sheet forces it into the host's.
- Common Crawl's Nutch: Generator2 takes the segments from ``-maxNumSegments`` only; domains not in
  the limits file are capped by ``generate.max.count``.
- Apache Nutch: urlmeta would copy the budget to outlinks; the Generator's reduce loop keeps the
  previous host's cap when a host's expression fails; counting in scope ``generate_host_count``.
- URLFrontier: one queue per key, the key a client sets.
"""

from __future__ import annotations

import math
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from settings_support import export_settings

from crawlplan.hosts import registered_domain
from crawlplan.policies import export
from crawlplan.policies.exports import heritrix, nutch, urlfrontier

REDIRECT = ("http://example.com/", "https://www.example.com/")   # the host's root moved to www. and https


@pytest.fixture
def plan() -> pd.DataFrame:
    """Budgets of 1, 2, 7 and 50 pages (the smallest ones are where fixed costs bite), one host
    under another's domain, one unfunded."""
    hosts = ["com,example", "com,example,blog", "org,tiny", "de,mittel", "net,none"]
    return export.canonical(pd.DataFrame({
        "surt_host_name": hosts, "registered_domain": ["example.com", "example.com", "tiny.org", "mittel.de",
                                                       "none.net"],
        "tld": ["com", "com", "org", "de", "net"], "language": "en", "sample_size": 3, "sampled_density": 0.5,
        "estimate": [0.9, 0.8, 0.7, 0.6, 0.1], "allocated_pages": [50, 7, 1, 2, 0], "rank": [1, 2, 3, 4, 5],
        "policy": "eb_shrinkage", "reason": "rank"}))


# --- Heritrix -----------------------------------------------------------------------------------

def _candidate_surt(url: str) -> tuple[str, str]:
    """(SURT form compared with the sheets' prefixes, SURT authority) of an http(s) URL: https is
    compared as http (SurtPrefixSet.getCandidateSurt), the authority is the queue key
    SurtAuthorityQueueAssignmentPolicy gives (``com,example,``; ``com,example,www,``)."""
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    authority = ",".join(reversed(host.lower().split("."))) + ","
    return f"http://({authority})/{path}", authority


def heritrix_queue(url: str, sheets: dict, assocs: list) -> tuple[str, dict]:
    """(queue key, overlaid settings) of a URI - or of a prerequisite, whose policy basis is its
    via: every sheet whose SURT prefix the URI's SURT starts with applies (SheetOverlaysManager),
    and ``forceQueueAssignment`` replaces the authority key when set (QueueAssignmentPolicy)."""
    surt, authority = _candidate_surt(url)
    overlay: dict = {}
    for prefixes, names in assocs:
        if any(surt.startswith(p) for p in prefixes):
            for name in names:
                overlay.update(sheets[name])
    return overlay.get(heritrix.FORCE_QUEUE) or authority, overlay


def heritrix_pages(budget: int, penalty: int, outcomes: list[bool], prerequisites: int = 2) -> int:
    """Pages a queue fetches (WorkQueueFrontier.processFinish): every URI costs 1 (prerequisites
    first), a failure adds ``penalty`` (WorkQueue.noteError); the queue is retired once its
    expenditure reaches the budget (isOverTotalBudget, checked before the next URI)."""
    spent, pages = prerequisites, 0
    for ok in outcomes:
        if spent >= budget:
            break
        spent += 1 + (0 if ok else penalty)
        pages += 1
    return pages


def test_heritrix_budget_pays_the_prerequisites_and_a_failure_costs_one_unit(plan, tmp_path):
    folder = export.write(plan, "heritrix", tmp_path / "h", settings=export_settings())
    sheets, assocs = heritrix.read_sheets(folder / heritrix.BEANS)
    funded = plan[plan.allocated_pages > 0]
    for row in funded.itertuples():
        host = export.seed_url(row.surt_host_name)
        _, overlay = heritrix_queue(host, sheets, assocs)
        assert overlay[heritrix.BUDGET] == row.allocated_pages + 2          # dns: + robots.txt
        assert overlay[heritrix.ERROR_PENALTY] == 0
        # every planned page is fetched, the first one failing (a connection refused)
        outcomes = [False] + [True] * (row.allocated_pages + 5)
        assert heritrix_pages(overlay[heritrix.BUDGET], overlay[heritrix.ERROR_PENALTY], outcomes) == \
            row.allocated_pages
        # before: budget = pages, Heritrix's default penalty 100
        before = heritrix_pages(row.allocated_pages, 100, outcomes)
        assert before == (0 if row.allocated_pages <= 2 else 1)
    back = heritrix.read_back(folder)
    assert back.allocated_pages.tolist() == funded.sort_values("rank").allocated_pages.tolist()


def test_heritrix_prerequisite_and_penalty_settings_are_written(plan, tmp_path):
    settings = export_settings(heritrix_prerequisites=4, heritrix_error_penalty=1)
    folder = export.write(plan, "heritrix", tmp_path / "h", settings=settings)
    sheets, assocs = heritrix.read_sheets(folder / heritrix.BEANS)
    _, overlay = heritrix_queue("https://tiny.org/", sheets, assocs)
    assert (overlay[heritrix.BUDGET], overlay[heritrix.ERROR_PENALTY]) == (1 + 4, 1)
    assert heritrix.read_back(folder).set_index("surt_host_name").allocated_pages["org,tiny"] == 1
    with pytest.raises(ValueError, match="heritrix_prerequisites"):
        export_settings(heritrix_prerequisites=-1)


def test_heritrix_redirect_to_www_stays_in_the_hosts_queue_and_budget(plan, tmp_path):
    folder = export.write(plan, "heritrix", tmp_path / "h", settings=export_settings())
    sheets, assocs = heritrix.read_sheets(folder / heritrix.BEANS)
    seed, target = REDIRECT
    (key, before), (key2, after) = heritrix_queue(seed, sheets, assocs), heritrix_queue(target, sheets, assocs)
    assert key == key2 == "com,example,"                      # one queue: one expenditure, one budget
    assert before[heritrix.BUDGET] == after[heritrix.BUDGET] == 50 + 2
    # the prerequisites of the www. name (dns:www.example.com, its robots.txt) follow their via
    assert heritrix_queue("https://www.example.com/robots.txt", sheets, assocs)[0] == key
    # a sub-host is its own queue with its own budget, not the example.com one
    blog_key, blog = heritrix_queue("https://www.blog.example.com/x", sheets, assocs)
    assert blog_key == "com,example,blog," and blog[heritrix.BUDGET] == 7 + 2
    # without the queue sheets the two names are two queues, each with the whole budget
    plain = {n: {k: v for k, v in s.items() if k != heritrix.FORCE_QUEUE} for n, s in sheets.items()}
    assert heritrix_queue(seed, plain, assocs)[0] != heritrix_queue(target, plain, assocs)[0]
    # a host outside the plan gets no sheet (the frontier's default budget 0 applies)
    assert heritrix_queue("https://www.other.com/", sheets, assocs) == ("com,other,www,", {})


# --- Common Crawl's Nutch (Generator2) ------------------------------------------------------------

def generator2_totals(folder: Path, host: str, segments_flag: int | None) -> int:
    """The most URLs Generator2 lets a host's domain have over one call: the domain's line
    (per segment x maxNumSegments), else ``generate.max.count`` x maxNumSegments; maxNumSegments
    is the flag's value, 1 without it (Generator2.run)."""
    segments = segments_flag or 1
    limits = nutch.read_limits(folder / nutch.LIMITS).set_index("domain")
    domain = registered_domain(host) or host
    if domain in limits.index:
        return int(limits.loc[domain].urls_per_segment) * segments
    return int(nutch.read_properties(folder / nutch.SITE_XML)["generate.max.count"]) * segments


@pytest.mark.parametrize("segments", [1, 4])
def test_cc_nutch_prints_the_generator2_command_and_caps_domains_outside_the_file(plan, tmp_path, segments):
    folder = export.write(plan, "cc-nutch", tmp_path / "c", settings=export_settings(segments=segments))
    commands = (folder / nutch.COMMANDS).read_text()
    assert (f"bin/nutch org.apache.nutch.crawl.Generator2 crawl/crawldb crawl/segments -maxNumSegments {segments}\n"
            in commands)
    assert nutch.commands_segments(folder / nutch.COMMANDS) == segments
    props = nutch.read_properties(folder / nutch.SITE_XML)
    assert "generate.max.num.segments" not in props                # Generator2 overwrites it
    flag = nutch.commands_segments(folder / nutch.COMMANDS)
    assert generator2_totals(folder, "example.com", flag) >= 50 + 7
    assert generator2_totals(folder, "tiny.org", flag) >= 1
    if segments > 1:   # before: the flag left out, a domain gets 1/N of its budget
        assert generator2_totals(folder, "example.com", None) == math.ceil(57 / segments)
    # outside the file: the plan's floor (its smallest budget, 1 page), not unlimited
    assert generator2_totals(folder, "elsewhere.net", flag) == segments * math.ceil(1 / segments) == segments
    wide = export.write(plan, "cc-nutch", tmp_path / "w", settings=export_settings(segments=segments,
                                                                                      outside_max_count=10))
    assert generator2_totals(wide, "elsewhere.net", flag) == segments * math.ceil(10 / segments)


def test_cc_nutch_www_name_counts_toward_the_hosts_domain_line(plan, tmp_path):
    folder = export.write(plan, "cc-nutch", tmp_path / "c", settings=export_settings())
    seed, target = (re.sub(r"^https?://([^/]+)/.*", r"\1", u) for u in REDIRECT)
    assert registered_domain(seed) == registered_domain(target) == "example.com"
    limits = nutch.read_limits(folder / nutch.LIMITS).set_index("domain")
    # one line for both names and the sub-host: their pages together are held to the plan's 57
    assert int(limits.loc["example.com"].urls_per_segment) == 57
    assert generator2_totals(folder, target, 1) == generator2_totals(folder, seed, 1) == 57


# --- Apache Nutch ----------------------------------------------------------------------------------

def jexl(expr: str, env: dict) -> float | None:
    """The generated expression evaluated as Nutch's engine does (strict, silent): an undefined
    variable makes it null, except on the left of ``??``, which then gives the right side."""
    names = {k.replace(".", "_"): v for k, v in env.items()}
    text = re.sub(r"\(max\.crawlplan\.budget \?\? (\d+)\)",
                  lambda m: "(max_crawlplan_budget)" if "max.crawlplan.budget" in env else f"({m.group(1)})", expr)
    text = text.replace("max.crawlplan.budget", "max_crawlplan_budget")
    cond, rest = text.split(" ? ", 1)
    then, other = rest.rsplit(" : ", 1)
    try:
        return float(eval(then, {}, names) if eval(cond, {}, names) else eval(other, {}, names))
    except NameError:
        return None


def generator_caps(expr: str, default: int, entries: list[str], hostdb: dict[str, dict]) -> dict[str, int]:
    """The cap each host gets in one reduce call of Generator.SelectorReducer: maxCount starts at
    generate.max.count; on each new host found in the HostDB the expression sets it, and when the
    expression fails (null) or the host is not in the HostDB the previous value stays."""
    caps, max_count, current = {}, default, None
    for host in entries:
        if host != current:
            current = host
            if host in hostdb:
                value = jexl(expr, hostdb[host])
                if value is not None:
                    max_count = round(value)
        caps[host] = max_count
    return caps


SPENT0 = {"fetched": 0, "notModified": 0, "gone": 0, "redirTemp": 0, "redirPerm": 0}


def test_apache_nutch_budget_does_not_leak_and_every_host_gets_a_cap(plan, tmp_path):
    folder = export.write(plan, "nutch", tmp_path / "n", settings=export_settings())
    props = nutch.read_properties(folder / nutch.SITE_XML)
    assert "urlmeta.tags" not in props                           # outlinks carry no budget
    assert "do not list crawlplan.budget in urlmeta.tags" in (folder / nutch.SITE_XML).read_text()
    expr, default = props["generate.max.count.expr"], int(props["generate.max.count"])
    # a planned host (budget 50 from its seed), then an off-plan host linked from it, in one call
    hostdb = {"example.com": {**SPENT0, "max.crawlplan.budget": 50.0}, "offplan.org": dict(SPENT0)}
    caps = generator_caps(expr, default, ["example.com", "offplan.org"], hostdb)
    assert caps == {"example.com": 50, "offplan.org": 1}           # the floor: the plan's smallest budget
    # before: no ``??``, the expression fails for the off-plan host and it keeps 50
    old = expr.replace(" ?? 1)", ")")
    assert generator_caps(old, default, ["example.com", "offplan.org"], hostdb)["offplan.org"] == 50
    # a host not in the HostDB would keep the previous cap too: the commands fill the HostDB
    # from the CrawlDB before each generate
    lines = (folder / nutch.COMMANDS).read_text().splitlines()
    update = lines.index("bin/nutch updatehostdb -hostdb crawl/hostdb -crawldb crawl/crawldb")
    assert lines[update + 1] == "bin/nutch generate crawl/crawldb crawl/segments -hostdb crawl/hostdb -maxNumSegments 1"


def _normalize(rules: Path, url: str) -> str:
    """RegexURLNormalizer with one scope's rules (Java's ``$1`` as Python's ``\\1``)."""
    root = ET.parse(rules).getroot()
    for rule in root.iter("regex"):
        url = re.sub(rule.findtext("pattern"), rule.findtext("substitution").replace("$1", r"\1"), url)
    return url


def test_apache_nutch_counts_the_www_name_with_the_host(plan, tmp_path):
    folder = export.write(plan, "nutch", tmp_path / "n", settings=export_settings())
    props = nutch.read_properties(folder / nutch.SITE_XML)
    rules = folder / props["urlnormalizer.regex.file.generate_host_count"]
    counted = {re.sub(r"^https?://([^/]+)/.*", r"\1", _normalize(rules, u)) for u in REDIRECT}
    assert counted == {"example.com"}                             # one count for both names
    assert _normalize(rules, "https://www.blog.example.com/a") == "https://blog.example.com/a"
    assert _normalize(rules, "https://wwwx.example.com/") == "https://wwwx.example.com/"
    # the redirect target inherits the seed's metadata (FetcherThread.createRedirDatum), so its HostDB
    # entry holds the same budget, counted with the host's pages
    hostdb = {"example.com": {**SPENT0, "redirPerm": 1, "max.crawlplan.budget": 50.0},
              "www.example.com": {**SPENT0, "fetched": 20, "max.crawlplan.budget": 50.0}}
    caps = generator_caps(props["generate.max.count.expr"], 1, ["example.com", "www.example.com"], hostdb)
    assert caps["www.example.com"] == 30                          # what is left of the one budget


def test_nutch_command_files_quote_the_hostdb_setting(plan, tmp_path):
    hostile = "crawl/host db;touch x$(id)"
    folder = export.write(plan, "nutch", tmp_path / "n", settings=export_settings(hostdb=hostile))
    generate = [x for x in (folder / nutch.COMMANDS).read_text().splitlines() if x.startswith("bin/nutch generate")]
    args = shlex.split(generate[0])
    assert args[args.index("-hostdb") + 1] == hostile             # one argument, nothing run


# --- URLFrontier -------------------------------------------------------------------------------------

def test_urlfrontier_redirect_target_has_the_hosts_queue_and_one_limit(plan, tmp_path):
    folder = export.write(plan, "urlfrontier", tmp_path / "u", settings=export_settings())
    limits = [x for x in (folder / urlfrontier.LIMITS).read_text().splitlines()]
    keys = [re.search(r'"key":"([^"]+)"', x).group(1) for x in limits]
    assert len(keys) == len(set(keys))                             # one limit per queue
    seed, target = REDIRECT
    assert urlfrontier.url_queue_key(seed) == urlfrontier.url_queue_key(target) == "example.com"
    assert "example.com" in keys and "www.example.com" not in keys
    assert urlfrontier.url_queue_key("https://www.blog.example.com/") == "blog.example.com"
    assert urlfrontier.url_queue_key("https://WWW.Example.COM:8443/a") == "example.com"
    assert urlfrontier.url_queue_key("not a url") == ""
