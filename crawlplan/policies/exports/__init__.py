"""Native budget exports for crawlers, one module per crawler family.

Each module has ``render(df, settings) -> {file name: text}`` (what ``export.write`` puts in the
format's folder) and ``read_back(folder) -> DataFrame[surt_host_name, allocated_pages, rank]``,
the inverse the round-trip test and ``crawlplan.crawlers`` use. Property, class and field names
were checked against the crawlers' own sources (docs/policies.md, "Crawler exports").
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def _module(fmt: str):
    # the format modules import crawlplan.policies.export, which imports this package back
    from crawlplan.policies.exports import heritrix, nutch, urlfrontier

    return {"heritrix": heritrix, "cc-nutch": nutch.cc_nutch, "nutch": nutch.apache_nutch,
            "urlfrontier": urlfrontier}[fmt]


def render(fmt: str, df: pd.DataFrame, settings) -> dict[str, str]:
    return _module(fmt).render(df, settings)


def read_back(fmt: str, folder: str | Path) -> pd.DataFrame:
    """Each host's budget and rank as the crawler files state them (rank order kept)."""
    return _module(fmt).read_back(Path(folder))
