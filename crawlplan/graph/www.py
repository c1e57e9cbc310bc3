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
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from crawlplan.graph.keys import clean_rev_host, has_www_label, normalize_rev_host
from crawlplan.hosts import WWW_CONVENTIONS, WWW_KEPT, WWW_STRIPPED

KEPT_MIN_SHARE = 0.01
AUTO = "auto"


@dataclass(frozen=True)
class WwwConvention:
    convention: str                  # hosts.WWW_KEPT or hosts.WWW_STRIPPED
    names: int | None = None         # names measured (None: set, not measured)
    www_names: int | None = None     # of which with a leading www label
    both_forms: int | None = None    # hosts present both with and without it (None: not counted)

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
        return (f"www {self.convention} (detected: {self.www_names} of {self.names} names "
                f"({share:.2%}) carry a leading www label{both}; kept when >= {KEPT_MIN_SHARE:.0%})")


def check_setting(setting: str | None) -> str:
    value = (setting or AUTO).strip().lower()
    if value not in (AUTO, *WWW_CONVENTIONS):
        raise ValueError(f"www_convention must be auto, {WWW_KEPT} or {WWW_STRIPPED}; got {setting!r}")
    return value


def decide(names: int, www_names: int, both_forms: int | None = None) -> WwwConvention:
    kept = names > 0 and www_names / names >= KEPT_MIN_SHARE
    return WwwConvention(WWW_KEPT if kept else WWW_STRIPPED, names, www_names, both_forms)


def _flags(rev_names: Column) -> tuple[Column, Column]:
    name = clean_rev_host(rev_names)
    return name, has_www_label(name)


def detect(df: DataFrame, rev_col: str, *, both_forms: bool = True) -> WwwConvention:
    """The convention of the reversed host names in ``df[rev_col]`` (``com.example.www`` form).

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
    return decide(names, www_names, pairs)


def detect_by(df: DataFrame, rev_col: str, by: str) -> dict[str, WwwConvention]:
    """``detect`` per value of ``by`` (host index crawls) in one pass, without ``both_forms``."""
    name, www = _flags(F.col(rev_col))
    rows = df.select(F.col(by).alias("_by"), name.alias("_name"), www.alias("_www")).where(
        F.col("_name") != "").groupBy("_by").agg(F.count(F.lit(1)).alias("n"),
                                                   F.sum(F.col("_www").cast("long")).alias("w")).collect()
    return {r["_by"]: decide(int(r.n or 0), int(r.w or 0)) for r in rows}


def resolve(setting: str | None, measure) -> WwwConvention:
    """``setting`` (auto | kept | stripped) to a convention; ``measure()`` runs only for auto."""
    value = check_setting(setting)
    return measure() if value == AUTO else WwwConvention(value)
