"""SOUrCe benchmarks and the side-by-side site table of docs/source.md.

    .venv/bin/python bench/bench_source.py timing    # training time by size, kNN pages/s
    .venv/bin/python bench/bench_source.py sites     # every real site + demo forums, all configurations
    .venv/bin/python bench/bench_source.py --smoke   # both, small: 150 pages; the 20-host demo's forum

Timing: pages are the two documentation mirrors concatenated (530 + 692 = 1,222 pages); the
2,000-page point repeats pages (marked in the output). Features are extracted once up front in
each method's XPath variant (extraction speed is reported separately), then
``SitemapLearner.fit`` (df filter, tf-idf, K-dist, eps, DBSCAN, kNN index) is timed for the paper
and default configurations in the same run; the ratio is default / paper. kNN speed:
``predict`` on all pages with a 1,000-page model of each method, against the MDL baseline's
nearest-schema classifier as the peer.

``--smoke``: timing on the first ``SMOKE_PAGES`` pages of the two mirrors at 50 and 100 pages, one
repeat; then sites on the forum of the 20-host demo and one servo recording, every configuration;
checks that every fit found clusters, the speeds are positive and the site table has a row per
configuration with its scores.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
from benchlib import SHARED, check, demo_crawl, ok, skipped  # noqa: E402

RESULTS = REPO / "bench" / "results"
SIZES = (100, 200, 500, 1000, 2000)
SMOKE_PAGES, SMOKE_SIZES = 150, (50, 100)


def read_limits():
    """The read bounds of conf section extract, as every reader takes them."""
    from crawlplan.conf import load_conf, section
    from crawlplan.warc.reader import ReadLimits

    return ReadLimits.from_params(section(load_conf("local"), "extract"))


def _docs_mirrors():
    from crawlplan.source.mirror import load_mirrors

    return load_mirrors([str(SHARED / "sites" / "docs.python.org.warc.gz"),
                         str(SHARED / "sites" / "docs.djangoproject.com.warc.gz")], limits=read_limits())


def timing(repeats: int, smoke: bool = False) -> dict:
    from crawlplan.conf import load_conf, section
    from crawlplan.source.baselines import MDLClustering, link_schema
    from crawlplan.source.features import extract
    from crawlplan.source.learner import LearnerSettings, SitemapLearner
    from crawlplan.source.mirror import read_site_pages

    conf_learner = section(load_conf("local"), LearnerSettings.SECTION)

    def learner(method: str) -> SitemapLearner:
        return SitemapLearner(LearnerSettings.from_params({**conf_learner, "method": method}))

    raw = read_site_pages([str(SHARED / "sites" / "docs.python.org.warc.gz"),
                           str(SHARED / "sites" / "docs.djangoproject.com.warc.gz")], limits=read_limits())
    pages = [p for site in sorted(raw) for p in raw[site] if p.html]
    if smoke:
        pages = [p for site in sorted(raw) for p in [q for q in raw[site] if q.html][: SMOKE_PAGES // 2]]
    feats, out = {}, {"pool_pages": len(pages), "fit": []}
    for method in ("paper", "default"):   # each method extracts its own XPath variant
        mode = learner(method).xpath_classes_
        t0, c0 = time.perf_counter(), time.process_time()
        feats[method] = [extract(p.url, p.html, xpath_classes=mode) for p in pages]
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[f"extract_{method}_pages_per_s"] = len(pages) / wall
        out[f"extract_{method}_pages_per_cpu_s"] = len(pages) / cpu
        print(f"feature extraction ({method}: {mode}): {len(pages)} pages in {wall:.2f}s wall "
              f"({len(pages) / wall:.0f} pages/s), {cpu:.2f}s CPU ({len(pages) / cpu:.0f} pages/CPU-s); "
              f"load average {__import__('os').getloadavg()[0]:.1f}")
    print("| pages | paper fit s | default fit s | default / paper | default eps from | note |")
    print("|---:|---:|---:|---:|---|---|")
    for n in SMOKE_SIZES if smoke else SIZES:
        row = {"pages": n, "duplicated": n > len(pages)}
        for method in ("paper", "default"):
            X = [feats[method][i % len(pages)] for i in range(n)]
            best = float("inf")
            for _ in range(repeats):
                t = time.perf_counter()
                model = learner(method).fit(X)
                best = min(best, time.perf_counter() - t)
            row[method] = best
            row[f"{method}_eps_source"] = model.eps_source_
            row[f"{method}_clusters"] = model.n_clusters_
        out["fit"].append(row)
        note = f"pages repeat ({len(pages)} distinct)" if row["duplicated"] else ""
        print(f"| {n} | {row['paper']:.2f} | {row['default']:.2f} | {row['default'] / row['paper']:.2f} | "
              f"{row['default_eps_source']} | {note} |")
    schemas = [link_schema(f.links) for f in feats["paper"]]
    mdl = MDLClustering().fit(schemas[:1000])
    t = time.perf_counter()
    mdl.predict(schemas)
    out["mdl_pages_per_s"] = len(pages) / (time.perf_counter() - t)
    for method in ("paper", "default"):
        model = learner(method).fit(feats[method][:1000])
        t = time.perf_counter()
        model.predict(feats[method])
        out[f"knn_{method}_pages_per_s"] = len(pages) / (time.perf_counter() - t)
    print(f"kNN classification (1,000-page model): paper {out['knn_paper_pages_per_s']:.0f} pages/s, default "
          f"{out['knn_default_pages_per_s']:.0f} pages/s; MDL nearest schema: {out['mdl_pages_per_s']:.0f} pages/s; "
          f"ratios kNN / MDL {out['knn_paper_pages_per_s'] / out['mdl_pages_per_s']:.2f} (paper), "
          f"{out['knn_default_pages_per_s'] / out['mdl_pages_per_s']:.2f} (default)")
    return out


CONFIGS = {
    "paper (div: NumFeats/w, authors' code)": {"method": "paper", "num_bins": "div"},
    "paper (mul: w*NumFeats, paper text)": {"method": "paper", "num_bins": "mul"},
    "default (element paths + classes, L2, eps by selection)": {"method": "default"},
    "previous default (paper features, guarded eps)": {"method": "default", "xpath_classes": "none", "norm": "l1",
                                                       "eps_rule": "guarded"},
}
ALTERNATIVES = {
    "default, tag-only leaf XPaths": {"method": "default", "xpath_classes": "none"},
    "default, class-aware leaf XPaths": {"method": "default", "xpath_classes": "all"},
    "default, L1": {"method": "default", "norm": "l1"},
    "default, histogram eps": {"method": "default", "eps_rule": "histogram"},
    "HDBSCAN (min_cluster_size 4) on default features": {"method": "default", "clusterer": "hdbscan"},
}


def _sites(smoke: bool = False):
    """(site, mirror builder args, spec) for every real site and demo forum available (smoke: the
    20-host demo's forum and one servo recording)."""
    from crawlplan.conf import load_conf, section
    from crawlplan.source.experiment import SitemapSettings, site_specs
    from crawlplan.source.mirror import read_site_pages
    from crawlplan.warc.listing import resolve_inputs

    params = section(load_conf("local"), SitemapSettings.SECTION)
    demo = demo_crawl(smoke)
    specs = site_specs(SitemapSettings.from_params(params).site_types, demo["ground_truth"])
    raw = {}
    for name in () if smoke else ("docs.python.org", "docs.djangoproject.com"):
        raw.update(read_site_pages([str(SHARED / "sites" / f"{name}.warc.gz")], limits=read_limits()))
    forums = [s for s in specs if s not in raw and not s.startswith("docs.")]
    raw.update(read_site_pages(resolve_inputs(demo["warc_paths"]), sites=set(forums), limits=read_limits()))
    servo = read_site_pages(sorted(glob.glob(str(SHARED / "warc" / "servo" / "*.warc.gz")))[: 1 if smoke else None],
                            limits=read_limits())
    return params, raw, specs, servo


def sites(with_alternatives: bool, smoke: bool = False) -> dict:
    from crawlplan.source.experiment import SitemapSettings, evaluate_site, feature_mode, train_site
    from crawlplan.source.mirror import build_mirror

    warnings.filterwarnings("ignore")
    params, raw, specs, servo = _sites(smoke)
    configs = dict(CONFIGS, **(ALTERNATIVES if with_alternatives else {}))
    results = []
    for site in sorted(raw, key=lambda s: (not s.startswith("docs."), s)):
        mirrors = {}
        for name, cfg in configs.items():
            p = SitemapSettings.from_params({**params, **cfg})
            xc = feature_mode(p)
            if xc not in mirrors:
                mirrors[xc] = build_mirror(site, raw[site], xpath_classes=xc)
            mirror = mirrors[xc]
            learner, sample = train_site(mirror, p)
            rows = evaluate_site(mirror, learner, sample, specs[site], p)
            got = {f"{r['task']}/{r['method']}/{r['metric']}": r["value"] for r in rows}
            results.append({"site": site, "config": name, "pages": len(mirror), "train": len(sample),
                            "eps": learner.eps_, "eps_source": learner.eps_source_,
                            "clusters": learner.n_clusters_, "outliers": learner.outlier_share_, **got})
            print(json.dumps(results[-1]), file=sys.stderr)
    servo_rows = []
    for site, pages in sorted(servo.items()):
        m = build_mirror(site, pages)
        if len(m) == 0:
            continue
        servo_rows.append({"site": site, "html_pages": len(m), "links": sum(len(f.links) for f in m.pages.values()),
                           "apaths": len({a for f in m.pages.values() for a, _ in f.links})})
    _print_tables(results, servo_rows)
    return {"sites": results, "servo": servo_rows}


def _fmt(v) -> str:
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def _print_tables(results: list[dict], servo_rows: list[dict]) -> None:
    print("\n### Clustering (training sample) and 4-fold classification precision\n")
    print("| site | configuration | pages / trained | eps (rule) | clusters | outlier share | micro-F | macro-F "
          "| micro purity | CV micro precision | MDL micro-F |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        eps = "-" if r["eps"] != r["eps"] else f"{r['eps']:.3f} ({r['eps_source']})"
        print(f"| {r['site']} | {r['config']} | {r['pages']} / {r['train']} | {eps} | {r['clusters']} "
              f"| {r['outliers']:.2f} | {_fmt(r.get('clustering/source/micro_f'))} "
              f"| {_fmt(r.get('clustering/source/macro_f'))} | {_fmt(r.get('clustering/source/micro_purity'))} "
              f"| {_fmt(r.get('classification/source/micro_precision'))} | {_fmt(r.get('clustering/mdl/micro_f'))} |")
    print("\n### Crawls on the mirror (UCC budget = 25% of the mirror; target budget = target pages)\n")
    print("| site | configuration | UCC VR BFS | UCC VR SOUrCe | UCC recall SOUrCe | UCC F SOUrCe | entropy BFS / SOUrCe "
          "| target HR BFS | target HR SOUrCe | target HR TPM | target recall SOUrCe |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['site']} | {r['config']} | {_fmt(r.get('ucc/bfs/valid_ratio'))} "
              f"| {_fmt(r.get('ucc/source/valid_ratio'))} | {_fmt(r.get('ucc/source/recall'))} "
              f"| {_fmt(r.get('ucc/source/f'))} | {_fmt(r.get('ucc/bfs/entropy'))} / {_fmt(r.get('ucc/source/entropy'))} "
              f"| {_fmt(r.get('target/bfs/harvest_rate'))} | {_fmt(r.get('target/source/harvest_rate'))} "
              f"| {_fmt(r.get('target/tpm/harvest_rate'))} | {_fmt(r.get('target/source/recall'))} |")
    print("\n### UCC ablations (valid ratio / entropy)\n")
    print("| site | configuration | full | no Dsim | no Balance | Info only | Dsim x Balance |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        cells = [f"{_fmt(r.get(f'ucc/{m}/valid_ratio'))} / {_fmt(r.get(f'ucc/{m}/entropy'))}"
                 for m in ("source", "source_no_dsim", "source_no_balance", "source_info_only", "source_dsim_balance")]
        print(f"| {r['site']} | {r['config']} | " + " | ".join(cells) + " |")
    if servo_rows:
        print("\n### servo recordings (home pages with sub-resources)\n")
        print("| site | HTML pages | intra-site links | distinct Apaths |")
        print("|---|---:|---:|---:|")
        for r in servo_rows:
            print(f"| {r['site']} | {r['html_pages']} | {r['links']} | {r['apaths']} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=("timing", "sites"), help="required but with --smoke (both)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--alternatives", action="store_true", help="also the measured-and-rejected defaults")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if not args.what and not args.smoke:
        ap.error("give timing or sites (or --smoke)")
    if not (SHARED / "sites").is_dir():
        if args.smoke:
            return skipped(f"shared data not found at {SHARED / 'sites'} (set CRAWLPLAN_SHARED_DATA)")
        print(f"shared data not found at {SHARED}", file=sys.stderr)
        return 1
    if args.smoke:
        return smoke()
    result = timing(args.repeats) if args.what == "timing" else sites(args.alternatives)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"source_{args.what}.json").write_text(json.dumps(result, indent=1, default=str))
    return 0


def smoke() -> int:
    t = timing(1, smoke=True)
    check([r["pages"] for r in t["fit"]] == list(SMOKE_SIZES), f"fit rows {t['fit']}")
    check(all(r[f"{m}_clusters"] > 0 for r in t["fit"] for m in ("paper", "default")), f"a fit found no clusters {t['fit']}")
    check(all(t[k] > 0 for k in t if k.endswith("_per_s")), "a speed is not positive")
    s = sites(False, smoke=True)
    check(len(s["sites"]) == len(CONFIGS) * len({r["site"] for r in s["sites"]}) > 0, f"{len(s['sites'])} site rows")
    check(all(r.get("clustering/source/micro_f") is not None for r in s["sites"]), "a site row has no micro-F")
    (RESULTS / "smoke").mkdir(parents=True, exist_ok=True)
    (RESULTS / "smoke" / "source.json").write_text(json.dumps({"timing": t, **s}, indent=1, default=str))
    return ok(f"timing at {', '.join(map(str, SMOKE_SIZES))} pages; {len(s['sites'])} site rows "
              f"({', '.join(sorted({r['site'] for r in s['sites']}))}), {len(s['servo'])} servo rows")


if __name__ == "__main__":
    sys.exit(main())
