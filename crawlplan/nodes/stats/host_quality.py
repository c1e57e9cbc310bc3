"""Node host_quality (RQ4): host index coverage against quality density.

Density sources: every classifier's share above threshold from ``host_scores`` (classified
sample), plus ``gneissweb`` from Common Crawl's GneissWeb annotations when
``inputs.gneissweb_annotations`` is set (full-crawl regime, density per crawl).
"""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan.conf import number_setting, section
from crawlplan.graph.gneissweb import read_gneissweb
from crawlplan.graph.hostindex import read_host_index
from crawlplan.stats import host_quality


def run(ctx) -> dict:
    settings = host_quality.HostQualitySettings.from_params(ctx.params)
    known_cols, fetched_cols = list(settings.known_columns), list(settings.fetched_columns)
    notes: list[str] = []
    hi = read_host_index(ctx.spark, ctx.input("host_index"), crawls=list(settings.crawls) or None,
                         columns=sorted(set(known_cols + fetched_cols + ["url_host_tld"])), notes=notes,
                         www_convention=settings.www_convention,
                         base=str(section(ctx.conf, "inputs")["host_index_base"]) or None,
                         www_min_names=number_setting("inputs.www_min_names", section(ctx.conf, "inputs")["www_min_names"],
                                                      integer=True))
    for n in notes:
        ctx.note(n)
    cov = host_quality.host_coverage(hi, known_cols, fetched_cols)
    frames = []
    sources = list(settings.sources)
    if settings.use_host_scores:
        dens = host_quality.density_from_host_scores(ctx.read("host_scores"))
        if sources:
            dens = dens.where(F.col("source").isin(*sources))
        frames.append(host_quality.host_quality(cov, dens))
    gw_path = ctx.input("gneissweb_annotations")
    if gw_path:
        gw_notes: list[str] = []
        gw = read_gneissweb(ctx.spark, gw_path, notes=gw_notes)
        for n in gw_notes:
            ctx.note(n)
        gw = gw.select("crawl", "rev_host", F.lit("gneissweb").alias("source"), "density",
                       F.col("pages").alias("density_docs"))
        frames.append(host_quality.host_quality(cov, gw, by_crawl_density=True))
    if not frames:
        raise ValueError("host_quality has no density source: enable use_host_scores or set "
                         "inputs.gneissweb_annotations")
    hq = frames[0]
    for f in frames[1:]:
        hq = hq.unionByName(f)
    hq = hq.persist()
    ctx.count("host_index_hosts", cov.count())
    ctx.count("host_quality_rows", hq.count())
    edges = list(settings.bin_edges)
    return {
        "host_quality": hq,
        "coverage_summary": host_quality.coverage_summary(hq, settings.low_coverage,
                                                          replicates=settings.bootstrap_replicates,
                                                          seed=settings.seed, alpha=settings.alpha,
                                                          max_hosts_per_group=settings.max_hosts_per_group),
        "coverage_bins": host_quality.coverage_bins(hq, edges, edges),
        "missed_by_tld": host_quality.missed_by_tld(hq),
    }
