"""The design / validation split of the labelled sites (scripts/sites.yaml, issue 30), reported apart,
and issue 30's rule for keeping a default (:func:`prefers`).

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


# issue 30's rule: a rule stays a default only if it raises the validation mean and lowers no
# validation site by more than this micro-F or target harvest rate
RULE_TOLERANCE = 0.02
RULE_FIGURES = (("micro_f", "micro-F"), ("target/source/harvest_rate", "target HR"))


def prefers(rows: list[dict], a: str, b: str, split: str = "validation",
            split_of: dict[str, dict] | None = None) -> dict:
    """Configuration ``a`` against ``b`` on one split, by issue 30's rule: the means of micro-F,
    target harvest rate and UCC valid ratio, the sites where ``a`` is more than ``RULE_TOLERANCE``
    below ``b`` in micro-F or harvest (and the reverse), and whether ``a`` passes — no mean of
    micro-F or harvest lower, one of the three means higher, no site more than the tolerance lower."""
    split_of = splits() if split_of is None else split_of
    by = {(r["site"], r["config"]): r for r in rows}
    sites = sorted(s for s in {r["site"] for r in rows} if split_of.get(s, {}).get("split") == split
                   and (s, a) in by and (s, b) in by)
    out = {"sites": len(sites), "a_lower": [], "b_lower": []}
    for key, _name in RULE_FIGURES + (("ucc/source/valid_ratio", "UCC VR"),):
        out[key] = tuple(sum(_g(by[(s, c)], key) for s in sites) / max(1, len(sites)) for c in (a, b))
    for s in sites:
        for key, name in RULE_FIGURES:
            va, vb = _g(by[(s, a)], key), _g(by[(s, b)], key)
            if va < vb - RULE_TOLERANCE:
                out["a_lower"].append(f"{s} {name} {va:.3f} < {vb:.3f}")
            if vb < va - RULE_TOLERANCE:
                out["b_lower"].append(f"{s} {name} {vb:.3f} < {va:.3f}")
    means = [out[k] for k, _ in RULE_FIGURES] + [out["ucc/source/valid_ratio"]]
    higher = any(x > y + 1e-9 for x, y in means)
    out["passes"] = bool(sites) and not out["a_lower"] and higher and all(x >= y - 1e-9 for x, y in means[:2])
    return out


def print_rule(rows: list[dict], default: str = "default", split_of: dict[str, dict] | None = None) -> None:
    """Each configuration against ``default`` on the validation sites, by issue 30's rule."""
    split_of = splits() if split_of is None else split_of
    print("\n### Issue 30's rule on the validation sites (each configuration against the default)\n")
    print("| configuration | mean micro-F default / it | mean target HR default / it | mean UCC VR default / it "
          "| default > 0.02 below it | it > 0.02 below the default | default passes over it | it passes over the default |")
    print("|---|---|---|---|---|---|---|---|")
    for config in sorted({r["config"] for r in rows} - {default}):
        d = prefers(rows, default, config, split_of=split_of)
        c = prefers(rows, config, default, split_of=split_of)
        if not d["sites"]:
            continue
        pair = lambda key, d=d: f"{d[key][0]:.3f} / {d[key][1]:.3f}"  # noqa: E731
        print(f"| {config} | {pair('micro_f')} | {pair('target/source/harvest_rate')} | {pair('ucc/source/valid_ratio')} "
              f"| {'; '.join(d['a_lower']) or '-'} | {'; '.join(d['b_lower']) or '-'} "
              f"| {'yes' if d['passes'] else 'no'} | {'yes' if c['passes'] else 'no'} |")


# the never-below-BFS goal: at every budget of the curves, the target crawl's harvest rate and the
# UCC crawl's recall are at least BFS's minus this (issue 30, item 4)
BFS_TOLERANCE = 0.02


def print_gaps(summary: list[dict], split_of: dict[str, dict] | None = None) -> None:
    """Per site of a ``source_loso.py crawls`` run, the worst gap to BFS over the curves' budgets
    (``gap_to_bfs/<task>``: ``evaluate.gaps_to_bfs``), and on how many sites it is within the goal."""
    split_of = splits() if split_of is None else split_of
    print("\nWorst gap to BFS over the curves' budgets (SOUrCe minus BFS; goal: >= "
          f"-{BFS_TOLERANCE}):\n")
    print("| site | split | target harvest rate (at pages) | UCC recall (at pages) |")
    print("|---|---|---|---|")
    held = 0
    for r in summary:
        gaps = [r.get(f"gap_to_bfs/{task}") for task in ("target", "ucc")]
        cells = ["-" if g is None else f"{g[0]:+.3f} ({g[1]})" for g in gaps]
        held += all(g is None or g[0] >= -BFS_TOLERANCE - 1e-9 for g in gaps)
        print(f"| {r['site']} | {split_of.get(r['site'], {}).get('split', 'unlisted')} | {cells[0]} | {cells[1]} |")
    print(f"\nnever below BFS - {BFS_TOLERANCE} at any budget (target harvest rate and UCC recall): "
          f"{held} / {len(summary)} sites")
