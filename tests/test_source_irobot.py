"""iRobot baseline: repetitive regions, leader clustering, traversal path, crawl (synthetic forum)."""

from test_source_synth import HOST, TYPES, bfs_order, forum_pages

from crawlplan.source.crawl import sample_apath
from crawlplan.source.evaluate import PageTyper, clustering_scores
from crawlplan.source.irobot import IRobotClustering, IRobotCrawler, page_text_size, repetitive_regions
from crawlplan.source.mirror import SitePage, build_mirror

LIST = ("<html><body><div class='main'><ul class='threads'>"
        + "".join(f"<li class='t'><a href='/t/{i}'>t{i}</a><span>by u</span></li>" for i in range(5))
        + "</ul><p>one</p></div></body></html>")


def test_repetitive_region_needs_depth_repeats_and_ratio():
    regions = repetitive_regions(LIST)
    assert regions == {"/html/body/div[main]/ul[threads]/li[t](a,span)"}
    # the region's root counts its depth from <html> = 1: the list right under <body> is at 3
    shallow = LIST.replace("<div class='main'>", "").replace("</ul><p>one</p></div>", "</ul>")
    assert repetitive_regions(shallow, min_depth=4) == frozenset()
    assert repetitive_regions(shallow, min_depth=3) == {"/html/body/ul[threads]/li[t](a,span)"}
    # one repeat among many different children falls under Min_R
    mixed = "<html><body><div><div>" + "".join(f"<h{i}>x</h{i}>" for i in range(1, 7)) + "<p>a</p><p>b</p></div></div></body></html>"
    assert repetitive_regions(mixed, min_r=0.3) == frozenset()
    assert repetitive_regions(mixed, min_r=0.2) == {"/html/body/div/div/p()"}
    assert repetitive_regions(None) == frozenset()


def test_leader_clustering_by_jaccard_threshold():
    a, b = frozenset({"x", "y", "z"}), frozenset({"p", "q"})
    model = IRobotClustering(min_epsilon=0.5).fit([a, a | {"w"}, b, b, frozenset({"x"})])
    assert model.labels_ == [0, 0, 1, 1, 2]       # {"x"} vs {x,y,z}: Jaccard 1/3 < 0.5
    assert model.representatives_[0] == a | {"w"}  # patterns on at least half the members
    assert model.predict([frozenset({"p"}), a]) == [1, 0]


def test_text_size_and_duplicates():
    n, digest = page_text_size("<html><body><script>var x</script><p>hello  world</p></body></html>")
    assert n == len("hello world")
    assert digest == page_text_size("<html><body><p>hello world</p></body></html>")[1]


def test_irobot_clusters_and_crawls_the_forum():
    pages = forum_pages(n_boards=4, threads_per_board=10, n_users=8)
    order = bfs_order(pages)
    mirror = build_mirror(HOST, [SitePage(u, i, 200, pages[u].encode()) for i, u in enumerate(order)])
    html = {u: pages[u].encode() for u in order}
    sample = sample_apath(mirror, 1000, seed=0)
    robot = IRobotCrawler(mirror, html, sample)
    typer = PageTyper(TYPES)
    scores = clustering_scores([typer(u) for u in sample], robot.labels_, 4)
    assert scores["micro_purity"] >= 0.9
    assert robot.valid_clusters_ and all(c in robot.informativeness_ for c in robot.valid_clusters_)
    entry_cluster = robot.labels_[sample.index(mirror.entry)]
    assert any(src == entry_cluster for src, _ in robot.path_)      # the tree starts at the entry
    crawled = robot.run(30)
    assert crawled[0] == mirror.entry and len(crawled) == len(set(crawled)) <= 30
    # every page after the entry was reached through a (cluster, Apath) on the traversal path
    assert all(u in mirror.pages for u in crawled)
    threads = sum(typer(u) == "thread" for u in crawled)
    assert threads > 0
