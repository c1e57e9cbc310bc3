"""SOUrCe on sites it was not tuned on: leave-one-site-out, whole-site prediction, crawl curves.

    .venv/bin/python scripts/build_sites.py                      # once: data/sites/*.warc.gz (Debian docs)
    .venv/bin/python bench/source_loso.py score                  # every candidate x every labelled site
    .venv/bin/python bench/source_loso.py table                  # LOSO table + outlier shares (docs/source.md)
    .venv/bin/python bench/source_loso.py crawls --png docs/img/source_crawl_curves.png   # curves, all crawlers
    .venv/bin/python bench/source_loso.py plot --png docs/img/source_crawl_curves.png     # redraw the last run
    .venv/bin/python bench/source_loso.py crawls --config "default, structure-only target (target_url off)"   # another configuration's crawls, JSON beside
    .venv/bin/python bench/source_loso.py folders                # the cut by section: none, plain, guarded (default)
    .venv/bin/python bench/source_loso.py --smoke                # score (2 configurations), table, crawls, folders: 20-host demo's forum

Labelled sites: the two shared documentation mirrors, the five demo forums, and every site of
scripts/sites.yaml found in data/sites; each is a design or a validation site (sites.yaml,
``split``), and ``score`` / ``table`` end with both sets reported apart (bench/source_splits.py). ``score`` trains each candidate configuration on each
site's sample (the Apath sampler, ``train_size`` pages) and records the clustering scores on the
sample and the whole-mirror prediction (every page of the mirror classified by the trained
sitemap: outlier share, purity). ``table`` does the selection: for each held-out site the one
configuration meeting the most per-site goals (:func:`goals_met`: the issue's clustering, outlier
and crawl goals) on the *other* sites, among those that collapse none of them (micro-F >=
``COLLAPSED`` on each; then the best mean micro-F, the best worst site, the best mean of UCC valid
ratio and target harvest rate) is scored on it — no per-site parameter, and the held-out site
never votes for its own configuration.

``--smoke``: the forum of the 20-host demo alone (no data/sites, no shared mirrors), ``score`` with
the paper and the default configuration, the LOSO table, ``crawls`` and ``folders``; results in
bench/results/smoke/ (the documented runs' files stay); checks that each step has its rows and
scores.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
import warnings
from collections import Counter
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "scripts"))
RESULTS = REPO / "bench" / "results"
SITES_DIR = REPO / "data" / "sites"

from source_candidates import CANDIDATES  # noqa: E402  (bench/ is on sys.path above)
from source_splits import print_gaps, print_rule, print_splits, splits  # noqa: E402  (bench/ is on sys.path above)


def labelled_sites(only: set[str] | None = None, smoke: bool = False):
    """(params, {site: [SitePage]}, {site: SiteSpec}) for every labelled site available (smoke: the
    20-host demo's forum)."""
    import build_sites
    from bench_source import _sites, read_limits

    from crawlplan.source.experiment import site_specs
    from crawlplan.source.mirror import read_site_pages

    params, raw, specs, _servo = _sites(smoke or SMOKE)
    if smoke or SMOKE:
        return params, raw, specs
    registry = build_sites.load_registry()
    specs.update(site_specs(build_sites.site_types(registry)))
    missing = [s for s in registry if not (SITES_DIR / f"{s}.warc.gz").is_file()]
    if missing:
        print(f"data/sites lacks {', '.join(missing)}: run scripts/build_sites.py", file=sys.stderr)
    for site in registry:
        path = SITES_DIR / f"{site}.warc.gz"
        if path.is_file() and (not only or site in only):
            raw.update(read_site_pages([str(path)], limits=read_limits()))
    if only:
        raw = {s: p for s, p in raw.items() if s in only}
    return params, raw, specs


def score(configs: dict, only: set[str] | None) -> list[dict]:
    from crawlplan.source.evaluate import clustering_scores
    from crawlplan.source.experiment import SitemapSettings, evaluate_site, feature_mode, train_site
    from crawlplan.source.mirror import build_mirror

    warnings.filterwarnings("ignore")
    params, raw, specs = labelled_sites(only)
    rows = []
    for site in sorted(raw):
        mirrors = {}
        typer = specs[site].typer
        for name, cfg in configs.items():
            p = SitemapSettings.from_params({**params, **cfg})
            mode = feature_mode(p)
            if mode not in mirrors:
                mirrors[mode] = build_mirror(site, raw[site], xpath_classes=mode)
            mirror = mirrors[mode]
            t0 = time.perf_counter()
            learner, sample = train_site(mirror, p)
            fit_s = time.perf_counter() - t0
            min_pts = learner.min_pts
            on_sample = clustering_scores([typer(u) for u in sample], learner.kind_labels_.tolist(), min_pts)
            urls = sorted(mirror.pages)
            predicted = learner.predict_kind([mirror.pages[u] for u in urls]).tolist()
            whole = clustering_scores([typer(u) for u in urls], predicted, min_pts)
            crawled = {f"{r['task']}/{r['method']}/{r['metric']}": r["value"]
                       for r in evaluate_site(mirror, learner, sample, specs[site], replace(p, cv=False))
                       if r["task"] in ("ucc", "target") and r["method"] in ("bfs", "source")}
            rows.append({"site": site, "config": name, "pages": len(mirror), "train": len(sample),
                         "eps_source": learner.eps_source_, "fit_s": fit_s,
                         "clusters": on_sample.get("clusters"), "micro_f": on_sample.get("micro_f"),
                         "macro_f": on_sample.get("macro_f"), "micro_purity": on_sample.get("micro_purity"),
                         "train_outlier_share": learner.outlier_share_,
                         "full_outlier_share": sum(c == -1 for c in predicted) / len(predicted),
                         "full_micro_f": whole.get("micro_f"), "full_micro_purity": whole.get("micro_purity"),
                         **crawled})
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


GOALS = 7
SMOKE = False      # set by --smoke: labelled_sites gives the 20-host demo's forum only
# a candidate whose micro-F falls below this on any of the other sites collapsed or shattered
# that site (most pages away from their type's cluster): not eligible, however many goals it meets
COLLAPSED = 0.5


def goals_met(r: dict) -> int:
    """The issue's per-site goals a result meets: micro-F >= 0.75, purity >= 0.90 on the sample
    and on the whole mirror, whole-mirror outlier share <= 5%; UCC valid ratio >= BFS's, UCC
    recall above BFS's, target harvest rate >= 0.90 and above BFS's."""
    g = lambda k: r.get(k) or 0.0  # noqa: E731
    hr, hr_bfs = g("target/source/harvest_rate"), g("target/bfs/harvest_rate")
    return sum((g("micro_f") >= 0.75, g("micro_purity") >= 0.90, g("full_micro_purity") >= 0.90,
                r["full_outlier_share"] <= 0.05,
                g("ucc/source/valid_ratio") >= g("ucc/bfs/valid_ratio") and "ucc/bfs/valid_ratio" in r,
                g("ucc/source/recall") > g("ucc/bfs/recall"), hr >= 0.90 and hr > hr_bfs))


def loso(rows: list[dict]) -> list[dict]:
    """For each held-out site, the configuration chosen on the other sites, scored on it."""
    by = {(r["site"], r["config"]): r for r in rows}
    sites = sorted({r["site"] for r in rows})
    configs = sorted({r["config"] for r in rows})
    out = []

    def merit(config, others):
        got = [by[(s, config)] for s in others if (s, config) in by]
        if not got:
            return (False, -1, -1.0, -1.0, -1.0)
        fs = [r["micro_f"] or 0.0 for r in got]
        crawl = [((r.get("ucc/source/valid_ratio") or 0.0) + (r.get("target/source/harvest_rate") or 0.0)) / 2
                 for r in got]
        return (min(fs) >= COLLAPSED, sum(goals_met(r) for r in got), sum(fs) / len(fs), min(fs),
                sum(crawl) / len(crawl))

    for held in sites:
        others = [s for s in sites if s != held]
        chosen = max((c for c in configs if (held, c) in by), key=lambda c: merit(c, others))  # noqa: B023
        out.append({**by[(held, chosen)], "chosen": chosen})
    return out


def _print_loso(rows: list[dict]) -> None:
    res = loso(rows)
    print("| held-out site | pages (trained) | chosen on the other sites | clusters | micro-F | macro-F "
          "| purity | outliers, sample | outliers, whole mirror | purity, whole mirror |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    # a sample too small to cluster has no clustering scores: "-" in the table, 0 in the means
    g = lambda r, k: r.get(k) or 0.0  # noqa: E731
    f = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    for r in res:
        print(f"| {r['site']} | {r['pages']} ({r['train']}) | {r['chosen']} | {r['clusters']} | {f(r['micro_f'])} "
              f"| {f(r['macro_f'])} | {f(r['micro_purity'])} | {r['train_outlier_share']:.3f} "
              f"| {r['full_outlier_share']:.3f} | {f(r['full_micro_purity'])} |")
    n = len(res)
    print(f"\nmean micro-F {sum(g(r, 'micro_f') for r in res) / n:.5f}, worst {min(g(r, 'micro_f') for r in res):.3f} "
          f"({min(res, key=lambda r: g(r, 'micro_f'))['site']}); mean purity {sum(g(r, 'micro_purity') for r in res) / n:.3f}, "
          f"worst {min(g(r, 'micro_purity') for r in res):.3f}; whole-mirror outliers worst "
          f"{max(r['full_outlier_share'] for r in res):.3f}")
    print(f"held out, crawls: UCC valid ratio >= BFS on {sum(g(r, 'ucc/source/valid_ratio') >= g(r, 'ucc/bfs/valid_ratio') for r in res)}"
          f" / {n}, UCC recall > BFS on {sum(g(r, 'ucc/source/recall') > g(r, 'ucc/bfs/recall') for r in res)} / {n}, "
          f"target harvest rate >= 0.90 and > BFS on "
          f"{sum(g(r, 'target/source/harvest_rate') >= 0.9 and g(r, 'target/source/harvest_rate') > g(r, 'target/bfs/harvest_rate') for r in res)}"
          f" / {n} (mean {sum(g(r, 'target/source/harvest_rate') for r in res) / n:.3f}); site goals met "
          f"{sum(goals_met(r) for r in res)} / {GOALS * n}")
    print("\n| configuration | site goals met | mean micro-F | worst micro-F | mean purity | worst whole-mirror outlier share |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in sorted({r["config"] for r in rows}):
        rs = [r for r in rows if r["config"] == c]
        print(f"| {c} | {sum(goals_met(r) for r in rs)} / {GOALS * len(rs)} | {sum(g(r, 'micro_f') for r in rs) / len(rs):.5f} "
              f"| {min(g(r, 'micro_f') for r in rs):.3f} "
              f"| {sum(g(r, 'micro_purity') for r in rs) / len(rs):.3f} | {max(r['full_outlier_share'] for r in rs):.3f} |")
    print_splits(rows)
    print_rule(rows)


def folder_split(only: set[str] | None) -> list[dict]:
    """The cut by section, measured three ways on each site's sample: the default's clustering
    without it (``folder_cut`` off), a plain cut of every cluster wherever two top folders each
    hold at least minPts of its pages (smaller groups stay with the largest folder), and the
    default's guarded cut (:func:`folder_cuts.cut_by_folder`: no cut where the file names mark
    the kind or the sections are namespaces); and the silhouette of the folder partition inside
    the clusters the plain cut cuts — whether the structure itself tells the folders apart. The
    labels of most sites are folders, so a cut is scored against what it was cut by: the
    columns show what the cut costs sites whose kinds span folders, and what the guards spare."""
    from sklearn.metrics import silhouette_score

    from crawlplan.source.evaluate import clustering_scores
    from crawlplan.source.experiment import SitemapSettings, feature_mode, train_site
    from crawlplan.source.folder_cuts import cut_by_folder
    from crawlplan.source.learner import SitemapLearner
    from crawlplan.source.mirror import build_mirror

    warnings.filterwarnings("ignore")
    params, raw, specs = labelled_sites(only)
    p = SitemapSettings.from_params({**params, **CANDIDATES["default, no cut by section (folder_cut off)"]})
    out = []
    for site in sorted(raw):
        learner, sample = train_site(build_mirror(site, raw[site], xpath_classes=feature_mode(p)), p)
        labels, min_pts = learner.labels_, learner.min_pts
        folders = _top_folders(sample)
        plain, fresh, sils = labels.copy(), int(labels.max()) + 1, []
        for c in sorted(set(labels.tolist()) - {-1}):
            members = [i for i in range(len(sample)) if labels[i] == c]
            sizes = Counter(folders[i] for i in members if folders[i] is not None)
            big = [f for f, k in sizes.most_common() if k >= min_pts]
            if len(big) < 2:
                continue
            rows = [i for i in members if folders[i] in big]
            sils.append((len(rows), silhouette_score(learner.train_vectors_[rows], [folders[i] for i in rows])))
            for f in big[1:]:
                plain[[i for i in members if folders[i] == f]] = fresh
                fresh += 1
        guarded = cut_by_folder(labels, sample, min_pts, markers=SitemapLearner(p.learner).markers_in_clusters_)[0]
        types = [specs[site].typer(u) for u in sample]
        by_alpha = {str(a): clustering_scores(types, cut_by_folder(labels, sample, min_pts, alpha=a, markers=SitemapLearner(p.learner).markers_in_clusters_)[0].tolist(),
                                              min_pts).get("micro_f") for a in NAMESPACE_LEVELS}
        scored = {how: clustering_scores(types, lab.tolist(), min_pts)
                  for how, lab in (("off", labels), ("plain", plain), ("guarded", guarded))}
        out.append({"site": site, "clusters_cut": len(sils),
                    "silhouette": sum(n * s for n, s in sils) / sum(n for n, _ in sils) if sils else None,
                    **{f"{k}/{how}": r.get(k) for how, r in scored.items()
                       for k in ("micro_f", "micro_purity", "clusters")}, "micro_f_by_level": by_alpha})
        print(json.dumps(out[-1]), file=sys.stderr)
    return out


# levels of the namespace test the folders table is also scored at (the default is 0.05)
NAMESPACE_LEVELS = (0.001, 0.01, 0.05, 0.1, 0.2)


def _top_folders(urls: list[str]) -> list[str | None]:
    """Each URL's section below the sample's root (``url_kinds.top_folder``; None outside it)."""
    from crawlplan.source.url_kinds import folder_root, top_folder

    root = folder_root(urls)
    return [top_folder(u, root) for u in urls]


def _print_folder_split(rows: list[dict]) -> None:
    f = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    trio = lambda r, k: " / ".join(f(r[f"{k}/{h}"]) if k != "clusters" else str(r[f"{k}/{h}"])  # noqa: E731
                                   for h in ("off", "plain", "guarded"))
    print("| site | micro-F no cut / plain cut / default | purity no cut / plain / default "
          "| clusters no cut / plain / default | clusters the plain cut cuts | folder silhouette inside them |")
    print("|---|---|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['site']} | {trio(r, 'micro_f')} | {trio(r, 'micro_purity')} | {trio(r, 'clusters')} "
              f"| {r['clusters_cut']} | {f(r['silhouette'])} |")
    n = len(rows)
    print("\nmean micro-F " + " / ".join(f"{sum(r[f'micro_f/{h}'] for r in rows) / n:.5f}" for h in ("off", "plain", "guarded")))
    print("\nmicro-F of the guarded cut by the namespace test's level (sites where the level matters):\n")
    print("| site | " + " | ".join(str(a) for a in NAMESPACE_LEVELS) + " |")
    print("|---|" + "---:|" * len(NAMESPACE_LEVELS))
    for r in rows:
        got = [r["micro_f_by_level"][str(a)] for a in NAMESPACE_LEVELS]
        if max(got) - min(got) > 1e-9:
            print(f"| {r['site']} | " + " | ".join(f(v) for v in got) + " |")


def crawls(config: dict, only: set[str] | None, png: Path | None) -> list[dict]:
    from crawlplan.source.evaluate import gaps_to_bfs
    from crawlplan.source.experiment import SitemapSettings, evaluate_site, feature_mode, train_site
    from crawlplan.source.features import normalise_url
    from crawlplan.source.mirror import build_mirror

    warnings.filterwarnings("ignore")
    params, raw, specs = labelled_sites(only)
    p = SitemapSettings.from_params({**params, **config, "cv": False})
    curves, summary = [], []
    for site in sorted(raw):
        mirror = build_mirror(site, raw[site], xpath_classes=feature_mode(p))
        learner, sample = train_site(mirror, p)
        site_curves: list[dict] = []
        html = {normalise_url(page.url): page.html for page in raw[site] if page.html}
        rows = evaluate_site(mirror, learner, sample, specs[site], p, curves=site_curves, html=html)
        got = {f"{r['task']}/{r['method']}/{r['metric']}": r["value"] for r in rows}
        gaps = {f"gap_to_bfs/{task}": g for task, g in gaps_to_bfs(site_curves).items()}
        summary.append({"site": site, **got, **gaps})
        curves += [{"site": site, **c} for c in site_curves]
        print(site, json.dumps({k: round(v, 3) for k, v in got.items() if k.startswith(("ucc/bfs", "ucc/source/",
                                                                                      "target/"))}), file=sys.stderr)
    if png:
        _plot(curves, png)
    return {"summary": summary, "curves": curves}


def _print_crawls(summary: list[dict]) -> None:
    f = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    _print_crawl_table(summary, f)
    print_gaps(summary)


def _print_crawl_table(summary: list[dict], f) -> None:
    print("| site | clustering micro-F SOUrCe / MDL / iRobot | iRobot clusters | UCC VR BFS / SOUrCe / iRobot "
          "| UCC recall BFS / SOUrCe / iRobot | target HR BFS / SOUrCe / TPM | target HR ceiling | target recall SOUrCe "
          "| SOUrCe's own hit rate |")
    print("|---|---|---:|---|---|---|---:|---:|---:|")
    for r in summary:
        def g(*keys, r=r):
            return " / ".join(f(r.get(k)) for k in keys)
        print(f"| {r['site']} | {g('clustering/source/micro_f', 'clustering/mdl/micro_f', 'clustering/irobot/micro_f')} "
              f"| {'-' if r.get('clustering/irobot/clusters') is None else int(r['clustering/irobot/clusters'])} "
              f"| {g('ucc/bfs/valid_ratio', 'ucc/source/valid_ratio', 'ucc/irobot/valid_ratio')} "
              f"| {g('ucc/bfs/recall', 'ucc/source/recall', 'ucc/irobot/recall')} "
              f"| {g('target/bfs/harvest_rate', 'target/source/harvest_rate', 'target/tpm/harvest_rate')} "
              f"| {f(r.get('target/ceiling/harvest_rate'))} | {f(r.get('target/source/recall'))} "
              f"| {f(r.get('target/source_own/harvest_rate'))} |")


def _plot(curves: list[dict], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sites = sorted({c["site"] for c in curves})
    cols = 4
    rows = -(-len(sites) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows), squeeze=False)
    style = {("ucc", "bfs"): ("tab:gray", "--"), ("ucc", "source"): ("tab:blue", "-"),
             ("ucc", "irobot"): ("tab:purple", "-."),
             ("target", "bfs"): ("tab:gray", ":"), ("target", "source"): ("tab:red", "-"),
             ("target", "tpm"): ("tab:green", "-.")}
    for ax, site in zip(axes.ravel(), sites):
        for (task, method), (color, ls) in style.items():
            pts = [(c["pages"], c["value"]) for c in curves if c["site"] == site and c["task"] == task
                   and c["method"] == method and c["metric"] in ("valid_ratio", "harvest_rate")]
            if pts:
                ax.plot(*zip(*sorted(pts)), color=color, ls=ls, lw=1.2, label=f"{task} {method}")
        ax.set_title(site, fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.tick_params(labelsize=6)
    for ax in axes.ravel()[len(sites):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=5, loc="lower right")
    fig.supxlabel("pages crawled (budget)", fontsize=8)
    fig.supylabel("UCC valid ratio / target harvest rate", fontsize=8)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=55)


def _crawls_file(config: str) -> str:
    """The default's crawls in source_loso_crawls.json (docs/source.md), another configuration's
    beside it, so comparing one does not overwrite the documented run."""
    if config == "default":
        return "source_loso_crawls.json"
    return "source_loso_crawls-" + "".join(c if c.isalnum() else "_" for c in config) + ".json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=("score", "table", "crawls", "plot", "folders"),
                    help="required but with --smoke (score, table, crawls, folders on a small site)")
    ap.add_argument("--configs", default="", metavar="NAMES",
                    help="';'-separated names of bench/source_candidates.py (default: all of them)")
    ap.add_argument("--sites", default="", help="comma-separated subset of the labelled sites")
    ap.add_argument("--split", default="", choices=("", "design", "validation"),
                    help="only the design or the validation sites (scripts/sites.yaml)")
    ap.add_argument("--results", type=Path, default=RESULTS / "source_loso.json")
    ap.add_argument("--png", type=Path, default=None, help="crawls: also draw the curves")
    ap.add_argument("--config", default="default", metavar="NAME",
                    help="crawls, plot: one name of bench/source_candidates.py (default: default)")
    ap.add_argument("--smoke", action="store_true", help="tiny input, outputs checked (bench/run_all.py --smoke)")
    args = ap.parse_args()
    if args.smoke:
        return smoke()
    if not args.what:
        ap.error("give score, table, crawls, plot or folders (or --smoke)")
    only = {s for s in args.sites.split(",") if s} or None
    if args.split:   # the sites sites.yaml (or labelled_elsewhere) puts in that split
        in_split = {s for s, v in splits().items() if v["split"] == args.split}
        only = in_split if only is None else only & in_split
    names = [c.strip() for c in args.configs.split(";") if c.strip()] or list(CANDIDATES)
    for name in [*names, args.config]:
        if name not in CANDIDATES:
            near = difflib.get_close_matches(name, list(CANDIDATES), n=3, cutoff=0.5)
            ap.error(f"unknown configuration {name!r}: the names are the keys of bench/source_candidates.py"
                     + (f"; did you mean {near}?" if near else ""))
    if args.what == "score":
        rows = score({n: CANDIDATES[n] for n in names}, only)
        RESULTS.mkdir(parents=True, exist_ok=True)
        if args.results.is_file():   # merge with earlier runs (other configs / sites), not with withdrawn candidates
            keep = {(r["site"], r["config"]) for r in rows}
            rows += [r for r in json.loads(args.results.read_text())
                     if (r["site"], r["config"]) not in keep and r["config"] in CANDIDATES]
        args.results.write_text(json.dumps(rows, indent=1))
        _print_loso(rows)
    elif args.what == "table":
        _print_loso(json.loads(args.results.read_text()))
    elif args.what == "folders":  # the cut by section, measured (docs/source.md)
        rows = folder_split(only)
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "source_loso_folders.json").write_text(json.dumps(rows, indent=1))
        _print_folder_split(rows)
    elif args.what == "plot":     # redraw / reprint the last crawls run
        out = json.loads((RESULTS / _crawls_file(args.config)).read_text())
        _print_crawls(out["summary"])
        if args.png:
            _plot(out["curves"], args.png)
    else:
        out = crawls(CANDIDATES[args.config], only, args.png)
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / _crawls_file(args.config)).write_text(json.dumps(out))
        _print_crawls(out["summary"])
    return 0


def smoke() -> int:
    global SMOKE
    from benchlib import check, ok

    SMOKE = True
    names = ["paper", "default"]
    rows = score({n: CANDIDATES[n] for n in names}, None)
    sites = sorted({r["site"] for r in rows})
    check(sites and len(rows) == len(names) * len(sites), f"{len(rows)} score rows for {len(sites)} site(s)")
    check(all(r["micro_f"] is not None and 0 <= r["full_outlier_share"] <= 1 for r in rows), "a row lacks its scores")
    _print_loso(rows)
    check(len(loso(rows)) == len(sites), "the LOSO table lacks a site")
    out = crawls(CANDIDATES["default"], None, None)
    _print_crawls(out["summary"])
    check(len(out["summary"]) == len(sites) and out["curves"], "crawls: no summary row or no curve")
    folders = folder_split(None)
    _print_folder_split(folders)
    check(len(folders) == len(sites), f"{len(folders)} folder rows")
    (RESULTS / "smoke").mkdir(parents=True, exist_ok=True)
    (RESULTS / "smoke" / "source_loso.json").write_text(json.dumps({"score": rows, "crawls": out["summary"],
                                                                    "folders": folders}, indent=1, default=str))
    return ok(f"score {len(rows)} rows ({', '.join(sites)}), LOSO table, crawls with {len(out['curves'])} curve points, "
              "folders")


if __name__ == "__main__":
    sys.exit(main())
