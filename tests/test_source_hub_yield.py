"""A target crawl's hubs by the distinct target links one page yields (``target_hubs: yield``),
on a hand-made forum sample whose tag pages list overlapping threads and whose thread lists
list disjoint ones (the shape of the five demo forums, no real site)."""

import json

import numpy as np
import pytest

from crawlplan.source import navigation as nav
from crawlplan.source.crawl import TargetFeedback, target_hubs
from crawlplan.source.learner import SitemapLearner

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
    return learner


def test_sample_yields_count_distinct_links_per_sampled_page():
    learner = _learner()
    kinds = learner.kind_yield_
    thread_family = next(f for f in kinds[LIST] if "/t/" in f)
    assert kinds[TAG][thread_family][""] == pytest.approx(6 / 4)     # 24 links, 6 distinct, 4 pages
    assert kinds[LIST][thread_family][""] == pytest.approx(12 / 2)   # 12 links, all distinct, 2 pages
    home_family = next(f for f in kinds[TAG] if f not in (thread_family,))
    assert sum(kinds[TAG][home_family].values()) == pytest.approx(1 / 4)   # the sidebar counts once
    # extrapolated counts N[(C_i, x)][C_j], scaled by the row's distinct share, per sampled page
    n_tag_row = learner.navigation_[(TAG, "row")][THREAD]
    assert learner.cluster_yield_[TAG][THREAD] == pytest.approx(n_tag_row * (6 / 24) / 4)
    assert learner.cluster_yield_[LIST][THREAD] == pytest.approx(learner.navigation_[(LIST, "row")][THREAD] / 2)


def test_yield_ranks_disjoint_lists_above_overlapping_tags_where_hits_does_not():
    hits = target_hubs(_learner(target_hubs="hits"), THREAD)
    assert hits[TAG] > hits[LIST]            # the paper: all 24 tag links vs the lists' 12
    by_yield = target_hubs(_learner(), THREAD)
    assert by_yield[LIST] > by_yield[TAG] > 0
    assert sum(by_yield.values()) == pytest.approx(1.0)


def test_a_link_into_the_lists_outranks_one_into_the_tags_in_the_target_crawl():
    learner = _learner()
    learner.url_families_ = {}          # no URL family: the target is the thread cluster
    rows = {k: nav.row_probabilities(v) for k, v in learner.navigation_.items()}
    learner.navigation_[(THREAD, "to-tag")] = {TAG: 1.0}
    learner.navigation_[(THREAD, "to-list")] = {LIST: 1.0}
    rows.update({(THREAD, "to-tag"): {TAG: 1.0}, (THREAD, "to-list"): {LIST: 1.0}})
    fb = TargetFeedback(learner, rows, target=THREAD)
    assert fb.score((THREAD, "to-list")) > fb.score((THREAD, "to-tag"))


def test_the_family_target_counts_links_by_url():
    """When the example's family is the target, a cluster's worth is its distinct links into
    the family: a home link on every page adds nothing to the thread lists' worth."""
    from crawlplan.source.crawl import ExampleFamily
    from crawlplan.source.url_kinds import url_family

    learner = _learner()
    family = ExampleFamily(url_family(_thread(3)))
    worth = target_hubs(learner, THREAD, family)
    assert worth[LIST] == pytest.approx(6 / (6 + 1.5))
    assert worth[TAG] == pytest.approx(1.5 / (6 + 1.5))
    assert worth[THREAD] == 0.0


def test_presets_validation_and_json_round_trip():
    assert SitemapLearner(method="paper").target_hubs_ == "hits"
    assert SitemapLearner().target_hubs_ == "yield"
    with pytest.raises(ValueError, match="target_hubs"):
        SitemapLearner(target_hubs="pagerank").validate()
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
