"""Bag-of-XPaths features and Apaths (crawlplan.source.features) and the mirror's site rules."""

from crawlplan.source.features import extract, links_by_apath, normalise_url
from crawlplan.source.mirror import SitePage, build_mirror, safe_site, site_key

HTML = b"""<html><head><base href="https://s.com/docs/"><script>var a = '<p>';</script></head>
<body><div class="nav main"><ul>
<li><a class="item" href="a.html#top">A</a></li><li><a class="item" href="b.html">B</a></li>
<li><a id="ext" href="https://other.org/x">X</a></li><li><a href="mailto:x@y">M</a></li></ul></div>
<table><tr><td><span>1</span></td><td><a href="/c.html">C</a></td></tr></table><p>t</p><p>u</p></body></html>"""


def test_leaf_xpaths_have_no_indices_and_count_repeats():
    f = extract("https://s.com/docs/index.html", HTML)
    assert f.xpaths["/html/body/p"] == 2
    assert f.xpaths["/html/body/div/ul/li/a"] == 4
    assert f.xpaths["/html/body/table/tr/td/span"] == 1
    assert not any("script" in p for p in f.xpaths)       # scripts are not displayed leaves
    assert not any("[" in p for p in f.xpaths)             # paper variant: tag names only


def test_apaths_carry_class_or_id_and_stay_in_site():
    f = extract("https://s.com/docs/index.html", HTML)
    assert f.links == [("/html/body/div/ul/li/a[item]", "https://s.com/docs/a.html"),
                       ("/html/body/div/ul/li/a[item]", "https://s.com/docs/b.html"),
                       ("/html/body/table/tr/td/a", "https://s.com/c.html")]


def test_frames_and_image_map_areas_are_links_as_a_crawler_follows_them():
    """A frameset page (javadoc before JDK 9) has no anchor: its frames are its links."""
    frameset = b"""<html><frameset cols="20%,80%"><frame src="overview-frame.html" name="left">
<frame src="overview-summary.html#top" name="right"><frame src="javascript:void(0)"></frameset>
<body><iframe src="https://ads.other.org/x"></iframe><iframe src="widget.html"></iframe>
<map><area href="a/b.html"></map><img src="logo.png"></body></html>"""
    f = extract("https://s.com/api/index.html", frameset)
    assert [url for _, url in f.links] == ["https://s.com/api/overview-frame.html", "https://s.com/api/overview-summary.html",
                                           "https://s.com/api/widget.html", "https://s.com/api/a/b.html"]
    assert f.links[0][0].endswith("/frame") and f.links[-1][0].endswith("/map/area")


def test_class_aware_variants():
    leaf = extract("https://s.com/", HTML, xpath_classes="leaf")
    assert leaf.xpaths["/html/body/div/ul/li/a[item]"] == 2
    every = extract("https://s.com/", HTML, xpath_classes="all")
    assert every.xpaths["/html/body/div[nav]/ul/li/a[item]"] == 2
    # Apaths do not depend on the feature variant: one navigation table for all of them
    assert [a for a, _ in every.links] == [a for a, _ in leaf.links]


def test_element_paths_keep_ancestor_context():
    f = extract("https://s.com/", HTML, xpath_classes="elements")
    # inner elements count too: the list container and each item, not only the anchors
    assert f.xpaths["/html/body/div[nav]/ul"] == 1
    assert f.xpaths["/html/body/div[nav]/ul/li"] == 4
    assert f.xpaths["/html/body/div[nav]/ul/li/a[item]"] == 2
    assert f.xpaths["/html/body/p"] == 2 and f.xpaths["/html"] == 1
    assert not any("script" in p for p in f.xpaths)
    assert f.links == extract("https://s.com/", HTML).links


def test_unparsable_pages_are_flagged_not_raised():
    assert extract("https://s.com/", b"").error
    assert extract("https://s.com/", b"   ").error


def test_links_by_apath_dedupes_in_order():
    links = [("x", "u1"), ("x", "u2"), ("x", "u1"), ("y", "u1")]
    assert links_by_apath(links) == {"x": ["u1", "u2"], "y": ["u1"]}


def test_url_normalisation():
    assert normalise_url("https://s.com#frag") == "https://s.com/"
    assert normalise_url("https://s.com/a?b=1#c") == "https://s.com/a?b=1"


def test_site_keys_and_safe_partition_names():
    assert site_key("https://News.BBC.co.uk/x") == "news.bbc.co.uk"
    assert site_key("https://news.bbc.co.uk/x", "registered_domain") == "bbc.co.uk"
    assert safe_site("docs.python.org")
    for bad in ("", "..", "a/b", "a=b", "../etc", "x..y", "%2f"):
        assert not safe_site(bad)


def test_mirror_resolves_redirects_and_drops_duplicates():
    pages = [SitePage("https://s.com/", 0, 200, b"<html><body><a href='/old'>o</a></body></html>"),
             SitePage("https://s.com/old", 1, 301, None, "https://s.com/new"),
             SitePage("https://s.com/new", 2, 200, b"<html><body><p>x</p></body></html>"),
             SitePage("https://s.com/new", 3, 200, b"<html><body><p>again</p></body></html>"),
             SitePage("https://s.com/bad", 4, 200, b"")]
    m = build_mirror("s.com", pages)
    assert m.entry == "https://s.com/"
    assert m.resolve("https://s.com/old") == "https://s.com/new"
    assert m.resolve("https://s.com/missing") is None
    assert len(m) == 2 and m.rejects == {"duplicate": 1, "unparsable": 1}
