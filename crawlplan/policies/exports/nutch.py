"""Apache Nutch and Common Crawl's Nutch fork: seed lines, generator properties, domain limits.

Seeds use the Injector's syntax (``URL<TAB>key=value...``): ``nutch.score`` (the generator
sorts by it, so it encodes the rank), ``nutch.fetchInterval`` (seconds) and ``crawlplan.*``
metadata, which stays in the CrawlDatum metadata across fetches and updates.

Apache Nutch (>= 1.14, NUTCH-2368) caps hosts through the HostDB: ``updatehostdb`` with
``hostdb.numeric.fields=crawlplan.budget`` turns the fetched pages' metadata into the host's
``max.crawlplan.budget``; ``generate -hostdb`` evaluates ``generate.max.count.expr`` per host
with that value and the HostDB's counts in scope. The expression here subtracts what the host
already spent, so the cap holds over the whole crawl, not per generate cycle. The budget lives
in the seed's CrawlDatum only: ``urlmeta.tags`` is not set (the urlmeta plugin would copy the
budget to every outlink, on any host), a host without the value falls back to the plan's floor
inside the expression (JEXL's ``??``; else the strict engine's error leaves the previous host's
cap in the Generator's reduce loop), and ``crawl-commands.sh`` runs ``updatehostdb -crawldb``
before each ``generate`` so every host the generator sees has a HostDB entry. Counting in scope
``generate_host_count`` drops a leading ``www.`` (``regex-normalize-host-count.xml``), so both
names of a host share one count per generate call.

Common Crawl's fork (Generator2, ``generate.count.mode=domain``) reads
``generate.domain.limits.file``: per registered domain, URLs per segment, URLs per host per
segment, hosts, partitions. Its totals are the per-segment figures times ``-maxNumSegments``
(Generator2 sets ``generate.max.num.segments`` from that flag, default 1, so the command is in
``crawl-commands.sh``); ``generate.max.count`` caps each domain outside the file. A host's
``www.`` name has the same registered domain, so it counts toward the same domain line.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from xml.sax.saxutils import escape

import pandas as pd

from crawlplan.hosts import ascii_host, rev_to_host, surt_host, surt_to_rev
from crawlplan.policies.export import cluster_seeds, crawl_rows, floor_budget, seed_url
from crawlplan.policies.exports.safety import crawl_host, shell_word

SEEDS = "seeds.txt"
SITE_XML = "nutch-site.xml"
LIMITS = "generate-domain-limits.txt"
COMMANDS = "crawl-commands.sh"
HOST_COUNT_RULES = "regex-normalize-host-count.xml"
BUDGET_KEY = "crawlplan.budget"
RANK_KEY = "crawlplan.rank"
# Spent pages in the HostDB's counts (HostDatum); what is left is the budget minus these.
_SPENT = "fetched - notModified - gone - redirTemp - redirPerm"


def _clean(text) -> str:
    """Free text as one seed metadata value: the Injector has no escapes, so every character
    that could end the field or the line (TAB, CR, LF, any control, U+2028/2029) becomes a space."""
    return "".join(ch if ch.isprintable() else " " for ch in str(text))


def host_score(position: int, n: int) -> float:
    """The rank as a seed score in (0, 1]: the generator sorts by score, best first. Nine
    significant digits keep a million ranks apart (CrawlDatum stores a float32)."""
    return float(f"{(n - position + 1) / n:.9g}")


def host_seed_lines(row, pos: int, n: int, settings) -> list[str]:
    """One host's seed lines: its root, then the seed URLs of its preferred clusters (the one
    per-row formatter of the pandas and the Spark export)."""
    score = host_score(pos, n)
    meta = [f"nutch.score={score!r}", f"nutch.fetchInterval={int(settings.fetch_interval)}",
            f"{BUDGET_KEY}={int(row.allocated_pages)}", f"{RANK_KEY}={int(row.rank)}",
            f"crawlplan.policy={_clean(row.policy)}", f"crawlplan.reason={_clean(row.reason)}"]
    root = seed_url(row.surt_host_name, settings.scheme)
    lines = ["\t".join([root, *meta, "crawlplan.seed=host"])]
    for url, item in cluster_seeds(row, root):
        # Within the host the cap keeps the count; a higher score makes the generator take
        # the preferred clusters' pages first.
        boosted = float(f"{score * (1 + float(item['expected_share'])):.9g}")
        lines.append("\t".join([url, f"nutch.score={boosted!r}", *meta[1:4],
                                f"crawlplan.cluster={int(item['cluster'])}", "crawlplan.seed=cluster"]))
    return lines


def seed_lines(df: pd.DataFrame, settings, fmt: str = "nutch") -> list[str]:
    """One line per host (its root), then the seed URLs of its preferred clusters."""
    rows = crawl_rows(df, fmt)
    n = len(rows)
    return [line for pos, row in enumerate(rows.itertuples(index=False), start=1)
            for line in host_seed_lines(row, pos, n, settings)]


def _properties(props: list[tuple[str, str, str]]) -> str:
    out = ['<?xml version="1.0"?>', '<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>',
           "<!-- crawlplan: merge these properties into conf/nutch-site.xml -->", "<configuration>"]
    for name, value, doc in props:
        out += ["<property>", f"  <name>{escape(name)}</name>", f"  <value>{escape(value)}</value>",
                f"  <description>{escape(doc)}</description>", "</property>"]
    return "\n".join(out + ["</configuration>"]) + "\n"


def per_segment(total: int, segments: int) -> int:
    """A total cap as the per-segment count the generators multiply by the segments (>= 1:
    both read a count <= 0 as 'no limit')."""
    return max(1, math.ceil(int(total) / int(segments)))


def max_count_expr(segments: int, floor: int) -> str:
    """JEXL for generate.max.count.expr: the host's remaining budget per segment, at least 1
    (the Generator reads a count <= 0 as 'no limit'); a Double, which the Generator requires. A
    host whose HostDB entry has no budget (outside the plan) gets ``floor``: ``??`` takes the
    right side for an undefined variable, where the strict engine would fail the expression and
    the Generator keep the previous host's cap."""
    left = f"((max.{BUDGET_KEY} ?? {int(floor)}) - {_SPENT})"
    per = f"{left} / {int(segments)}.0" if segments > 1 else f"{left} * 1.0"
    return f"{left} >= {int(segments)} ? {per} : 1.0"


def apache_properties(floor: int, settings) -> str:
    """nutch-site.xml of Apache Nutch; ``floor`` is the cap of hosts without a budget
    (``export.floor_budget``)."""
    return _properties([
        ("generate.count.mode", "host", "count URLs per host (the budgets are per host)"),
        ("generate.max.count", str(per_segment(floor, settings.segments)),
         "per-segment cap of a host the HostDB does not know (hosts outside the plan): the plan's floor "
         "(policies.export.outside_max_count) / segments"),
        ("generate.hostdb", settings.hostdb, "HostDB that updatehostdb fills; also `generate -hostdb`"),
        ("generate.max.count.expr", max_count_expr(settings.segments, floor),
         "per-host cap: crawlplan.budget (the floor for a host without one) minus the pages the HostDB "
         "counts as spent"),
        ("hostdb.numeric.fields", BUDGET_KEY, "updatehostdb aggregates this CrawlDatum metadata into "
                                              "max./min./avg.crawlplan.budget of each host"),
        ("urlnormalizer.regex.file.generate_host_count", HOST_COUNT_RULES,
         "the generator counts a host's www. name with the host (urlnormalizer-regex, scope generate_host_count)"),
    ]).replace("<configuration>", "<!-- crawlplan: do not list crawlplan.budget in urlmeta.tags: the urlmeta "
               "plugin copies it to every outlink, on any host -->\n<configuration>", 1)


def host_count_rules() -> str:
    """regex-normalize rules of scope generate_host_count: a leading ``www.`` is dropped."""
    return "\n".join(['<?xml version="1.0"?>',
                      "<!-- crawlplan: the generator counts http(s)://www.host/ with http(s)://host/ -->",
                      "<regex-normalize>", "<regex>", "  <pattern>^(https?://)www\\.</pattern>",
                      "  <substitution>$1</substitution>", "</regex>", "</regex-normalize>"]) + "\n"


def apache_commands(settings) -> str:
    """The rounds that keep the caps: a HostDB entry for every host, then one generate call."""
    hostdb = shell_word(settings.hostdb)
    return "\n".join([
        "#!/bin/sh",
        "# crawlplan for Apache Nutch: inject once, then per round (fetch, parse, updatedb as usual)",
        "# updatehostdb from the CrawlDB first, so every host the generator sees has a HostDB entry.",
        "set -e",
        "bin/nutch inject crawl/crawldb seeds.txt",
        f"bin/nutch updatehostdb -hostdb {hostdb} -crawldb crawl/crawldb",
        f"bin/nutch generate crawl/crawldb crawl/segments -hostdb {hostdb} -maxNumSegments {int(settings.segments)}",
    ]) + "\n"


def _apache(df: pd.DataFrame, settings) -> dict[str, str]:
    floor = floor_budget(crawl_rows(df, "nutch"), settings)
    return {SEEDS: "\n".join(seed_lines(df, settings)) + "\n", SITE_XML: apache_properties(floor, settings),
            HOST_COUNT_RULES: host_count_rules(), COMMANDS: apache_commands(settings)}


def limit_domain(surt_host_name: str, registered_domain) -> str:
    """The domain a host's budget counts toward: its registered domain, else the host itself (in
    ASCII, ``hosts.ascii_host``; a ValueError when it is not a valid host)."""
    given = isinstance(registered_domain, str) and registered_domain != ""
    domain = ascii_host(registered_domain) if given else crawl_host(surt_host_name)
    if not domain:
        raise ValueError(f"no valid limits domain for {str(surt_host_name)[:80]!r}")
    return domain


def limits_figures(total: int, largest: int, hosts: int, settings) -> tuple[int, int, int]:
    """(URLs per segment, URLs per host per segment, partitions) of one domain."""
    seg = int(settings.segments)
    return (math.ceil(total / seg), math.ceil(largest / seg),
            max(1, min(hosts, math.ceil(total / settings.partition_pages))))


def limits_line(domain: str, total: int, largest: int, hosts: int, settings) -> str:
    per_segment, per_host, partitions = limits_figures(int(total), int(largest), int(hosts), settings)
    return f"{domain}\t{per_segment}\t{per_host}\t{int(hosts)}\t{partitions}"


def limits_head(settings) -> list[str]:
    return ["# crawlplan per-domain limits for Common Crawl's Nutch (Generator2), "
            f"{int(settings.segments)} segment(s) per generate call",
            "# domain<TAB>max URLs per domain and segment<TAB>max URLs per host and segment"
            "<TAB>max hosts per domain<TAB>max partitions"]


def domain_limits(df: pd.DataFrame, settings) -> pd.DataFrame:
    """One row per registered domain, the figures of generate.domain.limits.file."""
    rows = crawl_rows(df, "cc-nutch")
    if rows.empty:
        return pd.DataFrame(columns=["domain", "urls_per_segment", "urls_per_host_per_segment", "hosts",
                                     "partitions", "first_rank"])
    domain = [limit_domain(s, d) for s, d in zip(rows.surt_host_name, rows.registered_domain)]
    g = rows.assign(domain=domain).groupby("domain", sort=False)
    out = pd.DataFrame({
        "total": g.allocated_pages.sum(), "largest": g.allocated_pages.max(), "hosts": g.size(),
        "first_rank": g["rank"].min()}).reset_index()
    figures = [limits_figures(t, m, h, settings) for t, m, h in zip(out.total, out.largest, out.hosts)]
    out["urls_per_segment"] = [f[0] for f in figures]
    out["urls_per_host_per_segment"] = [f[1] for f in figures]
    out["partitions"] = [f[2] for f in figures]
    return out.sort_values(["first_rank", "domain"]).reset_index(drop=True)


def cc_properties(floor: int, settings) -> str:
    """nutch-site.xml of Common Crawl's fork. No generate.max.num.segments: Generator2 sets it
    from ``-maxNumSegments`` (crawl-commands.sh)."""
    return _properties([
        ("generate.count.mode", "domain", "Generator2 applies the domain limits file only in domain mode"),
        ("generate.domain.limits.file", LIMITS, "the per-domain limits written beside this file"),
        ("generate.max.count", str(per_segment(floor, settings.segments)),
         "URLs per segment of a domain not in the limits file: the plan's floor "
         "(policies.export.outside_max_count) / segments"),
        ("partition.url.mode", "byDomain", "partition fetch lists by domain, as the limits are"),
    ])


def cc_commands(settings) -> str:
    """The Generator2 call the limits are written for: totals are per-segment figures x N."""
    n = int(settings.segments)
    return "\n".join([
        "#!/bin/sh",
        f"# crawlplan for Common Crawl's Nutch: the limits file holds per-segment figures for {n} segment(s).",
        "# Generator2 takes the number of segments from -maxNumSegments only (default 1; it overwrites",
        "# generate.max.num.segments), so without the flag a domain gets 1/N of its budget.",
        "set -e",
        f"bin/nutch org.apache.nutch.crawl.Generator2 crawl/crawldb crawl/segments -maxNumSegments {n}",
    ]) + "\n"


def commands_segments(path: Path) -> int:
    """The ``-maxNumSegments`` of a command file's Generator2 or generate call."""
    found = re.findall(r"^bin/nutch \S*[Gg]enerat\S* .* -maxNumSegments (\d+)$", path.read_text(encoding="utf-8"),
                       re.MULTILINE)
    if len(found) != 1:
        raise ValueError(f"{path}: expected one generate call with -maxNumSegments, found {len(found)}")
    return int(found[0])


def _cc(df: pd.DataFrame, settings) -> dict[str, str]:
    limits = domain_limits(df, settings)
    body = [limits_line(r.domain, r.total, r.largest, r.hosts, settings) for r in limits.itertuples(index=False)]
    floor = floor_budget(crawl_rows(df, "cc-nutch"), settings)
    return {LIMITS: "\n".join(limits_head(settings) + body) + "\n",
            SEEDS: "\n".join(seed_lines(df, settings, "cc-nutch")) + "\n", SITE_XML: cc_properties(floor, settings),
            COMMANDS: cc_commands(settings)}


def read_seeds(path: Path) -> pd.DataFrame:
    """Host seed lines back to (surt_host_name, allocated_pages, rank, score)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        url, *pairs = line.split("\t")
        meta = dict(p.split("=", 1) for p in pairs)
        if meta.get("crawlplan.seed") != "host":
            continue
        out.append({"surt_host_name": surt_host(url.split("://", 1)[1].split("/", 1)[0]),
                    "allocated_pages": int(meta[BUDGET_KEY]), "rank": int(meta[RANK_KEY]),
                    "score": float(meta["nutch.score"])})
    return pd.DataFrame(out, columns=["surt_host_name", "allocated_pages", "rank", "score"])


def read_properties(path: Path) -> dict[str, str]:
    return {p.findtext("name"): p.findtext("value") for p in ET.parse(path).getroot().iter("property")}


def read_limits(path: Path) -> pd.DataFrame:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    return pd.DataFrame([[r[0], *map(int, r[1:5])] for r in rows],
                        columns=["domain", "urls_per_segment", "urls_per_host_per_segment", "hosts", "partitions"])


def _read_apache(folder: Path) -> pd.DataFrame:
    seeds = read_seeds(folder / SEEDS)
    if not seeds.score.is_monotonic_decreasing:
        raise ValueError(f"{folder / SEEDS}: host scores do not follow the ranks")
    return seeds.drop(columns="score")


def _read_cc(folder: Path) -> pd.DataFrame:
    """The seeds give each host; the limits file must allow exactly what they budget (up to the
    rounding of totals to whole segments)."""
    seeds = _read_apache(folder)
    limits = read_limits(folder / LIMITS).set_index("domain")
    segments = commands_segments(folder / COMMANDS)
    for r in seeds.itertuples(index=False):
        host = rev_to_host(surt_to_rev(r.surt_host_name))
        lim = next((limits.loc[d] for d in _suffixes(host) if d in limits.index), None)
        if lim is None or lim.urls_per_host_per_segment * segments < r.allocated_pages:
            raise ValueError(f"{LIMITS} does not allow {r.allocated_pages} pages for {host}")
    return seeds


def _suffixes(host: str) -> list[str]:
    parts = host.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]


apache_nutch = SimpleNamespace(render=_apache, read_back=_read_apache)
cc_nutch = SimpleNamespace(render=_cc, read_back=_read_cc)
