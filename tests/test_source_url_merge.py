"""Clusters that one URL kind holds are merged (``url_merge``), and only those: synthetic URL sets
in the shapes of pytest's release notes, forum threads, javadoc, rustdoc, Doxygen and gi-docgen;
no real site."""

import numpy as np
import pytest
from settings_support import sitemap_learner

from crawlplan.source.learner import SitemapLearner
from crawlplan.source.url_kinds import MOSTLY, merge_by_url_kind, name_suffix, url_kinds

BASE = "https://docs.example.org/en/7.2"
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         "sigma tau upsilon phi chi psi omega").split()


def test_clusters_of_one_folder_and_kind_merge_and_labels_stay_contiguous():
    # release notes split by length into clusters 0 and 2; how-tos are cluster 1; two outliers
    urls = [f"{BASE}/announce/release-7.{i}.html" for i in range(12)]
    urls += [f"{BASE}/how-to/{w}.html" for w in WORDS[:8]] + [f"{BASE}/index.html", f"{BASE}/search.html"]
    labels = np.array([0] * 6 + [2] * 6 + [1] * 8 + [-1, -1])
    merged = merge_by_url_kind(labels, urls, markers=True)
    assert merged[:12].tolist() == [0] * 12
    assert merged[12:20].tolist() == [1] * 8
    assert merged[20:].tolist() == [-1, -1]          # outliers are never merged
    assert sorted(set(merged.tolist()) - {-1}) == [0, 1]


def test_a_cluster_mostly_of_one_kind_merges_but_a_mixed_one_does_not():
    urls = [f"https://f.example.net/t/{100 + i}-{WORDS[i % 24]}" for i in range(30)]
    urls += [f"https://f.example.net/tag/{w}" for w in WORDS[:10]]
    # cluster 0: threads; cluster 1: 8 threads + 2 tags (80% threads); cluster 2: 5 threads + 5 tags
    labels = np.array([0] * 22 + [1] * 8 + [2] * 5 + [1] * 2 + [2] * 3)
    merged = merge_by_url_kind(labels, urls, markers=True)
    assert merged[0] == merged[22] == merged[30 + 5]
    assert merged[0] != merged[30]                   # the half-and-half cluster keeps its own label
    assert len(set(merge_by_url_kind(labels, urls, share=0.9, markers=True).tolist())) == 3   # 80% < 90%: no merge


def test_a_kind_spread_over_many_folders_is_not_merged():
    """javadoc classes over package folders, split by structure into two clusters that each span
    the packages: no single URL kind holds two thirds of either, so nothing merges (and nothing
    is ever split by folder)."""
    packages = ["org/junit", "org/junit/runner", "org/junit/rules", "org/junit/experimental"]
    urls = [f"https://junit.example.org/javadoc/{p}/{w.title()}.html" for p in packages for w in WORDS[:6]]
    labels = np.array([0, 0, 0, 1, 1, 1] * 4)
    assert merge_by_url_kind(labels, urls, markers=True).tolist() == labels.tolist()


def test_kind_markers_keep_kinds_of_one_folder_apart():
    """rustdoc-shaped: struct / fn / trait pages side by side in one module folder (under 90% of
    the site); two struct clusters merge, the fn and trait clusters stay."""
    io = "https://docs.example.rs/kit/1.0/kit/io"
    urls = [f"{io}/struct.{w.title()}.html" for w in WORDS[:12]]
    urls += [f"{io}/fn.{w}.html" for w in WORDS[12:18]] + [f"{io}/trait.{w.title()}.html" for w in WORDS[18:24]]
    urls += [f"https://docs.example.rs/kit/1.0/src/kit/{w}.rs.html" for w in WORDS[:8]]
    labels = np.array([0] * 6 + [1] * 6 + [2] * 6 + [3] * 6 + [4] * 8)
    merged = merge_by_url_kind(labels, urls, markers=True)
    assert merged[:12].tolist() == [0] * 12
    assert len({merged[0], merged[12], merged[18], merged[24]}) == 4


def test_in_a_folder_holding_the_whole_site_only_a_marker_names_a_kind():
    """Doxygen-shaped: class pages and their member lists share the folder and the leading
    ``class`` marker; the trailing ``members`` keeps them two kinds. A class kind the structure
    split in two merges; the member lists stay apart; a page without a marker has no kind."""
    html = "https://proj.example.org/doc/html"
    urls = [f"{html}/class_{w}.html" for w in WORDS[:10]]
    urls += [f"{html}/class_{w}-members.html" for w in WORDS[:10]]
    urls += [f"{html}/annotated.html", "https://proj.example.org/doc/index.html"]
    kinds = url_kinds(urls, markers=True)
    assert kinds[0][1:] == ("class", "") and kinds[10][1:] == ("class", "members")
    assert kinds[20] is None and kinds[21] is not None      # no marker in the whole-site folder
    labels = np.array([0] * 5 + [2] * 5 + [1] * 10 + [-1, -1])
    merged = merge_by_url_kind(labels, urls, markers=True)
    assert merged[:10].tolist() == [0] * 10 and set(merged[10:20].tolist()) == {1}


def test_gi_docgen_method_pages_split_by_signature_merge_in_the_one_folder():
    """gi-docgen-shaped: every page in one folder, named by kind first (``method.*``,
    ``class.*``); three method clusters (by signature shape) merge, the class cluster stays."""
    pango = "https://docs.example.org/Pango"
    urls = [f"{pango}/method.Context.{w}.html" for w in WORDS[:18]]
    urls += [f"{pango}/class.{w.title()}.html" for w in WORDS[:6]]
    labels = np.array([0] * 6 + [1] * 6 + [2] * 6 + [3] * 6)
    merged = merge_by_url_kind(labels, urls, markers=True)
    assert set(merged[:18].tolist()) == {0} and set(merged[18:].tolist()) == {1}


def test_without_kind_markers_only_the_folder_names_a_kind():
    """``kind_markers: false``: the gi-docgen-shaped folder that holds the whole site names no
    kind, so its split method clusters stay apart; a folder of part of the site still merges."""
    pango = "https://docs.example.org/Pango"
    urls = [f"{pango}/method.Context.{w}.html" for w in WORDS[:18]]
    urls += [f"{pango}/class.{w.title()}.html" for w in WORDS[:6]]
    labels = np.array([0] * 6 + [1] * 6 + [2] * 6 + [3] * 6)
    assert url_kinds(urls, markers=False) == [None] * 24
    assert merge_by_url_kind(labels, urls, markers=False).tolist() == labels.tolist()
    announce = [f"https://docs.example.org/en/announce/release-{i}.0.html" for i in range(12)]
    other = [f"https://docs.example.org/en/how-to/{w}.html" for w in WORDS[:12]]
    labels = np.array([0] * 6 + [1] * 6 + [2] * 12)
    merged = merge_by_url_kind(labels, announce + other, markers=False)
    assert set(merged[:12].tolist()) == {0} and set(merged[12:].tolist()) == {1}


def test_a_slug_s_last_word_does_not_split_a_folder_s_kind():
    """Forum threads whose slugs end in the same words (``-help``, ``-error``): outside a
    whole-site folder the trailing word is no marker, so the threads stay one kind and the two
    thread clusters merge."""
    urls = [f"https://f.example.net/t/{100 + i}-{WORDS[i]}-{('help', 'error', 'fix')[i % 3]}" for i in range(24)]
    urls += [f"https://f.example.net/u/{w}" for w in WORDS[:8]] + [f"https://f.example.net/tag/{w}" for w in WORDS[:8]]
    assert len({k for k in url_kinds(urls, markers=True)[:24]}) == 1
    labels = np.array([0] * 12 + [1] * 12 + [2] * 8 + [3] * 8)
    assert set(merge_by_url_kind(labels, urls, markers=True)[:24].tolist()) == {0}


@pytest.mark.parametrize("name, suffix", [
    ("class_json_1_1_value-members.html", "members"), ("json_8h_source.html", "source"),
    ("class_json_1_1_value.html", "value"), ("release-2.0.0.html", ""), ("index.html", ""),
    ("git-add.html", "add"), ("Data-Aeson-Types.html", "Types"), ("3.0.html", ""), ("", "")])
def test_name_suffix_is_the_trailing_word(name, suffix):
    assert name_suffix(f"https://x.org/doc/{name}") == suffix


def _bag(kind: str, i: int) -> dict[str, int]:
    if kind == "short":
        return {"/html/body/div/h1": 1, "/html/body/div/p": 2}
    if kind == "long":
        return {"/html/body/div/h1": 1, "/html/body/div/ul/li": 30 + i, "/html/body/div/ul/li/a": 30}
    return {"/html/body/table/tr/td": 12 + i % 3, "/html/body/table/tr/th": 3}


def test_fit_merges_structural_clusters_of_one_url_kind_only_when_asked():
    urls = [f"{BASE}/announce/release-7.{i}.html" for i in range(20)] + [f"{BASE}/reference/{w}.html" for w in WORDS[:10]]
    bags = [_bag("short", i) for i in range(10)] + [_bag("long", i) for i in range(10)] + [_bag("table", i) for i in range(10)]
    structural = sitemap_learner(url_merge=0).fit(bags, urls=urls)
    assert len(set(structural.labels_[:20].tolist())) == 2 and structural.url_merged_ == 0
    merged = sitemap_learner().fit(bags, urls=urls)             # the default preset merges
    assert len(set(merged.labels_[:20].tolist())) == 1 and merged.url_merged_ == 1
    assert merged.labels_[25] != merged.labels_[0] and merged.n_clusters_ == 2
    # prediction follows the merged clusters: a new long release note joins the one cluster
    assert merged.predict([_bag("long", 3)])[0] == merged.labels_[0]
    assert len(set(sitemap_learner().fit(bags).labels_[:20].tolist())) == 2     # no URLs, no merge
    assert sitemap_learner(method="paper").url_merge_ == 0 and sitemap_learner().url_merge_ == MOSTLY
    assert SitemapLearner.from_json(merged.to_json()).url_merge is None


@pytest.mark.parametrize("bad", [0.3, 0.5, 1.5, True, "yes"])
def test_url_merge_must_be_off_or_a_majority_share(bad):
    with pytest.raises(ValueError, match="url_merge"):
        sitemap_learner(url_merge=bad).validate()


def test_labels_and_urls_must_pair_up():
    with pytest.raises(ValueError, match="2 labels for 1 URLs"):
        merge_by_url_kind(np.array([0, 1]), [f"{BASE}/announce/release-7.0.html"], markers=True)
