"""What a target crawl seeks (``target_unit``): the example's structural cluster, or every
structural cluster of its kind. A hand-made DocBook-guide-shaped sample, no real site: a
contents hub, the guide's sections split by the structure into two clusters that the kinds join
again, and a license chain of a kind of its own."""

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source import navigation as nav
from crawlplan.source.target import TargetFeedback, cluster_kinds, hub_worth, target_clusters

HOST = "https://guide.example"
CONTENTS, SECTION, SECTION_WITH_TABLES, LICENSE, ODD = 0, 1, 2, 3, 4


def _learner(**params):
    """Sample: 2 contents pages, 6 + 4 sections (two structural clusters, one kind), 3 license
    pages (their own kind) and 2 pages whose cluster the kinds call noise. The contents pages
    link 4 plain sections and 2 sections with tables, 1 license page; a section links the next
    section; a license page the next license page."""
    structural = [CONTENTS] * 2 + [SECTION] * 6 + [SECTION_WITH_TABLES] * 4 + [LICENSE] * 3 + [ODD] * 2
    kinds = [0] * 2 + [1] * 6 + [1] * 3 + [0] + [2] * 3 + [-1] * 2   # one table section in the contents' kind
    learner = sitemap_learner(target_score="paper", **params)
    learner.labels_ = np.asarray(structural)
    learner.kind_labels_ = np.asarray(kinds)
    learner.clusters_ = sorted(set(structural))
    learner.navigation_ = {(CONTENTS, "toc"): {SECTION: 4.0, SECTION_WITH_TABLES: 2.0},
                           (CONTENTS, "appendix"): {LICENSE: 1.0},
                           (SECTION, "next"): {SECTION: 3.0, SECTION_WITH_TABLES: 1.0},
                           (SECTION_WITH_TABLES, "next"): {SECTION: 1.0},
                           (LICENSE, "next"): {LICENSE: 2.0}}
    learner.url_families_ = {}
    return learner


def test_each_cluster_takes_the_kind_most_of_its_sample_pages_have():
    assert cluster_kinds(_learner()) == {CONTENTS: 0, SECTION: 1, SECTION_WITH_TABLES: 1, LICENSE: 2, ODD: -1}


def test_the_preset_seeks_the_example_cluster_and_kind_seeks_its_kind():
    assert sitemap_learner().target_unit_ == "cluster"          # the rule kept it an option (issue 30, round 13)
    assert target_clusters(_learner(), SECTION) == {SECTION}
    kind = _learner(target_unit="kind")
    assert target_clusters(kind, SECTION) == target_clusters(kind, SECTION_WITH_TABLES) == {SECTION, SECTION_WITH_TABLES}
    assert target_clusters(kind, LICENSE) == {LICENSE}
    assert target_clusters(kind, ODD) == {ODD}                   # a cluster of no kind is sought alone
    assert target_clusters(kind, -1) == {-1}                     # so is an outlier example's
    with pytest.raises(ValueError, match="target_unit"):
        sitemap_learner(target_unit="page").validate()


def test_a_kind_target_counts_scores_and_hubs_the_kind_as_one():
    def feedback(learner):
        probs = {k: nav.row_probabilities(v) for k, v in learner.navigation_.items()}
        return TargetFeedback(learner, probs, target=SECTION)

    cluster, kind = feedback(_learner(target_feedback=0)), feedback(_learner(target_unit="kind", target_feedback=0))
    assert not cluster.is_hit(SECTION_WITH_TABLES) and kind.is_hit(SECTION_WITH_TABLES)
    assert not kind.is_hit(LICENSE) and not kind.is_hit(CONTENTS)
    assert cluster.prior((CONTENTS, "toc"))[0] == pytest.approx(4 / 6)
    assert kind.prior((CONTENTS, "toc"))[0] == pytest.approx(1.0)
    assert kind.expected_hit((SECTION_WITH_TABLES, "next")) == pytest.approx(1.0)
    assert kind.prior((CONTENTS, "appendix"))[0] == 0.0
    # the hub on the kind's columns as one: the contents pages' 6 section links, the sections' 4
    hubs = hub_worth(_learner(target_unit="kind"), {SECTION, SECTION_WITH_TABLES})
    A = nav.adjacency(_learner().navigation_, _learner().clusters_)
    both = A[:, [SECTION, SECTION_WITH_TABLES]].sum(axis=1)
    assert [hubs[c] for c in _learner().clusters_] == pytest.approx(list(both / both.sum()))
    # one target cluster: the paper's hub on its column, as before
    single = hub_worth(_learner(), SECTION)
    assert [single[c] for c in _learner().clusters_] == pytest.approx(list(A[:, SECTION] / A[:, SECTION].sum()))
    assert hub_worth(_learner(), {SECTION}) == single
