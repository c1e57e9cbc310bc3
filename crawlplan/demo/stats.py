"""Measure the planted properties of a generated demo crawl from its files.

``python -m crawlplan.demo.stats DIR`` reads only what was written (ground truth, host index),
so the numbers quoted in the demo's README can be reproduced on any seed.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from crawlplan.demo.text import labelled_texts
from crawlplan.stats import reference


def icc1(values: pd.Series, groups: pd.Series) -> float:
    """ICC1 of ``values`` by ``groups`` (``crawlplan.stats.reference.icc1``, the project's one estimator)."""
    return float(reference.icc1(values.to_numpy(dtype=float), groups.to_numpy()).icc1)


def measure(root: str | Path) -> dict:
    root = Path(root)
    hosts = pd.read_parquet(root / "ground_truth" / "hosts.parquet")
    pages = pd.read_parquet(root / "ground_truth" / "pages.parquet")
    marker = json.loads((root / "_SUCCESS").read_text())
    index = pd.read_parquet(root / "host_index" / f"crawl={marker['crawl']}")
    m = hosts.merge(index, on="surt_host_name")
    g = m[m.in_graph]
    en = g.language == "en"
    sizes = hosts.loc[hosts.site_type == "regular", "n_pages"]
    out = {
        "hosts": len(hosts), "forum_hosts": int((hosts.site_type == "forum").sum()), "html_pages": len(pages),
        "languages": hosts.language.value_counts().to_dict(),
        "regular_host_pages_median": float(sizes.median()), "regular_host_pages_max": int(sizes.max()),
        "regular_hosts_with_3_or_more_pages": round(float((sizes >= 3).mean()), 3),
        "hq_page_share": round(float(pages.is_hq.mean()), 3),
        "icc1_true_quality": round(icc1(pages.true_quality, pages.host), 4),
    }
    for t in (3, 5, 10):
        keep = set(hosts.loc[hosts.n_pages >= t, "host"])
        sub = pages[pages.host.isin(keep)]
        out[f"icc1_true_quality_n{t}"] = round(icc1(sub.true_quality, sub.host), 4)
    out.update({
        "spearman_hc_hq_share": round(float(spearmanr(g.hcrank, g.hq_share)[0]), 3),
        "spearman_hc_hq_share_english": round(float(spearmanr(g[en].hcrank, g[en].hq_share)[0]), 3),
        "spearman_hc_hq_share_non_english": round(float(spearmanr(g[~en].hcrank, g[~en].hq_share)[0]), 3),
        "spearman_pr_hq_share": round(float(spearmanr(g.prank, g.hq_share)[0]), 3),
        "median_hc_english": round(float(g[en].hcrank.median()), 2),
        "median_hc_non_english": round(float(g[~en].hcrank.median()), 2),
        "spearman_coverage_hq_share": round(float(spearmanr(m.nutch_fetched / m.nutch_numRecords,
                                                            m.hq_share)[0]), 3),
        "known_urls_total": int(m.nutch_numRecords.sum()), "fetched_urls_total": int(m.nutch_fetched.sum()),
        "hosts_missing_from_graph": int((~hosts.in_graph).sum()),
        "graph_vertices": marker["graph_vertices"], "graph_edges": marker["graph_edges"],
        "mean_true_quality_english": round(float(hosts[hosts.language == "en"].quality.mean()), 3),
        "mean_true_quality_non_english": round(float(hosts[hosts.language != "en"].quality.mean()), 3),
    })
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in out.items()}


def score_icc(root: str | Path, classifier: str = "gneissweb_quality", every: int = 3) -> dict:
    """ICC1 of a small fastText model's scores on every ``every``-th demo page (trafilatura text).

    The model is trained on ``labelled_texts`` as the demo models are; the point is how much of
    the planted between-host share survives text generation, extraction and a real classifier.
    """
    # fasttext, trafilatura, warcio: heavy, loaded only for these demo measurements
    import fasttext
    import trafilatura
    from warcio.archiveiterator import ArchiveIterator

    root = Path(root)
    pages = pd.read_parquet(root / "ground_truth" / "pages.parquet").set_index("url")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("".join(f"{label} {text.replace(chr(10), ' ')}\n"
                         for label, text in labelled_texts(classifier, 4000, seed=0)))
    model = fasttext.train_supervised(fh.name, epoch=5, wordNgrams=2, dim=32, minCount=2, verbose=0, seed=1,
                                      thread=1)
    Path(fh.name).unlink()
    rows = []
    with gzip.open(root / "warc.paths.gz", "rt") as listing:
        files = [root / line.strip() for line in listing if line.strip()]
    k = 0
    for path in files:
        with open(path, "rb") as stream:
            for rec in ArchiveIterator(stream):
                url = rec.rec_headers.get_header("WARC-Target-URI")
                if rec.rec_type != "response" or url not in pages.index:
                    continue
                k += 1
                if k % every:
                    continue
                text = trafilatura.extract(rec.content_stream().read(), favor_precision=True,
                                           include_comments=False)
                if not text:
                    continue
                probs = {lab: p for p, lab in model.f.predict(text.replace("\n", " ") + "\n", 2, 0.0, "strict")}
                rows.append((url, pages.loc[url, "host"], pages.loc[url, "page_type"],
                             pages.loc[url, "true_quality"], probs.get("__label__hq", 0.0)))
    df = pd.DataFrame(rows, columns=["url", "host", "page_type", "true_quality", "score"])
    sizes = df.host.value_counts()
    df = df[df.host.isin(sizes[sizes >= 3].index)]
    regular = df[df.page_type.isin(["home", "listing", "article"])]
    return {"classifier": classifier, "documents": len(df), "hosts": int(df.host.nunique()),
            "icc1_true_quality_sample": round(icc1(df.true_quality, df.host), 3),
            "icc1_score": round(icc1(df.score, df.host), 3),
            "icc1_score_regular_hosts": round(icc1(regular.score, regular.host), 3),
            "spearman_score_true_quality": round(float(spearmanr(df.score, df.true_quality)[0]), 3)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] != "--scores"):
        print("usage: python -m crawlplan.demo.stats DEMO_DIR [--scores]", file=sys.stderr)
        return 2
    result = measure(argv[0])
    if len(argv) == 2:
        result["scores"] = score_icc(argv[0])
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
