"""Column headings as a reader reads them: one mapping for every table of the report.

A dataset column not in ``COLUMNS`` falls back to ``humanise`` (snake_case to words, known
abbreviations in capitals), so a new column never shows up as ``raw_snake_case``.
"""

from __future__ import annotations

import re

# Words written in capitals (or another fixed way) wherever they appear in a column name.
WORDS = {
    "hq": "HQ", "tld": "TLD", "tlds": "TLDs", "ci": "CI", "icc": "ICC", "icc1": "ICC1", "url": "URL",
    "urls": "URLs", "warc": "WARC", "id": "ID", "hc": "HC", "pr": "PR", "sd": "SD", "html": "HTML",
    "p10": "p10", "p90": "p90", "ucc": "UCC", "bfs": "BFS", "tpm": "TPM", "surt": "SURT", "eps": "eps",
}

COLUMNS = {
    # RQ1: icc
    "classifier": "Classifier", "min_docs": "Min. docs per host", "mean_docs": "Mean docs per host",
    "icc1": "ICC1", "reliability": "Reliability of host mean", "correlation_ceiling": "Correlation ceiling",
    # RQ2: correlations, score distributions, rank stability
    "metric": "Metric", "stratum_kind": "Stratum kind", "stratum": "Stratum", "spearman": "Spearman ρ",
    "ci_low": "CI low", "ci_high": "CI high", "kendall": "Kendall τ", "weighted_spearman": "Weighted Spearman ρ",
    "bootstrap_replicates": "Bootstrap replicates", "release_a": "Release A", "release_b": "Release B",
    "measure": "Measure", "common_hosts": "Hosts in both", "only_a": "Only in A", "only_b": "Only in B",
    # RQ3: depth_sim
    "population": "Population", "policy": "Policy", "k": "Sample k", "budget_frac": "Budget (share of pages)",
    "budget_pages": "Budget (pages)", "yield_mean": "HQ yield (mean)", "yield_sd": "HQ yield SD",
    "vs_uniform": "× uniform depth", "share_of_oracle": "Share of oracle", "detail": "Detail",
    "multiple_of_random": "× random",
    # RQ4: coverage summary, missed by TLD
    "crawl": "Crawl", "source": "Quality source", "hosts": "Hosts",
    "spearman_coverage_density": "Spearman ρ (coverage, density)", "gems": "Gem hosts",
    "gem_share_of_hosts": "Gems (share of hosts)", "missed_hq": "Missed HQ pages (est.)",
    "missed_hq_on_gems": "Missed HQ pages on gems", "missed_share_on_gems": "Missed HQ share on gems",
    "missed_share_low_coverage": "Missed HQ share, low-coverage hosts", "low_coverage_cut": "Low-coverage cut",
    "coverage_median": "Median coverage", "density_p90": "Density p90", "share_of_hosts": "Share of hosts",
    "share_of_missed": "Share of missed HQ pages", "median_coverage": "Median coverage",
    "known": "Known URLs", "fetched": "Fetched URLs", "coverage_clipped_hosts": "Hosts with coverage clipped",
    # run section
    "status": "Status", "files": "Files", "records": "Records", "responses": "Responses", "documents": "Documents",
    "rejected": "Rejected", "bytes": "Bytes", "seconds": "Seconds", "retries": "Retries", "mode": "Extract mode",
    "html_captures_per_host": "HTML captures per host", "html_captures": "HTML captures", "read": "Captures read",
    "sampling_fraction": "Sampling fraction", "stage": "Stage", "reason": "Reason", "language": "Language",
    "node": "Node", "job": "Job", "finished_at": "Finished at", "input": "Input", "value": "Value",
    # budgets
    "pages": "Pages", "capped_hosts": "Hosts capped (politeness)", "sampled_pages": "Sampled pages",
    "rank": "Rank", "surt_host_name": "Host (SURT)", "sample_size": "Sample size",
    "sampled_density": "Sampled HQ density", "estimate": "Estimated HQ density", "allocated_pages": "Allocated pages",
    # SOUrCe
    "site": "Site", "train_pages": "Training pages", "method": "Method", "eps_source": "eps from",
    "n_features": "Features", "n_clusters": "Clusters", "outlier_share": "Outlier share",
    "nav_entropy": "Navigation entropy", "train_seconds": "Training seconds", "error": "Error",
    "method_config": "Method config", "task": "Task", "clusters": "Clusters", "outlier_pages": "Outlier pages",
    "training_pages": "Training pages", "cluster": "Cluster", "apath": "Link path",
    "expected_share": "Expected share", "links_seen": "Links seen", "wanted_basis": "Wanted pages from",
}


def humanise(name: str) -> str:
    """``missed_share_low_coverage`` -> ``Missed share low coverage``; abbreviations kept in capitals."""
    words = [w for w in re.split(r"[_\s]+", str(name)) if w]
    if not words:
        return str(name)
    out = [WORDS.get(w.lower(), w) for w in words]
    if out[0] == words[0] and out[0].islower():
        out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)


def column_label(name: str) -> str:
    """The heading a table shows for a dataset column."""
    return COLUMNS.get(str(name)) or humanise(name)
