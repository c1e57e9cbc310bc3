"""The target crawl's URL family: the example page's folder, narrowed to its file-name kind
where a generator writes several kinds of page into one folder (synthetic URL sets in the
shapes of rustdoc, Doxygen, javadoc, Python and Django documentation; no real site)."""

import pytest
from settings_support import sitemap_learner

from crawlplan.source import navigation as nav
from crawlplan.source.learner import SitemapLearner
from crawlplan.source.target import TargetFeedback, example_family
from crawlplan.source.url_kinds import (
    kind_markers,
    name_prefix,
    numbered_families,
    url_family,
    url_family_counts,
)

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         "sigma tau upsilon phi chi psi omega").split()


def _learner(sample: list[str], kind_markers: str = "all") -> SitemapLearner:
    """target_url family, HITS hubs of the hand-made table, and kind markers in the target family
    (``kind_markers: all``, the option these tests are about; the default uses them in the
    clusters only since issue 30)."""
    learner = sitemap_learner(target_score="paper", kind_markers=kind_markers)
    learner.url_families_ = url_family_counts(sample)
    return learner


def _in(learner, example, url) -> bool:
    family = example_family(learner, example)
    return family is not None and url in family


def test_url_family_is_folder_depth_and_query_keys():
    fam = url_family("https://Docs.x.org/en/3.2/releases/3.0.html")
    assert fam == url_family("https://docs.x.org/en/3.2/releases/4.1.html")          # a sibling
    assert fam != url_family("https://docs.x.org/en/3.2/topics/http.html")           # another folder
    assert fam != url_family("https://docs.x.org/en/3.2/releases/old/1.0.html")      # deeper
    assert url_family("https://f.io/t?id=1&p=2") == url_family("https://f.io/t?p=9&id=3")
    assert url_family("https://f.io/t?id=1") != url_family("https://f.io/t?q=1")


@pytest.mark.parametrize("name, prefix", [
    ("struct.Reader.html", "struct"), ("fn.copy.html", "fn"), ("class_json_1_1_value.html", "class"),
    ("package-summary.html", "package"), ("os.path.html", "os"), ("asyncio-task.html", "asyncio"),
    ("os.html", ""), ("index.html", ""), ("3.0.1.html", ""), ("Assert.html", ""), ("", ""),
    ("how-to-fix-it", "how"), ("v1.2", ""), ("123", ""), ("Category:Physics", "Category"),
])
def test_name_prefix_is_the_leading_word_of_the_name(name, prefix):
    assert name_prefix(f"https://s.org/docs/{name}") == prefix
    assert name_prefix(f"https://s.org/docs/{name}?page=2#top") == prefix


def test_numbered_families_are_the_word_a_file_name_numbers():
    """The pieces of one numbered thing across folders; the bare name only beside its pieces."""
    urls = ["https://s.org/lcl/a/index.html", "https://s.org/lcl/a/index-4.html", "https://s.org/lcl/b/index-8.html",
            "https://s.org/lcl/c/index.html", "https://s.org/m/gettext_16.html", "https://s.org/m/gettext_toc.html",
            "https://s.org/r/release-9-5-3.html", "https://s.org/r/release-7.0.0.html", "https://s.org/GEN01.html",
            "https://s.org/d/a00012.html", "https://s.org/releases/1.0.html", "https://s.org/u/usr_01.txt.html",
            "https://s.org/u/page.php?id=2", "", "http://[::1/x-1.html"]
    assert numbered_families(urls) == ["index", "index", "index", None, "gettext", None, "release", "release", "GEN",
                                       None, None, None, None, None, None]


def test_target_crawl_takes_the_example_url_family():
    """Two rows lead to the target cluster 1 equally often; with ``target_url`` family a link
    in the example's folder outranks one elsewhere under the same row and a fetched page there
    is a hit even outside the cluster. A folder holding (nearly) the whole sample is ignored."""
    table = {(0, "a"): {1: 2.0, 0: 2.0}}
    rows = {k: nav.row_probabilities(v) for k, v in table.items()}
    example = "https://s.org/releases/3.0.html"
    sample = [f"https://s.org/releases/{i}.0.html" for i in range(40)] + \
        [f"https://s.org/topics/{i}.html" for i in range(60)]
    learner = _learner(sample)
    learner.navigation_, learner.clusters_ = table, [0, 1]
    fb = TargetFeedback(learner, rows, target=1, example=example)
    sibling, other = "https://s.org/releases/4.1.html", "https://s.org/topics/y.html"
    assert fb.score((0, "a"), sibling) > fb.score((0, "a"), other)
    assert fb.score((0, "a"), sibling) >= learner.alpha_target
    for _ in range(6):
        fb.observe((0, "a"), 0, sibling)     # structure says cluster 0, the folder says target
    assert fb.hits[(0, "a")] == 6
    assert example_family(learner, example).family == url_family(example)
    learner.url_families_ = url_family_counts(sample[:40] * 20 + sample[40:])
    assert example_family(learner, example) is None     # one folder for 95% of the site
    assert example_family(sitemap_learner(method="paper"), example) is None
    assert example_family(sitemap_learner(), example) is None   # a sitemap saved without families
    off = sitemap_learner(target_url="off", target_score="paper")
    off.navigation_, off.clusters_, off.url_families_ = table, [0, 1], learner.url_families_
    structure_only = TargetFeedback(off, rows, target=1, example=example)
    assert structure_only.score((0, "a"), sibling) == structure_only.score((0, "a"), other)
    with pytest.raises(ValueError, match="target_url"):
        sitemap_learner(target_url="folder").validate()


def _rustdoc(crate="https://docs.example.rs/kit/1.0/kit"):
    """Module folders, each mixing struct / fn / trait / enum pages and an index."""
    urls = [f"{crate}/index.html", f"{crate}/all.html"]
    for module in ("io", "net", "fmt", "sync"):
        folder = f"{crate}/{module}"
        urls += [f"{folder}/index.html"]
        urls += [f"{folder}/struct.{w.title()}.html" for w in WORDS[:9]]
        urls += [f"{folder}/fn.{w}.html" for w in WORDS[9:15]]
        urls += [f"{folder}/trait.{w.title()}Ext.html" for w in WORDS[15:19]]
        urls += [f"{folder}/enum.{w.title()}Kind.html" for w in WORDS[19:22]]
        urls += [f"{folder}/macro.{WORDS[22]}.html", f"{folder}/type.{WORDS[23].title()}.html"]
    return urls


def test_rustdoc_shape_narrows_to_the_example_kind():
    sample = _rustdoc()
    learner = _learner(sample)
    io = "https://docs.example.rs/kit/1.0/kit/io"
    example = f"{io}/struct.Alpha.html"
    family = example_family(learner, example)
    assert family.kind == "struct" and {"struct", "fn", "trait", "enum"} <= family.markers
    assert f"{io}/struct.Zeta.html" in family and f"{io}/struct.Unseen.html" in family
    for other_kind in ("fn.kappa", "trait.PiExt", "enum.PhiKind", "macro.psi", "index"):
        assert f"{io}/{other_kind}.html" not in family
    assert "https://docs.example.rs/kit/1.0/kit/net/struct.Alpha.html" not in family   # another folder
    assert _in(learner, f"{io}/fn.kappa.html", f"{io}/fn.lambda.html")
    assert not _in(learner, f"{io}/fn.kappa.html", f"{io}/struct.Alpha.html")
    # a rare kind (one page per folder: no marker) keeps the unmarked pages of its folder
    macro = example_family(learner, f"{io}/macro.psi.html")
    assert macro.kind == "" and f"{io}/index.html" in macro and f"{io}/struct.Alpha.html" not in macro


def test_without_markers_in_the_target_the_family_is_the_folder():
    """``kind_markers: clusters`` (the default since issue 30): the example's family is its whole
    folder, whatever the file names say."""
    sample = _rustdoc()
    io = "https://docs.example.rs/kit/1.0/kit/io"
    family = example_family(_learner(sample, kind_markers="clusters"), f"{io}/struct.Alpha.html")
    assert family.kind is None and f"{io}/fn.kappa.html" in family and f"{io}/struct.Zeta.html" in family
    assert sitemap_learner().markers_in_target_ is False and sitemap_learner().markers_in_clusters_ is True


def test_rustdoc_shape_scores_only_the_example_kind_as_sure_target_links():
    table = {(0, "a"): {1: 1.0, 0: 3.0}}
    rows = {k: nav.row_probabilities(v) for k, v in table.items()}
    learner = _learner(_rustdoc())
    learner.navigation_, learner.clusters_ = table, [0, 1]
    io = "https://docs.example.rs/kit/1.0/kit/io"
    fb = TargetFeedback(learner, rows, target=1, example=f"{io}/struct.Alpha.html")
    assert fb.score((0, "a"), f"{io}/struct.Beta.html") > fb.score((0, "a"), f"{io}/fn.kappa.html")
    assert fb.is_hit(0, f"{io}/struct.Beta.html") and not fb.is_hit(0, f"{io}/trait.PiExt.html")


def test_doxygen_shape_narrows_to_the_example_kind():
    """One html/ folder of class_*, struct_*, namespace_* and file pages; the project's other
    pages keep the folder under the 90% guard."""
    api = "https://proj.example.org/doc/api/html"
    sample = [f"{api}/class_{a}_1_1_{b}.html" for a in WORDS[:3] for b in WORDS[3:9]]
    sample += [f"{api}/struct_{w}.html" for w in WORDS[9:14]]
    sample += [f"{api}/namespace_{w}.html" for w in WORDS[14:18]]
    sample += [f"{api}/{w}_8h.html" for w in WORDS[18:22]] + [f"{api}/annotated.html", f"{api}/files.html"]
    sample += [f"https://proj.example.org/doc/guide/{w}.html" for w in WORDS[:6]]
    learner = _learner(sample)
    family = example_family(learner, f"{api}/class_alpha_1_1_delta.html")
    assert family.kind == "class" and family.markers == {"class", "struct", "namespace"}
    assert f"{api}/class_beta_1_1_epsilon.html" in family
    assert f"{api}/struct_kappa.html" not in family and f"{api}/namespace_omicron.html" not in family
    assert f"{api}/annotated.html" not in family and f"{api}/sigma_8h.html" not in family
    assert _in(learner, f"{api}/namespace_xi.html", f"{api}/namespace_pi.html")
    assert not _in(learner, f"{api}/namespace_xi.html", f"{api}/class_alpha_1_1_delta.html")
    # the same generator writing the whole site into one folder: the guard still switches it off
    assert example_family(_learner(sample[:-6]), f"{api}/class_alpha_1_1_delta.html") is None


def test_javadoc_shape_keeps_class_pages_apart_from_package_pages():
    sample = []
    for package in ("org/kit/core", "org/kit/io", "org/kit/util"):
        folder = f"https://kit.example.org/api/{package}"
        sample += [f"{folder}/{w.title()}.html" for w in WORDS[:10]]
        sample += [f"{folder}/{WORDS[0].title()}.Builder.html"]                  # a nested class
        sample += [f"{folder}/package-{p}.html" for p in ("summary", "tree", "use")]
    learner = _learner(sample)
    core = "https://kit.example.org/api/org/kit/core"
    family = example_family(learner, f"{core}/Gamma.html")
    assert family.kind == "" and family.markers == {"package"}
    assert f"{core}/Delta.html" in family and f"{core}/Alpha.Builder.html" in family
    assert f"{core}/package-summary.html" not in family and f"{core}/package-tree.html" not in family
    package = example_family(learner, f"{core}/package-summary.html")
    assert package.kind == "package" and f"{core}/package-use.html" in package
    assert f"{core}/Delta.html" not in package


def test_mediawiki_shape_narrows_to_the_namespace():
    """Articles and namespace pages (``Category:``, ``Talk:``) side by side in ``/wiki/``."""
    wiki = "https://wiki.example.org/wiki"
    sample = [f"{wiki}/{w.title()}_{v}" for w in WORDS for v in ("theory", "space", "group")]
    sample += [f"{wiki}/Category:{w.title()}" for w in WORDS[:10]] + [f"{wiki}/Talk:{w.title()}" for w in WORDS[:12]]
    sample += [f"https://wiki.example.org/w/index.php?title={w}&action=edit" for w in WORDS[:20]]
    learner = _learner(sample)
    category = example_family(learner, f"{wiki}/Category:Alpha")
    assert category.kind == "Category" and f"{wiki}/Category:Omega" in category
    assert f"{wiki}/Talk:Alpha" not in category and f"{wiki}/Alpha_theory" not in category
    article = example_family(learner, f"{wiki}/Beta_space")
    assert article.kind == "" and f"{wiki}/Gamma_group" in article and f"{wiki}/Talk:Beta" not in article


def test_folders_of_names_are_not_narrowed():
    """Python's library/ (dotted and hyphenated module names: a prefix recurs on a few % of the
    folder), Django's releases/ (version numbers) and pytest's announce/ (one prefix on nearly
    every page, beside the folder's index) keep the whole folder."""
    lib = "https://docs.example.org/3/library"
    names = [f"{a}{b}" for a in WORDS for b in ("", "lib", "util", "tools", "io", "ops", "fmt", "db")]
    sample = [f"{lib}/{n}.html" for n in names]                                   # 192 plain modules
    sample += [f"{lib}/asyncio-{w}.html" for w in WORDS[:10]] + [f"{lib}/email.{w}.html" for w in WORDS[:9]]
    sample += [f"{lib}/xml.{w}.html" for w in WORDS[:5]] + [f"{lib}/os.html", f"{lib}/os.path.html"]
    rel = "https://docs.example.org/3/releases"
    sample += [f"{rel}/{major}.{minor}.{patch}.html" for major in (1, 2, 3) for minor in range(3) for patch in range(6)]
    sample += [f"{rel}/index.html", f"{rel}/security.html"]
    ann = "https://docs.example.org/3/announce"
    sample += [f"{ann}/release-{v}.0.{p}.html" for v in range(4, 8) for p in range(12)] + [f"{ann}/index.html"]
    sample += [f"https://docs.example.org/3/tutorial/{w}.html" for w in WORDS[:12]]
    learner = _learner(sample)
    assert not kind_markers(learner.url_families_[url_family(f"{lib}/os.html")])
    for example, sibling in [(f"{lib}/json.html", f"{lib}/asyncio-task.html"),
                             (f"{lib}/asyncio-beta.html", f"{lib}/pickle.html"),
                             (f"{lib}/os.path.html", f"{lib}/email.parser.html"),
                             (f"{rel}/3.0.html", f"{rel}/security.html"),
                             (f"{ann}/release-7.0.0.html", f"{ann}/index.html")]:
        family = example_family(learner, example)
        assert family.kind is None and sibling in family, example


def _whole_site_folder(command_cluster: dict[int, int]):
    """git-shaped: every man page in docs/ (> 90% of the sample) — ``git-*.html`` commands
    (marker ``git``) beside ``git*.html`` concepts (no marker) — plus a small howto folder."""
    docs = "https://git.example.org/docs"
    sample = [f"{docs}/git-{w}.html" for w in WORDS] + [f"{docs}/git-{w}-tool.html" for w in WORDS[:16]]
    sample += [f"{docs}/git{w}.html" for w in WORDS[:12]] + [f"{docs}/index.html"]
    sample += [f"https://git.example.org/docs/howto/{w}.html" for w in WORDS[:4]]
    learner = _learner(sample)
    commands = learner.url_families_[url_family(f"{docs}/git-add.html")]["git"]
    assert sum(command_cluster.values()) == commands
    learner.url_kind_clusters_ = {url_family(f"{docs}/git-add.html"): {"git": command_cluster, "": {0: 13}}}
    return learner, docs


def test_whole_site_folder_narrows_to_the_example_kind_when_the_structure_agrees():
    learner, docs = _whole_site_folder({0: 37, 2: 3})           # 93% of the commands in cluster 0
    family = example_family(learner, f"{docs}/git-commit.html", targets={0})
    assert family.kind == "git" and f"{docs}/git-push.html" in family
    assert f"{docs}/gitglossary.html" not in family and f"{docs}/index.html" not in family
    assert example_family(learner, f"{docs}/git-commit.html") is None              # no target cluster
    assert example_family(learner, f"{docs}/git-commit.html", targets={2}) is None    # not where the kind is
    assert example_family(learner, f"{docs}/gitglossary.html", targets={0}) is None   # unmarked: no kind


def test_whole_site_folder_stays_off_when_the_prefix_spans_templates():
    """Doxygen-shaped: ``class_*.html`` and ``class_*-members.html`` share the marker, half the
    pages in each cluster: the prefix is no kind of page, the crawl is left to the structure."""
    learner, docs = _whole_site_folder({0: 20, 1: 20})
    assert example_family(learner, f"{docs}/git-commit.html", targets={0}) is None


def test_family_links_are_fetched_before_every_other_link():
    """A row into the target cluster scores level with the family when the cluster holds other
    kinds of the same template; the family link still ranks first, even behind a weaker hub."""
    learner, docs = _whole_site_folder({0: 37, 2: 3})
    table = {(0, "toc"): {0: 9.0}, (1, "a"): {0: 1.0, 1: 5.0}}
    learner.navigation_, learner.clusters_ = table, [0, 1, 2]
    rows = {k: nav.row_probabilities(v) for k, v in table.items()}
    fb = TargetFeedback(learner, rows, target=0, example=f"{docs}/git-commit.html")
    assert fb.score((1, "a"), f"{docs}/git-push.html") > fb.score((0, "toc"), f"{docs}/gitglossary.html") > 0
    back = SitemapLearner.from_json(sitemap_learner().fit(
        [{"/html/body/p": 1}] * 6, urls=[f"{docs}/git-{w}.html" for w in WORDS[:6]]).to_json())
    assert back.url_kind_clusters_ == {url_family(f"{docs}/git-add.html"): {"git": {0: 6}}}


def _forum(family_pages: int, cluster_pages: int):
    """Threads in t/ (the example's family) and search results in another folder, both in the
    target cluster 1 of the sample."""
    threads = [f"https://f.example.net/t/{100 + i}-{WORDS[i % 24]}" for i in range(30)]
    sample = threads + [f"https://f.example.net/search?q={w}" for w in WORDS[:6]]
    sample += [f"https://f.example.net/u/{w}" for w in WORDS[:20]]
    learner = _learner(sample)
    learner.url_kind_clusters_ = {url_family(threads[0]): {"": {1: family_pages}},
                                  url_family(sample[31]): {"": {1: cluster_pages - family_pages}}}
    learner.cluster_sizes_ = {0: 20, 1: cluster_pages}
    table = {(0, "list"): {1: 4.0}, (0, "nav"): {0: 1.0}}
    learner.navigation_, learner.clusters_ = table, [0, 1]
    rows = {k: nav.row_probabilities(v) for k, v in table.items()}
    return TargetFeedback(learner, rows, target=1, example=threads[0])


def test_a_family_holding_most_of_the_target_cluster_is_the_target():
    fb = _forum(family_pages=30, cluster_pages=36)              # 83% of the cluster in t/
    thread, search = "https://f.example.net/t/999-new", "https://f.example.net/search?q=zeta"
    assert fb.family_is_target
    assert fb.is_hit(1, thread) and not fb.is_hit(1, search)    # same cluster, not the kind
    # a link outside the family is worth only the way on: its row's P(target) = 1 does not count
    assert fb.score((0, "list"), search) == pytest.approx((1 - fb.alpha) * fb.prior((0, "list"))[1])
    assert fb.score((0, "list"), thread) > fb.score((0, "list"), search)


def test_a_family_that_is_a_small_part_of_the_target_cluster_does_not_define_it():
    """javadoc-shaped: the example's package holds a tenth of the class cluster; classes in
    other packages are found (and counted) through the cluster."""
    fb = _forum(family_pages=4, cluster_pages=36)
    assert not fb.family_is_target
    assert fb.is_hit(1, "https://f.example.net/search?q=zeta")
    assert fb.score((0, "list"), "https://f.example.net/search?q=zeta") > fb.alpha * 0.5


def test_markers_in_a_flat_sites_target_only():
    """``kind_markers: clusters_flat``: where the example's folder holds the whole site the
    example's file-name kind is the family (git's commands), but a folder that mixes kinds and
    does not hold the site stays whole (the rustdoc shape is not narrowed)."""
    learner, docs = _whole_site_folder({0: 37, 2: 3})
    flat = sitemap_learner(target_score="paper", kind_markers="clusters_flat")
    flat.url_families_, flat.url_kind_clusters_ = learner.url_families_, learner.url_kind_clusters_
    family = example_family(flat, f"{docs}/git-commit.html", targets={0})
    assert family.kind == "git" and f"{docs}/gitglossary.html" not in family
    plain = sitemap_learner(target_score="paper", kind_markers="clusters")
    plain.url_families_, plain.url_kind_clusters_ = learner.url_families_, learner.url_kind_clusters_
    assert example_family(plain, f"{docs}/git-commit.html", targets={0}) is None
    io = "https://docs.example.rs/kit/1.0/kit/io"
    rust = _learner(_rustdoc(), kind_markers="clusters_flat")
    assert example_family(rust, f"{io}/struct.Alpha.html").kind is None
    assert rust.markers_in_clusters_ and rust.markers_in_flat_target_ and not rust.markers_in_target_
