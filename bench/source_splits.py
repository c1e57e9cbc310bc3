"""The design / validation split of the labelled sites (scripts/sites.yaml, issue 30), reported apart.

Rules and defaults are designed on the design sites; the validation sites are scored once per
candidate default and their figures decide. ``bench/source_loso.py`` prints these tables after its
leave-one-site-out table; sites sites.yaml does not list (the 20-host demo's forum of a smoke
run) are reported as ``unlisted``.
"""

from __future__ import annotations

SPLIT_ORDER = ("design", "validation", "unlisted")


def splits() -> dict[str, dict]:
    """{site: {split, family, added}} for every labelled site of scripts/sites.yaml."""
    import build_sites

    return build_sites.site_splits()


def _g(r: dict, k: str) -> float:
    return r.get(k) or 0.0


def split_summary(rows: list[dict], split_of: dict[str, dict] | None = None) -> list[dict]:
    """Per configuration and split: sites, mean / worst micro-F and purity, worst whole-mirror
    outlier share, mean target harvest rate and the sites whose harvest is at least BFS's."""
    split_of = splits() if split_of is None else split_of
    out = []
    for config in sorted({r["config"] for r in rows}):
        for split in SPLIT_ORDER:
            rs = [r for r in rows if r["config"] == config
                  and split_of.get(r["site"], {}).get("split", "unlisted") == split]
            if not rs:
                continue
            n = len(rs)
            worst = min(rs, key=lambda r: _g(r, "micro_f"))
            out.append({"config": config, "split": split, "sites": n,
                        "mean_micro_f": sum(_g(r, "micro_f") for r in rs) / n,
                        "worst_micro_f": _g(worst, "micro_f"), "worst_site": worst["site"],
                        "mean_purity": sum(_g(r, "micro_purity") for r in rs) / n,
                        "worst_purity": min(_g(r, "micro_purity") for r in rs),
                        "worst_outliers": max(r["full_outlier_share"] for r in rs),
                        "mean_harvest": sum(_g(r, "target/source/harvest_rate") for r in rs) / n,
                        "harvest_ge_bfs": sum(_g(r, "target/source/harvest_rate") >= _g(r, "target/bfs/harvest_rate")
                                              for r in rs)})
    return out


def print_splits(rows: list[dict], detail: str = "default", split_of: dict[str, dict] | None = None) -> None:
    """The split summary of every configuration, then configuration ``detail`` site by site."""
    split_of = splits() if split_of is None else split_of
    print("\n### Design and validation sites\n")
    print("| configuration | split | sites | mean micro-F | worst micro-F (site) | mean purity | worst purity "
          "| worst whole-mirror outliers | mean target HR | target HR >= BFS |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for s in split_summary(rows, split_of):
        print(f"| {s['config']} | {s['split']} | {s['sites']} | {s['mean_micro_f']:.3f} "
              f"| {s['worst_micro_f']:.3f} ({s['worst_site']}) | {s['mean_purity']:.3f} | {s['worst_purity']:.3f} "
              f"| {s['worst_outliers']:.3f} | {s['mean_harvest']:.3f} | {s['harvest_ge_bfs']} / {s['sites']} |")
    got = [r for r in rows if r["config"] == detail]
    if not got:
        return
    print(f"\nconfiguration {detail!r}, site by site:\n")
    print("| split | site | family | pages (trained) | clusters | micro-F | purity | outliers, whole mirror "
          "| UCC VR SOUrCe / BFS | target HR SOUrCe / BFS |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|")
    key = lambda r: (SPLIT_ORDER.index(split_of.get(r["site"], {}).get("split", "unlisted")), r["site"])  # noqa: E731
    for r in sorted(got, key=key):
        info = split_of.get(r["site"], {})
        print(f"| {info.get('split', 'unlisted')} | {r['site']} | {info.get('family', '-')} | {r['pages']} ({r['train']}) "
              f"| {r['clusters']} | {_g(r, 'micro_f'):.3f} | {_g(r, 'micro_purity'):.3f} | {r['full_outlier_share']:.3f} "
              f"| {_g(r, 'ucc/source/valid_ratio'):.3f} / {_g(r, 'ucc/bfs/valid_ratio'):.3f} "
              f"| {_g(r, 'target/source/harvest_rate'):.3f} / {_g(r, 'target/bfs/harvest_rate'):.3f} |")
