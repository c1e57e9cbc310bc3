"""Samplers, the crawl simulator, baselines and metrics on the synthetic forum."""

import pytest
from settings_support import sitemap_learner, sitemap_settings
from test_source_synth import HOST, TYPES, bfs_order, forum_pages

from crawlplan.source import navigation as nav
from crawlplan.source.baselines import MDLClustering, TPMCrawler, _generalise, link_schema
from crawlplan.source.crawl import CrawlSimulator, sample_apath, sample_bfs
from crawlplan.source.evaluate import (
    PageTyper,
    clustering_scores,
    cv_precision,
    harvest_ceiling,
    target_scores,
    ucc_scores,
)
from crawlplan.source.experiment import SiteSpec, evaluate_site, host_plan, train_site
from crawlplan.source.mirror import SitePage, build_mirror
from crawlplan.source.target import TargetFeedback


def _forum_mirror(xpath_classes):
    pages = forum_pages(n_boards=4, threads_per_board=10, n_users=8)
    order = bfs_order(pages)
    return build_mirror(HOST, [SitePage(u, i, 200, pages[u].encode()) for i, u in enumerate(order)],
                        xpath_classes=xpath_classes)


@pytest.fixture(scope="module")
def mirror():
    """Bags in the default method's XPath variant."""
    return _forum_mirror("elements")


@pytest.fixture(scope="module")
def paper_mirror():
    return _forum_mirror("none")


@pytest.fixture(scope="module")
def spec():
    return SiteSpec(HOST, TYPES, ["thread"], "thread", f"https://{HOST}/t/3")


def test_apath_sampler_thins_the_queue(mirror):
    apath = sample_apath(mirror, 1000, seed=0)
    bfs = sample_bfs(mirror, 1000)
    assert apath[0] == bfs[0] == mirror.entry
    assert len(set(apath)) == len(apath) and len(bfs) == len(mirror)
    assert len(apath) < len(bfs)                  # one link per (page, Apath) is enqueued
    assert sample_apath(mirror, 5, seed=0) == sample_apath(mirror, 1000, seed=0)[:5]
    assert sample_apath(mirror, 1000, seed=1) != apath or len(apath) < 5


def test_bfs_crawl_is_capture_order(paper_mirror):
    learner, _ = train_site(paper_mirror, sitemap_settings(method="paper"))
    steps = CrawlSimulator(paper_mirror, learner).run("bfs", 20)
    assert [s.url for s in steps] == sample_bfs(paper_mirror, 20)
    assert all(s.score == 0 for s in steps)


def test_mirror_and_sitemap_must_share_the_xpath_variant(mirror, paper_mirror):
    with pytest.raises(ValueError, match="XPath"):
        train_site(paper_mirror, sitemap_settings(method="default"))
    learner, _ = train_site(paper_mirror, sitemap_settings(method="paper"))
    with pytest.raises(ValueError, match="XPath"):
        CrawlSimulator(mirror, learner)


def test_crawls_respect_budget_and_never_repeat(mirror, spec):
    learner, _ = train_site(mirror, sitemap_settings(method="default"))
    sim = CrawlSimulator(mirror, learner, frontier_cap=50)
    for mode in ("ucc", "target"):
        steps = sim.run(mode, 30, example=spec.example)
        assert len(steps) == 30 and len({s.url for s in steps}) == 30
        assert [s.step for s in steps] == list(range(30))
    with pytest.raises(ValueError):
        sim.run("target", 10)
    with pytest.raises(ValueError):
        sim.run("target", 10, example="https://elsewhere/")


def test_source_beats_bfs_on_the_forum(mirror, spec):
    learner, sample = train_site(mirror, sitemap_settings(method="default"))
    rows = evaluate_site(mirror, learner, sample, spec, sitemap_settings(method="default", cv=False))
    got = {(r["task"], r["method"], r["metric"]): r["value"] for r in rows}
    assert got[("ucc", "source", "valid_ratio")] > got[("ucc", "bfs", "valid_ratio")]
    assert got[("target", "source", "harvest_rate")] > got[("target", "bfs", "harvest_rate")]
    assert ("target", "tpm", "harvest_rate") in got and ("clustering", "mdl", "micro_f") in got
    # the crawler's own verdict (its target cluster) counts pages, so it lies in [0, 1]
    assert 0.0 < got[("target", "source_own", "harvest_rate")] <= 1.0
    for a in ("no_dsim", "no_balance", "info_only", "dsim_balance"):
        assert ("ucc", f"source_{a}", "valid_ratio") in got


def test_target_feedback_demotes_rows_that_yield_no_targets():
    """Two rows lead to the target cluster 1 equally often in the sample; the crawler's own
    fetches say only one does. With feedback the other falls behind; without (paper) it stays."""
    table = {(0, "a"): {1: 2.0, 0: 2.0}, (0, "b"): {1: 2.0, 0: 2.0}, (1, "c"): {1: 1.0}}
    rows = {k: nav.row_probabilities(v) for k, v in table.items()}
    for weight, apart in ((5.0, True), (0.0, False)):
        learner = sitemap_learner(target_feedback=weight, target_score="paper")   # the paper's blend
        learner.navigation_, learner.clusters_ = table, [0, 1]
        fb = TargetFeedback(learner, rows, target=1)
        before = fb.score((0, "b"))
        for _ in range(6):
            fb.observe((0, "a"), 1)
            fb.observe((0, "b"), 0)
        assert (fb.score((0, "a")) > before > fb.score((0, "b"))) is apart
        if not apart:   # the paper: alpha P(C_t | row) + (1 - alpha) sum_j P(C_j | row) h_j, fixed
            hub = 0.5 * fb.hubs[0] + 0.5 * fb.hubs[1]
            assert fb.score((0, "a")) == fb.score((0, "b")) == pytest.approx(0.8 * 0.5 + 0.2 * hub)
        assert fb.score((9, "unseen")) == 0.0
    assert sitemap_learner(method="paper").target_feedback_ == 0.0
    with pytest.raises(ValueError, match="target_feedback"):
        sitemap_learner(target_feedback=-1).validate()
    with pytest.raises(ValueError, match="balance_weight"):
        sitemap_learner(balance_weight=2).validate()


def test_host_plan_ranks_patterns(mirror, spec):
    learner, sample = train_site(mirror, sitemap_settings(method="default"))
    plan = host_plan(learner, top=5)
    assert [r["rank"] for r in plan] == list(range(1, len(plan) + 1))
    assert all(0.0 <= r["expected_share"] <= 1.0 + 1e-9 for r in plan)
    assert plan[0]["wanted_basis"] == "structure"
    labelled = host_plan(learner, cluster_wanted={c: 1.0 for c in learner.clusters_}, top=50)
    assert all(r["expected_share"] == pytest.approx(1.0) for r in labelled)


def test_mdl_groups_identical_schemas_and_merges_close_ones():
    a, b, c = frozenset("abcdefghij"), frozenset("abcdefghik"), frozenset("xyz")
    m = MDLClustering().fit([a, a, b, c, c])
    assert m.labels_[0] == m.labels_[1] == m.labels_[2]       # Jaccard(a, b) = 2/11 < 0.2
    assert m.labels_[3] == m.labels_[4] != m.labels_[0]
    assert m.predict([frozenset("xy")]) == [m.labels_[3]]
    assert link_schema([("p", "u"), ("p", "v"), ("q", "w")]) == frozenset({"p", "q"})


def test_tpm_patterns_generalise_differing_segments(mirror):
    pats = _generalise(["https://h/t/1", "https://h/t/22", "https://h/u/x"])
    assert any(p.match("https://h/t/999") for p in pats)
    assert not any(p.match("https://h/a/b/c") for p in pats)
    tpm = TPMCrawler(mirror, lambda u: "/t/" in u)
    got = tpm.run(20)
    assert got[0] == mirror.entry and len(got) == len(set(got)) <= 20


def test_clustering_scores_by_hand():
    types = ["a"] * 4 + ["b"] * 4 + ["rare"]
    perfect = clustering_scores(types, [0] * 4 + [1] * 4 + [2], 4)
    assert perfect["micro_f"] == perfect["macro_f"] == perfect["micro_purity"] == 1.0
    assert perfect["pages"] == 8                               # 'rare' is an annotation outlier
    merged = clustering_scores(types, [0] * 8 + [0], 4)
    assert merged["micro_f"] == pytest.approx(2 * 0.5 * 1 / 1.5)
    outliers = clustering_scores(types, [-1] * 8 + [0], 4)       # outliers are singleton clusters
    assert outliers["micro_f"] == pytest.approx(2 * 1 * 0.25 / 1.25)
    assert outliers["outliers"] == 8 and outliers["clusters"] == 0


def test_crawl_metrics_by_hand():
    u = ucc_scores(["t", "t", "x", None], {"t"}, available_valid=4)
    assert u["valid_ratio"] == 0.5 and u["recall"] == 0.5 and u["f"] == 0.5
    assert u["entropy"] == pytest.approx(1.5)
    t = target_scores(["t", "t", "x"], "t", available=2)
    assert t["harvest_rate"] == pytest.approx(2 / 3) and t["recall"] == 1.0


def test_harvest_ceiling_counts_the_list_pages_a_crawl_must_pay():
    links = {"home": ["l1", "l2"], "l1": ["t1", "t2"], "l2": ["t3"], "t1": [], "t2": [], "t3": []}
    is_t = lambda u: u.startswith("t")  # noqa: E731
    assert harvest_ceiling(links, is_t, 3) == pytest.approx(2 / 3)     # l1 + t1 + t2
    links["t1"] = ["t3"]                                                 # targets reach targets
    assert harvest_ceiling(links, is_t, 3) == pytest.approx(2 / 3)
    assert harvest_ceiling({"a": []}, is_t, 3) == 0.0


def test_cv_precision_and_typer(paper_mirror):
    typer = PageTyper(TYPES)
    urls = list(paper_mirror.pages)
    got = cv_precision(lambda: sitemap_learner(method="paper"), [paper_mirror.pages[u].xpaths for u in urls],
                       [typer(u) for u in urls])
    assert 0.9 <= got["micro_precision"] <= 1.0
    with pytest.raises(ValueError):
        PageTyper({"x": "(unclosed"})


def test_host_plans_loader(tmp_path):
    import pandas as pd

    from crawlplan.source.plans import PLAN_COLUMNS, load_host_plans

    rows = [{"site": s, "rank": r, "cluster": 0, "apath": "/a", "expected_share": 1.0 / r, "links_seen": 3.0,
             "wanted_basis": "labels"} for s in ("b.test", "a.test") for r in (2, 1, 3)]
    (tmp_path / "host_plans").mkdir()
    pd.DataFrame(rows, columns=PLAN_COLUMNS).to_parquet(tmp_path / "host_plans" / "part-0.parquet")
    got = load_host_plans(tmp_path / "host_plans", top=2)
    assert got[["site", "rank"]].values.tolist() == [["a.test", 1], ["a.test", 2], ["b.test", 1], ["b.test", 2]]
    with pytest.raises(FileNotFoundError):
        load_host_plans(tmp_path / "missing")


def test_crawl_curve_prefix_metrics():
    from crawlplan.source.experiment import crawl_curve

    rows = crawl_curve("target", "source", ["t", "x", "t", "t"], {"t"}, available=5)
    by = {(r["pages"], r["metric"]): r["value"] for r in rows}
    assert by[(1, "harvest_rate")] == 1.0 and by[(2, "harvest_rate")] == 0.5
    assert by[(4, "harvest_rate")] == 0.75 and by[(4, "recall")] == 3 / 5
    ucc = crawl_curve("ucc", "bfs", ["a"] * 100, {"a"}, available=200)
    assert len({r["pages"] for r in ucc}) == 20 and max(r["pages"] for r in ucc) == 100
    assert {r["metric"] for r in ucc} == {"valid_ratio", "recall"}
    assert crawl_curve("ucc", "bfs", [], {"a"}, 3) == []
