"""Node correlations: host medians against log HC / log PR (Tables 4-6, with bootstrap CIs),
score distributions by language stratum (Table 7), classifier pairs (Figure 12)."""

from __future__ import annotations

from pyspark.sql import functions as F

from crawlplan.stats import correlations, host_stats


def run(ctx) -> dict:
    settings = correlations.CorrelationsSettings.from_params(ctx.params)
    hs = ctx.read("host_scores")
    feats = ctx.read("host_features").where(F.col("in_graph"))
    table = correlations.stratified_host_table(hs, feats)
    corr = correlations.correlation_table(table, replicates=settings.bootstrap_replicates,
                                          seed=settings.seed, alpha=settings.alpha,
                                          max_hosts_per_group=settings.max_hosts_per_group)
    scores = ctx.read("scores")
    classifiers = host_stats.present_classifiers(scores, settings.classifiers or None)
    long = host_stats.long_scores(scores, classifiers)
    dists = correlations.score_distributions(long, host_stats.host_language(scores))
    pairs = correlations.classifier_correlations(scores, host_stats.active_classifiers(scores, classifiers))
    return {"correlations": corr, "score_distributions": dists, "classifier_correlations": pairs}
