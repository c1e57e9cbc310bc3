"""The demo's host index (Common Crawl host index v2 columns) and its ground-truth tables.

Fetch counts (``fetch_*``) are those of the demo WARCs; the crawler-database counts (``nutch_*``)
add URLs known but never fetched, with per-host coverage (fetched / known) drawn nearly
independently of quality -- the paper measured Spearman(coverage, quality density) of about
-0.08. One row per host that is crawled or in the web graph, as in the real index.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pyarrow as pa

from crawlplan.demo.graph import Graph
from crawlplan.demo.warcs import RecordInfo
from crawlplan.demo.web import GRAPH_ONLY_HOSTS, Web
from crawlplan.hosts import registered_domain, rev_host, surt_host

CRAWLS = ("CC-MAIN-2024-10", "CC-MAIN-2023-40")
FETCH_COLUMNS = ("fetch_200", "fetch_200_lote", "fetch_3xx", "fetch_4xx", "fetch_5xx", "fetch_gone",
                 "fetch_notModified", "fetch_other", "fetch_redirPerm", "fetch_redirTemp")
NUTCH_COLUMNS = ("nutch_fetched", "nutch_gone", "nutch_notModified", "nutch_numRecords", "nutch_redirPerm",
                 "nutch_redirTemp", "nutch_unfetched")
NUTCH_PCT = ("nutch_fetched", "nutch_gone", "nutch_notModified", "nutch_redirPerm", "nutch_redirTemp",
             "nutch_unfetched")
ROBOTS_COLUMNS = ("robots_200", "robots_3xx", "robots_4xx", "robots_5xx", "robots_gone", "robots_notModified",
                  "robots_other", "robots_redirPerm", "robots_redirTemp")


def host_index_schema() -> pa.Schema:
    """cc-host-index's v2 schema (``athena_schema.v2.sql``): ranks double, every count, length and
    ``_pct`` int32."""
    fields = [pa.field("surt_host_name", pa.string(), False), pa.field("url_host_registered_domain", pa.string()),
              pa.field("url_host_tld", pa.string(), False)]
    fields += [pa.field(c, pa.float64(), False) for c in ("hcrank", "prank", "hcrank10", "prank10")]
    fields += [pa.field(c, pa.int32(), False) for c in FETCH_COLUMNS]
    fields.append(pa.field("fetch_200_lote_pct", pa.int32(), False))
    for c in NUTCH_COLUMNS:
        fields.append(pa.field(c, pa.int32(), False))
        if c in NUTCH_PCT:
            fields.append(pa.field(c + "_pct", pa.int32(), False))
    fields += [pa.field(c, pa.int32(), False) for c in ROBOTS_COLUMNS]
    fields += [pa.field(c, pa.int32(), False) for c in ("warc_record_length_av", "warc_record_length_median")]
    return pa.schema(fields)


def _scale10(values: np.ndarray, log: bool) -> np.ndarray:
    """0-10 normalisation of a centrality score (the index's ``hcrank10`` / ``prank10``)."""
    v = np.asarray(values, dtype=float)
    if log:
        positive = v[v > 0]
        if not len(positive):
            return np.zeros_like(v)
        lo, hi = np.log10(positive.min()), np.log10(positive.max())
        out = np.where(v > 0, (np.log10(np.where(v > 0, v, 1.0)) - lo) / max(hi - lo, 1e-12), 0.0)
    else:
        out = np.log1p(v) / max(np.log1p(v.max()), 1e-12)
    return np.round(10.0 * out, 3)


def _pct(part: int, whole: int) -> int:
    return int(round(100.0 * part / whole)) if whole else 0


def build_host_index(web: Web, records: list[RecordInfo], graph: Graph, seed: int) -> dict[str, pd.DataFrame]:
    """One DataFrame per crawl (``CRAWLS``), columns and dtypes of ``host_index_schema``."""
    rng = np.random.default_rng([seed, 2410])
    ranks = graph.ranks()
    hc10 = dict(zip(graph.vertices, _scale10(graph.hc, log=False)))
    pr10 = dict(zip(graph.vertices, _scale10(graph.pr, log=True)))
    by_host: dict[str, list[RecordInfo]] = defaultdict(list)
    for r in records:
        by_host[r.host].append(r)
    effects = np.array([h.effect for h in web.hosts])
    z = (effects - effects.mean()) / (effects.std() or 1.0)

    rows = []
    for h, zq in zip(web.hosts, z):
        recs = by_host[h.host]
        status = defaultdict(int)
        for r in recs:
            status[r.status] += 1
        html_200 = sum(1 for r in recs if r.status == 200 and r.kind == "html")
        counts = {c: 0 for c in FETCH_COLUMNS}
        counts.update(fetch_200=status[200], fetch_redirPerm=status[301], fetch_redirTemp=status[302],
                      fetch_gone=status[404], fetch_5xx=status[500],
                      fetch_200_lote=html_200 if h.lang != "en" else 0)
        # Coverage: logit-normal, only weakly (negatively) related to quality.
        coverage = 1.0 / (1.0 + math.exp(-(rng.normal(-0.4, 1.1) - 0.08 * zq)))
        fetched = counts["fetch_200"] + int(rng.poisson(0.3 * counts["fetch_200"]))
        known_target = max(fetched + 1, math.ceil(fetched / max(coverage, 0.02)))
        nutch = {"nutch_fetched": fetched, "nutch_gone": counts["fetch_gone"] + int(rng.poisson(0.5)),
                 "nutch_redirPerm": counts["fetch_redirPerm"] + int(rng.poisson(0.3)),
                 "nutch_redirTemp": counts["fetch_redirTemp"] + int(rng.poisson(0.2)),
                 "nutch_notModified": int(rng.poisson(0.05 * fetched))}
        nutch["nutch_unfetched"] = max(1, known_target - sum(nutch.values()))
        lengths = [r.length for r in recs]
        row = _row(h.host, ranks, hc10, pr10, counts, nutch, lengths, robots_ok=int(rng.integers(1, 4)),
                   robots_gone=int(rng.random() < 0.1))
        rows.append(row)
    crawled = {rev_host(h.host) for h in web.hosts}
    for g in GRAPH_ONLY_HOSTS:
        if rev_host(g) in crawled:
            continue
        known = int(rng.integers(200, 20000))
        nutch = {"nutch_fetched": 0, "nutch_gone": int(rng.poisson(3)), "nutch_redirPerm": int(rng.poisson(2)),
                 "nutch_redirTemp": 0, "nutch_notModified": 0}
        nutch["nutch_unfetched"] = known
        rows.append(_row(g, ranks, hc10, pr10, {c: 0 for c in FETCH_COLUMNS}, nutch, [], robots_ok=0,
                         robots_gone=0))
    current = pd.DataFrame(rows)
    previous = _previous_crawl(current, rng)
    schema = host_index_schema()
    out = {}
    for crawl, df in zip(CRAWLS, (current, previous)):
        df = df.sort_values("surt_host_name", kind="stable").reset_index(drop=True)
        out[crawl] = df[[f.name for f in schema]].astype({f.name: f.type.to_pandas_dtype() for f in schema
                                                           if f.name != "url_host_registered_domain"})
    return out


def _row(host, ranks, hc10, pr10, counts, nutch, lengths, robots_ok: int, robots_gone: int) -> dict:
    rev = rev_host(host)
    hc, pr = ranks.get(rev, (0.0, 0.0))
    row = {"surt_host_name": surt_host(host), "url_host_registered_domain": registered_domain(host),
           "url_host_tld": host.rsplit(".", 1)[-1], "hcrank": hc, "prank": pr,
           "hcrank10": float(hc10.get(rev, 0.0)), "prank10": float(pr10.get(rev, 0.0))}
    row.update(counts)
    row["fetch_200_lote_pct"] = _pct(counts["fetch_200_lote"], counts["fetch_200"])
    _finish_nutch(row, nutch)
    row.update({c: 0 for c in ROBOTS_COLUMNS})
    row["robots_200"], row["robots_gone"] = robots_ok, robots_gone
    row["warc_record_length_av"] = int(round(float(np.mean(lengths)))) if lengths else 0
    row["warc_record_length_median"] = int(round(float(np.median(lengths)))) if lengths else 0
    return row


def _finish_nutch(row: dict, nutch: dict) -> None:
    total = sum(nutch.values())
    row.update(nutch)
    row["nutch_numRecords"] = total
    for c in NUTCH_PCT:
        row[c + "_pct"] = _pct(nutch[c], total)


def _previous_crawl(current: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """An earlier crawl of the same hosts: counts drift, coverage stays unrelated to quality."""
    prev = current.copy()
    for i in range(len(prev)):
        scale = float(np.exp(rng.normal(-0.1, 0.35)))
        for c in FETCH_COLUMNS:
            prev.at[i, c] = int(round(prev.at[i, c] * scale))
        prev.at[i, "fetch_200_lote_pct"] = _pct(prev.at[i, "fetch_200_lote"], prev.at[i, "fetch_200"])
        fetched = int(round(prev.at[i, "nutch_fetched"] * scale))
        known = max(fetched + 1, int(round(prev.at[i, "nutch_numRecords"] * np.exp(rng.normal(-0.1, 0.15)))))
        nutch = {"nutch_fetched": fetched, "nutch_gone": int(prev.at[i, "nutch_gone"]),
                 "nutch_redirPerm": int(prev.at[i, "nutch_redirPerm"]),
                 "nutch_redirTemp": int(prev.at[i, "nutch_redirTemp"]),
                 "nutch_notModified": int(prev.at[i, "nutch_notModified"])}
        nutch["nutch_unfetched"] = max(1 if fetched else 0, known - sum(nutch.values()))
        row = {}
        _finish_nutch(row, nutch)
        for k, v in row.items():
            prev.at[i, k] = v
    return prev


def ground_truth_tables(web: Web, records: list[RecordInfo], index: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``hosts`` and ``pages`` ground truth: latent quality, true HQ share, page types, UCC."""
    where = {r.url: r for r in records if r.page is not None}
    known = dict(zip(index["surt_host_name"], zip(index["nutch_numRecords"], index["nutch_fetched"])))
    host_rows, page_rows = [], []
    for h in web.hosts:
        hq = [p.is_hq for p in h.pages]
        k, f = known[surt_host(h.host)]
        host_rows.append({"host": h.host, "surt_host_name": surt_host(h.host), "rev_host": rev_host(h.host),
                          "registered_domain": registered_domain(h.host), "tld": h.host.rsplit(".", 1)[-1],
                          "language": h.lang, "topic": h.topic, "quality": h.effect,
                          "hq_share": float(np.mean(hq)), "n_pages": len(h.pages), "site_type": h.site_type,
                          "known_urls": int(k), "fetched_urls": int(f), "in_graph": h.in_graph,
                          "charset": h.charset})
        for p in h.pages:
            r = where[p.url]
            page_rows.append({"url": p.url, "host": h.host, "surt_host_name": surt_host(h.host),
                              "page_type": p.page_type, "topic": p.topic, "language": h.lang,
                              "true_quality": p.quality, "is_hq": p.is_hq, "ucc": p.ucc,
                              "warc_file": r.warc_file, "warc_record_offset": r.offset,
                              "warc_record_length": r.length})
    return pd.DataFrame(host_rows), pd.DataFrame(page_rows)
