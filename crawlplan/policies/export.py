"""Export the ``budgets`` dataset for people and crawlers: CSV, Parquet, JSON lines, Nutch seeds.

Exports are byte-for-byte deterministic for the same dataset: rows in rank order (then host),
fixed column order, fixed float formatting, ``\\n`` line ends, so a plan can be diffed and
checksummed between runs.

Nutch seed lines follow the Injector's format: ``URL<TAB>key=value<TAB>...``. ``nutch.score``
sets the injected CrawlDatum's score (the generator's priority); the ``crawlplan.*`` keys land in
the CrawlDatum metadata where a scoring or generator plugin can read the per-host page budget.
Only hosts with a budget are written.

Hosts with a SOUrCe sitemap can carry their within-host plan (``host_plans``: ranked (cluster,
Apath) link patterns with the expected share of wanted pages), so a crawler spends each host's
budget on the page types that matter: column ``within_host_plan`` (a JSON list) in every format,
``crawlplan.plan=`` in Nutch seed metadata.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from crawlplan.hosts import rev_to_host, surt_host, surt_to_rev
from crawlplan.policies.allocate import BUDGET_COLUMNS

FORMATS = ("csv", "parquet", "jsonl", "nutch")
_EXT = {"csv": "budgets.csv", "parquet": "budgets.parquet", "jsonl": "budgets.jsonl", "nutch": "seeds.txt"}
_INT = ("sample_size", "allocated_pages", "rank")
_FLOAT = ("sampled_density", "estimate")
PLAN_COLUMN = "within_host_plan"


def attach_plans(df: pd.DataFrame, plans: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """Add ``within_host_plan``: the host's first ``top`` plan rows as compact JSON ('' if none)."""
    keyed: dict[str, str] = {}
    for site, rows in plans.sort_values(["site", "rank"]).groupby("site", sort=True):
        items = [{"rank": int(r.rank), "cluster": int(r.cluster), "apath": str(r.apath),
                  "expected_share": round(float(r.expected_share), 6)} for r in rows.head(top).itertuples()]
        keyed[surt_host(str(site))] = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    out = canonical(df)
    out[PLAN_COLUMN] = out["surt_host_name"].map(keyed).fillna("")
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
    for c in _INT:
        df[c] = df[c].astype("int64")
    for c in _FLOAT:
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


def to_csv(df: pd.DataFrame) -> str:
    columns = _columns(df)
    lines = [",".join(columns)]
    for row in df.itertuples(index=False):
        rec = row._asdict()
        lines.append(",".join(_num(rec[c]) if c in _FLOAT else _csv_field(rec[c]) for c in columns))
    return "\n".join(lines) + "\n"


def to_jsonl(df: pd.DataFrame) -> str:
    out = []
    for row in df.itertuples(index=False):
        rec = {}
        for c, v in row._asdict().items():
            if v is None or (isinstance(v, float) and math.isnan(v)):
                rec[c] = None
            elif c in _INT:
                rec[c] = int(v)
            elif c in _FLOAT:
                rec[c] = float(v)
            elif c == PLAN_COLUMN:
                rec[c] = json.loads(v) if v else []
            else:
                rec[c] = str(v)
        out.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + ("\n" if out else "")


def seed_url(surt_host_name: str, scheme: str = "https") -> str:
    return f"{scheme}://{rev_to_host(surt_to_rev(surt_host_name))}/"


def to_nutch(df: pd.DataFrame, scheme: str = "https") -> str:
    lines = []
    for row in df[df.allocated_pages > 0].itertuples(index=False):
        meta = [f"nutch.score={float(row.estimate):.6f}", f"crawlplan.budget={int(row.allocated_pages)}",
                f"crawlplan.rank={int(row.rank)}", f"crawlplan.policy={row.policy}",
                f"crawlplan.reason={str(row.reason).replace(chr(9), ' ')}"]
        plan = getattr(row, PLAN_COLUMN, "")
        if plan:
            meta.append(f"crawlplan.plan={plan.replace(chr(9), ' ')}")
        lines.append("\t".join([seed_url(row.surt_host_name, scheme), *meta]))
    return "\n".join(lines) + ("\n" if lines else "")


def write(df: pd.DataFrame, fmt: str, out: str | Path, scheme: str = "https") -> Path:
    """Write one format to ``out`` (a file; a folder gets the default file name)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format '{fmt}'; known: {', '.join(FORMATS)}")
    out = Path(out)
    if out.is_dir():
        out = out / _EXT[fmt]
    out.parent.mkdir(parents=True, exist_ok=True)
    df = canonical(df)
    if fmt == "parquet":
        table = pa.Table.from_pandas(df, preserve_index=False)
        pq.write_table(table, out, compression="zstd", write_statistics=True)
    else:
        text = {"csv": to_csv, "jsonl": to_jsonl}.get(fmt, lambda d: to_nutch(d, scheme))(df)
        out.write_text(text, encoding="utf-8", newline="\n")
    return out
