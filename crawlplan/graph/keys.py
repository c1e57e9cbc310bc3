"""Spark-expression twins of ``crawlplan.hosts`` key functions.

A Python UDF per row would cost a serialisation round trip for every one of the ~300M graph
hosts; these expressions stay in the JVM. Tests check them against ``crawlplan.hosts`` row by
row, which remains the single definition of the keys.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from crawlplan.hosts import WWW_CONVENTIONS, WWW_KEPT, WWW_STRIPPED


def clean_rev_host(col: Column) -> Column:
    """Lower-case, trimmed, no leading dot (a plain host's trailing dot)."""
    return F.regexp_replace(F.lower(F.trim(col)), r"^\.+", "")


def has_www_label(col: Column) -> Column:
    """``hosts.has_www_label`` on a cleaned reversed name."""
    return col.endswith(F.lit(".www")) & (F.size(F.split(col, r"\.")) >= 3)


def normalize_rev_host(col: Column) -> Column:
    """A reversed host that may carry its ``www`` label (``com.example.www``) to the project's
    ``rev_host`` (``com.example``), exactly as ``hosts.strip_www`` does on the plain host."""
    low = clean_rev_host(col)
    return F.when(has_www_label(low), F.regexp_replace(low, r"\.www$", "")).otherwise(low)


def rev_host_from_graph(col: Column, convention: str) -> Column:
    """``hosts.rev_host_from_graph``: a release's name to the project's ``rev_host``."""
    if convention == WWW_KEPT:
        return normalize_rev_host(col)
    if convention == WWW_STRIPPED:
        return clean_rev_host(col)
    raise ValueError(f"www convention must be one of {WWW_CONVENTIONS}, got {convention!r}")


def rev_to_surt(col: Column) -> Column:
    return F.regexp_replace(col, r"\.", ",")


def surt_to_rev(col: Column) -> Column:
    return F.regexp_replace(col, ",", ".")


def normalize_surt_host(col: Column, convention: str = WWW_KEPT) -> Column:
    """The host index's ``surt_host_name`` to the project's form, under the ``www`` convention of
    its partition (``WWW_KEPT`` drops the label, so ``com,example,www`` and a document of
    ``www.example.com`` share one key)."""
    return rev_to_surt(rev_host_from_graph(surt_to_rev(col), convention))


def rev_to_host(col: Column) -> Column:
    """``hosts.rev_to_host``: ``uk.co.bbc`` -> ``bbc.co.uk``."""
    return F.array_join(F.reverse(F.split(col, r"\.")), ".")
