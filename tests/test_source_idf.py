"""``idf: smooth`` (crawlplan/source/learner.py ``idf_weights``) on a hand-made manual: one kind of
page fills most of the sample and its pages differ only by their content blocks (tables, lists,
listings, notes); an index of another template stands beside it. With the paper's idf the
chapter template sits on nearly every page and weighs almost nothing, so the chapters split by
their content; smooth idf keeps the template in every vector, so they are one cluster, and the
index stays apart."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.learner import SitemapLearner, idf_weights

LAYOUT = {"/html/body/div[header]/a": 3, "/html/body/div[footer]/p": 1}
BLOCKS = {"table": ("div[body]/table/tr/td", "div[body]/table/tr"), "list": ("div[body]/ul/li", "div[body]/ul/li/a"),
          "code": ("div[body]/pre/span[k]", "div[body]/pre"), "note": ("div[body]/div[note]/p", "div[body]/div[note]")}


def _manual(seed: int, chapters: int = 60, indexes: int = 10):
    """Chapters: one template (a sidebar of 30 links, prev/next, title, paragraphs) with each
    content block present at random; index pages: another template (a definition list)."""
    rng = random.Random(seed)
    bags, kinds = [], []
    for _ in range(chapters):
        bag = dict(LAYOUT)
        bag.update({f"/html/body/div[side]/ul/li[l{j}]/a": 1 for j in range(30)})
        bag.update({"/html/body/div[nav]/a[prev]": 1, "/html/body/div[nav]/a[next]": 1, "/html/body/div[body]/h1": 1,
                    "/html/body/div[body]/p": rng.randint(3, 9), "/html/body/div[toc]/ul/li/a": rng.randint(2, 5)})
        for block in sorted(BLOCKS):
            if rng.random() < 0.5:
                bag.update({f"/html/body/{path}": rng.randint(1, 4) for path in BLOCKS[block]})
        bags.append(bag)
        kinds.append("chapter")
    for _ in range(indexes):
        bag = dict(LAYOUT)
        bag.update({"/html/body/div[index]/dl/dt/a": rng.randint(20, 40), "/html/body/div[index]/dl/dd": rng.randint(20, 40),
                    "/html/body/div[index]/h2": 3})
        bag.update({f"/html/body/div[side]/ul/li[l{j}]/a": 1 for j in range(3)})
        bags.append(bag)
        kinds.append("index")
    return bags, kinds


def _clusters_of(labels, kinds, kind) -> set[int]:
    return {c for c, k in zip(labels.tolist(), kinds) if k == kind}


def test_idf_weights():
    w = idf_weights([8, 4, 1], 8, "plain")
    assert w.tolist() == [0.0, 1.0, 3.0]                      # the paper's Eq 1: a path on every page weighs 0
    s = idf_weights([8, 4, 1], 8, "smooth")
    assert s[0] == 1.0 and s[1] == pytest.approx(np.log2(3)) and s[2] == pytest.approx(np.log2(9))
    assert (np.diff(s) > 0).all()                             # rarer still weighs more
    with pytest.raises(ValueError, match="idf must be plain or smooth"):
        idf_weights([1], 1, "bm25")


def test_smooth_idf_joins_a_kind_split_by_content_and_keeps_another_template_apart():
    """Ten drawn manuals (seeded): the mechanism is a tendency of the clustering, not a rule, so
    it is counted over the draws (plain splits the chapters in 8 of 10, smooth joins them in 8)."""
    split, joined = 0, 0
    for seed in range(10):
        bags, kinds = _manual(seed)
        plain = sitemap_learner(idf="plain").fit(bags).labels_
        smooth = sitemap_learner(idf="smooth").fit(bags).labels_
        split += len(_clusters_of(plain, kinds, "chapter")) >= 2
        chapters, index = _clusters_of(smooth, kinds, "chapter"), _clusters_of(smooth, kinds, "index")
        joined += len(chapters) == 1 and -1 not in chapters
        assert len(index) == 1 and not index & chapters       # the other template stays apart, always
    assert split >= 7 and joined >= 8


def test_idf_presets_checks_and_round_trip():
    assert sitemap_learner().idf_mode_ == "plain" and sitemap_learner(method="paper").idf_mode_ == "plain"
    with pytest.raises(ValueError, match="idf must be one of plain, smooth"):
        sitemap_learner(idf="max").validate()
    bags, kinds = _manual(1)
    learner = sitemap_learner(idf="smooth").fit(bags)
    assert Counter(zip(kinds, learner.labels_.tolist()))[("chapter", int(learner.labels_[0]))] == 60
    again = SitemapLearner.from_json(learner.to_json())
    assert again.idf_mode_ == "smooth" and np.allclose(again.idf_, learner.idf_)
    assert (again.predict(bags) == learner.predict(bags)).all()


def test_kinds_by_smooth_idf_report_the_smooth_clusters_and_leave_the_crawl_states_plain():
    """``kinds: smooth_idf``: the sitemap's kinds are a smooth-idf clustering of the sample (the
    manual's chapters one kind) while its clusters, which the navigation table and the crawls
    read, stay those of plain idf; a page's kind is predicted by the kind model, and the whole
    sitemap survives its JSON."""
    seed = next(s for s in range(10)   # a draw where plain idf splits the chapters (8 of 10 above)
                if len(_clusters_of(sitemap_learner(idf="plain").fit(_manual(s)[0]).labels_, _manual(s)[1], "chapter")) >= 2)
    one_kind_each = {"kinds": "clusters", "kind_join": 0}
    bags, kinds = _manual(seed)
    plain = sitemap_learner(idf="plain", **one_kind_each).fit(bags)
    smooth = sitemap_learner(idf="smooth", **one_kind_each).fit(bags)
    both = sitemap_learner(idf="plain", kinds="smooth_idf", kind_join=0).fit(bags)   # kinds alone, no join
    assert (both.labels_ == plain.labels_).all() and (both.kind_labels_ == smooth.labels_).all()
    assert len(_clusters_of(both.kind_labels_, kinds, "chapter")) < len(_clusters_of(both.labels_, kinds, "chapter"))
    fresh, _ = _manual(2)
    assert (both.predict_kind(fresh) == smooth.predict(fresh)).all()
    assert (both.predict(fresh) == plain.predict(fresh)).all()
    again = SitemapLearner.from_json(both.to_json())
    assert (again.kind_labels_ == both.kind_labels_).all() and (again.predict_kind(fresh) == both.predict_kind(fresh)).all()
    assert (again.predict(fresh) == both.predict(fresh)).all()
    # without it a cluster is its own kind, and the file carries no kind model
    assert (plain.kind_labels_ == plain.labels_).all() and (plain.predict_kind(fresh) == plain.predict(fresh)).all()
    assert SitemapLearner.from_json(plain.to_json()).kind_model_ is None
    assert sitemap_learner().kinds_ == "smooth_idf" and sitemap_learner(method="paper").kinds_ == "clusters"
    with pytest.raises(ValueError, match="kinds must be one of clusters, smooth_idf"):
        sitemap_learner(kinds="types").validate()
