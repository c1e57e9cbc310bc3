"""``link_context: flat`` and ``min_cluster_share`` (crawlplan/source/link_context.py) on hand-made
samples: a git-shaped site of one template whose index lists commands and concepts under two
Apaths, and clusters too small to be a kind."""

from __future__ import annotations

from collections import Counter

import numpy as np
from settings_support import sitemap_learner

from crawlplan.source.link_context import absorb_small_clusters, flat_site_labels, inlink_rows

DOCS = "https://git.example.org/docs"
COMMANDS = [f"{DOCS}/git-{w}.html" for w in ("add", "am", "bisect", "blame", "branch", "clone", "commit",
                                               "diff", "fetch", "log", "merge", "pull")]
CONCEPTS = [f"{DOCS}/git{w}.html" for w in ("glossary", "hooks", "ignore", "modules", "attributes", "tutorial")]
INDEX = f"{DOCS}/index.html"
CMD_LIST, GUIDE_LIST, SEE_ALSO = "/html/body/div/div/dl/dt/a", "/html/body/div/dl/dt/a", "/html/body/div/p/a"


def _git_sample():
    """One template for every page (one bag shape); the index lists the commands under one Apath
    and the concepts under another; each page links the index and two neighbours of its kind."""
    urls = [INDEX] + COMMANDS + CONCEPTS
    links = [[(CMD_LIST, u) for u in COMMANDS] + [(GUIDE_LIST, u) for u in CONCEPTS]]
    for group in (COMMANDS, CONCEPTS):
        for i in range(len(group)):
            links.append([(SEE_ALSO, INDEX), (SEE_ALSO, group[(i + 1) % len(group)])])
    bags = [{"html/body/div/p": 3 + i % 2, "html/body/div/dl/dt/a": 2} for i in range(len(urls))]
    return urls, links, bags


def test_inlink_rows_are_the_rows_that_link_a_page():
    urls, links, _ = _git_sample()
    bags = inlink_rows(urls, np.zeros(len(urls), dtype=int), links)
    assert bags[1][f"0|{CMD_LIST}"] == 1 and bags[1][f"0|{SEE_ALSO}"] == 1      # the index and a neighbour
    assert bags[-1][f"0|{GUIDE_LIST}"] == 1 and f"0|{CMD_LIST}" not in bags[-1]
    assert bags[0] == Counter({f"0|{SEE_ALSO}": len(urls) - 1})                # every page links the index


def test_a_one_template_site_is_split_by_the_rows_that_link_its_pages():
    urls, links, _ = _git_sample()
    labels = np.zeros(len(urls), dtype=int)

    def by_first_row(bags):      # a stand-in clustering: pages grouped by their list Apath
        kinds = [next((r for r in sorted(b) if "dl" in r), "") for b in bags]
        order = {k: i for i, k in enumerate(dict.fromkeys(kinds))}
        return np.array([order[k] for k in kinds])

    out, added = flat_site_labels(labels, urls, links, by_first_row)
    assert added >= 1
    assert len({out[urls.index(u)] for u in COMMANDS}) == 1 and len({out[urls.index(u)] for u in CONCEPTS}) == 1
    assert out[urls.index(COMMANDS[0])] != out[urls.index(CONCEPTS[0])]
    # a sample the structure already splits (no cluster holds > 90% of it) is left alone
    two = np.array([0] * 10 + [1] * (len(urls) - 10))
    kept, added = flat_site_labels(two, urls, links, by_first_row)
    assert added == 0 and kept.tolist() == two.tolist()


def test_through_fit_the_learner_s_own_clustering_splits_the_lists():
    urls, links, bags = _git_sample()
    flat = sitemap_learner(link_context="flat", url_merge=0, folder_cut="off").fit(bags, urls=urls, links=links)
    plain = sitemap_learner(link_context="off", url_merge=0, folder_cut="off").fit(bags, urls=urls, links=links)
    assert len(set(plain.labels_.tolist()) - {-1}) == 1 and plain.link_split_ == 0
    commands = {int(flat.labels_[urls.index(u)]) for u in COMMANDS}
    concepts = {int(flat.labels_[urls.index(u)]) for u in CONCEPTS}
    assert flat.link_split_ >= 1 and not commands & concepts
    assert sitemap_learner().link_context_ == "off" and sitemap_learner(method="paper").link_context_ == "off"


def test_clusters_below_the_share_become_noise():
    labels = np.array([0] * 50 + [1] * 40 + [2] * 3 + [3] * 6 + [-1])
    out = absorb_small_clusters(labels, 0.05)
    assert out[:90].tolist() == [0] * 50 + [1] * 40 and set(out[90:93].tolist()) == {-1} and out[-1] == -1
    assert out[93:99].tolist() == [2] * 6           # 6 of 100 pages: kept, renumbered
    assert absorb_small_clusters(labels, 0.0).tolist() == labels.tolist()
    assert absorb_small_clusters(np.array([0, 1, 2]), 0.9).tolist() == [0, 1, 2]   # none would be left
