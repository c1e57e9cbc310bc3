"""What the `crawlplan` verbs of the stats domain do (their parsers are in ``stats/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from crawlplan.stats.cli import TABLES


def read_table(out_dir: str, dataset: str):
    path = Path(out_dir) / dataset
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: run the statistics nodes first (crawlplan run)")
    return pq.read_table(path).to_pandas()


def cmd_show(args) -> int:
    names = list(TABLES) if args.table == "all" else [args.table]
    with pd.option_context("display.width", 200, "display.max_rows", args.rows, "display.max_columns", 20,
                           "display.float_format", "{:.4f}".format):
        for name in names:
            dataset, cols = TABLES[name]
            try:
                df = read_table(args.out, dataset)
            except FileNotFoundError as exc:
                if args.table != "all":
                    raise
                print(f"== {dataset}: missing ({exc})\n")
                continue
            df = df[[c for c in cols if c in df.columns]]
            if name == "correlations" and not args.all_strata:
                df = df[df.stratum_kind == "all"]
            sort = [c for c in ("classifier", "min_docs", "metric", "crawl", "source", "stratum") if c in df.columns]
            print(f"== {dataset} ({len(df)} rows)")
            print(df.sort_values(sort).to_string(index=False) if len(df) else "(empty)")
            print()
    return 0

