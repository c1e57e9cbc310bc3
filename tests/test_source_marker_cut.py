"""A cluster holding several file-name kind markers of one folder is cut by marker
(``marker_cut``), except where the markers are namespaces that every kind repeats: synthetic URL
sets in the shapes of a module reference rendered by one template (``r.*``, ``v.*``, ``db.*``
modules in one folder), Haddock (``Data-*``, ``GHC-*`` module pages and their source listings),
Doxygen (``class*`` member lists beside unmarked ones), autosummary (``marker_cut: shapes``:
functions, classes and members told by the case of a dotted name) and fpdoc
(``marker_cut: shapes_members``: identifiers and their members told by the number of words of
a lower-case name; ``shapes_recurring``: a unit's ``index`` hub beside its identifiers;
``shapes_recurring_members``: both); no real site."""

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.learner import SitemapLearner
from crawlplan.source.name_cuts import (
    OTHER_NAMES,
    RECURRING,
    cut_by_marker,
    cut_key,
    is_recurring,
    marker_key,
    member_words,
    name_shape,
    part_key,
    sought_parts,
)
from crawlplan.source.target import TargetFeedback
from crawlplan.source.url_kinds import url_kinds

BASE = "https://gis.example.org/manuals"
NAMES = "slope aspect buffer clean contour fill grow mask patch random stats sun thin".split()


def _modules(marker: str, n: int, folder: str = "") -> list[str]:
    return [f"{BASE}/{folder}{marker}.{NAMES[i % len(NAMES)]}{i // len(NAMES) or ''}.html" for i in range(n)]


def test_one_template_modules_are_cut_by_their_marker_largest_keeps_the_label():
    urls = _modules("r", 10) + _modules("v", 6) + _modules("db", 4) + [f"{BASE}/index.html", f"{BASE}/intro.html"]
    labels = np.array([0] * 22)
    cut, cuts = cut_by_marker(labels, urls, min_pts=4)
    assert cut[:10].tolist() == [0] * 10
    assert set(cut[10:16].tolist()) == {1} and set(cut[16:20].tolist()) == {2}
    assert cut[20:].tolist() == [0, 0]           # unmarked pages stay with the largest marker
    assert cuts == {0: {"r": 0, "v": 1, "db": 2}}


def test_markers_under_min_pts_and_one_marker_beside_unmarked_pages_cut_nothing():
    """Doxygen-shaped: ``class*-members`` lists beside a few unmarked ``struct*`` ones is one
    leading marker; a second marker under min_pts pages is no kind of its own."""
    urls = [f"{BASE}/classsf_1_1T{i}-members.html" for i in range(12)] + [f"{BASE}/s{i}-members.html" for i in range(4)]
    urls += _modules("v", 3)
    labels = np.zeros(len(urls), dtype=int)
    cut, cuts = cut_by_marker(labels, urls, min_pts=4)
    assert cuts == {} and cut.tolist() == labels.tolist()


def test_namespace_markers_that_every_kind_repeats_stay_whole():
    """Haddock-shaped: module pages and their source listings both carry ``Data-*``, ``GHC-*``
    and ``Control-*`` in like proportions, so the words are namespaces, not kinds."""
    def pages(folder, words):
        return [f"{BASE}/{folder}{w}-M{i}.html" for w, n in words for i in range(n)]
    words = [("Data", 12), ("GHC", 9), ("Control", 6)]
    urls = pages("", words) + pages("src/", [(w, n + 1) for w, n in words])
    labels = np.array([0] * 27 + [1] * 30)
    cut, cuts = cut_by_marker(labels, urls, min_pts=4)
    assert cuts == {} and cut.tolist() == labels.tolist()
    assert marker_key(url_kinds([urls[0]] * 3, markers=True)[0]) == "Data"
    assert marker_key(None) == ""


def test_outliers_are_never_cut_and_labels_must_pair_with_urls():
    urls = _modules("r", 5) + _modules("v", 5)
    assert cut_by_marker(np.array([-1] * 10), urls, 4)[0].tolist() == [-1] * 10
    with pytest.raises(ValueError, match="2 labels for 1 URLs"):
        cut_by_marker(np.array([0, 1]), urls[:1], 4)


def _module_page(i: int) -> dict[str, int]:
    """One template: every module page has the same blocks, whatever it works on."""
    return {"/html/body/div[body]/p": 4, "/html/body/div[body]/h2": 2, "/html/body/div[body]/pre": 1}


def _index_page(i: int) -> dict[str, int]:
    return {"/html/body/table/tr/td/a": 30 + i % 4, "/html/body/h1": 1}


def test_fit_cuts_kinds_predict_places_by_marker_and_navigation_stays_structural():
    urls = _modules("r", 12) + _modules("v", 8) + [f"{BASE}/{w}.html" for w in ("raster", "vector", "index", "topics", "keywords")]
    bags = [_module_page(i) for i in range(20)] + [_index_page(i) for i in range(5)]
    links = [[("/html/body/div[body]/a", urls[20 + i % 5])] for i in range(20)]
    links += [[("/html/body/table/tr/td/a", u) for u in urls[:20]] for _ in range(5)]
    learner = sitemap_learner(marker_cut="markers").fit(bags, urls=urls, links=links)
    raster, vector, index = learner.labels_[0], learner.labels_[12], learner.labels_[20]
    assert len({raster, vector, index}) == 3
    assert learner.marker_cuts_ == {int(raster): {"r": int(raster), "v": int(vector)}}
    # the sitemap's kinds keep the cut: the wrapper join must not join one template's parts again
    assert learner.kind_labels_[0] != learner.kind_labels_[12]
    # the crawl's clusters: the v part is navigated as the module cluster it was cut from
    assert learner.structural([vector, index]).tolist() == [raster, index]
    assert learner.clusters_ == sorted({int(raster), int(index)})
    where = [f"{BASE}/v.new.html", f"{BASE}/r.new.html", f"{BASE}/i.new.html"]
    assert learner.predict([_module_page(1)] * 3, urls=where).tolist() == [vector, raster, raster]
    back = SitemapLearner.from_json(learner.to_json())
    assert back.marker_cuts_ == learner.marker_cuts_
    assert back.predict([_module_page(1)] * 3, urls=where).tolist() == [vector, raster, raster]
    assert sitemap_learner().marker_cut_ == "shapes_recurring_members"   # the crawl's, since issue 30's round 25
    off = sitemap_learner(marker_cut="off").fit(bags, urls=urls, links=links)
    assert off.marker_cut_ == "off" and off.marker_cuts_ == {} and off.labels_[0] == off.labels_[12]
    assert sitemap_learner(method="paper").marker_cut_ == "off"
    assert sitemap_learner(marker_cut="markers", kind_markers="off").fit(bags, urls=urls, links=links).marker_cuts_ == {}


def test_name_shapes_tell_functions_types_and_members_apart_where_the_first_word_cannot():
    """statsmodels-shaped (a design site of issue 30's round 15): autosummary writes functions,
    classes and their members into one folder, one template, every name starting
    ``statsmodels.``; the case of the last two words tells them apart."""
    base = "https://api.example.org/generated/pkg.stats"
    funcs = [f"{base}.tools.fn{i}.html" for i in range(6)]
    classes = [f"{base}.models.Model{i}.html" for i in range(5)]
    members = [f"{base}.models.Model{i % 5}.{m}.html" for i, m in enumerate("fit predict score summary _private aic".split())]
    assert [name_shape(u) for u in (funcs[0], classes[0], members[0], members[4])] == ["ll", "lU", "Ul", "Ul"]
    assert name_shape(f"{BASE}/r.slope.html") == "" and name_shape(f"{BASE}/index.html") == ""
    assert name_shape("https://x.org/a.b.1c.html") == ""           # not identifiers: no shape
    urls = funcs + classes + members
    cut, cuts = cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes")
    assert len(set(cut.tolist())) == 3 and set(cuts[0]) == {"ll", "lU", "Ul"}
    # the leading word is one for all: the cut by marker sees one marker and cuts nothing
    assert cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4)[1] == {}
    assert cut_key(funcs[0], "shapes") == "ll" and cut_key(funcs[0], "markers") == "pkg"
    with pytest.raises(ValueError, match="by must be one of"):
        cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="words")


def test_member_names_are_cut_from_identifiers_only_where_the_folder_shows_member_pages():
    """fpdoc-shaped (the LCL, a design site of issue 30's round 17): identifiers (``tcontrol``)
    and their members (``tcontrol.align``) in one template and one folder, all lower case, so no
    name shape; the number of words tells them apart where the two-word names are members of
    linked pages and a real part of the cluster. Python-shaped: a few dotted modules
    (``os.path`` beside ``os``) are one kind with the others, and stay whole."""
    unit = "https://docs.example.org/lcl/controls"
    idents = [f"{unit}/{NAMES[i]}.html" for i in range(10)]
    members = [f"{unit}/{NAMES[i % 10]}.{m}.html" for i, m in enumerate("align width height top left caption".split())]
    assert [member_words(u) for u in (idents[0], members[0], f"{unit}/index-2.html", f"{BASE}/a.b.c.html")] == \
        ["1w", "2w", "", ""]
    urls = idents + members
    cut, cuts = cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes_members")
    assert cuts == {0: {"1w": 0, "2w": 1}} and cut.tolist() == [0] * 10 + [1] * 6
    assert cut_key(members[0], "shapes_members") == "2w" and cut_key(members[0], "shapes") == ""
    # the same names cut by their shapes alone: no name of three words, nothing cut
    assert cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes")[1] == {}
    # members whose types the sample never links are no evidence of member pages
    orphans = [f"{unit}/x{i}.{m}.html" for i, m in enumerate("align width height top left caption".split())]
    assert cut_by_marker(np.zeros(16, dtype=int), idents + orphans, min_pts=4, by="shapes_members")[1] == {}
    # ... unless the sample's links know them
    known = idents + orphans + [f"{unit}/x{i}.html" for i in range(6)]
    assert cut_by_marker(np.zeros(16, dtype=int), idents + orphans, min_pts=4, by="shapes_members",
                         known=known)[1] == {0: {"1w": 0, "2w": 1}}
    # Python-shaped: 4 dotted modules among 20 (under MEMBER_MIN_SHARE) are modules too
    modules = [f"{BASE}/m{i}.html" for i in range(16)] + [f"{BASE}/m{i}.sub.html" for i in range(4)]
    assert cut_by_marker(np.zeros(20, dtype=int), modules, min_pts=4, by="shapes_members")[1] == {}
    # fitted: the learner cuts its one-template cluster the same way, places a new member by its
    # name alone, and keeps the cut through its JSON form
    bags = [_module_page(i) for i in range(16)]
    learner = sitemap_learner(marker_cut="shapes_members").fit(bags, urls=urls, links=[[] for _ in urls])
    ident, member = int(learner.labels_[0]), int(learner.labels_[10])
    assert ident != member and learner.marker_cuts_ == {ident: {"1w": ident, "2w": member}}
    where = [f"{unit}/{NAMES[1]}.visible.html", f"{unit}/{NAMES[11]}.html"]
    back = SitemapLearner.from_json(learner.to_json())
    assert back.predict([_module_page(1)] * 2, urls=where).tolist() == [member, ident]


def test_names_recurring_in_most_folders_are_cut_from_names_of_their_own():
    """fpdoc-shaped (the LCL, issue 30's round 18): each unit folder has its ``index`` hub,
    rendered by the template of the identifiers beside it, whose names are their own. Names that
    recur in a few folders only (Django's ``base`` modules) or a cluster whose other names recur
    too (Haddock's ``doc-index-A``...) are not cut."""
    units = [f"https://docs.example.org/lcl/unit{u}" for u in range(5)]
    hubs = [f"{unit}/index.html" for unit in units]
    idents = [f"{units[i % 5]}/{NAMES[i]}.html" for i in range(12)]
    urls = hubs + idents
    cut, cuts = cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes_recurring")
    assert cut.tolist() == [1] * 5 + [0] * 12
    assert cuts == {0: {OTHER_NAMES: 0, RECURRING: 1, "=index": 1}}
    assert cut_key(hubs[0], "shapes_recurring") == "=index" and cut_key(hubs[0], "shapes") == ""
    # a name recurring in 4 of 12 folders names a thing documented in several packages
    spread = [f"https://docs.example.org/m/p{i}/{NAMES[i]}.html" for i in range(12)] + \
        [f"https://docs.example.org/m/p{i}/base.html" for i in range(4)]
    assert cut_by_marker(np.zeros(16, dtype=int), spread, min_pts=4, by="shapes_recurring")[1] == {}
    # a series: every other name recurs as well
    series = [f"https://docs.example.org/h/p{i}/doc-index{s}.html" for i in range(5) for s in ("", "-A", "-B")]
    assert cut_by_marker(np.zeros(15, dtype=int), series, min_pts=4, by="shapes_recurring")[1] == {}
    # fitted: a new unit's hub falls in the hubs' part, a new identifier in the others', by the
    # URL alone, also after the JSON round trip
    learner = sitemap_learner(marker_cut="shapes_recurring").fit(
        [_module_page(i) for i in range(len(urls))], urls=urls, links=[[] for _ in urls])
    hub, ident = int(learner.labels_[0]), int(learner.labels_[5])
    assert hub != ident
    back = SitemapLearner.from_json(learner.to_json())
    where = ["https://docs.example.org/lcl/unit9/index.html", f"{units[0]}/{NAMES[12]}.html",
             f"{units[0]}/recurring.html"]   # a page's name is never taken for a part's key
    assert back.predict([_module_page(0)] * 3, urls=where).tolist() == [hub, ident, ident]


def test_a_shape_beside_recurring_names_stays_a_name_and_a_target_crawl_seeks_the_hubs_too():
    """Python-shaped (issue 30's round 19): the library's ``index`` hubs recur in its folders
    beside modules named after themselves, some dotted (``xml.dom.minidom``: one name shape).
    One shape beside unshaped names is no kind (a cut by shapes alone parts nothing), so the
    cut by recurring names leaves it with the other names; and a target crawl for a module
    counts the hubs of its folders with its own part, the way to its targets."""
    units = [f"https://docs.example.org/lib/unit{u}" for u in range(5)]
    hubs = [f"{unit}/index.html" for unit in units]
    plain = [f"{units[i % 5]}/{NAMES[i]}.html" for i in range(12)]
    dotted = [f"{units[i % 5]}/xml.{NAMES[i]}.mini{i}.html" for i in range(5)]
    urls = hubs + plain + dotted
    assert {cut_key(u, "shapes_recurring") for u in dotted} == {"ll"}
    assert cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes")[1] == {}
    cut, cuts = cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes_recurring")
    assert cut.tolist() == [1] * 5 + [0] * 17
    assert cuts == {0: {OTHER_NAMES: 0, RECURRING: 1, "=index": 1}}
    assert part_key(cuts[0], f"{units[1]}/xml.sax.handler.html", "shapes_recurring") == OTHER_NAMES
    assert part_key(cuts[0], f"{units[1]}/index.html", "shapes_recurring") == "=index"
    assert sought_parts(cuts[0]) == {0: 0, 1: 0}
    # two shapes of their own still part: a shape cut beside the recurring cut
    typed = [f"{units[i % 5]}/xml.{NAMES[i]}.Mini{i}.html" for i in range(5)]
    both = cut_by_marker(np.zeros(len(urls) + 5, dtype=int), urls + typed, min_pts=4, by="shapes_recurring")[1][0]
    assert {"ll", "lU", RECURRING, OTHER_NAMES} <= set(both)
    assert sought_parts(both)[both["lU"]] == both["lU"] != sought_parts(both)[both["ll"]]
    # the target crawl (one structural cluster, 0): a module's example seeks its folders' hubs,
    # not the parts of the two shapes
    learner = sitemap_learner(marker_cut="shapes_recurring", folder_cut="off").fit(
        [_module_page(i) for i in range(len(urls) + 5)], urls=urls + typed, links=[[] for _ in range(len(urls) + 5)])
    assert set(learner.marker_cuts_) == {0}
    feedback = TargetFeedback(learner, {}, 0, example=plain[0])
    assert not feedback.other_part(hubs[2]) and not feedback.other_part(f"{units[3]}/{NAMES[12]}.html")
    assert feedback.other_part(typed[0]) and feedback.other_part(dotted[1])


def test_a_ucc_crawl_can_take_the_recurring_names_for_hubs():
    """``ucc_recurring: hub`` (an option since issue 30's round 19, designed on the LCL): a page
    among a cluster's recurring names is a hub, read from its URL alone, so a link to a unit's
    ``index`` not fetched yet is told from a link to an identifier in the same cluster."""
    units = [f"https://docs.example.org/lcl/unit{u}" for u in range(5)]
    urls = [f"{unit}/index.html" for unit in units] + [f"{units[i % 5]}/{NAMES[i]}.html" for i in range(12)]
    learner = sitemap_learner(marker_cut="shapes_recurring", folder_cut="off", ucc_recurring="hub").fit(
        [_module_page(i) for i in range(len(urls))], urls=urls, links=[[] for _ in urls])
    parts = learner.marker_cuts_[0]
    assert is_recurring(parts, "https://docs.example.org/lcl/unit9/index.html", "shapes_recurring")
    assert not is_recurring(parts, f"{units[1]}/{NAMES[12]}.html", "shapes_recurring")
    assert learner.is_hub(0, "https://docs.example.org/lcl/unit9/index.html")
    assert not learner.is_hub(0, f"{units[1]}/{NAMES[12]}.html") and not learner.is_hub(0, None)
    assert not learner.is_hub(1, "https://docs.example.org/lcl/unit9/index.html")   # a cluster not cut
    assert sitemap_learner().ucc_recurring_ == "cluster" == sitemap_learner(method="paper").ucc_recurring_
    with pytest.raises(ValueError, match="ucc_recurring must be one of"):
        sitemap_learner(ucc_recurring="hubs").validate()


def _lcl_urls() -> tuple[list[str], list[str], list[str], list[str]]:
    """fpdoc-shaped (the LCL): five units' folders, each unit's ``index`` hub, ten identifiers and
    six of their members, all in the units' folders. (units, hubs, identifiers, members)"""
    units = [f"https://docs.example.org/lcl/unit{u}" for u in range(5)]
    hubs = [f"{unit}/index.html" for unit in units]
    idents = [f"{units[i % 5]}/{NAMES[i]}.html" for i in range(10)]
    members = [f"{units[i % 5]}/{NAMES[i]}.{m}.html" for i, m in enumerate("align width height top left caption".split())]
    return units, hubs, idents, members


def test_recurring_names_and_member_names_cut_one_cluster_into_hubs_types_and_members():
    """fpdoc-shaped (the LCL, issue 30's round 20): a unit's ``index`` hub, its identifiers and
    their members, all rendered by one template into the unit's folder. ``shapes_recurring_members``
    parts the hubs by their recurring name and the others by their number of words; a target
    crawl for an identifier counts the hubs with the identifiers (a hub lists them)."""
    units, hubs, idents, members = _lcl_urls()
    urls = hubs + idents + members
    by = "shapes_recurring_members"
    cut, cuts = cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by=by)
    assert cuts == {0: {"1w": 0, "2w": 1, RECURRING: 2, "=index": 2}}
    assert cut.tolist() == [2] * 5 + [0] * 10 + [1] * 6
    # the recurring cut alone keeps identifiers and members together
    assert cut_by_marker(np.zeros(len(urls), dtype=int), urls, min_pts=4, by="shapes_recurring")[0].tolist() == \
        [1] * 5 + [0] * 16
    # a new page by its URL alone: a new unit's hub, a member, an identifier, a paged list
    where = ["https://docs.example.org/lcl/unit9/index.html", f"{units[2]}/{NAMES[11]}.visible.html",
             f"{units[2]}/{NAMES[12]}.html", f"{units[2]}/{NAMES[12]}-2.html"]
    assert [part_key(cuts[0], u, by) for u in where] == ["=index", "2w", "1w", None]
    assert sought_parts(cuts[0]) == {0: 0, 1: 1, 2: 0}
    # the members are read only where the cluster shows them: few dotted names among many
    modules = hubs + idents + [f"{units[i]}/{NAMES[i]}.align.html" for i in range(4)]   # 4 of 19
    assert set(cut_by_marker(np.zeros(len(modules), dtype=int), modules, min_pts=4, by=by)[1][0]) == \
        {RECURRING, "=index", OTHER_NAMES}
    # fitted: the learner cuts the same way and keeps the cut through its JSON form
    learner = sitemap_learner(marker_cut=by, folder_cut="off").fit(
        [_module_page(i) for i in range(len(urls))], urls=urls, links=[[] for _ in urls])
    hub, ident, member = (int(learner.labels_[i]) for i in (0, 5, 15))
    assert len({hub, ident, member}) == 3
    back = SitemapLearner.from_json(learner.to_json())
    assert back.predict([_module_page(0)] * 3, urls=where[:3]).tolist() == [hub, member, ident]
    feedback = TargetFeedback(learner, {}, ident, example=idents[0])
    assert not feedback.other_part(hubs[3]) and feedback.other_part(members[1])


def test_the_kinds_take_a_cut_of_their_own_while_the_crawl_reads_the_finer_one():
    """``kind_marker_cut`` (issue 30, round 25): the kind model cuts by its own mode, so the
    kinds the sitemap reports keep the LCL's identifiers and members together, as the recurring
    cut alone does, while the crawl's clusters part them and a target crawl for an identifier
    counts a member as no hit."""
    _units, hubs, idents, members = _lcl_urls()
    urls = hubs + idents + members
    bags = [_module_page(i) for i in range(len(urls))]

    def fitted(**settings):
        return sitemap_learner(folder_cut="off", **settings).fit(bags, urls=urls, links=[[] for _ in urls])

    both = fitted(marker_cut="shapes_recurring_members", kind_marker_cut="shapes_recurring")
    assert both.kind_model_.marker_cut_ == "shapes_recurring"
    hub, ident, member = (int(both.labels_[i]) for i in (0, 5, 15))
    assert len({hub, ident, member}) == 3                                  # the crawl's parts
    kinds = both.kind_labels_.tolist()
    assert kinds[5] == kinds[15] != kinds[0]                               # the kinds: members with identifiers
    assert kinds == fitted(marker_cut="shapes_recurring").kind_labels_.tolist()
    one_cut = fitted(marker_cut="shapes_recurring_members").kind_labels_.tolist()   # one setting: both parted
    assert one_cut[5] != one_cut[15]
    assert TargetFeedback(both, {}, ident, example=idents[0]).other_part(members[1])
    back = SitemapLearner.from_json(both.to_json())
    assert back.predict_kind(bags[:16], urls=urls[:16]).tolist() == kinds[:16]
    assert back.predict(bags[:16], urls=urls[:16]).tolist() == both.labels_[:16].tolist()
    # one setting for both where kind_marker_cut is not given; the presets otherwise
    assert sitemap_learner(marker_cut="markers").kind_marker_cut_ == "markers"
    assert sitemap_learner().kind_marker_cut_ == "shapes_recurring"
    assert sitemap_learner(method="paper").kind_marker_cut_ == "off"
    with pytest.raises(ValueError, match="kind_marker_cut must be one of"):
        sitemap_learner(kind_marker_cut="member").validate()


@pytest.mark.parametrize("bad", ["yes", 1, True])
def test_marker_cut_must_be_one_of_its_modes(bad):
    with pytest.raises(ValueError, match="marker_cut must be one of"):
        sitemap_learner(marker_cut=bad).validate()


GIT = "https://git.example.org/docs"
COMMANDS = "add commit push pull fetch merge rebase reset stash tag log diff status clone".split()
CONCEPTS = "gitglossary gitignore gitattributes gitcli gitrevisions giteveryday user-manual".split()


def test_a_marked_cluster_is_cut_from_its_unmarked_names_where_they_are_their_own():
    """git-shaped (``unmarked_names: cut``): one man-page template renders the ``git-*``
    commands and the concept pages, named one by one; the cut parts them and places a new page
    by whether its name carries the marker. gi-docgen-shaped: ``ctor.*`` and ``func.*`` beside
    ``method.*`` share first words among themselves, siblings of the marker's kind: kept."""
    urls = [f"{GIT}/git-{c}.html" for c in COMMANDS] + [f"{GIT}/{c}.html" for c in CONCEPTS]
    labels = np.zeros(len(urls), dtype=int)
    assert cut_by_marker(labels, urls, min_pts=4, by="shapes_recurring")[1] == {}   # keep (the function's default)
    cut, cuts = cut_by_marker(labels, urls, min_pts=4, by="shapes_recurring", unmarked="cut")
    assert cut.tolist() == [0] * len(COMMANDS) + [1] * len(CONCEPTS)
    assert cuts == {0: {"=/marked:git": 0, "=/unmarked": 1}}
    assert part_key(cuts[0], f"{GIT}/git-blame.html", "shapes_recurring") == "=/marked:git"
    assert part_key(cuts[0], f"{GIT}/gitworkflows.html", "shapes_recurring") == "=/unmarked"
    learner = sitemap_learner(unmarked_names="cut", folder_cut="off").fit(
        [{"/html/body/div[sect1]/p": 3 + i % 2} for i in range(len(urls))], urls=urls,
        links=[[] for _ in urls])
    assert learner.labels_[0] != learner.labels_[-1] and learner.name_part(0, f"{GIT}/gitcore-tutorial.html") != 0
    assert SitemapLearner.from_json(learner.to_json()).marker_cuts_ == learner.marker_cuts_
    # siblings: the unmarked names share their first words (ctor.*, func.*): nothing is cut
    gi = "https://docs.example.org/Pango"
    urls = [f"{gi}/method.{t}.{w}.html" for t in ("Context", "Layout") for w in NAMES]
    urls += [f"{gi}/{p}.{w}.html" for p in ("ctor", "func", "vfunc") for w in NAMES[:2]]   # 2 each: no markers
    labels = np.zeros(len(urls), dtype=int)
    assert {marker_key(k) for k in url_kinds(urls, markers=True)} == {"method", ""}
    assert cut_by_marker(labels, urls, min_pts=4, by="shapes_recurring", unmarked="cut")[1] == {}
    # the same unmarked pages named one by one are cut
    own = urls[:26] + [f"{gi}/{w}{p}.html" for p in ("ctor", "func", "vfunc") for w in NAMES[:2]]
    assert cut_by_marker(labels, own, min_pts=4, by="shapes_recurring", unmarked="cut")[1] == {
        0: {"=/marked:method": 0, "=/unmarked": 1}}
    with pytest.raises(ValueError, match="unmarked must be one of"):
        cut_by_marker(labels, urls, min_pts=4, unmarked="some")
    with pytest.raises(ValueError, match="unmarked_names must be one of"):
        sitemap_learner(unmarked_names="some").validate()
    assert sitemap_learner().unmarked_names_ == "cut"      # the default since issue 30's round 22
    assert sitemap_learner(method="paper").unmarked_names_ == "keep"
