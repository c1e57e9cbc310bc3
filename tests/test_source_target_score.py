"""The target crawl's link score (``target_score``): hubs by the distinct target links a
sampled page yields, and the targets-per-fetch ``rate`` that puts hubs and likely targets on one
scale. Hand-made forum and javadoc-shaped samples, no real site."""

import json

import numpy as np
import pytest

from crawlplan.source import navigation as nav
from crawlplan.source.learner import SitemapLearner
from crawlplan.source.target import ExampleFamily, TargetFeedback, hub_worth
from crawlplan.source.url_kinds import url_family

HOST = "https://f.example"
HOME = f"{HOST}/"
TAG, LIST, THREAD = 0, 1, 2


def _thread(i: int) -> str:
    return f"{HOST}/t/{i}"


def _sample():
    """Four tag pages that each list the same threads 0-5, two thread lists of six threads
    each (6-11 and 12-17), three threads; every page has a sidebar link home."""
    pages = []
    for k in range(4):
        pages.append((f"{HOST}/tag/{k}", TAG, [("nav", HOME)] + [("row", _thread(i)) for i in range(6)]))
    for k in range(2):
        pages.append((f"{HOST}/list?page={k}", LIST,
                      [("nav", HOME)] + [("row", _thread(i)) for i in range(6 + 6 * k, 12 + 6 * k)]))
    for i in (0, 6, 12):
        pages.append((_thread(i), THREAD, [("nav", HOME)]))
    urls, labels, links = zip(*pages)
    return list(urls), list(labels), list(links)


def _learner(**params) -> SitemapLearner:
    urls, labels, links = _sample()
    learner = SitemapLearner(**params)
    learner.labels_ = np.asarray(labels)
    learner.clusters_ = sorted(set(labels))
    learner.fit_navigation(urls, links)
    learner.url_families_ = {}          # no URL family: the target is the thread cluster
    return learner


def test_sample_yields_count_distinct_links_per_sampled_page():
    learner = _learner()
    kinds = learner.kind_yield_
    threads = url_family(_thread(3))
    assert kinds[TAG][threads][""] == pytest.approx(6 / 4)     # 24 links, 6 distinct, 4 pages
    assert kinds[LIST][threads][""] == pytest.approx(12 / 2)   # 12 links, all distinct, 2 pages
    assert sum(kinds[TAG][url_family(HOME)].values()) == pytest.approx(1 / 4)   # the sidebar counts once
    # extrapolated counts N[(C_i, x)][C_j], scaled by the row's distinct share, per sampled page
    assert learner.cluster_yield_[TAG][THREAD] == pytest.approx(learner.navigation_[(TAG, "row")][THREAD] * (6 / 24) / 4)
    assert learner.cluster_yield_[LIST][THREAD] == pytest.approx(learner.navigation_[(LIST, "row")][THREAD] / 2)


def test_yield_ranks_disjoint_lists_above_overlapping_tags_where_hits_does_not():
    hits = hub_worth(_learner(target_score="paper"), THREAD)
    assert hits[TAG] > hits[LIST]            # the paper: all 24 tag links vs the lists' 12
    by_yield = hub_worth(_learner(), THREAD)
    assert by_yield[LIST] > by_yield[TAG] > 0
    assert sum(by_yield.values()) == pytest.approx(1.0)
    links = hub_worth(_learner(), THREAD, normalise=False)
    assert links[LIST] == pytest.approx(_learner().cluster_yield_[LIST][THREAD])


def _feedback(**params) -> TargetFeedback:
    learner = _learner(**params)
    learner.navigation_[(THREAD, "to-tag")] = {TAG: 1.0}
    learner.navigation_[(THREAD, "to-list")] = {LIST: 1.0}
    rows = {k: nav.row_probabilities(v) for k, v in learner.navigation_.items()}
    return TargetFeedback(learner, rows, target=THREAD)


@pytest.mark.parametrize("score", ["yield", "rate"])
def test_a_link_into_the_lists_outranks_one_into_the_tags(score):
    fb = _feedback(target_score=score)
    assert fb.score((THREAD, "to-list")) > fb.score((THREAD, "to-tag"))
    assert _feedback(target_score="paper").score((THREAD, "to-list")) < _feedback(target_score="paper").score((THREAD, "to-tag"))


def test_rate_puts_a_hub_listing_many_targets_above_an_unlikely_target():
    """A package page listing seven new classes is worth 7/8 targets per fetch; a row that is a
    class three times in ten is worth 0.3. The blends weigh the hub by 1 - alpha = 0.2 and take
    the unlikely target."""
    rows = {(0, "source-link"): {1: 0.3, 2: 0.7}, (0, "package-link"): {3: 1.0}}
    for score, hub_first in (("rate", True), ("yield", False), ("paper", False)):
        learner = SitemapLearner(target_score=score, target_feedback=0)
        learner.clusters_ = [0, 1, 2, 3]
        learner.navigation_ = rows
        learner.cluster_yield_ = {3: {1: 7.0}, 0: {1: 1.0}}
        learner.url_families_ = {}
        fb = TargetFeedback(learner, {k: nav.row_probabilities(v) for k, v in rows.items()}, target=1)
        assert (fb.score((0, "package-link")) > fb.score((0, "source-link"))) is hub_first, score
        if score == "rate":
            assert fb.score((0, "package-link")) == pytest.approx(7 / 8)
            assert fb.score((0, "source-link")) == pytest.approx(0.3)
            assert fb.value(1.0, 123.0) == pytest.approx(1.0)     # a sure target is worth 1 whatever it lists


def test_the_family_target_counts_links_by_url():
    """When the example's family is the target, a cluster's worth is its distinct links into
    the family: a home link on every page adds nothing to the thread lists' worth."""
    learner = _learner()
    worth = hub_worth(learner, THREAD, ExampleFamily(url_family(_thread(3))))
    assert worth[LIST] == pytest.approx(6 / (6 + 1.5))
    assert worth[TAG] == pytest.approx(1.5 / (6 + 1.5))
    assert worth[THREAD] == 0.0


def test_presets_validation_and_json_round_trip():
    assert SitemapLearner(method="paper").target_score_ == "paper"
    assert SitemapLearner().target_score_ == "rate"
    with pytest.raises(ValueError, match="target_score"):
        SitemapLearner(target_score="pagerank").validate()
    bags = [{"html/body/div": 1 + i % 2, f"html/body/p{i % 3}": 2} for i in range(12)]
    urls, _, links = _sample()
    urls = (urls * 2)[:12]
    links = (links * 2)[:12]
    fitted = SitemapLearner().fit(bags, urls=urls, links=links)
    back = SitemapLearner.from_json(fitted.to_json())
    assert back.cluster_yield_ == fitted.cluster_yield_ and back.kind_yield_ == fitted.kind_yield_
    old = json.loads(fitted.to_json())
    old["format"] = "crawlplan.sitemap/1"
    with pytest.raises(ValueError, match="learn it again"):
        SitemapLearner.from_json(old)
