"""Small, schema-conformant stand-ins for every dataset the report reads.

Used by the report's tests so the page can be exercised without running the whole DAG. Values are plausible, not real:
shapes (policies, budgets, strata, clusters) follow the producing nodes' schemas.
"""

from __future__ import annotations

import datetime as dt
import itertools

import numpy as np
import pandas as pd
from pyspark.sql import types as T

from crawlplan.schemas import load_schema

CLASSIFIERS = ["fineweb_edu", "dclm", "nemotron_hq", "jql_edu"]
BUDGETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.75]


def _default(dtype: T.DataType):
    if isinstance(dtype, T.StringType):
        return "x"
    if isinstance(dtype, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)):
        return 0
    if isinstance(dtype, (T.DoubleType, T.FloatType)):
        return 0.0
    if isinstance(dtype, T.BooleanType):
        return False
    if isinstance(dtype, T.TimestampType):
        return dt.datetime(2024, 2, 20, 12, 0, 0)
    if isinstance(dtype, T.DateType):
        return dt.date(2024, 2, 20)
    if isinstance(dtype, T.BinaryType):
        return b""
    if isinstance(dtype, T.ArrayType):
        return []
    if isinstance(dtype, T.MapType):
        return {}
    return None


def conform(dataset: str, rows: list[dict]) -> pd.DataFrame:
    """Rows with every schema column, in schema order; absent columns get a type default."""
    schema = load_schema(dataset)
    data = {c.name: [r.get(c.name, _default(c.type)) for r in rows] for c in schema.columns}
    return pd.DataFrame(data, columns=schema.names)


def plain_records(dataset: str, pdf: pd.DataFrame) -> list[tuple]:
    """Rows as Python values for ``spark.createDataFrame``: no numpy scalars, NaN -> None, and
    integers back to int where pandas widened a column with nulls to float."""
    integral = (T.IntegerType, T.LongType, T.ShortType, T.ByteType)
    types = [c.type for c in load_schema(dataset).columns]
    out = []
    for rec in pdf.to_dict("records"):
        row = []
        for v, dtype in zip(rec.values(), types):
            if hasattr(v, "item") and not isinstance(v, (list, dict, bytes, str)):
                v = v.item()
            if isinstance(v, pd.Timestamp):
                v = v.to_pydatetime()
            if isinstance(v, float) and np.isnan(v):
                v = None
            elif isinstance(v, float) and isinstance(dtype, integral):
                v = int(v)
            row.append(v)
        out.append(tuple(row))
    return out


def datasets(seed: int = 0) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    out: dict[str, list[dict]] = {}
    out["icc"] = [{"classifier": c, "min_docs": m, "hosts": 200 // m, "documents": 3000, "mean_docs": 15.0,
                   "icc1": float(rng.uniform(0.2, 0.6)), "reliability": 0.9, "correlation_ceiling": 0.95}
                  for c in CLASSIFIERS + ["true_quality"] for m in (3, 5, 10)]
    yields = {"random": 0.1, "common_crawl": 0.11, "hc": 0.13, "pr": 0.12, "oracle": 0.5}
    out["ordering_sim"] = [
        {"population": pop, "classifier": "fineweb_edu", "threshold": 0.5, "policy": p, "budget_frac": b,
         "budget_pages": int(b * 10000), "n_runs": 5, "pages_fetched": b * 10000,
         "hq_pages": b * 10000 * y * (1 - b / 2), "yield_mean": y * (1 - b / 2), "yield_sd": 0.01,
         "yield_min": y * (1 - b / 2) - 0.02, "yield_max": y * (1 - b / 2) + 0.02,
         "multiple_of_random": y / 0.1, "hosts_fetched": 100 * b, "distinct_tlds": 5.0}
        for pop in ("data", "calibrated") for p, y in yields.items() for b in BUDGETS]
    depth = {"uniform": 0.5, "hc_depth": 0.52, "sample_then_deepen": 0.7, "eb_adaptive": 0.75, "oracle": 1.0,
             "sample_then_deepen_free": 0.8}
    out["depth_sim"] = [
        {"population": "data", "classifier": "fineweb_edu", "threshold": 0.5, "policy": p,
         "k": 3 if "sample" in p else None, "budget_frac": b, "budget_pages": int(b * 10000), "n_seeds": 5,
         "pages_fetched": b * 10000, "hq_pages": s * b * 5000, "yield_mean": s * 0.5, "yield_sd": 0.01,
         "yield_min": s * 0.48, "yield_max": s * 0.52, "vs_uniform": s / 0.5, "share_of_oracle": min(1.0, s + b / 3),
         "share_of_oracle_sd": 0.02, "detail": "probe share 0.5" if "sample" in p else None}
        for p, s in depth.items() for b in BUDGETS]
    out["sample_reliability"] = [
        {"population": "data", "classifier": "fineweb_edu", "threshold": 0.5, "k": k, "min_remaining": 5,
         "n_hosts": 150 - 3 * k, "n_seeds": 5, "spearman": 0.8 * (1 - np.exp(-k / 5)), "spearman_sd": 0.03}
        for k in range(1, 21)]
    strata = [("all", "all", 300), ("language", "en", 180), ("language", "de", 60), ("language", "fr", 40),
              ("tld_category", "commercial", 200), ("tld_category", "academic", 30)]
    out["correlations"] = [
        {"metric": m, "classifier": c, "stratum_kind": k, "stratum": s, "hosts": n,
         "spearman": (r := float(rng.uniform(-0.3, 0.4))), "kendall": r * 0.7, "weighted_spearman": r,
         "ci_low": r - 0.1, "ci_high": r + 0.1, "bootstrap_replicates": 200}
        for m in ("log_hc", "log_pr") for c in CLASSIFIERS for k, s, n in strata]
    out["classifier_correlations"] = [
        {"classifier_a": a, "classifier_b": b, "documents": 3000, "spearman": float(rng.uniform(-0.4, 0.9))}
        for a, b in itertools.combinations(CLASSIFIERS, 2)]
    edges = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    cells = [(i, j) for i in range(5) for j in range(5)]
    weights = rng.dirichlet(np.ones(len(cells)))
    out["coverage_bins"] = [
        {"crawl": "CC-MAIN-2024-10", "source": src, "coverage_lo": edges[i], "coverage_hi": edges[i + 1],
         "density_lo": edges[j], "density_hi": edges[j + 1], "hosts": 10 + i + j, "missed_hq": float(w * 1e4),
         "share_of_hosts": 1 / 25, "share_of_missed": float(w)}
        for src in ("fineweb_edu", "gneissweb") for (i, j), w in zip(cells, weights)]
    out["coverage_summary"] = [
        {"crawl": "CC-MAIN-2024-10", "source": src, "hosts": 300, "spearman_coverage_density": -0.08, "gems": 12,
         "gem_share_of_hosts": 0.04, "known": 90000, "fetched": 30000, "coverage_clipped_hosts": 3,
         "missed_hq": 1e4, "missed_hq_on_gems": 2600.0, "missed_share_on_gems": 0.26,
         "missed_share_low_coverage": 0.5, "low_coverage_cut": 0.2, "coverage_median": 0.3, "density_p90": 0.7}
        for src in ("fineweb_edu", "gneissweb")]
    out["host_quality"] = [
        {"crawl": "CC-MAIN-2024-10", "source": "fineweb_edu", "surt_host_name": f"com,host{i}",
         "rev_host": f"com.host{i}", "tld": "com", "tld_category": "commercial", "known": 300, "fetched": 100,
         "coverage": float(rng.beta(1, 3)), "coverage_clipped": False, "density": float(rng.beta(2, 3)),
         "density_docs": 20, "missed_hq": 10.0, "gem": i % 20 == 0, "coverage_median": 0.3, "density_p90": 0.7}
        for i in range(300)]
    out["missed_by_tld"] = [
        {"crawl": "CC-MAIN-2024-10", "source": "fineweb_edu", "tld": t, "hosts": n, "gems": n // 10,
         "missed_hq": n * 30.0, "share_of_hosts": n / 300, "share_of_missed": n / 300, "median_coverage": 0.3}
        for t, n in (("com", 200), ("uk", 60), ("de", 40))]
    out["score_distributions"] = [
        {"stratum": s, "classifier": c, "documents": 1000, "hosts": 100, "mean": 0.4, "median": 0.35,
         "p10": 0.1, "p90": 0.8} for s in ("all", "english", "non-english") for c in CLASSIFIERS]
    out["rank_stability"] = [
        {"release_a": "cc-main-2024-feb-apr-may", "release_b": "cc-main-2023-nov-dec", "measure": m,
         "common_hosts": 280, "only_a": 20, "only_b": 15, "spearman": 0.93}
        for m in ("harmonic_centrality", "pagerank")]
    langs = ["en", "de", "fr", None]
    out["budgets"] = [
        {"surt_host_name": f"com,host{i}", "registered_domain": f"host{i}.com", "tld": "com",
         "language": langs[i % 4], "sample_size": 0 if i % 4 == 3 else 5,
         "sampled_density": None if i % 4 == 3 else 0.5, "estimate": 1 - i / 200,
         "allocated_pages": max(0, 1000 - 5 * i), "rank": i + 1,
         "policy": "explore" if i % 4 == 3 else "eb_shrinkage",
         "reason": "explore" if i % 4 == 3 else ("rank;capped:politeness" if i < 5 else "rank")}
        for i in range(200)]
    sites = ["docs.example.org", "forum.example.net"]
    out["sitemaps"] = [
        {"site": s, "pages": 400 - 100 * n, "train_pages": 200, "method": "default", "eps": 0.3,
         "eps_source": "histogram", "n_features": 120, "n_clusters": 5 + n, "outlier_share": 0.05,
         "nav_entropy": 0.8, "train_seconds": 1.5, "model_json": "{}", "error": None,
         "clusters": [{"cluster": c, "size": 20 + 7 * c if c >= 0 else 4, "dsim": 0.8, "hub": 0.1 * (c + 1),
                       "authority": 0.15 * (c + 1), "example_url": f"https://{s}/c{c}/1"} for c in range(-1, 5 + n)],
         "navigation": [{"cluster": 0, "apath": "/html/body/div/a", "to_cluster": 1, "weight": 5.0}],
         "adjacency": [{"from_cluster": a, "to_cluster": b, "weight": float(1 + (a * 7 + b) % 9)}
                       for a in range(5 + n) for b in range(5 + n) if (a + b) % 3 != 1]}
        for n, s in enumerate(sites)] + [
        {"site": "tiny.example.com", "pages": 8, "train_pages": 8, "n_features": 0, "n_clusters": 0,
         "train_seconds": 0.0, "clusters": None, "navigation": None, "adjacency": None,
         "error": "too few pages (8 < 100)", "method": None, "eps": None, "eps_source": "none"}]
    out["page_clusters"] = [
        {"site": s, "url": f"https://{s}/p{i}", "cluster": (i % 6) - 1, "in_training": i % 2 == 0}
        for s in sites for i in range(40)]
    out["site_eval"] = [
        {"site": s, "method_config": "default", "task": t, "method": m, "metric": k,
         "value": float(rng.uniform(0.2, 1.0))}
        for s in sites for t, ms in (("ucc", ("bfs", "source")), ("target", ("bfs", "source", "tpm")),
                                     ("clustering", ("source", "mdl")))
        for m in ms for k in (("harvest_rate", "recall") if t != "clustering" else ("micro_f", "macro_f"))]
    out["host_plans"] = [
        {"site": s, "rank": r, "cluster": r % 3, "apath": f"/html/body/div[{r}]/a", "expected_share": 1 / r,
         "links_seen": 10.0 * r, "wanted_basis": "labels"} for s in sites for r in range(1, 8)]
    out["warc_files"] = [
        {"warc_file": f"file{i}.warc.gz", "status": "ok" if i else "truncated", "error": None if i else "EOF",
         "records": 300, "records_by_type": {"response": 100, "request": 100, "metadata": 100}, "responses": 100,
         "documents": 80, "rejected": 20, "bytes": 10_000_000, "seconds": 3.5, "attempts": 1 if i else 4,
         "last_error": None if i else "HTTP 503 Service Unavailable"} for i in range(3)]
    out["host_population"] = [
        {"surt_host_name": f"com,host{i}", "crawl": "CC-MAIN-2024-10", "captures": 3 * n, "html_captures": n,
         "selected": min(n, 10), "sampling_fraction": min(n, 10) / n, "mode": "sampled", "source": "cc_index"}
        for i, n in enumerate([1, 2, 4, 8, 15, 30, 60, 120, 250, 2000])]
    reasons = ["non_html", "status", "empty_text", "decode_error"]
    out["rejects"] = [
        {"warc_file": "file1.warc.gz", "offset": i * 1000, "record_id": f"<urn:uuid:{i}>",
         "url": f"https://host{i}.com/", "stage": "filter" if i % 4 < 2 else "extract", "reason": reasons[i % 4],
         "detail": "<script>alert(1)</script>"} for i in range(60)]
    out["classify_rejects"] = [
        {"warc_file": "file1.warc.gz", "offset": 1, "url": "https://host1.com/x", "stage": "classify",
         "reason": "empty_text"}]
    out["documents"] = [
        {"record_id": f"<urn:uuid:d{i}>", "url": f"https://host{i % 30}.com/{i}", "host": f"host{i % 30}.com",
         "surt_host_name": f"com,host{i % 30}", "rev_host": f"com.host{i % 30}", "warc_file": "file1.warc.gz",
         "offset": i, "language": ["en", "de", "fr"][i % 3], "text": "some text", "text_length": 9,
         "extractor": "trafilatura"} for i in range(90)]
    return {name: conform(name, rows) for name, rows in out.items()}


def markers(demo_models: bool = True) -> list[dict]:
    """Completion markers as the runner writes them, for the nodes the synthetic data stands for."""
    notes = ["demo models: scores are not real quality (trained on synthetic text)"] if demo_models else []
    return [
        {"node": "extract", "job": "extract", "rows": {"documents": 240, "rejects": 60, "warc_files": 3, "host_population": 10},
         "counters": {"records_read": 900, "responses": 300, "documents": 240, "rejected": 60}, "notes": [],
         "inputs": {"warc_paths": "/data/*.warc.gz"}, "finished_at": "2026-01-01T00:00:10Z", "seconds": 10.0},
        {"node": "classify", "job": "classify", "rows": {"scores": 239, "classify_rejects": 1, "scores_extra": 0},
         "counters": {"documents": 240, "rejected": 1}, "notes": notes, "inputs": {},
         "finished_at": "2026-01-01T00:00:20Z", "seconds": 10.0},
    ]
