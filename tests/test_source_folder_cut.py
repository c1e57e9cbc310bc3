"""A cluster spanning sections of a site is cut by section (``folder_cut``), except where the
sections are namespaces of one kind or the file names mark the kind: synthetic URL sets in the
shapes of Sphinx (Python's library / tutorial / what's new), javadoc (``org/`` and ``junit/``),
rustdoc (``struct.*`` in every module) and Django (release notes beside ``ref/`` and ``topics/``);
no real site."""

import numpy as np
import pytest
from settings_support import sitemap_learner, sitemap_settings

from crawlplan.source.crawl import CrawlSimulator
from crawlplan.source.features import PageFeatures
from crawlplan.source.folder_cuts import cut_by_folder
from crawlplan.source.learner import SitemapLearner
from crawlplan.source.mirror import Mirror
from crawlplan.source.url_kinds import folder_root, top_folder

BASE = "https://docs.example.org/3.11"
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         "sigma tau upsilon phi chi psi omega").split()


def _pages(section: str, n: int, start: int = 0) -> list[str]:
    """``n`` pages named from ``start`` on: two sections whose names coincide are one series over
    them (``section_copies: apart`` keeps such a cluster whole), so kinds take other starts."""
    return [f"{BASE}/{section}/{WORDS[(start + i) % 24]}{(start + i) // 24 or ''}.html" for i in range(n)]


def test_sections_below_the_site_root():
    urls = [f"{BASE}/library/os.html", f"{BASE}/tutorial/intro.html", f"{BASE}/index.html",
            f"{BASE}/c-api/arg/parse.html"] * 5
    root = folder_root(urls)
    assert root == "/3.11/"
    assert [top_folder(u, root) for u in urls[:4]] == ["library", "tutorial", "", "c-api"]
    # one stray page outside the docs (the host's home page, an old /3/ link) moves nothing
    assert folder_root(urls + ["https://docs.example.org/", "https://docs.example.org/3/x.html"]) == root
    assert top_folder("https://docs.example.org/", root) is None
    assert top_folder("https://docs.example.org/3/x.html", root) is None
    assert top_folder("http://[bad", root) is None
    assert folder_root([]) == "/" and top_folder("https://f.example.net", "/") == ""
    assert folder_root(["https://f.example.net/t/1", "https://f.example.net/u/a"]) == "/"


def test_one_template_over_sections_is_cut_largest_section_keeps_the_label():
    """Sphinx-shaped: one prose cluster holds library (12), tutorial (6) and whatsnew (4) pages
    and 2 root pages (under minPts: stay); a second cluster holds the source listings."""
    urls = _pages("library", 12) + _pages("tutorial", 6) + _pages("whatsnew", 4) + [f"{BASE}/about.html",
                                                                                     f"{BASE}/bugs.html"]
    urls += _pages("_modules", 8)
    labels = np.array([0] * 24 + [1] * 8)
    cut, cuts = cut_by_folder(labels, urls, min_pts=4, markers=True)
    assert cut[:12].tolist() == [0] * 12                # library: the largest section keeps 0
    assert set(cut[12:18].tolist()) == {2} and set(cut[18:22].tolist()) == {3}
    assert cut[22:24].tolist() == [0, 0]                # small sections stay with the cluster
    assert cut[24:].tolist() == [1] * 8
    assert cuts == {0: {"library": 0, "tutorial": 2, "whatsnew": 3}}


def test_namespaces_of_one_kind_stay_whole():
    """javadoc-shaped: class, class-use and package pages all live under org/ and junit/ in
    about the same proportions, so no cluster is cut; the root index pages (a section of their
    own in the class-use cluster, with no twin elsewhere) are."""
    urls, labels = [], []
    for label, (org, junit) in enumerate([(30, 6), (20, 4), (15, 3)]):
        urls += [f"https://junit.example.org/javadoc/org/junit/Class{label}x{i}.html" for i in range(org)]
        urls += [f"https://junit.example.org/javadoc/junit/framework/Class{label}x{i}.html" for i in range(junit)]
        labels += [label] * (org + junit)
    urls += [f"https://junit.example.org/javadoc/index-{i}.html" for i in range(5)]
    labels += [1] * 5
    labels = np.array(labels)
    cut, cuts = cut_by_folder(labels, urls, min_pts=4, markers=True)
    assert list(cuts) == [1] and cuts[1]["org"] == cuts[1]["junit"] == 1   # org/junit stay together
    assert set(cut[:36].tolist()) == {0} and set(cut[60:78].tolist()) == {2}
    assert set(cut[-5:].tolist()) == {3}


def test_a_marked_kind_over_modules_is_not_cut():
    """rustdoc-shaped: struct pages in three modules, one cluster, no twin cluster to show the
    modules are namespaces; the ``struct`` marker says the file name names the kind."""
    urls = []
    for module in ("io", "fs", "net"):
        urls += [f"https://docs.example.rs/kit/1.0/kit/{module}/struct.{w.title()}.html" for w in WORDS[:6]]
        urls += [f"https://docs.example.rs/kit/1.0/kit/{module}/fn.{w}.html" for w in WORDS[6:9]]
    labels = np.array(([0] * 6 + [1] * 3) * 3)
    cut, cuts = cut_by_folder(labels, urls, min_pts=4, markers=True)
    assert cuts == {} and cut.tolist() == labels.tolist()


def test_a_twin_in_other_proportions_is_no_namespace():
    """Django-shaped: releases are 96% of one cluster and a third of the other, which holds
    ref/ and topics/ pages too: the test rejects equal proportions, so releases are cut from ref
    and topics; ref and topics, in equal proportions in both, stay together."""
    big = _pages("releases", 96) + _pages("ref", 4) + _pages("topics", 4, 4)
    other = _pages("releases", 8, 96) + _pages("ref", 8, 8) + _pages("topics", 8, 16)
    labels = np.array([0] * 104 + [1] * 24)
    cut, cuts = cut_by_folder(labels, big + other, min_pts=4, markers=True)
    assert cuts[0]["releases"] == 0 and cuts[0]["ref"] == cuts[0]["topics"] != 0
    # in the other cluster ref + topics (16 pages) are the larger part and keep its label
    assert cuts[1]["ref"] == cuts[1]["topics"] == 1 and cuts[1]["releases"] not in (0, 1)
    assert set(cut[96:104].tolist()) == {cuts[0]["ref"]} and set(cut[:96].tolist()) == {0}


def test_outliers_are_never_cut_and_labels_must_pair_with_urls():
    urls = _pages("library", 5) + _pages("tutorial", 5)
    labels = np.array([-1] * 10)
    assert cut_by_folder(labels, urls, 4, markers=True)[0].tolist() == [-1] * 10
    with pytest.raises(ValueError, match="2 labels for 1 URLs"):
        cut_by_folder(np.array([0, 1]), urls[:1], 4, markers=True)


def _prose(i: int) -> dict[str, int]:
    return {"/html/body/div[body]/p": 3 + i, "/html/body/div[body]/h1": 1, "/html/body/div[body]/pre": 1 + i % 2}


def _listing(i: int) -> dict[str, int]:
    return {"/html/body/div[highlight]/pre/span": 40 + i % 5, "/html/body/div[highlight]/pre": 1}


def test_fit_cuts_predict_places_by_section_and_navigation_stays_structural():
    urls = _pages("library", 12) + _pages("tutorial", 8, 24) + _pages("_modules", 8)
    bags = [_prose(i) for i in range(20)] + [_listing(i) for i in range(8)]
    # every prose page links two listings and the next prose page; listings link back to prose
    links = [[("/html/body/div[body]/a[ref]", urls[20 + i % 8]), ("/html/body/div[body]/a[ref]", urls[20 + (i + 1) % 8]),
              ("/html/body/div[body]/a[next]", urls[(i + 1) % 20])] for i in range(20)]
    links += [[("/html/body/div[nav]/a", urls[i])] for i in range(8)]
    learner = sitemap_learner().fit(bags, urls=urls, links=links)
    library, tutorial, listing = learner.labels_[0], learner.labels_[12], learner.labels_[20]
    assert len({library, tutorial, listing}) == 3 and learner.n_clusters_ == 3
    assert learner.folder_cuts_ == {int(library): {"library": int(library), "tutorial": int(tutorial)}}
    # the crawl's clusters: the tutorial part is navigated as the prose cluster it was cut from
    assert learner.structural([tutorial, listing]).tolist() == [library, listing]
    assert learner.clusters_ == sorted({int(library), int(listing)})
    nav_clusters = {c for (c, _), row in learner.navigation_.items()} | {c for row in learner.navigation_.values() for c in row}
    assert nav_clusters == set(learner.clusters_)
    for learned in (learner.hubs_, learner.authorities_, learner.cluster_sizes_, learner.dsim_, learner.cluster_yield_):
        assert set(learned) <= set(learner.clusters_)
    assert learner.cluster_sizes_[int(library)] == 20
    new = [_prose(1), _prose(2), _listing(1)]
    where = [f"{BASE}/tutorial/new.html", f"{BASE}/library/new.html", f"{BASE}/_modules/new.html"]
    assert learner.predict(new, urls=where).tolist() == [tutorial, library, listing]
    # a section the sample never cut, a page outside the root and a page without a URL take the
    # part the largest section kept (the structural cluster's own label)
    outside = [f"{BASE}/faq/new.html", "https://docs.example.org/about.html", None]
    assert learner.predict([_prose(1)] * 3, urls=outside).tolist() == [library] * 3
    assert learner.predict([_prose(1)]).tolist() == [library]     # plain bags: no URL
    back = SitemapLearner.from_json(learner.to_json())
    assert back.folder_cuts_ == learner.folder_cuts_ and back.folder_root_ == learner.folder_root_ == "/3.11/"
    assert back.predict(new, urls=where).tolist() == [tutorial, library, listing]
    assert back.clusters_ == learner.clusters_
    off = sitemap_learner(folder_cut="off").fit(bags, urls=urls, links=links)
    assert off.labels_[0] == off.labels_[12] and off.folder_cuts_ == {}
    assert sitemap_learner(method="paper").folder_cut_ == "off"
    # without the cut, the structural prediction is the same
    assert learner.structural(learner.predict(new, urls=where)).tolist() == off.predict(new).tolist()


def test_cross_validated_precision_places_held_out_pages_by_section():
    from crawlplan.source.evaluate import cv_precision

    urls = _pages("library", 16) + _pages("tutorial", 12, 24) + _pages("_modules", 12)
    bags = [_prose(i) for i in range(28)] + [_listing(i) for i in range(12)]
    types = ["library"] * 16 + ["tutorial"] * 12 + ["listing"] * 12
    with_urls = cv_precision(sitemap_learner, bags, types, urls=urls)
    assert with_urls["micro_precision"] == 1.0
    without = cv_precision(sitemap_learner, bags, types)    # one prose cluster: tutorial pages miss
    assert without["micro_precision"] < 0.8


def test_the_crawl_navigates_by_structural_cluster():
    """A page of a section part is crawled as its structural cluster: the simulator's clusters
    are the navigation table's."""
    urls = _pages("library", 12) + _pages("tutorial", 8, 24)
    bags = [_prose(i) for i in range(20)]
    links = [[("/html/body/div[body]/a", u) for u in urls[1:]]] + [[] for _ in urls[1:]]
    learner = sitemap_learner().fit(bags, urls=urls, links=links)
    assert learner.folder_cuts_
    pages = {u: PageFeatures(url=u, xpaths=bag, links=link) for u, bag, link in zip(urls, bags, links)}
    mirror = Mirror(site="docs.example.org", pages=pages, order=list(urls), xpath_classes=learner.xpath_classes_)
    sim = CrawlSimulator(mirror, learner)
    assert set(sim.cluster_of.values()) == {int(learner.labels_[0])}


@pytest.mark.parametrize("bad", ["on", "folders", 1])
def test_folder_cut_must_be_a_known_mode(bad):
    with pytest.raises(ValueError, match="folder_cut"):
        sitemap_learner(folder_cut=bad).validate()


def test_budget_exports_describe_a_cut_cluster_by_all_its_sections():
    """The within-host plans' URL patterns are per navigation cluster: a section part counts as
    the cluster it was cut from (``part_of``), and a dataset from before the cut (no part_of)
    is read as it is."""
    import pandas as pd

    from crawlplan.policies.export import _navigation_clusters
    from crawlplan.source.plans import cluster_url_patterns

    urls = _pages("library", 6) + _pages("tutorial", 6)
    cut = pd.DataFrame({"site": "docs.example.org", "url": urls, "cluster": [0] * 6 + [2] * 6,
                        "part_of": [0] * 12, "in_training": True})
    patterns = cluster_url_patterns(_navigation_clusters(cut))
    assert list(patterns) == [("docs.example.org", 0)]
    assert patterns[("docs.example.org", 0)]["pattern_recall"] == 1.0   # both sections' shapes
    old = cut.drop(columns=["part_of"])
    assert sorted(cluster_url_patterns(_navigation_clusters(old))) == [("docs.example.org", 0), ("docs.example.org", 2)]


def test_sitemap_rows_carry_the_parts_and_their_structural_cluster():
    """``site_tables`` (what the Spark node and the CLI write): one ``clusters`` row per part
    with ``part_of``, the navigation rows on structural clusters, and ``page_clusters`` rows
    with the part and its structural cluster."""
    from crawlplan.source.sitemaps import site_tables

    urls = _pages("library", 12) + _pages("tutorial", 8, 24)
    bags = [_prose(i) for i in range(20)]
    links = [[("/html/body/div[body]/a", u) for u in urls[1:]]] + [[("/html/body/div[nav]/a", urls[0])] for _ in urls[1:]]
    pages = {u: PageFeatures(url=u, xpaths=bag, links=link) for u, bag, link in zip(urls, bags, links)}
    mirror = Mirror(site="docs.example.org", pages=pages, order=list(urls), xpath_classes="elements")
    tables = site_tables(mirror, sitemap_settings(method="default", sampler="bfs"), None)   # every page sampled
    sitemap = tables["sitemaps"][0]
    parts = {r["cluster"]: r["part_of"] for r in sitemap["clusters"]}
    assert len(parts) == 2 and len(set(parts.values())) == 1 and sitemap["n_clusters"] == 2
    structural = next(iter(set(parts.values())))
    assert {r["cluster"] for r in sitemap["navigation"]} | {r["to_cluster"] for r in sitemap["navigation"]} == {structural}
    by_url = {r["url"]: (r["cluster"], r["part_of"]) for r in tables["page_clusters"]}
    assert by_url[urls[0]] == (structural, structural)
    assert by_url[urls[15]][1] == structural and by_url[urls[15]][0] != structural


def _clusters(shares: list[tuple[int, int]], sections=("ref", "topics")) -> tuple[list[str], np.ndarray]:
    urls, labels, used = [], [], {s: 0 for s in sections}
    for label, counts in enumerate(shares):
        for section, n in zip(sections, counts):
            urls += _pages(section, n, used[section])
            used[section] += n
            labels += [label] * n
    return urls, np.array(labels)


def test_namespaces_must_be_alike_in_every_cluster():
    """Django-shaped: ref/ and topics/ share a prose cluster (0) and a twin (1) in like
    proportions, but three more clusters hold ref/ pages only. One twin made them namespaces
    (``pairwise``, issue 19); every cluster holding them must split them alike
    (``all_clusters``, the default since issue 30's round 9), and these do not, so cluster 0 is
    cut by section."""
    urls, labels = _clusters([(10, 10), (12, 9), (20, 0), (18, 1), (15, 0)])
    assert cut_by_folder(labels, urls, min_pts=4, markers=True, namespaces="pairwise")[1] == {}
    cut, every = cut_by_folder(labels, urls, min_pts=4, markers=True, namespaces="all_clusters")
    assert every[0]["ref"] != every[0]["topics"] and every[1]["ref"] != every[1]["topics"]
    assert len(set(cut[:20].tolist())) == 2
    # javadoc-shaped: every cluster splits org/junit about 5:1 -> namespaces under both tests
    urls, labels = _clusters([(30, 6), (20, 4), (15, 3), (25, 5)], sections=("org", "junit"))
    for test in ("pairwise", "all_clusters"):
        assert cut_by_folder(labels, urls, min_pts=4, markers=True, namespaces=test)[1] == {}


def test_a_marked_cluster_keeps_its_marked_sections_and_loses_the_unmarked_one():
    """pytest-shaped: one prose cluster holds the release announcements (``announce/release-*``,
    marked) and the root folder's pages, which are not announcements. The marker guard keeps the
    whole cluster (``folder_cut: sections``); ``unmarked_sections`` cuts the root pages off."""
    announce = [f"{BASE}/announce/release-7.{i}.0.html" for i in range(20)]
    root = [f"{BASE}/{w}.html" for w in WORDS[:6]]
    labels = np.array([0] * 26)
    assert cut_by_folder(labels, announce + root, min_pts=4, markers=True)[1] == {}
    cut, cuts = cut_by_folder(labels, announce + root, min_pts=4, markers=True, unmarked_sections=True)
    assert cuts == {0: {"announce": 0, "": 1}} and cut.tolist() == [0] * 20 + [1] * 6
    # rustdoc-shaped (every section marked): nothing to cut either way
    urls = [f"https://docs.example.rs/kit/{m}/struct.{w.title()}.html" for m in ("io", "fs") for w in WORDS[:6]]
    assert cut_by_folder(np.zeros(12, dtype=int), urls, min_pts=4, markers=True, unmarked_sections=True)[1] == {}


def test_the_default_learner_cuts_a_marked_clusters_unmarked_section_off():
    """The default since round 21 (``folder_cut: unmarked_sections``), end to end: one prose
    template renders pytest's release announcements and its root pages; the fitted learner
    parts them and places a new page by its section, which round 9's ``sections`` did not."""
    announce = [f"{BASE}/announce/release-7.{i}.0.html" for i in range(20)]
    root = [f"{BASE}/{w}.html" for w in WORDS[:6]]
    bags = [_prose(i % 3) for i in range(26)]
    learner = sitemap_learner().fit(bags, urls=announce + root, links=[[] for _ in range(26)])
    assert learner.labels_[0] != learner.labels_[20]
    assert set(learner.labels_[:20].tolist()) == {learner.labels_[0]}
    assert set(learner.labels_[20:].tolist()) == {learner.labels_[20]}
    where = [f"{BASE}/announce/release-8.0.0.html", f"{BASE}/new-page.html"]
    assert learner.predict([_prose(1)] * 2, urls=where).tolist() == [learner.labels_[0], learner.labels_[20]]
    whole = sitemap_learner(folder_cut="sections", unmarked_names="keep").fit(
        bags, urls=announce + root, links=[[] for _ in range(26)])
    assert len(set(whole.labels_.tolist())) == 1 and whole.folder_cuts_ == {}
    # the cut by name (round 22's default) parts the root pages too, their names being their own
    named = sitemap_learner(folder_cut="sections").fit(bags, urls=announce + root, links=[[] for _ in range(26)])
    assert named.folder_cuts_ == {} and len(set(named.labels_.tolist())) == 2 and named.marker_cuts_


def test_namespace_and_section_settings_are_checked():
    assert sitemap_learner().namespace_test_ == "all_clusters"
    assert sitemap_learner(method="paper").namespace_test_ == "pairwise"
    with pytest.raises(ValueError, match="namespace_test must be one of"):
        sitemap_learner(namespace_test="some").validate()
    assert sitemap_learner().folder_cut_ == "unmarked_sections"   # the default since round 21
    assert sitemap_learner(folder_cut="sections").folder_cut_ == "sections"
