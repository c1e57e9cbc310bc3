"""``kind_wrapper_cut`` (crawlplan/source/kinds.py: ``page_wrapper``, ``parted_by_wrapper``): a
kind that holds nearly the whole sample is parted by the class of the element wrapping each page."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.kinds import page_wrapper, parted_by_wrapper
from crawlplan.source.learner import SitemapLearner


def _page(wrapper: str, blocks: int = 6) -> dict[str, int]:
    """A DocBook-shaped page: the navigation header and footer, the body under ``wrapper``."""
    body = f"/html/body/div[{wrapper}]"
    return {"/html": 1, "/html/body": 1, "/html/body/div[navheader]/table/tr/td/a": 2,
            "/html/body/div[navfooter]/table/tr/td/a": 4, body: 1, f"{body}/div[titlepage]/h2": 1,
            f"{body}/p": blocks, f"{body}/div[inner]/p": blocks}


def test_the_page_wrapper_is_the_outermost_classed_element_holding_most_of_the_page():
    assert page_wrapper(_page("refentry")) == "div[refentry]"
    assert page_wrapper({"/html": 1, "/html/body": 1, "/html/body/p": 9}) is None   # no classed step
    # a long header and footer around a short body: no classed element holds more than half
    nav = {"/html/body/div[navheader]/table/tr/td/a": 20, "/html/body/div[navfooter]/table/tr/td/a": 20}
    assert page_wrapper(_page("section", blocks=1) | nav) is None


def test_only_a_kind_over_the_share_is_parted_and_only_by_wrappers_of_min_pts_pages():
    """Kind 0 holds 14 of 16 clustered pages: its eight refentries stay kind 0, its five sections
    become kind 2, its one chapter (< min_pts) stays. Kind 1 (two pages) is under the share and
    outliers stay outliers; at a share of 0.9 kind 0 (14 / 16 = 0.875) is left whole."""
    bags = [_page("refentry")] * 8 + [_page("section")] * 5 + [_page("chapter")] + [_page("index")] * 2 + [_page("x")]
    labels = [0] * 14 + [1] * 2 + [-1]
    parted = parted_by_wrapper(labels, bags, min_pts=4, share=0.8)
    assert parted.tolist() == [0] * 8 + [2] * 5 + [0] + [1] * 2 + [-1]
    assert parted_by_wrapper(labels, bags, min_pts=6, share=0.8).tolist() == labels    # five sections < min_pts
    assert parted_by_wrapper(labels, bags, min_pts=4, share=0.9).tolist() == labels


def test_kind_wrapper_cut_presets_and_checks():
    assert sitemap_learner().kind_wrapper_cut_ == 0.9 and sitemap_learner(method="paper").kind_wrapper_cut_ == 0.0
    assert sitemap_learner(kind_wrapper_cut=0).kind_wrapper_cut_ == 0.0
    for bad in (-0.1, 1.0, True):
        with pytest.raises(ValueError, match="kind_wrapper_cut must be in"):
            sitemap_learner(kind_wrapper_cut=bad).validate()


@pytest.mark.slow
def test_csounds_reference_entries_and_section_pages_are_kinds_apart_with_the_cut():
    """Csound's manual (a design site, issue 30 round 28): one template, one folder; the kind model
    puts opcodes, GEN routines and the overview and chapter pages in one kind of > 90 % of the
    sample. With ``kind_wrapper_cut`` 0.9 the refentry pages and the section pages are kinds
    apart, the crawl's clusters untouched, and a sitemap read back from JSON predicts the same
    kinds for the whole mirror."""
    import build_sites
    from settings_support import sitemap_settings
    from test_source_guard import built_site_mirror

    from crawlplan.source.evaluate import clustering_scores
    from crawlplan.source.experiment import site_specs, train_site

    site = "csound.com"
    mirror = built_site_mirror(site)
    typer = site_specs(build_sites.site_types())[site].typer
    fitted = {cut: train_site(mirror, sitemap_settings(method="default", kind_wrapper_cut=cut)) for cut in (0.0, 0.9)}
    (off, sample), (on, sample_on) = fitted[0.0], fitted[0.9]
    assert sample == sample_on and (off.labels_ == on.labels_).all()
    types = [typer(u) for u in sample]
    assert max(np.bincount(off.kind_labels_[off.kind_labels_ >= 0])) > 0.9 * len(sample)

    def main_kind(kinds, kind):
        return Counter(k for k, t in zip(kinds.tolist(), types) if t == kind).most_common(1)[0][0]

    assert main_kind(off.kind_labels_, "opcode") == main_kind(off.kind_labels_, "overview")
    assert main_kind(on.kind_labels_, "opcode") != main_kind(on.kind_labels_, "overview")
    f = {name: clustering_scores(types, m.kind_labels_.tolist(), m.min_pts)["micro_f"] for name, m in (("off", off), ("on", on))}
    assert f["on"] > f["off"] + 0.05, f
    again = SitemapLearner.from_json(on.to_json())
    urls = list(mirror.pages)
    pages = [mirror.pages[u] for u in urls]
    assert (again.predict_kind(pages, urls=urls) == on.predict_kind(pages, urls=urls)).all()
