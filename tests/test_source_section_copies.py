"""Pages every section holds (``section_copies``): a generator that writes one folder per
unit writes the same pages into each (fpdoc's ``index.html``, ``index-2.html`` ... in every unit
of a reference), and the cut by section must not cut that kind unit by unit. Synthetic URL sets
in the shapes of fpdoc (the LCL) and Sphinx (Python's ``howto/logging.html`` beside
``library/logging.html``); no real site."""

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.folder_cuts import COPY_KEY, cut_by_folder, path_in_section, section_copies
from crawlplan.source.learner import SitemapLearner

BASE = "https://docs.example.org/lcl"
UNITS = ("controls", "forms", "graphics", "menus", "dialogs", "grids")
NAMES = "tcontrol tform tcanvas tmenu topendialog tgrid tbrush tpen tfont tbitmap talign tcursor".split()


def _unit_pages(unit: int, copies: int, own: int) -> list[str]:
    """A unit's index pages (``index.html``, ``index-2.html`` ...) and pages named after its
    identifiers."""
    folder = f"{BASE}/{UNITS[unit]}"
    index = [f"{folder}/index.html"] + [f"{folder}/index-{k}.html" for k in range(2, copies + 1)]
    return index[:copies] + [f"{folder}/{NAMES[(unit * 2 + k) % 12]}{unit}.html" for k in range(own)]


def test_paths_below_a_section():
    assert path_in_section(f"{BASE}/controls/index-2.html", "/lcl/") == "index-2.html"
    assert path_in_section(f"{BASE}/controls/sub/x.html", "/lcl/") == "sub/x.html"
    assert path_in_section(f"{BASE}/index.html", "/lcl/") is None          # the root folder itself
    assert path_in_section("https://docs.example.org/other/x.html", "/lcl/") is None
    assert path_in_section("http://[bad", "/lcl/") is None


def _fpdoc_cluster() -> list[str]:
    # one template renders every unit's index pages and the identifiers of the small units;
    # the big unit (controls) holds most identifiers
    return _unit_pages(0, 3, 10) + [u for unit in range(1, 6) for u in _unit_pages(unit, 3, 1)]


def test_index_pages_every_unit_holds_are_one_part_apart_from_the_identifiers():
    urls = _fpdoc_cluster()
    labels = np.zeros(len(urls), dtype=int)
    root = "/lcl/"
    copies = section_copies(np.arange(len(urls)), [u.split("/")[4] for u in urls],
                            [path_in_section(u, root) for u in urls], min_pts=4)
    assert copies == {"index.html", "index-2.html", "index-3.html"}
    cut, cuts = cut_by_folder(labels, urls, min_pts=4, root=root, markers=True, copies_apart=True)
    is_index = np.array(["/index" in u for u in urls])
    assert len(set(cut[is_index].tolist())) == 1 and len(set(cut[~is_index].tolist())) == 1
    assert cut[is_index][0] != cut[~is_index][0]
    # the identifiers (15) keep the label; the copies are keyed by path, the sections by name
    assert cut[~is_index][0] == 0
    assert {k for k, v in cuts[0].items() if v != 0} == {COPY_KEY + p for p in copies}
    assert {k for k, v in cuts[0].items() if v == 0} == set(UNITS)
    # issue 19's cut (section_copies cut) parts the cluster section by section, index pages and all
    by_section, _ = cut_by_folder(labels, urls, min_pts=4, root=root, markers=True)
    assert len(set(by_section.tolist())) == 6


def test_a_series_in_every_section_is_no_copy():
    """Haddock-shaped: every package holds ``doc-index.html`` and letter pages
    ``doc-index-A.html`` ... that recur in several packages too: one kind, not hubs beside names."""
    letters = [[""] + [f"-{'ABCDEF'[(p + k) % 6]}" for k in range(3)] for p in range(6)]
    urls = [f"{BASE}/pkg{p}/doc-index{suffix}.html" for p in range(6) for suffix in letters[p]]
    sections = [u.split("/")[4] for u in urls]
    inner = [path_in_section(u, "/lcl/") for u in urls]
    assert section_copies(np.arange(len(urls)), sections, inner, min_pts=4) == set()
    # with each letter page in one package only, doc-index.html is the copy beside them
    unique = [f"{BASE}/pkg{p}/doc-index{suffix}.html" for p in range(6) for suffix in ("", f"-{'ABCDEF'[p]}")]
    assert section_copies(np.arange(12), [u.split("/")[4] for u in unique],
                          [path_in_section(u, "/lcl/") for u in unique], min_pts=4) == {"doc-index.html"}


def test_a_name_a_few_sections_share_is_a_topic_not_a_copy():
    """Sphinx-shaped: ``logging.html`` and ``enum.html`` in howto/ and library/ name topics; the
    sections are cut as issue 19 cuts them."""
    urls = [f"{BASE}/howto/{name}.html" for name in ("logging", "enum", "sockets", "sorting", "regex", "unicode")]
    urls += [f"{BASE}/library/{name}.html" for name in ("logging", "enum", "os", "sys", "json", "re", "csv", "io")]
    labels = np.zeros(len(urls), dtype=int)
    apart, cuts = cut_by_folder(labels, urls, min_pts=4, root="/lcl/", markers=True, copies_apart=True)
    plain, plain_cuts = cut_by_folder(labels, urls, min_pts=4, root="/lcl/", markers=True)
    assert apart.tolist() == plain.tolist() and cuts == plain_cuts
    assert not any(k.startswith(COPY_KEY) for k in cuts[0]) and len(set(apart.tolist())) == 2
    # where the sections hold mostly the same names, they are one series: not cut at all
    series = [u.replace("/library/", "/howto/") for u in urls[6:]] + urls[6:]
    whole, whole_cuts = cut_by_folder(np.zeros(16, dtype=int), series, min_pts=4, root="/lcl/", markers=True,
                                      copies_apart=True)
    assert whole.tolist() == [0] * 16 and whole_cuts == {}
    assert len(set(cut_by_folder(np.zeros(16, dtype=int), series, 4, root="/lcl/", markers=True)[0].tolist())) == 2


def _bag(i: int) -> dict[str, int]:
    return {"/html/body/div[body]/p": 3 + i % 3, "/html/body/div[body]/h1": 1, "/html/body/table/tr": 4}


def test_the_learner_places_a_new_units_index_with_the_copies():
    urls = _fpdoc_cluster()
    bags = [_bag(i) for i in range(len(urls))]
    learner = sitemap_learner().fit(bags, urls=urls, links=[[] for _ in urls])   # the default since round 23
    index, ident = learner.labels_[0], learner.labels_[3]
    assert index != ident and learner.section_copies_ == "apart"
    # a unit the sample never saw: its index-2 page goes with the copies, an identifier stays
    where = [f"{BASE}/printers/index-2.html", f"{BASE}/printers/tprinter.html", f"{BASE}/forms/tform9.html"]
    assert learner.predict([_bag(1)] * 3, urls=where).tolist() == [index, ident, ident]
    back = SitemapLearner.from_json(learner.to_json())
    assert back.predict([_bag(1)] * 3, urls=where).tolist() == [index, ident, ident]
    # the crawl's clusters: the copies are navigated as the cluster they were cut from
    assert learner.structural([index]).tolist() == learner.structural([ident]).tolist()
    assert sitemap_learner(method="paper").section_copies_ == "cut"
    # issue 19's cut parts the new unit's pages by a section it never saw: both stay together
    whole = sitemap_learner(section_copies="cut").fit(bags, urls=urls, links=[[] for _ in urls])
    assert len(set(whole.predict([_bag(1)] * 2, urls=where[:2]).tolist())) == 1


@pytest.mark.parametrize("bad", ["keep", "", 1])
def test_section_copies_must_be_a_known_mode(bad):
    with pytest.raises(ValueError, match="section_copies must be one of"):
        sitemap_learner(section_copies=bad).validate()
