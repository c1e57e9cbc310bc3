"""Export the ``budgets`` dataset for people and crawlers: one budget, many outputs.

Tables (CSV, Parquet, JSON lines) carry every row; the crawler formats (``heritrix``,
``cc-nutch``, ``nutch``, ``urlfrontier``: folders of native files, crawlplan/policies/exports/)
carry each host's page budget and rank in the setting the crawler itself enforces. All are
written from the same canonical rows, byte-for-byte deterministic: rows in rank order (then
host), fixed column order, fixed float formatting, ``\\n`` line ends, so a plan can be diffed and
checksummed between runs.

Hosts with a SOUrCe sitemap can carry their within-host plan (``host_plans``: ranked (cluster,
Apath) link patterns with the expected share of wanted pages, plus, from ``page_clusters``, a URL
regex and seed URLs of each preferred cluster), so a crawler spends each host's budget on the
page types that matter: column ``within_host_plan`` (a JSON list) in the tables; seed URLs,
URL-path sheets or metadata in the crawler formats.

Host keys and plan URLs come from the open web, and crawlers load these files as configuration
(docs/security.md). A crawler format writes a row only when every value it writes for it passes
``exports.safety.writable`` (a valid host, written in A-labels; a valid registered domain; seed
URLs on that host); other rows are skipped and counted (``skipped_unsafe``). On top of that every
value goes through the format's escaping (XML, JSON, Nutch metadata). The tables keep every row:
their writers quote or escape any text, and they are data, not configuration.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from crawlplan.conf import Settings, load_conf, section
from crawlplan.hosts import surt_host
from crawlplan.policies.allocate import BUDGET_COLUMNS
from crawlplan.policies.exports.safety import writable, written_host
from crawlplan.source.plans import cluster_url_patterns, load_host_plans

TABLE_FORMATS = ("csv", "parquet", "jsonl")
CRAWLER_FORMATS = ("heritrix", "cc-nutch", "nutch", "urlfrontier")
FORMATS = TABLE_FORMATS + CRAWLER_FORMATS
TABLE_FILES = {"csv": "budgets.csv", "parquet": "budgets.parquet", "jsonl": "budgets.jsonl"}
FILE_SUFFIXES = {".txt", ".xml", ".cxml", ".csv", ".json", ".jsonl", ".parquet"}
INT_COLUMNS = ("sample_size", "allocated_pages", "rank")
FLOAT_COLUMNS = ("sampled_density", "estimate")
PLAN_COLUMN = "within_host_plan"
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


@dataclass(frozen=True)
class ExportSettings(Settings):
    """What the crawler formats need beyond the budget rows: the conf keys of ``policies.export``
    (values and meaning: conf/defaults.yaml; ``from_params``) and the fields every CLI option sets."""
    SECTION: ClassVar[str] = "policies.export"
    heritrix_prerequisites: int           # heritrix: units each queue budget adds for its dns: and robots.txt
    heritrix_error_penalty: int           # heritrix: frontier.errorPenaltyAmount written in every budget sheet
    outside_max_count: int                # nutch / cc-nutch: cap of hosts or domains outside the plan; 0 = the floor
    scheme: str = "https"                 # scheme of seed URLs rebuilt from host keys
    segments: int = 1                     # cc-nutch / nutch: segments one generate call writes
    fetch_interval: int = 2_592_000       # nutch.fetchInterval of seeds, seconds (Nutch's 30-day default)
    precedence_levels: int = 8            # heritrix: queue precedence bands (1 = first), hosts by rank
    partition_pages: int = 100_000        # cc-nutch: pages per fetcher partition of a domain
    crawl_id: str = ""                    # urlfrontier: crawlID ('' = the frontier's default crawl)
    hostdb: str = "crawl/hostdb"          # nutch: HostDB path for generate.hostdb

    def __post_init__(self):
        if self.segments < 1 or self.precedence_levels < 1 or self.partition_pages < 1:
            raise ValueError("segments, precedence_levels and partition_pages must be >= 1")
        if self.precedence_levels > 250:
            raise ValueError("precedence_levels must stay below Heritrix's precedence floor (255)")
        if self.scheme not in ("http", "https"):
            raise ValueError(f"scheme must be http or https, got {self.scheme!r}")
        if not self.hostdb.isprintable() or not self.crawl_id.isprintable():
            raise ValueError("hostdb and crawl_id must be printable text (they go into XML and JSON)")
        if min(self.heritrix_prerequisites, self.heritrix_error_penalty, self.outside_max_count) < 0:
            raise ValueError("policies.export.heritrix_prerequisites, heritrix_error_penalty and "
                             "outside_max_count must be >= 0")

    @classmethod
    def from_conf(cls, conf: dict | None = None, **options) -> ExportSettings:
        """The settings from a loaded conf (default: conf/defaults.yaml alone) and CLI options."""
        return cls.from_params(section(conf if conf is not None else load_conf(), cls.SECTION), **options)


def floor_budget(rows: pd.DataFrame, settings: ExportSettings) -> int:
    """The cap for what the plan does not name (Nutch's hosts or domains outside it):
    ``outside_max_count``, or with 0 the plan's floor, its smallest host budget (1 if it has no
    host). The allocator has no per-host floor setting (its floors are shares of the budget per
    language or TLD category): its smallest budget is ``policies.allocate.explore_pages`` when it
    explores, else whatever the smallest funded host got."""
    if settings.outside_max_count > 0:
        return int(settings.outside_max_count)
    funded = rows.allocated_pages[rows.allocated_pages > 0]
    return int(funded.min()) if len(funded) else 1


def attach_plans(df: pd.DataFrame, plans: pd.DataFrame, top: int = 5,
                 patterns: dict[tuple[str, int], dict] | None = None,
                 navigation: dict[tuple[str, int, str], dict[int, float]] | None = None) -> pd.DataFrame:
    """Add ``within_host_plan``: the host's first ``top`` plan rows as compact JSON ('' if none).

    A plan row names where to follow links (pages of ``cluster``, anchors at ``apath``) and the
    share of wanted pages behind them. Crawlers act on URLs, so ``patterns``
    (``crawlplan.source.plans.cluster_url_patterns`` of ``page_clusters``) adds the URL regex and
    seed URLs of that hub cluster, and ``navigation`` (the sitemaps' navigation table:
    (site, cluster, apath) -> {target cluster: weight}) adds ``targets``: the clusters those
    links lead to (share >= 0.2 of the links), with their URL regex and seed URLs.
    """
    keyed: dict[str, str] = {}
    for site, rows in plans.sort_values(["site", "rank"]).groupby("site", sort=True):
        keyed[surt_host(str(site))] = site_plan(str(site), rows, top, patterns, navigation)
    out = canonical(df)
    out[PLAN_COLUMN] = out["surt_host_name"].map(keyed).fillna("")
    return out


def site_plan(site: str, rows: pd.DataFrame, top: int, patterns: dict[tuple[str, int], dict] | None,
              navigation: dict[tuple[str, int, str], dict[int, float]] | None) -> str:
    """One site's within-host plan as compact JSON: its plan rows in rank order (``rows``), the
    one formatter of the pandas export (``attach_plans``) and of the Spark one (per site)."""
    items = []
    for r in rows.sort_values("rank", kind="stable").head(top).itertuples():
        item = {"rank": int(r.rank), "cluster": int(r.cluster), "apath": str(r.apath),
                "expected_share": round(float(r.expected_share), 6)}
        if patterns is not None:
            found = patterns.get((site, int(r.cluster)), {})
            item["url_pattern"] = found.get("url_pattern")
            item["seed_urls"] = list(found.get("seed_urls", []))
            row = (navigation or {}).get((site, int(r.cluster), str(r.apath)), {})
            total = sum(row.values())
            item["targets"] = [
                {"cluster": int(c), "share": round(w / total, 4),
                 "url_pattern": patterns.get((site, int(c)), {}).get("url_pattern"),
                 "seed_urls": list(patterns.get((site, int(c)), {}).get("seed_urls", []))}
                for c, w in sorted(row.items(), key=lambda kv: (-kv[1], kv[0]))
                if c != -1 and total > 0 and w / total >= 0.2][:3]
        items.append(item)
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


def _beside(given: str | None, budgets: Path, name: str) -> Path | None:
    """An explicit dataset path (must exist), 'none', or the dataset of that name beside the budgets."""
    if given == "none":
        return None
    path = Path(given) if given is not None else budgets.parent / name
    if not path.exists():
        if given is not None:
            raise FileNotFoundError(f"no {name} dataset at {path}")
        return None
    return path


def read_budgets_with_plans(budgets: str | Path, *, plans: str | None = None, page_clusters: str | None = None,
                            sitemaps: str | None = None, top: int = 5) -> tuple[pd.DataFrame, dict[str, Path]]:
    """The budgets with their within-host plans attached, as every export writes them.

    Each of ``plans`` (host_plans), ``page_clusters`` and ``sitemaps`` is a path, 'none', or
    None for the dataset of that name beside ``budgets`` when it exists. Returns the rows and
    the datasets used.
    """
    budgets = Path(budgets)
    df = read_budgets(budgets)
    used: dict[str, Path] = {}
    plans_path = _beside(plans, budgets, "host_plans")
    if plans_path is None:
        return df, used
    used["host_plans"] = plans_path
    patterns = navigation = None
    clusters_path = _beside(page_clusters, budgets, "page_clusters")
    if clusters_path is not None:
        used["page_clusters"] = clusters_path
        patterns = cluster_url_patterns(_navigation_clusters(pd.read_parquet(clusters_path)))
    sitemaps_path = _beside(sitemaps, budgets, "sitemaps")
    if sitemaps_path is not None:
        used["sitemaps"] = sitemaps_path
        navigation = plan_navigation(pd.read_parquet(sitemaps_path, columns=["site", "navigation"]))
    return attach_plans(df, load_host_plans(plans_path), top=top, patterns=patterns, navigation=navigation), used


def _navigation_clusters(page_clusters: pd.DataFrame) -> pd.DataFrame:
    """(site, url, cluster) with each page under the cluster the plans navigate by: a section
    part of a cluster (``part_of``, ``folder_cut``) counts as that cluster, so a plan row's URL
    pattern covers every page its navigation row was learned on. Datasets written before the
    cut have no ``part_of``: their clusters are the structural ones."""
    if "part_of" in page_clusters.columns:
        page_clusters = page_clusters.assign(cluster=page_clusters["part_of"])
    return page_clusters[["site", "url", "cluster"]]


def plan_navigation(sitemaps: pd.DataFrame) -> dict[tuple[str, int, str], dict[int, float]]:
    """(site, cluster, apath) -> {target cluster: weight} from the ``sitemaps`` dataset."""
    out: dict[tuple[str, int, str], dict[int, float]] = {}
    for site, nav in zip(sitemaps["site"].astype(str), sitemaps["navigation"]):
        for e in nav if nav is not None else []:
            row = out.setdefault((site, int(e["cluster"]), str(e["apath"])), {})
            row[int(e["to_cluster"])] = row.get(int(e["to_cluster"]), 0.0) + float(e["weight"])
    return out


def _columns(df: pd.DataFrame) -> list[str]:
    return BUDGET_COLUMNS + ([PLAN_COLUMN] if PLAN_COLUMN in df.columns else [])


def read_budgets(path: str | Path) -> pd.DataFrame:
    """The budgets dataset (a Parquet folder or file) in canonical order."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"budgets dataset not found at {path} (run: crawlplan run --only allocate)")
    files = sorted(p for p in (path.rglob("*.parquet") if path.is_dir() else [path]) if not p.name.startswith((".", "_")))
    if not files:
        raise FileNotFoundError(f"no Parquet files under {path}")
    table = pa.concat_tables([pq.read_table(f) for f in files])
    df = table.to_pandas()
    missing = [c for c in BUDGET_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path} is not a budgets dataset: column '{missing[0]}' is missing")
    return canonical(df)


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    df = df[_columns(df)].copy()
    for c in INT_COLUMNS:
        df[c] = df[c].astype("int64")
    for c in FLOAT_COLUMNS:
        df[c] = df[c].astype("float64")
    return df.sort_values(["rank", "surt_host_name"], kind="stable").reset_index(drop=True)


def _num(value) -> str:
    """Floats as shortest round-trip text (repr), missing as empty: stable across platforms."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(float(value))


def _csv_field(value) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    if any(ch in text for ch in ',"\n\r'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def csv_line(rec: dict, columns: list[str]) -> str:
    """One budget row as a CSV line (no line end)."""
    return ",".join(_num(rec[c]) if c in FLOAT_COLUMNS else _csv_field(rec[c]) for c in columns)


def json_line(rec: dict) -> str:
    """One budget row as a JSON line (no line end); the plan column as a JSON list."""
    out = {}
    for c, v in rec.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out[c] = None
        elif c in INT_COLUMNS:
            out[c] = int(v)
        elif c in FLOAT_COLUMNS:
            out[c] = float(v)
        elif c == PLAN_COLUMN:
            out[c] = _plan_value(v)
        else:
            out[c] = str(v)
    return json_text(out)


def _plan_value(text):
    """The plan column as JSON: its list, or - when a hand-made dataset holds text that is not
    JSON - that text as a string (a table keeps every row as it is; crawler formats skip it)."""
    if not text:
        return []
    try:
        return json.loads(text)
    except ValueError:
        return str(text)


def json_text(obj) -> str:
    """Compact JSON on one line for every line splitter: non-ASCII text stays readable, but
    U+0085, U+2028 and U+2029, line breaks to ``str.splitlines`` and JavaScript, are escaped (they
    can only stand inside JSON strings, where the escape means the same character)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).translate(_LINE_BREAKS)


def to_csv(df: pd.DataFrame) -> str:
    columns = _columns(df)
    lines = [",".join(columns)] + [csv_line(row._asdict(), columns) for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def to_jsonl(df: pd.DataFrame) -> str:
    out = [json_line(row._asdict()) for row in df[_columns(df)].itertuples(index=False)]
    return "\n".join(out) + ("\n" if out else "")


def seed_url(surt_host_name: str, scheme: str = "https") -> str:
    """The host's root URL, from the valid host only (``safety.written_host``)."""
    return f"{scheme}://{written_host(surt_host_name)}/"


def plan_items(row) -> list[dict]:
    """A budget row's within-host plan as a list (empty when it has none)."""
    text = getattr(row, PLAN_COLUMN, "") if not isinstance(row, dict) else row.get(PLAN_COLUMN, "")
    return json.loads(text) if isinstance(text, str) and text else []


def cluster_seeds(row, root: str) -> list[tuple[str, dict]]:
    """(seed URL, plan item) of a host's preferred clusters - the wanted pages the links lead to
    first, then the pages the links are on - each URL once and never the root."""
    seen, out = {root}, []
    for item in plan_items(row):
        urls = [u for t in item.get("targets") or [] for u in t.get("seed_urls") or []]
        for url in urls + list(item.get("seed_urls") or []):
            if url not in seen:
                seen.add(url)
                out.append((url, item))
    return out


def crawl_rows(df: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """The rows crawler format ``fmt`` carries: hosts with pages to fetch that it can write
    safely (``writable``), in rank order.

    No crawler can express "zero pages" as a cap (Heritrix aside, a zero limit means *no* limit
    in Nutch's generator and URLFrontier), so hosts without a budget are left out of the seeds."""
    rows = canonical(df).pipe(lambda d: d[d.allocated_pages > 0])
    plans = rows[PLAN_COLUMN] if PLAN_COLUMN in rows.columns else [""] * len(rows)
    ok = [writable(fmt, h, d, p, plan) for h, d, p, plan in
          zip(rows.surt_host_name, rows.registered_domain, rows.allocated_pages, plans)]
    return rows[ok].reset_index(drop=True)


def write(df: pd.DataFrame, fmt: str, out: str | Path, scheme: str = "https",
          settings: ExportSettings | None = None) -> Path:
    """Write one format to ``out``: a file for a table format (a folder gets the default file
    name), a folder for a crawler format. Returns the file or folder written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format '{fmt}'; known: {', '.join(FORMATS)}")
    settings = settings or ExportSettings.from_conf(scheme=scheme)
    out = Path(out)
    df = canonical(df)
    if fmt in CRAWLER_FORMATS:
        from crawlplan.policies.exports import render  # the crawler formats import this module back

        if (out.exists() and not out.is_dir()) or (not out.exists() and out.suffix in FILE_SUFFIXES):
            raise ValueError(f"--format {fmt} writes a folder of files; {out} is (or names) a file")
        out.mkdir(parents=True, exist_ok=True)
        for name, text in render(fmt, df, settings).items():
            (out / name).write_text(text, encoding="utf-8", newline="\n")
        return out
    if out.is_dir():
        out = out / TABLE_FILES[fmt]
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        table = pa.Table.from_pandas(df, preserve_index=False)
        pq.write_table(table, out, compression="zstd", write_statistics=True)
    else:
        text = {"csv": to_csv, "jsonl": to_jsonl}[fmt](df)
        out.write_text(text, encoding="utf-8", newline="\n")
    return out
