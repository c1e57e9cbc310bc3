"""Which ``www`` convention a list of Common Crawl host names follows, read from the names.

Common Crawl's host-level web graphs stripped a leading ``www.`` from 2017 to 2025 and keep it
from the first 2026 release on (commoncrawl/cc-pyspark#56, #57); release announcements of that
period say either, and host index partitions follow the graph of their time. So the convention
is measured on each release's own vertices (or each host index partition's own
``surt_host_name``) instead of being assumed from a name or a date.

The measure: the share of names that carry a leading ``www`` label with at least two labels
left (``com.example.www``, not ``com.www``). A stripping release can only hold such a name for a
``www.www.`` host, a few in a million. A keeping release holds one for every ``www.`` host that
was linked: Common Crawl put that at about 5% of the graph when it stopped stripping (the size
it saved). ``KEPT_MIN_SHARE`` sits between the two, far from both. Where both conventions map
every name to the same key (no ``www`` label at all) the answer does not matter.

A share needs names: in a small or filtered release one ``www.www.`` host among 6 names is
17%, far above the threshold. Below ``inputs.www_min_names`` measured names the share decides
nothing and the release date rule does (:func:`by_date`): the year a release's last crawl falls
in (``cc-main-2025-26-nov-dec-jan``: 2026; a host index crawl ``CC-MAIN-2026-04``: 2026) keeps
the label from ``FIRST_KEPT_YEAR`` on. A name without a year keeps the measured answer, said so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawlplan.graph.keys import clean_rev_host, has_www_label, normalize_rev_host
from crawlplan.hosts import WWW_CONVENTIONS, WWW_KEPT, WWW_STRIPPED

KEPT_MIN_SHARE = 0.01
AUTO = "auto"
FIRST_KEPT_YEAR = 2026      # the first release that keeps www. (cc-main-2025-26-nov-dec-jan; cc-pyspark#56, #57)
MEASURED, DATE_RULE = "measured", "date"
_GRAPH_YEARS = re.compile(r"cc-main-(\d{4})(?:-(\d{2}))?-")          # web graph releases: lower case
_CRAWL_YEAR = re.compile(r"CC-MAIN-(\d{4})-\d{2}")                   # crawls: upper case


@dataclass(frozen=True)
class WwwConvention:
    convention: str                  # hosts.WWW_KEPT or hosts.WWW_STRIPPED
    names: int | None = None         # names measured (None: set, not measured)
    www_names: int | None = None     # of which with a leading www label
    both_forms: int | None = None    # hosts present both with and without it (None: not counted)
    rule: str = MEASURED             # what decided: the measured share, or the release date (too few names)
    release: str = ""                # the release or crawl name the date rule read
    min_names: int = 0               # names the measure needs (inputs.www_min_names)

    @property
    def kept(self) -> bool:
        return self.convention == WWW_KEPT

    @property
    def www_share(self) -> float | None:
        return None if not self.names else (self.www_names or 0) / self.names

    def describe(self) -> str:
        if self.names is None:
            return f"www {self.convention} (set in the configuration)"
        share = self.www_share or 0.0
        both = "" if self.both_forms is None else f", {self.both_forms} hosts named both with and without it"
        measured = (f"{self.www_names} of {self.names} names ({share:.2%}) carry a leading www label{both}")
        if self.rule == DATE_RULE:
            return (f"www {self.convention} (release date rule: {self.release} ends in {release_year(self.release)}, "
                    f"kept from {FIRST_KEPT_YEAR} on; the measure decides nothing on {self.names} names, fewer "
                    f"than inputs.www_min_names={self.min_names}: {measured})")
        few = (f"; only {self.names} names, fewer than inputs.www_min_names={self.min_names}, and no release "
               f"year in '{self.release}' for the date rule" if self.names < self.min_names else "")
        return f"www {self.convention} (detected: {measured}; kept when >= {KEPT_MIN_SHARE:.0%}{few})"


def release_year(name: str) -> int | None:
    """The year a release's last crawl falls in: ``cc-main-2025-26-nov-dec-jan`` 2026,
    ``cc-main-2024-feb-apr-may`` 2024, host index crawl ``CC-MAIN-2026-04`` 2026; None without one."""
    crawl = _CRAWL_YEAR.search(name or "")
    if crawl:
        return int(crawl.group(1))
    graph = _GRAPH_YEARS.search(name or "")
    if not graph:
        return None
    year = int(graph.group(1))
    return year + 1 if graph.group(2) and int(graph.group(2)) == (year + 1) % 100 else year


def by_date(name: str) -> str | None:
    """The release date rule: ``kept`` from ``FIRST_KEPT_YEAR`` on, ``stripped`` before, None
    when ``name`` has no year."""
    year = release_year(name)
    if year is None:
        return None
    return WWW_KEPT if year >= FIRST_KEPT_YEAR else WWW_STRIPPED


def check_setting(setting: str | None) -> str:
    value = (setting or AUTO).strip().lower()
    if value not in (AUTO, *WWW_CONVENTIONS):
        raise ValueError(f"www_convention must be auto, {WWW_KEPT} or {WWW_STRIPPED}; got {setting!r}")
    return value


def decide(names: int, www_names: int, both_forms: int | None = None, *, min_names: int = 0,
           release: str = "") -> WwwConvention:
    """The measured share decides when at least ``min_names`` names were measured; below that
    the release date rule of ``release`` does (the measure when the name has no year)."""
    dated = by_date(release) if names < min_names else None
    if dated is not None:
        return WwwConvention(dated, names, www_names, both_forms, DATE_RULE, release, min_names)
    kept = names > 0 and www_names / names >= KEPT_MIN_SHARE
    return WwwConvention(WWW_KEPT if kept else WWW_STRIPPED, names, www_names, both_forms, MEASURED, release,
                         min_names)


def _flags(rev_names: Column) -> tuple[Column, Column]:
    name = clean_rev_host(rev_names)
    return name, has_www_label(name)


def detect(df: DataFrame, rev_col: str, *, both_forms: bool = True, min_names: int = 0,
           release: str = "") -> WwwConvention:
    """The convention of the reversed host names in ``df[rev_col]`` (``com.example.www`` form)
    of the release named ``release`` (``decide``: fewer than ``min_names`` names, its date).

    ``both_forms`` also counts hosts named both ways (one shuffle of the names): evidence for
    the report, not needed for the decision.
    """
    name, www = _flags(F.col(rev_col))
    flagged = df.select(name.alias("_name"), www.alias("_www")).where(F.col("_name") != "")
    row = flagged.agg(F.count(F.lit(1)).alias("n"), F.sum(F.col("_www").cast("long")).alias("w")).head()
    names, www_names = int(row.n or 0), int(row.w or 0)
    pairs = None
    if both_forms and www_names:
        per_key = flagged.groupBy(normalize_rev_host(F.col("_name")).alias("_key")).agg(
            F.max(F.col("_www").cast("int")).alias("any_www"), F.min(F.col("_www").cast("int")).alias("all_www"))
        pairs = per_key.where((F.col("any_www") == 1) & (F.col("all_www") == 0)).count()
    return decide(names, www_names, pairs, min_names=min_names, release=release)


def detect_by(df: DataFrame, rev_col: str, by: str, *, min_names: int = 0) -> dict[str, WwwConvention]:
    """``detect`` per value of ``by`` (host index crawls, also the names the date rule reads) in
    one pass, without ``both_forms``."""
    name, www = _flags(F.col(rev_col))
    rows = df.select(F.col(by).alias("_by"), name.alias("_name"), www.alias("_www")).where(
        F.col("_name") != "").groupBy("_by").agg(F.count(F.lit(1)).alias("n"),
                                                   F.sum(F.col("_www").cast("long")).alias("w")).collect()
    return {r["_by"]: decide(int(r.n or 0), int(r.w or 0), min_names=min_names, release=str(r["_by"]))
            for r in rows}


def resolve(setting: str | None, measure) -> WwwConvention:
    """``setting`` (auto | kept | stripped) to a convention; ``measure()`` runs only for auto."""
    value = check_setting(setting)
    return measure() if value == AUTO else WwwConvention(value)
