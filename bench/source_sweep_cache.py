"""Cache the SOUrCe training samples of every labelled site with several bag-of-XPaths variants
(one parse per page), so the clustering sweep (bench/source_sweep.py) runs without re-parsing.

    .venv/bin/python bench/source_sweep_cache.py   # -> bench/results/source_sweep_cache.json

A helper of source_sweep.py, not a bench: ``source_sweep.py --smoke`` builds a small cache with
:func:`build` (the 20-host demo's forum) and sweeps it.
"""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
OUT = REPO / "bench" / "results" / "source_sweep_cache.json"


def extract_variants(html) -> dict:
    """Leaf/element tag paths with and without class tokens, counted."""
    from collections import Counter

    from crawlplan.source.features import parse_html, walk_elements, xpath_step

    root = parse_html(html)
    out = {k: Counter() for k in ("tag", "cls_leaf", "cls_all", "elem_tag", "elem_cls")}
    if root is None:
        return out
    for el, _tag, prefix, plain, cls in walk_elements(root, True):
        out["elem_tag"][plain] += 1
        out["elem_cls"][cls] += 1
        if not any(isinstance(c.tag, str) for c in el):
            out["tag"][plain] += 1
            out["cls_all"][cls] += 1
            out["cls_leaf"][f"{prefix[0]}/{xpath_step(el, True)}"] += 1
    return out


def build(smoke: bool = False) -> dict:
    """{site: [{url, type, bags}]} for the training sample of every labelled site (smoke: the
    20-host demo's forum)."""
    from bench_source import _sites

    from crawlplan.source.crawl import sample_apath
    from crawlplan.source.features import normalise_url
    from crawlplan.source.mirror import build_mirror

    warnings.filterwarnings("ignore")
    params, raw, specs, _ = _sites(smoke)
    out = {}
    for site in sorted(raw):
        mirror = build_mirror(site, raw[site])
        sample = sample_apath(mirror, int(params["train_size"]), seed=int(params["seed"]))
        html = {normalise_url(p.url): p.html for p in raw[site] if p.html}
        typer = specs[site].typer
        pages = []
        for u in sample:
            src = html.get(u)
            if src is None:  # alias: the mirror resolved a redirect
                src = next((p.html for p in raw[site] if p.html and mirror.resolve(p.url) == u), None)
            pages.append({"url": u, "type": typer(u), "bags": extract_variants(src)})
        out[site] = pages
        print(site, len(pages), file=sys.stderr)
    return out


def main() -> int:
    OUT.write_text(json.dumps(build()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
