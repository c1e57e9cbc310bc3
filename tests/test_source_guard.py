"""The BFS guard (``crawl_guard: bfs``, crawlplan/source/guard.py): its shadow is BFS's own order,
a crawl led astray by a wrong sitemap keeps up with BFS, and — issue 30's item 4 — on every
labelled site available, at every budget of the curves, the target crawl's harvest rate and the
UCC crawl's recall are at least BFS's minus 0.02."""

from __future__ import annotations

from pathlib import Path

import build_sites
import pytest
from settings_support import read_limits, sitemap_learner, sitemap_settings
from test_source_synth import HOST, TYPES, bfs_order, forum_pages

from crawlplan.source.crawl import CrawlSimulator, sample_bfs
from crawlplan.source.evaluate import gaps_to_bfs
from crawlplan.source.experiment import (
    SiteSpec,
    crawl_curve,
    evaluate_site,
    feature_mode,
    site_specs,
    train_site,
)
from crawlplan.source.guard import BfsShadow
from crawlplan.source.mirror import SitePage, build_mirror, read_site_pages
from crawlplan.source.target import TargetFeedback

REPO = Path(__file__).resolve().parents[1]
SITES = REPO / "data" / "sites"
TOLERANCE = 0.02          # the issue's: never below BFS's minus 0.02


def built_site_mirror(site: str):
    """A labelled package site's mirror from data/sites (scripts/build_sites.py), with the
    default's XPath features; the test skips, with the reason, where the site is not built."""
    path = SITES / f"{site}.warc.gz"
    if not path.is_file():
        pytest.skip(f"{path} absent: build the labelled sites with scripts/build_sites.py")
    raw = read_site_pages([str(path)], limits=read_limits())[site]
    return build_mirror(site, raw, xpath_classes=feature_mode(sitemap_settings(method="default")))


@pytest.fixture(scope="module")
def forum():
    pages = forum_pages(n_boards=4, threads_per_board=10, n_users=8)
    return build_mirror(HOST, [SitePage(u, i, 200, pages[u].encode()) for i, u in enumerate(bfs_order(pages))],
                        xpath_classes="elements")


def test_the_shadow_walks_bfs_order(forum):
    """Fetching BFS's next page every time gives the BFS crawl's order, and pages the crawl
    fetched already are walked over for free (never fetched twice)."""
    shadow = BfsShadow(forum, forum.entry, cap=3000, worth=lambda row, url: None, slack=0.0)
    fetched: dict = {}
    order = []
    while len(order) < 25:
        shadow.advance(fetched)
        url, _row = shadow.head()
        page = forum.resolve(url)
        order.append(page)
        fetched[page] = (0, 0.0)
    assert order == sample_bfs(forum, 25)
    # a page fetched out of order (by the scored frontier) is passed without a fetch
    later = sample_bfs(forum, 40)[30]
    fetched[later] = (0, 1.0)
    while shadow.prefix < 31:
        shadow.advance(fetched)
        page = forum.resolve(shadow.head()[0])
        fetched[page] = (0, 0.0)
    assert later in shadow.done and shadow.prefix_gain == 1.0


def test_the_guard_keeps_a_misled_target_crawl_level_with_bfs(forum, monkeypatch):
    """A target crawl whose ranking goes astray — here every link is ranked by its chance of
    *not* being a target, as a crawl drawn into a neighbouring cluster by its hub terms would —
    falls below BFS; with the guard, which judges by the sitemap's own P(target | row) and the
    crawl's own hits, it stays within the tolerance of BFS at every budget, and takes BFS's
    pages to do so."""
    monkeypatch.setattr(TargetFeedback, "score", lambda self, row, url=None: 1.0 - self._p_target(row))
    spec = SiteSpec(HOST, TYPES, ["thread"], "thread", f"https://{HOST}/t/3")
    types = {u: spec.typer(u) for u in forum.pages}
    budget = sum(t == "thread" for t in types.values())
    curves = {}
    for guard in ("off", "bfs"):
        learner, _ = train_site(forum, sitemap_settings(method="default", target_url="off", crawl_guard=guard))
        sim = CrawlSimulator(forum, learner)
        steps = {mode: sim.run(mode, budget, example=spec.example) for mode in ("bfs", "target")}
        curves[guard] = [row for mode, method in (("bfs", "bfs"), ("target", "source"))
                         for row in crawl_curve("target", method, [types[s.url] for s in steps[mode]], {"thread"}, budget)]
        assert not any(s.bfs for s in steps["bfs"])
        assert any(s.bfs for s in steps["target"]) == (guard == "bfs")
    assert gaps_to_bfs(curves["off"])["target"][0] < -TOLERANCE      # the misled crawl alone
    assert gaps_to_bfs(curves["bfs"])["target"][0] >= -TOLERANCE


def test_the_guard_is_a_setting():
    assert sitemap_learner(method="paper").crawl_guard_ == "off"
    assert sitemap_learner(method="default").crawl_guard_ == "bfs"
    with pytest.raises(ValueError, match="crawl_guard"):
        sitemap_learner(crawl_guard="sometimes").validate()
    with pytest.raises(ValueError, match="crawl_guard_slack"):
        sitemap_learner(crawl_guard_slack=-0.1).validate()


def _never_below_bfs(mirror, spec, **options) -> dict:
    """The default's crawls (with ``options``) on one site with the bench's budgets
    (``evaluate_site``, as ``bench/source_loso.py crawls`` runs them): the worst gap to BFS per task."""
    settings = sitemap_settings(method="default", cv=False, **options)
    learner, sample = train_site(mirror, settings)
    curves: list[dict] = []
    evaluate_site(mirror, learner, sample, spec, settings, curves=curves)
    return gaps_to_bfs(curves)


# where the default falls more than the tolerance below BFS on the ground truth (docs/source.md,
# "Never below BFS"), as strict expected failures with the reason: the guard compares by the
# crawler's own verdict, which cannot see these. git's target crawl was here until issue 30's
# round 6 (kind_markers clusters_flat), Tornado's UCC crawl until round 9 (crawl_guard_slack 0);
# GnuCash's guide, the design site round 10 added for its split kinds, is here from the day it
# was added; Free Pascal's FCL reference, the validation site round 11 added, from its first score;
# Boost's and Ocamlnet's references, the validation sites round 12 added, from their first score;
# Pike's, round 13's, from its first score; the Lazarus LCL, the design site round 16 added for Free
# Pascal's shape, from its first score until round 25 (the member cut in the crawl's clusters:
# target -0.022 -> -0.014). Since round 13 (ucc_unit: kind) every UCC crawl held until the LCL.
KNOWN_BELOW_BFS: dict[str, str] = {
    "www.gnucash.org": "the section pages split into several clusters by optional blocks, one of them "
                       "shared with the license pages: the target crawl's verdict (the example's cluster) "
                       "sees a fraction of the sections BFS finds, and the guard judges by that verdict "
                       "(target -0.072 at its full budget, 83 pages, -0.084 until round 29's "
                       "target_listing; the options target_unit: kind and "
                       "split_kind keep it level, below)",
    "www.freepascal.org": "the crawler's verdict (the example's cluster and URL family) counts pages that are "
                          "not identifier pages, the target type: its own hit rate is 0.580 where the labels "
                          "give 0.470 (0.726 and 0.274 until round 25's member cut in the crawl's clusters), "
                          "so the guard, judging by that verdict, does not act (target -0.500 at 206 pages)",
    "projects.camlcity.org": "the target crawl trails BFS by 0.027 at 262 pages (0.023 until round 29's "
                             "target_listing; UCC recall -0.012), then "
                             "passes it: 0.688 vs BFS's 0.616 at the full budget (a validation site: "
                             "nothing was designed on it)",
    "pike.lysator.liu.se": "the target crawl trails BFS by 0.277 at 94 pages, taking the symbol indexes "
                           "first, then passes it: 0.404 vs BFS's 0.323 at the full budget (a validation "
                           "site: nothing was designed on it)",
    "help.libreoffice.org": "the target crawl trails BFS by 0.028 at 784 pages and ends at 0.380 vs BFS's "
                            "0.352 (a validation site, round 14: nothing was designed on it)",
    "macaulay2.com": "the target crawl trails BFS by 0.118 at 339 pages, then passes it: 0.468 vs BFS's 0.357 "
                     "at the full budget (round 29's target_listing takes the table of contents, 593 of its "
                     "1,351 links targets, for the family; until then -0.024 at 42 pages and 0.359; a "
                     "validation site, round 17: nothing was designed on it)",
}


@pytest.mark.slow
@pytest.mark.parametrize("site", [pytest.param(s, marks=pytest.mark.xfail(reason=KNOWN_BELOW_BFS[s], strict=True))
                                  if s in KNOWN_BELOW_BFS else s for s in sorted(build_sites.load_registry())])
def test_never_below_bfs_on_every_built_site(site):
    mirror = built_site_mirror(site)
    gaps = _never_below_bfs(mirror, site_specs(build_sites.site_types())[site])
    assert all(g is not None for g in gaps.values()), gaps
    assert all(g[0] >= -TOLERANCE - 1e-9 for g in gaps.values()), gaps


@pytest.mark.slow
@pytest.mark.parametrize("site, options, task", [
    ("www.gnucash.org", {"target_unit": "kind"}, "target"),
    ("www.boost.org", {"target_unit": "kind"}, "target"),
    ("www.gnucash.org", {}, "ucc"),
    ("www.freepascal.org", {}, "ucc"),
    ("www.gnucash.org", {"target_unit": "split_kind"}, "target"),
    ("lazarus-ccr.sourceforge.io", {"marker_cut": "shapes_members"}, "target"),
    ("lazarus-ccr.sourceforge.io", {"ucc_recurring": "hub"}, "ucc"),
    ("lazarus-ccr.sourceforge.io", {"marker_cut": "shapes_recurring_members", "ucc_recurring": "hub"}, "target ucc"),
])
def test_units_and_cuts_keep_crawls_level_with_bfs_where_the_clusters_did_not(site, options, task):
    """Issue 30's round 13 on the sites whose crawl fell below BFS for a kind split over
    clusters: the default's ``ucc_unit: kind`` keeps GnuCash's (design, where it was made) and
    Free Pascal's (validation) UCC crawls level (-0.048 and -0.072 before); the option
    ``target_unit: kind`` (the rule kept it from the default) GnuCash's and Boost's target crawls.
    Round 17's options (the rule kept both from the default), each on the design site it was made
    for: seeking the example's kind where its cluster is a small piece of it lifts GnuCash's
    target crawl (-0.084 before), the member cut the LCL's (-0.022 before; in the crawl's
    clusters it is the default's since round 25). Round 19's option (the rule kept it from the
    default): a UCC crawl that takes the unit indexes for hubs lifts the LCL's UCC crawl (-0.038
    before). Round 20's option, the recurring cut that also parts the members, with it: both of
    the LCL's crawls level at once."""
    mirror = built_site_mirror(site)
    gaps = _never_below_bfs(mirror, site_specs(build_sites.site_types())[site], **options)
    assert all(gaps[t] is not None and gaps[t][0] >= -TOLERANCE - 1e-9 for t in task.split()), gaps


@pytest.mark.slow
@pytest.mark.parametrize("site", ["docs.python.org", "docs.djangoproject.com"])
def test_never_below_bfs_on_the_shared_mirrors(site, shared_data):
    raw = read_site_pages([str(shared_data / "sites" / f"{site}.warc.gz")], limits=read_limits())[site]
    mirror = build_mirror(site, raw, xpath_classes=feature_mode(sitemap_settings(method="default")))
    gaps = _never_below_bfs(mirror, site_specs(sitemap_settings().site_types)[site])
    assert all(g is not None and g[0] >= -TOLERANCE - 1e-9 for g in gaps.values()), gaps


@pytest.mark.slow
def test_never_below_bfs_on_the_demo_forums():
    from crawlplan.demo.crawl import ensure_demo
    from crawlplan.paths import default_cache_dir
    from crawlplan.warc.listing import resolve_inputs

    paths = ensure_demo(default_cache_dir() / "demo-h300-s0", hosts=300, seed=0, echo=lambda *_: None)
    specs = site_specs({}, paths["ground_truth"])
    raw = read_site_pages(resolve_inputs(paths["warc_paths"]), sites=set(specs), limits=read_limits())
    assert len(raw) >= 3
    for site, pages in sorted(raw.items()):
        mirror = build_mirror(site, pages, xpath_classes=feature_mode(sitemap_settings(method="default")))
        gaps = _never_below_bfs(mirror, specs[site])
        assert all(g is not None and g[0] >= -TOLERANCE - 1e-9 for g in gaps.values()), (site, gaps)
