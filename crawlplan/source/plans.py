"""Within-host crawl plans for the budget export: which (cluster, Apath) link patterns to follow
first on a host, and the share of wanted pages expected behind each (dataset ``host_plans``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pyspark.sql import functions as F

from crawlplan.storage import read_dataset

PLAN_COLUMNS = ["site", "rank", "cluster", "apath", "expected_share", "links_seen", "wanted_basis"]


def load_host_plans(source, *, spark=None, top: int | None = None):
    """``host_plans`` as a pandas DataFrame (path) or a Spark DataFrame (``spark`` given).

    ``site`` equals the host when ``source.site_pages.site_key`` is ``host`` (the default), so
    the export joins it on host; ``top`` keeps each site's first ranks.
    """
    if spark is not None:
        df = read_dataset(spark, "host_plans", str(source))
        return df.where(F.col("rank") <= top) if top else df

    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"no host_plans dataset at {path}")
    df = pd.read_parquet(path, columns=PLAN_COLUMNS)
    if top:
        df = df[df["rank"] <= top]
    return df.sort_values(["site", "rank"]).reset_index(drop=True)
