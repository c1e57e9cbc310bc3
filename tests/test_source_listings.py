"""``target_listing`` (crawlplan/source/listings.py): where the example's URL names no family, the
sample's broadest list of links that holds the example and is mostly of its kind is the target
crawl's family."""

from __future__ import annotations

import pytest
from settings_support import sitemap_learner

from crawlplan.source.learner import SitemapLearner
from crawlplan.source.listings import example_listing, sample_listings
from crawlplan.source.target import TargetFeedback

HOST = "https://flat.example"


def _url(name: str) -> str:
    return f"{HOST}/{name}.html"


GENS = [_url(f"GEN{i:02d}") for i in range(1, 9)]
OPCODES = [_url(name) for name in ("oscil", "vco2", "moogladder", "reverb", "tablei", "line", "expon", "pan2")]
TOC, INDEX, SEE_ALSO, MENU = "/html/body/dl/dt/a", "/html/body/ul/li/a", "/html/body/p/a", "/html/body/div/a"


def _sample():
    """A flat site's sample: a table of contents linking every page, an index of the GEN routines,
    each GEN page with a two-link "see also" and a menu, and an opcode page whose menu mixes the
    kinds. Kind 0: the reference entries (GEN routines and opcodes alike, as the structure sees
    them); kind 1: the contents pages."""
    toc, index = _url("index"), _url("ScoreGenRef")
    urls = [toc, index] + GENS + OPCODES
    links = {toc: [(TOC, u) for u in urls[1:]], index: [(INDEX, u) for u in GENS]}
    for i, gen in enumerate(GENS):
        links[gen] = [(SEE_ALSO, GENS[i - 1]), (SEE_ALSO, GENS[(i + 1) % len(GENS)]), (MENU, toc)]
    for op in OPCODES:
        links[op] = [(MENU, u) for u in GENS[:3] + OPCODES[:4]]
    kinds = [1, 1] + [0] * (len(GENS) + len(OPCODES))
    return urls, [links[u] for u in urls], kinds


def test_the_sample_keeps_the_lists_an_index_could_be_each_once():
    urls, links, kinds = _sample()
    listings = sample_listings(urls, links, kinds, min_pts=4, share=0.5)
    found = {frozenset(listing["urls"]): listing["kinds"] for listing in listings}
    # the table of contents names every URL (over half), the "see also" lists two, the menu of
    # the opcode pages (one list repeated on eight pages) is kept once
    assert frozenset(GENS) in found and found[frozenset(GENS)] == {0: len(GENS)}
    assert frozenset(GENS[:3] + OPCODES[:4]) in found
    assert len(listings) == 2
    assert sample_listings(urls, links, kinds, min_pts=4, share=0.99) != listings   # the contents too


def test_the_broadest_listing_of_the_examples_kind_names_the_target():
    urls, links, kinds = _sample()
    listings = sample_listings(urls, links, kinds, min_pts=4, share=0.5)
    assert example_listing(listings, GENS[3], 0) == frozenset(GENS)
    assert example_listing(listings, GENS[0], 0) == frozenset(GENS)    # in the menu too: 8 URLs > 7
    assert example_listing(listings, OPCODES[0], 0) == frozenset(GENS[:3] + OPCODES[:4])
    assert example_listing(listings, GENS[3], 1) is None        # not mostly the example's kind
    assert example_listing(listings, OPCODES[6], 0) is None     # in no listing
    mixed = [{"urls": sorted(GENS), "kinds": {0: 4, 1: 3}}]
    assert example_listing(mixed, GENS[0], 0) is None           # 4 of 7 sampled pages < 2/3


def test_target_listing_presets_and_checks():
    assert sitemap_learner().target_listing_ == 0.5 and sitemap_learner(method="paper").target_listing_ == 0.0
    assert sitemap_learner(target_listing=0).target_listing_ == 0.0
    for bad in (1.0, -0.1, True):
        with pytest.raises(ValueError, match="target_listing must be in"):
            sitemap_learner(target_listing=bad).validate()


def test_the_listing_is_the_family_only_where_the_url_names_none():
    """The feedback takes the listing for the family (a sure target, ranked first, a hit) where
    ``example_family`` finds none, reading a link through the mirror's ``resolve``; a learner
    without listings (the paper's preset, an older test learner) keeps the structure alone."""
    urls, links, kinds = _sample()
    learner = sitemap_learner()
    learner.listings_ = sample_listings(urls, links, kinds, min_pts=4, share=0.5)
    learner.navigation_, learner.clusters_ = {}, [0, 7]     # no table: the structure promises nothing
    aliases = {f"{GENS[5]}#syntax": GENS[5]}
    fb = TargetFeedback(learner, {}, target=0, example=GENS[3], example_kind=0,
                        resolve=lambda u: aliases.get(u, u))
    assert fb.family is None and fb.listing == frozenset(GENS)
    assert fb.in_family(f"{GENS[5]}#syntax") and not fb.in_family(OPCODES[0])
    assert fb.is_hit(cluster=7, url=GENS[6]) and fb.expected_hit(None, GENS[1]) == 1.0
    assert fb.score((0, TOC), GENS[1]) > fb.score((0, TOC), OPCODES[1])
    assert TargetFeedback(learner, {}, target=0, example=GENS[3], example_kind=1).listing is None
    plain = sitemap_learner(method="paper")
    plain.navigation_, plain.clusters_ = {}, [0, 7]
    assert TargetFeedback(plain, {}, target=0, example=GENS[3], example_kind=0).listing is None


@pytest.mark.slow
def test_csounds_target_crawl_takes_the_gen_index_and_the_sitemap_keeps_it():
    """Csound's manual (a design site, issue 30 round 29): the GEN routines lie in eleven of the
    crawl's clusters and the entry page is a table of contents of every page, so the crawl by
    structure alone finds none of them in its 48 fetches (nor does BFS). With ``target_listing``
    the sample's list of the GEN routines names them: the crawl takes them first. A sitemap read
    back from JSON holds the same listings and crawls the same."""
    import build_sites
    from settings_support import sitemap_settings
    from test_source_guard import built_site_mirror

    from crawlplan.source.crawl import CrawlSimulator
    from crawlplan.source.experiment import site_specs, train_site

    site = "csound.com"
    mirror = built_site_mirror(site)
    spec = site_specs(build_sites.site_types())[site]
    targets = [u for u in mirror.pages if spec.typer(u) == spec.target_type]

    def harvest(learner):
        steps = CrawlSimulator(mirror, learner).run("target", len(targets), example=spec.example)
        return [s.url for s in steps], sum(spec.typer(s.url) == spec.target_type for s in steps) / len(steps)

    off, _ = train_site(mirror, sitemap_settings(method="default", target_listing=0.0))
    on, _ = train_site(mirror, sitemap_settings(method="default"))
    assert off.listings_ == [] and on.listings_
    assert harvest(off)[1] < 0.1
    crawled, rate = harvest(on)
    assert rate > 0.9, rate
    again = SitemapLearner.from_json(on.to_json())
    assert again.listings_ == on.listings_
    assert harvest(again)[0] == crawled
