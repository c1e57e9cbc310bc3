"""Spark-expression twins of ``crawlplan.hosts`` key functions.

A Python UDF per row would cost a serialisation round trip for every one of the ~300M graph
hosts; these expressions stay in the JVM. Tests check them against ``crawlplan.hosts`` row by
row, which remains the single definition of the keys.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F


def normalize_rev_host(col: Column) -> Column:
    """A reversed host as Common Crawl's graph spells it (``com.example.www``) to the project's
    ``rev_host`` (``com.example``): lower-case, no trailing dot, the leading ``www`` label dropped
    when at least two labels remain, exactly as ``hosts.strip_www`` does on the plain host."""
    low = F.regexp_replace(F.lower(F.trim(col)), r"^\.+", "")  # a plain host's trailing dot
    has_www = low.endswith(F.lit(".www")) & (F.size(F.split(low, r"\.")) >= 3)
    return F.when(has_www, F.regexp_replace(low, r"\.www$", "")).otherwise(low)


def rev_to_surt(col: Column) -> Column:
    return F.regexp_replace(col, r"\.", ",")


def surt_to_rev(col: Column) -> Column:
    return F.regexp_replace(col, ",", ".")


def normalize_surt_host(col: Column) -> Column:
    """The host index's ``surt_host_name`` to the project's form (no ``www`` label), so a host
    index row and a document of ``www.example.com`` share one key."""
    return rev_to_surt(normalize_rev_host(surt_to_rev(col)))
