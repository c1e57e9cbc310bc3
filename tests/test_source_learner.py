"""SitemapLearner: eps rules, clustering, kNN, navigation table, HITS, scoring, JSON round trip."""

import json
from collections import Counter

import numpy as np
import pytest
from settings_support import sitemap_learner
from test_source_synth import forum_pages

from crawlplan.source import navigation as nav
from crawlplan.source.eps import eps_from_histogram, w_for_size
from crawlplan.source.features import extract
from crawlplan.source.learner import SitemapLearner


def _forum(seed=0):
    pages = forum_pages(seed=seed)
    urls = sorted(pages)
    feats = [extract(u, pages[u]) for u in urls]
    kind = [("thread" if "/t/" in u else "board" if "/f/" in u else "user" if "/u/" in u
             else "login" if "login" in u else "index") for u in urls]
    return urls, feats, kind


def test_w_interpolates_the_papers_table():
    assert w_for_size(1000) == 4.8 and w_for_size(100) == 16.0
    assert w_for_size(50) == 16.0 and w_for_size(5000) == 4.8
    assert 6.0 < w_for_size(400) < 12.0


def test_eps_histogram_rule_and_fallback():
    kd = np.array([0.1] * 10 + [0.2] * 6 + [0.5, 0.9])
    # 4 bins over [0.1, 0.9]: counts 16, 0, 1, 1 -> bin 1 (count 0 < 4, cumulative 16 > 9)
    assert eps_from_histogram(kd, num_feats=4, min_pts=4, w=1.0) == pytest.approx(0.3)
    assert eps_from_histogram(np.array([]), 10, 4) == 0.10
    # the two NumBins readings give different bin counts, hence different eps
    assert eps_from_histogram(kd, 8, 4, num_bins="div", w=2.0) != eps_from_histogram(kd, 8, 4, num_bins="mul", w=2.0)


def test_clusters_follow_templates():
    urls, feats, kind = _forum()
    learner = sitemap_learner(method="paper").fit(feats, urls=urls)
    by_cluster = {}
    for k, c in zip(kind, learner.labels_):
        by_cluster.setdefault(int(c), Counter())[k] += 1
    for c, counts in by_cluster.items():
        counts.pop("index", None)                              # one page: an annotation outlier
        if c != -1:
            assert len(counts) <= 1, counts                    # every cluster is one template
    assert learner.n_clusters_ >= 3
    assert learner.vocabulary_ == sorted(learner.vocabulary_) and learner.n_features_ == len(learner.vocabulary_)


def test_predict_normalises_new_pages():
    urls, feats, _ = _forum()
    learner = sitemap_learner().fit(feats)
    doubled = [Counter({p: 2 * n for p, n in f.xpaths.items()}) for f in feats]
    same = learner.predict(feats)
    # log-tf changes with counts, but normalisation (L2 here) keeps a page in its cluster
    assert (learner.predict(doubled) == same).mean() > 0.9
    assert (same == learner.labels_).mean() > 0.9


def test_binary_tf_and_max_df():
    """``binary_tf`` weighs an XPath by presence, so a page and its doubled copy are the same
    vector; ``max_df`` drops the paths on more than that share of the sample (the layout)."""
    urls, feats, _ = _forum()
    doubled = [Counter({p: 2 * n for p, n in f.xpaths.items()}) for f in feats[:5]]
    binary = sitemap_learner(binary_tf=True).fit(feats)
    assert abs(binary.transform(doubled) - binary.transform(feats[:5])).max() < 1e-12
    layout = sitemap_learner(max_df=0.5).fit(feats)
    n = len(feats)
    assert all(sum(p in f.xpaths for f in feats) <= 0.5 * n for p in layout.vocabulary_)
    assert len(layout.vocabulary_) < len(sitemap_learner().fit(feats).vocabulary_)
    for bad in ({"max_df": 0}, {"max_df": 1.5}, {"binary_tf": "yes"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            sitemap_learner(**bad).validate()


def test_json_round_trip_without_pickle():
    urls, feats, _ = _forum()
    learner = sitemap_learner().fit(feats, urls=urls)
    text = learner.to_json()
    json.loads(text)                                           # plain JSON
    back = SitemapLearner.from_json(text)
    assert (back.predict(feats) == learner.predict(feats)).all()
    assert back.navigation_ == learner.navigation_
    assert back.url_families_ == learner.url_families_
    assert sum(sum(kinds.values()) for kinds in back.url_families_.values()) == len(urls)
    assert back.get_params() == learner.get_params()
    assert json.loads(back.to_json()) == json.loads(text)      # nothing lost or retyped on the way back
    assert back.kind_model_ is not None and (back.predict_kind(feats) == learner.predict_kind(feats)).all()
    with pytest.raises(ValueError, match="learn it again"):
        SitemapLearner.from_json('{"format": "other"}')
    for field in ("labels", "params"):                         # cut short: the field named
        cut_short = json.loads(text)
        del cut_short[field]
        with pytest.raises(ValueError, match=f"without its '{field}' field"):
            SitemapLearner.from_json(cut_short)
    cut_short = json.loads(text)
    del cut_short["train"]["indptr"]
    with pytest.raises(ValueError, match="without its 'indptr' field"):
        SitemapLearner.from_json(cut_short)
    with pytest.raises(ValueError, match="a JSON object expected"):
        SitemapLearner.from_json("[1, 2]")


def test_navigation_counts_extrapolate_to_all_links():
    # page p (cluster 0) has an Apath with 4 links, of which two were sampled: one in C1, one in C2
    links = [[("x", "u1"), ("x", "u2"), ("x", "u3"), ("x", "u4")], [], []]
    table = nav.navigation_counts(["p", "u1", "u2"], [0, 1, 2], links, {"p": 0, "u1": 1, "u2": 2})
    assert table == {(0, "x"): {1: 2.0, 2: 2.0}}
    assert nav.row_probabilities(table[(0, "x")]) == {1: 0.5, 2: 0.5}
    A = nav.adjacency(table, [0, 1, 2])
    assert A[0, 1] == 2.0 and A.sum() == 4.0


def test_hits_target_mode_hubs_follow_the_target_column():
    A = np.array([[0, 3, 1], [0, 2, 0], [0, 1, 0]], dtype=float)
    hubs, auths = nav.hits(A, [0, 1, 2], target=1)
    assert auths[1] == pytest.approx(1.0)
    assert hubs[0] == pytest.approx(3 / 6) and hubs[1] == pytest.approx(2 / 6)
    hubs_u, auths_u = nav.hits(A, [0, 1, 2])                  # UCC: diagonal ignored
    assert sum(hubs_u.values()) == pytest.approx(1.0) and hubs_u[0] > hubs_u[1]


def test_cluster_terms():
    assert nav.normalise_dsim({-1: 5.0, 0: 1.0, 1: 3.0}) == {-1: 0.0, 0: 0.25, 1: 0.75}
    counts = Counter({0: 3, 1: 1, -1: 10})
    assert nav.balance(counts, 0) == pytest.approx(1 - 3 / 5)
    # balance_weight: Balance takes at most that share of the score; 0 switches it off
    assert nav.balance(counts, 0, 0.5) == pytest.approx(0.5 + 0.5 * (1 - 3 / 5))
    assert nav.balance(counts, 0, 0.0) == 1.0
    values = nav.ucc_cluster_values({0: 0.5, 1: 0.5}, {0: 0.25, 1: 0.75}, counts)
    assert values[1] > values[0]
    assert nav.ucc_cluster_values({0: 0.5}, {0: 0.25}, Counter(), "info_only") == {0: 0.5}
    assert nav.score_row({0: 0.5, 1: 0.5}, {0: 1.0, 1: 0.0}) == 0.5
    assert nav.entropy({"a": 1, "b": 1}) == 1.0
    with pytest.raises(ValueError):
        nav.ucc_cluster_values({}, {}, Counter(), "nope")


def test_guard_replaces_a_shattering_eps():
    urls, feats, _ = _forum()
    tiny = sitemap_learner(method="paper", eps=1e-9).fit(feats)   # everything an outlier
    assert tiny.outlier_share_ > 0.25
    guarded = sitemap_learner(method="default", eps_rule="guarded", xpath_classes="none", norm="l1")
    guarded.fit(feats)
    assert guarded.outlier_share_ <= 0.25
    shattered = sitemap_learner(method="default", eps_rule="guarded", num_bins="mul", max_outlier_share=0.0)
    shattered.fit(feats)
    assert shattered.eps_source_ in ("histogram", "silhouette")


def test_small_and_bad_input():
    with pytest.raises(ValueError):
        sitemap_learner().fit([])
    with pytest.raises(ValueError):
        sitemap_learner(method="magic")
    one = sitemap_learner().fit([Counter({"/html/body/p": 1})] * 3)
    assert one.labels_.tolist() == [0, 0, 0]


def test_pages_without_shared_xpaths_still_classify():
    learner = sitemap_learner().fit([Counter(), Counter()])            # e.g. frames with no leaves
    assert learner.n_features_ == 0
    assert learner.predict([Counter({"/x": 3})]).tolist() == [int(learner.labels_[0])]
    assert SitemapLearner.from_json(learner.to_json()).predict([Counter()]).tolist() == [int(learner.labels_[0])]


def test_method_presets_and_overrides():
    paper, default = sitemap_learner(method="paper"), sitemap_learner()
    assert (paper.xpath_classes_, paper.norm_, paper.eps_rule_) == ("none", "l1", "histogram")
    assert (default.xpath_classes_, default.norm_, default.eps_rule_) == ("elements", "l2", "select")
    mixed = sitemap_learner(method="paper", norm="l2", eps_rule="select", xpath_classes="all")
    assert (mixed.xpath_classes_, mixed.norm_, mixed.eps_rule_) == ("all", "l2", "select")
    with pytest.raises(ValueError):
        sitemap_learner(norm="l3").fit([Counter({"/a": 1})] * 10)
    with pytest.raises(ValueError):
        sitemap_learner(eps_rule="magic").fit([Counter({"/a": 1})] * 10)


def test_norms_of_training_vectors():
    urls, feats, _ = _forum()
    l1 = sitemap_learner(method="paper").fit(feats).train_vectors_
    l2 = sitemap_learner(xpath_classes="none").fit(feats).train_vectors_
    assert np.allclose(np.asarray(abs(l1).sum(axis=1)).ravel(), 1.0)
    assert np.allclose(np.sqrt(np.asarray(l2.multiply(l2).sum(axis=1)).ravel()), 1.0)


def test_select_rule_keeps_templates_apart_and_round_trips():
    urls, feats, kind = _forum()
    pages = forum_pages(seed=0)
    elem = [extract(u, pages[u], xpath_classes="elements") for u in urls]
    learner = sitemap_learner().fit(elem, urls=urls)
    assert learner.eps_source_ in ("histogram", "silhouette") and learner.eps_ > 0
    by_cluster = {}
    for k, c in zip(kind, learner.labels_):
        by_cluster.setdefault(int(c), Counter())[k] += 1
    for c, counts in by_cluster.items():
        counts.pop("index", None)
        if c != -1:
            assert len(counts) <= 1, counts
    assert learner.n_clusters_ >= 3 and learner.outlier_share_ <= 0.25
    back = SitemapLearner.from_json(learner.to_json())
    assert back.norm_ == "l2" and back.xpath_classes_ == "elements"
    assert (back.predict(elem) == learner.labels_).mean() > 0.9


@pytest.mark.parametrize("override, message", [
    ({"method": "papr"}, "method must be one of"),
    ({"min_pts": 0}, "min_pts must be an integer >= 1"),
    ({"norm": "l3"}, "norm must be one of l1, l2, got 'l3'"),
    ({"xpath_classes": "some"}, "xpath_classes must be one of none, leaf, all, elements"),
    ({"eps_rule": "best"}, "eps_rule must be one of histogram, guarded, select"),
    ({"alpha_ucc": 1.5}, "alpha_ucc must be in"),
    ({"sampler": "dfs"}, "sampler must be one of"),
    ({"train_size": 0}, "train_size must be an integer >= 1"),
    ({"train_size": ""}, "train_size must be an integer >= 1"),   # "" is the method's for sample_floor only
    ({"sample_floor": -1}, "sample_floor must be an integer >= 0"),
    ({"sample_floor": 2.5}, "sample_floor must be an integer >= 0"),
    ({"frontier_cap": 2.5}, "frontier_cap must be an integer >= 1"),
    ({"ucc_budget_share": 0}, "ucc_budget_share must be in"),
])
def test_sitemap_settings_are_checked_before_any_site_is_learned(override, message):
    from crawlplan.conf import get, load_conf
    from crawlplan.source.experiment import SitemapSettings

    params = dict(get(load_conf("local"), "source.sitemaps"))
    SitemapSettings.from_params(params)                                   # the shipped defaults pass
    SitemapSettings.from_params({**params, "train_size": 1000.0})         # a whole number written as a float
    with pytest.raises(ValueError, match=message):
        SitemapSettings.from_params({**params, **override})


def test_noise_within_radius_joins_its_nearest_cluster_and_far_noise_stays():
    from sklearn.cluster import DBSCAN

    urls, feats, _ = _forum()
    eps = 0.3 * sitemap_learner().fit(feats).eps_          # small enough to leave noise
    kept = sitemap_learner(eps=eps, noise_radius=0).fit(feats)
    attached = sitemap_learner(eps=eps, noise_radius=2).fit(feats)
    everything = sitemap_learner(eps=eps, noise_radius=float("inf")).fit(feats)
    X = kept.train_vectors_.toarray()
    raw = DBSCAN(eps=eps, min_samples=4).fit_predict(X)
    assert kept.labels_.tolist() == raw.tolist() and kept.noise_attached_ == 0
    assert everything.outlier_share_ == 0.0
    assert 0 < attached.noise_attached_ and attached.outlier_share_ < kept.outlier_share_
    clustered = np.flatnonzero(raw != -1)
    for i in np.flatnonzero(raw == -1):
        d = np.linalg.norm(X[clustered] - X[i], axis=1)
        if d.min() <= 2 * eps:
            assert attached.labels_[i] == raw[clustered[d.argmin()]]
        else:
            assert attached.labels_[i] == -1
    assert (attached.labels_[raw != -1] == raw[raw != -1]).all()   # clustered pages never move
    assert sitemap_learner(method="paper").noise_radius_ == 0.0 and sitemap_learner().noise_radius_ == 4.0
    assert SitemapLearner.from_json(attached.to_json()).predict(feats).tolist() == attached.predict(feats).tolist()
    # prediction follows the same rule: a training page predicts its own cluster, and a page
    # unlike any clustered page (farther than the radius) is an outlier
    assert (attached.predict(feats)[attached.labels_ != -1] == attached.labels_[attached.labels_ != -1]).all()
    stranger = Counter({path: 40 for path in list(attached.vocabulary_)[:3]})
    assert attached.predict([stranger]).tolist() == [-1]
    with pytest.raises(ValueError, match="noise_radius"):
        sitemap_learner(noise_radius=-1).fit(feats)


def test_no_xpath_passing_the_df_filter_is_one_cluster_not_a_crash():
    """Pages that share no XPath with minPts others (every bag unique) leave no features: the
    site is one cluster, as for a site too small to cluster."""
    bags = [{f"/html/body/div{i}": 1} for i in range(12)]
    learner = sitemap_learner().fit(bags, urls=[f"https://x.example/p{i}.html" for i in range(12)])
    assert learner.n_features_ == 0 and set(learner.labels_.tolist()) == {0}
    assert learner.predict([{"/html/body/div3": 1}]).tolist() == [0]
