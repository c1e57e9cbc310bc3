"""Shared by the policy nodes: the host table's inputs (host index crawl, web graph ranks)."""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan.conf import number_setting, section
from crawlplan.graph.hostindex import read_host_index
from crawlplan.graph.webgraph import read_host_ranks, release_convention
from crawlplan.policies import hostdata


def host_index_rows(ctx, scores, table: hostdata.HostTableSettings):
    """One crawl of the host index (or None when no host index is configured)."""
    path = ctx.input("host_index")
    if not path:
        ctx.note("no host index: Common Crawl's ordering and per-host caps are not available")
        return None
    cols = sorted({table.cc_budget_column, table.known_column, table.fetched_column, "url_host_registered_domain",
                   "url_host_tld"})
    inputs = section(ctx.conf, "inputs")
    index = read_host_index(ctx.spark, path, columns=cols, notes=ctx.notes, base=str(inputs["host_index_base"]) or None,
                            www_min_names=www_min_names(ctx))
    crawl = hostdata.pick_crawl(index, scores, table.host_index_crawl)
    ctx.note(f"host index crawl used: {crawl}")
    return index.where(F.col("crawl") == crawl)


def sampled_population(ctx):
    """``host_population`` when the extract sampled hosts (None after a full extract or when absent)."""
    if not ctx.has("host_population"):
        return None

    population = ctx.read("host_population")
    if not population.where(F.col("mode") == "sampled").limit(1).count():
        return None
    fractions = population.agg(F.sum("selected"), F.sum("html_captures")).head()
    ctx.note(f"sampled extract: {int(fractions[0] or 0):,} of {int(fractions[1] or 0):,} HTML captures read; "
             "host sizes come from the columnar index")
    return population


def host_ranks(ctx):
    path = ctx.input("web_graph")
    if not path:
        ctx.note("no web graph: HC and PR policies are left out")
        return None
    convention = release_convention(ctx.spark, path, str(section(ctx.conf, "inputs")["web_graph_base"]) or None,
                                    min_names=www_min_names(ctx))
    ctx.note(f"web graph: {convention.describe()}")
    return read_host_ranks(ctx.spark, path, convention=convention)


def www_min_names(ctx) -> int:
    """``inputs.www_min_names``: fewer names than this and the release date sets the www convention."""
    return number_setting("inputs.www_min_names", section(ctx.conf, "inputs")["www_min_names"], integer=True)
