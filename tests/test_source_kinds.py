"""``kind_join``, ``kind_folder_join``, ``kind_numbered_join``, ``kind_levels`` and ``state_levels`` (crawlplan/source/kinds.py): hand-made manuals, makeinfo-shaped
node pages whose body is wrapped in ``div.chapter``, ``div.section`` or ``div.subsection`` by level, beside an
index of another inner structure under the same wrappers; DocBook-shaped section pages that nest sub-sections."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.kinds import (
    join_by_folder_name,
    join_by_numbered_name,
    join_by_section,
    join_within_clusters,
    join_wrapper_variants,
    levels_collapsed,
    section_kinds,
    wrapper_blind,
)
from crawlplan.source.learner import SitemapLearner

LEVELS = (("chapter", 2), ("section", 3), ("subsection", 4))
BASE = "https://manual.example.org/doc/"
PACKAGES = ["org/junit", "org/junit/runner", "org/junit/rules", "junit/framework"]   # javadoc-shaped folders


def _node(rng: random.Random, level: str, heading: int) -> dict[str, int]:
    body = f"/html/body/div[{level}]"
    bag = {"/html/body": 1, body: 1, f"{body}/div[nav-panel]/p/a": 4, f"{body}/div[nav-panel]/p": 1,
           f"{body}/h{heading}[{level}]": 1, f"{body}/p": rng.randint(3, 9), f"{body}/hr": 1}
    if rng.random() < 0.6:
        bag[f"{body}/p/code"] = rng.randint(1, 5)
    if rng.random() < 0.4:
        bag[f"{body}/pre[example]"] = rng.randint(1, 2)
    return bag


def _index(rng: random.Random, level: str) -> dict[str, int]:
    body = f"/html/body/div[{level}]"
    return {"/html/body": 1, body: 1, f"{body}/table[index-entries]/tr/td/a": rng.randint(30, 60),
            f"{body}/table[index-entries]/tr/td": rng.randint(60, 120), f"{body}/table[index-entries]/tr": rng.randint(30, 60),
            f"{body}/table[index-letters]/tr/th/a": 26}


def _manual(seed: int = 0, per_level: int = 20, indexes: int = 8):
    rng = random.Random(seed)
    bags, kinds = [], []
    for level, heading in LEVELS:
        for _ in range(per_level):
            bags.append(_node(rng, level, heading))
            kinds.append("node")
    for i in range(indexes):
        bags.append(_index(rng, LEVELS[i % 2][0]))
        kinds.append("index")
    # node names share no file-name marker (makeinfo names a page by its node), so no URL rule joins them
    urls = [f"{BASE}{hashlib.sha1(str(i).encode()).hexdigest()[:10]}.html" for i in range(len(bags))]
    return bags, kinds, urls


def test_wrapper_blind_drops_only_the_class_of_what_holds_most_of_the_page():
    bag = {"/html/body": 1, "/html/body/div[section]": 1, "/html/body/div[section]/p": 6,
           "/html/body/div[section]/div[note]/p": 1, "/html/body/div[footer]/a": 2}
    blind = wrapper_blind(bag)
    assert blind == {"/html/body": 1, "/html/body/div": 1, "/html/body/div/p": 6,
                     "/html/body/div/div[note]/p": 1, "/html/body/div[footer]/a": 2}
    assert sum(blind.values()) == sum(bag.values())
    # no step holds more than half: nothing changes
    spread = {"/html/body/div[a]/p": 2, "/html/body/div[b]/p": 2, "/html/body/div[c]/p": 2}
    assert wrapper_blind(spread) == spread


def test_levels_of_one_kind_join_and_another_inner_structure_stays_apart():
    bags, kinds, urls = _manual()
    labels = [{"chapter": 0, "section": 1, "subsection": 2}[next(lv for lv, _ in LEVELS if f"div[{lv}]" in str(b))]
              if k == "node" else 3 for b, k in zip(bags, kinds)]
    joins = join_wrapper_variants(labels, bags, [""] * len(bags), 0.9)
    assert joins[0] == joins[1] == joins[2] == 0 and joins[3] == 3
    # the URL's sections stand: the same levels in two sections of the site stay two kinds
    sections = ["guide" if label == 0 else "api" for label in labels]
    assert join_wrapper_variants(labels, bags, sections, 0.9) == {0: 0, 1: 1, 2: 1, 3: 3}
    assert join_wrapper_variants(labels, bags, [""] * len(bags), 1.0) == {0: 0, 1: 1, 2: 2, 3: 3}
    # kind_cross_join: the same levels in two sections join only by the cosine across sections
    assert join_wrapper_variants(labels, bags, sections, 0.9, across=0.9) == {0: 0, 1: 0, 2: 0, 3: 3}
    assert join_wrapper_variants(labels, bags, sections, 0.0, across=0.9) == {0: 0, 1: 0, 2: 0, 3: 3}
    assert join_wrapper_variants(labels, bags, sections, 0.9, across=1.0) == {0: 0, 1: 1, 2: 1, 3: 3}


def test_a_sections_kind_joins_a_larger_kind_of_the_root_folder_and_no_other():
    """``kind_root_join``: guides in the manual's root and a few in a folder per topic are one
    kind; a section that outnumbers the root's kind, or two sections, keep the cut's verdict."""
    rng = random.Random(5)
    root_guides = [_node(rng, "chapter", 2) for _ in range(12)]
    topic_guides = [_node(rng, "section", 3) for _ in range(5)]
    indexes = [_index(rng, "section") for _ in range(5)]
    bags = root_guides + topic_guides + indexes
    labels = [0] * 12 + [1] * 5 + [2] * 5
    sections = [""] * 12 + ["rewrite"] * 5 + ["rewrite"] * 5
    assert join_wrapper_variants(labels, bags, sections, 0.9) == {0: 0, 1: 1, 2: 2}   # the cut stands
    assert join_wrapper_variants(labels, bags, sections, 0.9, into_root=0.85) == {0: 0, 1: 0, 2: 2}
    assert join_wrapper_variants(labels, bags, sections, 0.0, into_root=0.85) == {0: 0, 1: 0, 2: 2}
    # the section's kind outnumbers the root's: the section is the kind's home, nothing joins
    few_at_root = [""] * 3 + ["how-to"] * 9 + ["how-to"] * 5 + ["rewrite"] * 5
    labels_few = [0] * 3 + [1] * 9 + [1] * 5 + [2] * 5
    assert join_wrapper_variants(labels_few, bags, few_at_root, 0.9, into_root=0.85) == {0: 0, 1: 1, 2: 2}
    # two sections, none the root: only kind_cross_join joins them
    two_sections = ["guide"] * 12 + ["rewrite"] * 10
    assert join_wrapper_variants(labels, bags, two_sections, 0.9, into_root=0.85) == {0: 0, 1: 1, 2: 2}
    assert join_wrapper_variants(labels, bags, two_sections, 0.9, across=0.85)[1] == 0


def test_the_learner_reports_one_kind_for_a_manuals_levels_and_keeps_its_clusters():
    bags, kinds, urls = _manual(seed=3)
    joined = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in bags])
    apart = sitemap_learner(kind_join=0).fit(bags, urls=urls, links=[[] for _ in bags])
    nodes = {k for k, t in zip(joined.kind_labels_.tolist(), kinds) if t == "node"}
    index = {k for k, t in zip(joined.kind_labels_.tolist(), kinds) if t == "index"}
    assert len(nodes) == 1 and -1 not in nodes and not nodes & index
    assert len({k for k, t in zip(apart.kind_labels_.tolist(), kinds) if t == "node"}) >= 3   # by level, at least
    assert (joined.labels_ == apart.labels_).all()          # the crawl's states are not joined
    fresh, fresh_kinds, fresh_urls = _manual(seed=4)
    predicted = joined.predict_kind(fresh, urls=fresh_urls)
    assert {k for k, t in zip(predicted.tolist(), fresh_kinds) if t == "node"} == nodes
    again = SitemapLearner.from_json(joined.to_json())
    assert again.kind_joins_ == joined.kind_joins_ and (again.kind_labels_ == joined.kind_labels_).all()
    assert (again.predict_kind(fresh, urls=fresh_urls) == predicted).all()


def test_kinds_a_repeated_folder_name_names_are_one_kind():
    """javadoc-shaped: class-use pages in every package's ``class-use/`` folder, split by the
    structure in two kinds (used somewhere / used nowhere), are one kind; a folder name under
    fewer than three parents (a section's) joins nothing, and most of a kind must be in it."""
    urls, labels = [], []
    for label in (0, 1):
        urls += [f"https://junit.example.org/javadoc/{p}/class-use/C{label}x{i}.html" for p in PACKAGES for i in range(3)]
        labels += [label] * 12
    urls += [f"https://junit.example.org/javadoc/{p}/C{i}.html" for p in PACKAGES for i in range(5)]
    labels += [2] * 20
    assert join_by_folder_name(labels, urls) == {0: 0, 1: 0}
    two_parents = [u for u, k in zip(urls, labels) if k < 2 and "/rules/" not in u and "/framework/" not in u]
    assert join_by_folder_name([0] * 6 + [1] * 6, two_parents) == {}
    # a kind with more than a third of its pages elsewhere is not named by the folder
    mixed = urls[:12] + [f"https://junit.example.org/javadoc/org/junit/M{i}.html" for i in range(7)] + urls[12:24]
    assert join_by_folder_name([0] * 19 + [1] * 12, mixed) == {}
    assert join_by_folder_name([-1] * 24, urls[:24]) == {}


def test_the_learner_joins_kinds_by_folder_name_only_when_asked():
    rng = random.Random(5)
    bags, urls, truth = [], [], []
    for used in (True, False):   # one kind, two structures: usage tables or a "no usage" line
        for p in PACKAGES:
            for i in range(6):
                body = {"/html/body": 1, "/html/body/div[header]/h1": 1, "/html/body/div[footer]/a": 3}
                body.update({"/html/body/table[use]/tr/td/a": rng.randint(5, 20), "/html/body/table[use]/tr": rng.randint(5, 20)}
                            if used else {"/html/body/p[none]": 1, "/html/body/p[none]/code": 1})
                bags.append(body)
                urls.append(f"https://junit.example.org/javadoc/{p}/class-use/{'U' if used else 'N'}{i}.html")
                truth.append("class_use")
    off = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in bags])
    on = sitemap_learner(kind_folder_join=True).fit(bags, urls=urls, links=[[] for _ in bags])
    assert len(set(off.kind_labels_.tolist())) == 2 and len(set(on.kind_labels_.tolist())) == 1
    assert (off.labels_ == on.labels_).all()                      # the crawl's states stay apart
    again = SitemapLearner.from_json(on.to_json())
    assert (again.predict_kind(bags[:3] + bags[-3:], urls=urls[:3] + urls[-3:]) == on.kind_labels_[0]).all()
    with pytest.raises(ValueError, match="kind_folder_join must be true or false"):
        sitemap_learner(kind_folder_join="yes").validate()
    # the UCC crawl's units stay the structure's kinds: a join by URL name is the page's type,
    # and Info and Dsim read how pages are built (issue 30, round 24)
    assert on.structure_joins_ == off.kind_joins_ and on.kind_joins_ != on.structure_joins_
    assert len(set(on.cluster_kinds().values())) == 1 and len(set(on.cluster_kinds(by_structure=True).values())) == 2
    assert on.ucc_states().unit_of == off.ucc_states().unit_of
    assert again.structure_joins_ == on.structure_joins_ and again.ucc_states().unit_of == on.ucc_states().unit_of


def _fpdoc_site(rng: random.Random, units: int = 8):
    """fpdoc-shaped: every unit's folder holds ``index.html`` (the overview), ``index-1.html``
    (its classes, a table) and ``index-2.html`` (its procedures, a list), numbered pieces of one
    unit index, beside six class pages."""
    frame = {"/html/body": 1, "/html/body/div[header]/a": 3, "/html/body/div[footer]/p": 1}
    pieces = {"index": {"/html/body/p[unit]": 1, "/html/body/p[unit]/a": 4},
              "index-1": {"/html/body/table[classes]/tr": 1, "/html/body/table[classes]/tr/td/a": 1},
              "index-2": {"/html/body/ul[procs]/li": 1, "/html/body/ul[procs]/li/a": 1}}
    bags, urls, truth = [], [], []
    for u in range(units):
        folder = f"https://lcl.example.org/lcl/unit{u}/"
        for name, inner in pieces.items():
            bags.append({**frame, **{p: n * rng.randint(4, 30) for p, n in inner.items()}})
            urls.append(f"{folder}{name}.html")
            truth.append("unit_index")
        for c in range(6):
            bags.append({**frame, "/html/body/h1[cls]": 1, "/html/body/pre[decl]": 1,
                         "/html/body/p[descr]": rng.randint(2, 8)})
            urls.append(f"{folder}tclass{c}.html")
            truth.append("identifier")
    return bags, urls, truth


def test_kinds_one_numbered_file_name_names_are_one_kind():
    """``kind_numbered_join``: kinds made mostly of one numbered family's pieces join; a family
    too small, or a kind that merely holds a few of its pages, names nothing."""
    urls = [f"https://lcl.example.org/lcl/u{u}/{name}.html" for u in range(6) for name in ("index", "index-4", "index-8")]
    labels = [0, 1, 2] * 6                                        # the three pieces, three kinds
    assert join_by_numbered_name(labels, urls, min_pts=4) == {0: 0, 1: 0, 2: 0}
    assert join_by_numbered_name(labels, urls, min_pts=10) == {}  # 18 pages: not two kinds' worth of 10
    # a kind whose pages are mostly something else (class pages) keeps them: half is not more than half
    classes = [f"https://lcl.example.org/lcl/u{u}/tclass{c}.html" for u in range(6) for c in range(2)]
    assert join_by_numbered_name(labels + [2] * 12, urls + classes, min_pts=4) == {0: 0, 1: 0}
    # chapters numbered in one folder; the table of contents beside them has no number
    chapters = [f"https://www.example.org/manual/gettext_{i}.html" for i in range(1, 13)] + [
        "https://www.example.org/manual/gettext_toc.html", "https://www.example.org/manual/gettext_abt.html"]
    assert join_by_numbered_name([0] * 8 + [1] * 4 + [1, 1], chapters, min_pts=4) == {0: 0, 1: 0}
    unnumbered = [f"https://www.example.org/manual/gettext_{name}.html" for name in ("fot", "ovr")]
    assert join_by_numbered_name([0] * 8 + [1] * 6, chapters[:10] + chapters[12:] + unnumbered,
                                 min_pts=4) == {}                 # kind 1: 2 chapters of its 6 pages
    assert join_by_numbered_name([-1] * 18, urls, min_pts=4) == {}


def test_the_learner_joins_kinds_by_numbered_name_by_default_and_not_in_the_paper():
    bags, urls, truth = _fpdoc_site(random.Random(3))
    off = sitemap_learner(kind_numbered_join=False).fit(bags, urls=urls, links=[[] for _ in bags])
    on = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in bags])

    def kinds_of(learner, page_type):
        return {k for k, t in zip(learner.kind_labels_.tolist(), truth) if t == page_type}

    assert len(kinds_of(off, "unit_index")) == 3 and len(kinds_of(on, "unit_index")) == 1   # the pieces, one kind
    assert kinds_of(on, "identifier") == kinds_of(off, "identifier")
    assert not kinds_of(on, "identifier") & kinds_of(on, "unit_index")
    assert (off.labels_ == on.labels_).all()                               # the crawl's states stay apart
    assert on.structure_joins_ == off.kind_joins_                          # and so do a UCC crawl's units
    again = SitemapLearner.from_json(on.to_json())
    assert (again.predict_kind(bags[:3], urls=urls[:3]) == on.kind_labels_[:3]).all()
    assert sitemap_learner().kind_numbered_join_ is True and sitemap_learner(method="paper").kind_numbered_join_ is False
    with pytest.raises(ValueError, match="kind_numbered_join must be true or false"):
        sitemap_learner(kind_numbered_join="yes").validate()


def test_kinds_of_one_kind_section_join_and_namespaces_do_not():
    """Python-shaped: ``c-api/`` is a section the cut gave a part of its own, and two kinds (API
    pages, a few prose pages) lie in it: one kind. ``org/`` and ``junit/``, left together by the
    cut as namespaces, name no kind, so their two kinds stay apart; a kind spread over sections
    is never joined."""
    cuts = {0: {"library": 0, "c-api": 5, "tutorial": 6}, 1: {"org": 1, "junit": 1, "": 7}}
    assert section_kinds(cuts) == {"library", "c-api", "tutorial", ""}
    labels = [0] * 10 + [1] * 4 + [2] * 6 + [3] * 6 + [4] * 6 + [-1]
    sections = ["c-api"] * 10 + ["c-api"] * 3 + ["tutorial"] + ["org"] * 6 + ["org"] * 5 + ["junit"] + \
               ["library", "tutorial", "c-api", "library", "tutorial", "c-api"] + ["c-api"]
    assert join_by_section(labels, sections, section_kinds(cuts)) == {0: 0, 1: 0}
    assert join_by_section(labels, sections, set()) == {}
    assert sitemap_learner().kind_section_join_ is False    # an option: validation said no (docs/source.md)
    with pytest.raises(ValueError, match="kind_section_join must be true or false"):
        sitemap_learner(kind_section_join=1).validate()


def test_kinds_parting_one_crawl_cluster_in_one_section_join_and_across_sections_do_not():
    """Cluster 0 (gettext-shaped: every chapter in the manual's root folder) is parted by the
    kinds 0 and 1: one kind. Cluster 1 holds kinds 2 and 3 in different sections (Django's
    ``topics/`` and ``internals/``): they stay apart. Kind 4 holds fewer than min_pts pages of
    cluster 0 and kind 5 is spread over sections there: neither joins; outliers never do."""
    clusters = [0] * 10 + [0] * 6 + [0] * 2 + [0] * 4 + [1] * 8 + [1] * 5 + [-1, 0]
    kinds = [0] * 10 + [1] * 6 + [4] * 2 + [5] * 4 + [2] * 8 + [3] * 5 + [0, -1]
    sections = [None] * 16 + [None] * 2 + ["a", "b", None, "c"] + ["topics"] * 8 + ["internals"] * 5 + [None, None]
    assert join_within_clusters(kinds, clusters, sections, min_pts=4) == {0: 0, 1: 0}
    assert join_within_clusters(kinds, clusters, sections, min_pts=7) == {}   # kind 1: six pages
    assert sitemap_learner().kind_cluster_join_ is False and sitemap_learner(method="paper").kind_cluster_join_ is False
    with pytest.raises(ValueError, match="kind_cluster_join must be true or false"):
        sitemap_learner(kind_cluster_join="on").validate()


@pytest.mark.slow
def test_gettexts_chapters_one_kind_when_the_kinds_may_not_part_a_crawl_cluster_in_its_folder():
    """gettext's manual on www.gnu.org (a design site, issue 30 round 26): the crawl's clusters
    hold its chapters, all ``gettext_N.html`` in one folder, in one cluster; the kind model's own
    eps parts them in two. With ``kind_cluster_join`` they are one kind again, the crawl's
    clusters untouched, and a sitemap read back from JSON predicts the same kinds."""
    off, on, chapters = _kinds_with_and_without_a_join_on_a_built_site(
        "www.gnu.org", "manual_chapter", {"kind_cluster_join": False, "kind_numbered_join": False},
        {"kind_cluster_join": True, "kind_numbered_join": False})   # round 31's numbered join, the default, joins them too
    assert len({off.kind_labels_[i] for i in chapters}) >= 2 and len({on.kind_labels_[i] for i in chapters}) == 1


def test_kind_join_presets_and_checks():
    assert sitemap_learner().kind_join_ == 0.9 and sitemap_learner(method="paper").kind_join_ == 0.0
    for bad in (-0.1, 1.5, True):
        with pytest.raises(ValueError, match="kind_join must be in"):
            sitemap_learner(kind_join=bad).validate()
    assert np.isclose(sitemap_learner(kind_join=0.5).kind_join_, 0.5)
    assert sitemap_learner().kind_cross_join_ == 0.0      # an option: validation said no (docs/source.md)
    for bad in (-0.1, 1.5, True):
        with pytest.raises(ValueError, match="kind_cross_join must be in"):
            sitemap_learner(kind_cross_join=bad).validate()
    assert sitemap_learner().kind_root_join_ == 0.85 and sitemap_learner(method="paper").kind_root_join_ == 0.0
    for bad in (-0.1, 1.5, True):
        with pytest.raises(ValueError, match="kind_root_join must be in"):
            sitemap_learner(kind_root_join=bad).validate()


@pytest.mark.parametrize("kinds", ["clusters", "smooth_idf"])
def test_site_tables_give_every_page_its_joined_kind(kinds):
    """``site_tables`` (what the Spark node and the CLI write): the pages outside the sample get
    the kind their cluster's sample pages have, joined across the wrappers, with or without a kind
    model (``kinds: clusters`` once wrote the unjoined cluster for them)."""
    from settings_support import sitemap_settings

    from crawlplan.source.features import PageFeatures
    from crawlplan.source.mirror import Mirror
    from crawlplan.source.sitemaps import site_tables

    bags, kind_names, urls = _manual(seed=5)
    links = [[("/html/body/div[chapter]/ul/li/a", u) for u in urls[1:]]] + [[] for _ in urls[1:]]
    pages = {u: PageFeatures(url=u, xpaths=bag, links=link) for u, bag, link in zip(urls, bags, links)}
    mirror = Mirror(site="manual.example.org", pages=pages, order=list(urls), xpath_classes="elements")
    settings = sitemap_settings(method="default", sampler="bfs", train_size=30, kinds=kinds)
    tables = site_tables(mirror, settings, None)
    rows = tables["page_clusters"]
    assert any(not r["in_training"] for r in rows)
    node_kinds = {r["kind"] for r, name in zip(sorted(rows, key=lambda r: urls.index(r["url"])), kind_names)
                  if name == "node"}
    assert len(node_kinds) == 1 and -1 not in node_kinds
    assert {c["kind"] for c in tables["sitemaps"][0]["clusters"] if c["cluster"] != -1} >= node_kinds


def test_levels_collapsed_reads_a_blocks_nesting_away():
    bag = {"/html/body/div[sect1]/div[sect2]/div[sect3]/p": 4, "/html/body/div[sect1]/div[sect2]/p": 2,
           "/html/body/div[sect1]/p": 1, "/html/body/div[navheader]/table/tr/td/a": 2,
           "/html/body/div/div/p": 3, "/html/body/div[col-4]/ul[toctree-l2]/li[toctree-l2]": 5}
    assert levels_collapsed(bag) == {
        "/html/body/div[sect]/p": 7,                            # three depths of one block: one path
        "/html/body/div[navheader]/table/tr/td/a": 2,
        "/html/body/div/div/p": 3,                              # steps without a class are not blocks
        "/html/body/div[col-4]/ul[toctree-l]/li[toctree-l]": 5,  # a number after a letter only; li is not ul
    }
    assert sum(levels_collapsed(bag).values()) == sum(bag.values())


def _docbook_manual(seed: int):
    """A guide's chapter pages (a table of contents) and its section pages, which nest zero, one
    or two levels of sub-sections: one kind of page whatever the depth."""
    rng = random.Random(seed)
    bags, kinds = [], []
    nav = {"/html/body": 1, "/html/body/div[navheader]/table/tr/td/a": 2, "/html/body/div[navfooter]/table/tr/td/a": 3}
    for i in range(60):
        depth = i % 3
        inner = "/html/body/div[sect1]" + "".join(f"/div[sect{d}]" for d in range(2, depth + 2))
        bags.append({**nav, "/html/body/div[sect1]/div[titlepage]/h2[title]": 1, f"{inner}/p": rng.randint(3, 12),
                     f"{inner}/div[itemizedlist]/ul/li/p": rng.randint(1, 6)})
        kinds.append("section")
    for _ in range(15):
        bags.append({**nav, "/html/body/div[chapter]/div[titlepage]/h2[title]": 1,
                     "/html/body/div[chapter]/div[toc]/dl[toc]/dt/span[sect1]/a": rng.randint(4, 12),
                     "/html/body/div[chapter]/p": rng.randint(1, 2)})
        kinds.append("chapter")
    urls = [f"{BASE}{hashlib.sha1(f'{seed}-{i}'.encode()).hexdigest()[:10]}.html" for i in range(len(bags))]
    return bags, kinds, urls


def _labels_of(labels, kinds, kind) -> set:
    """The labels (kinds or crawl states) the pages of one true kind got."""
    return {k for k, t in zip(labels.tolist(), kinds) if t == kind}


def test_sections_of_any_depth_are_one_kind_with_levels_collapsed():
    bags, kinds, urls = _docbook_manual(seed=1)
    collapsed = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in bags])
    as_written = sitemap_learner(kind_levels="as_written").fit(bags, urls=urls, links=[[] for _ in bags])
    assert collapsed.kind_levels_ == "collapsed" and sitemap_learner(method="paper").kind_levels_ == "as_written"

    sections, chapters = _labels_of(collapsed.kind_labels_, kinds, "section"), _labels_of(collapsed.kind_labels_, kinds, "chapter")
    assert len(sections) == 1 and -1 not in sections and len(chapters) == 1 and not sections & chapters
    assert len(_labels_of(as_written.kind_labels_, kinds, "section")) >= 2          # split by depth
    assert (collapsed.labels_ == as_written.labels_).all()                  # the crawl's clusters read paths as written
    fresh, fresh_kinds, fresh_urls = _docbook_manual(seed=2)
    predicted = collapsed.predict_kind(fresh, urls=fresh_urls)
    assert {k for k, t in zip(predicted.tolist(), fresh_kinds) if t == "section"} == sections
    again = SitemapLearner.from_json(collapsed.to_json())
    assert (again.predict_kind(fresh, urls=fresh_urls) == predicted).all()
    with pytest.raises(ValueError, match="kind_levels must be one of"):
        sitemap_learner(kind_levels="flat").validate()


def test_state_levels_collapsed_makes_the_sections_one_crawl_state():
    """``state_levels`` reads the crawl's clusters as ``kind_levels`` reads the kinds: collapsed,
    the sections of every depth are one navigation state, and a new page and a JSON round trip
    read them the same way; as written (the default, an option since round 11) they split."""
    bags, kinds, urls = _docbook_manual(seed=1)
    as_written = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in bags])
    collapsed = sitemap_learner(state_levels="collapsed").fit(bags, urls=urls, links=[[] for _ in bags])
    assert as_written.state_levels_ == "as_written" and sitemap_learner(method="paper").state_levels_ == "as_written"

    depth = {i: i % 3 for i, t in enumerate(kinds) if t == "section"}    # sub-section levels, 0-2
    assert all(len({depth[i] for i in depth if as_written.labels_[i] == s}) == 1
               for s in _labels_of(as_written.labels_, kinds, "section"))          # as written: a state per depth
    sections = _labels_of(collapsed.labels_, kinds, "section")
    assert len(sections) == 1 and -1 not in sections and not sections & _labels_of(collapsed.labels_, kinds, "chapter")
    assert (collapsed.kind_labels_ == as_written.kind_labels_).all()      # the kinds read levels by kind_levels
    fresh, fresh_kinds, fresh_urls = _docbook_manual(seed=2)
    predicted = collapsed.predict(fresh, urls=fresh_urls)
    assert {k for k, t in zip(predicted.tolist(), fresh_kinds) if t == "section"} == sections
    again = SitemapLearner.from_json(collapsed.to_json())
    assert again.state_levels_ == "collapsed" and (again.predict(fresh, urls=fresh_urls) == predicted).all()
    with pytest.raises(ValueError, match="state_levels must be one of"):
        sitemap_learner(state_levels="flat").validate()


@pytest.mark.slow
@pytest.mark.parametrize("site, page_type", [("lazarus-ccr.sourceforge.io", "unit_index"), ("www.gnu.org", "manual_chapter")])
def test_a_numbered_familys_pieces_are_one_kind_on_the_built_sites(site, page_type):
    """The two design sites round 31 was designed on: the LCL's unit indexes (``index.html`` to
    ``index-8.html`` in every unit's folder, three kinds by structure) and gettext's chapters
    (``gettext_N.html``, two kinds) are one kind with ``kind_numbered_join``, the default; the
    crawl's clusters are untouched and a sitemap read back from JSON predicts the same kinds."""
    off, on, pieces = _kinds_with_and_without_a_join_on_a_built_site(site, page_type, {"kind_numbered_join": False},
                                                                     {"kind_numbered_join": True})

    def kinds_holding_pieces(learner) -> int:   # kinds of at least minPts of the pieces
        held = Counter(learner.kind_labels_[i] for i in pieces)
        return sum(n >= learner.min_pts for n in held.values())

    assert kinds_holding_pieces(off) >= 2 and kinds_holding_pieces(on) == 1


def _kinds_with_and_without_a_join_on_a_built_site(site: str, page_type: str, off_settings: dict, on_settings: dict):
    """(the learner without the join, with it, the sample's pages of ``page_type``) on a built
    site, after what every join by URL name must keep: the same sample and crawl states, the
    kinds' micro-F up by more than 0.05, and a sitemap read back from JSON predicting the same
    kinds."""
    import build_sites
    from settings_support import sitemap_settings
    from test_source_guard import built_site_mirror

    from crawlplan.source.evaluate import clustering_scores
    from crawlplan.source.experiment import site_specs, train_site

    mirror = built_site_mirror(site)
    typer = site_specs(build_sites.site_types())[site].typer
    (off, sample), (on, sample_on) = (train_site(mirror, sitemap_settings(method="default", **settings))
                                      for settings in (off_settings, on_settings))
    assert sample == sample_on and (off.labels_ == on.labels_).all()
    types = [typer(u) for u in sample]
    f = {name: clustering_scores(types, m.kind_labels_.tolist(), m.min_pts)["micro_f"] for name, m in (("off", off), ("on", on))}
    assert f["on"] > f["off"] + 0.05, f
    again = SitemapLearner.from_json(on.to_json())
    pages = [mirror.pages[u] for u in sample]
    assert (again.predict_kind(pages, urls=sample) == on.predict_kind(pages, urls=sample)).all()
    return off, on, [i for i, t in enumerate(types) if t == page_type]
