"""The site_pages node in sampled mode on the demo crawl: the chosen sites come from the columnar
index, their captures are read by byte range, and the pages equal a full read's (the first
``max_pages`` captures of each site); only those sites' ranges are read."""

from __future__ import annotations

import pandas as pd
import pytest
from demo_support import default_demo, warc_paths

from crawlplan.conf import load_conf, section
from crawlplan.dag.context import JobContext
from crawlplan.dag.pipeline import load_pipeline

pytestmark = pytest.mark.spark

MAX_PAGES = 240          # between the demo forums' sizes (198 to 258 captures), so some sites are cut
MIN_PAGES = 220          # three of the demo's five forum hosts: a short test
COLUMNS = ["url", "status", "location", "offset", "html", "links"]


def _run(spark, tmp_path, overrides, external, **params):
    from crawlplan.nodes.source import site_pages

    pipeline = load_pipeline("main")
    conf = load_conf("local", overrides=overrides)
    node_params = {**section(conf, "source.site_pages"), "min_pages": MIN_PAGES, "max_pages": MAX_PAGES, **params}
    ctx = JobContext(spark=spark, node="site_pages", params=node_params, conf=conf, out_dir=str(tmp_path),
                     search_roots=[str(tmp_path)],
                     external={n: external.get(n) for n in pipeline.external_inputs("site_pages")},
                     optional=frozenset(pipeline.nodes["site_pages"].optional))
    pages = site_pages.run(ctx)["site_pages"]
    return pages, ctx


def _by_site(pages) -> dict[str, list[tuple]]:
    rows = pages.toPandas().sort_values(["site", "capture_order"])
    return {site: [tuple(_plain(v) for v in r) for r in g[COLUMNS].itertuples(index=False)]
            for site, g in rows.groupby("site")}


def _plain(value):
    if isinstance(value, float) and pd.isna(value):
        return None
    if hasattr(value, "tolist"):                 # links: an array of dicts
        return tuple(tuple(sorted(d.items())) for d in value.tolist())
    return value


def _sites(pages) -> list[str]:
    return [r.site for r in pages.select("site").distinct().collect()]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = default_demo(tmp_path_factory)
    index = pd.read_parquet(root / "cc_index")
    return root, index


@pytest.fixture(scope="module")
def full_and_sampled(spark, demo, tmp_path_factory):
    root, _ = demo
    out = tmp_path_factory.mktemp("site_pages")
    full, _ = _run(spark, out / "full", ["extract.mode=full"], {"warc_paths": str(root / "warc.paths.gz")})
    sampled, ctx = _run(spark, out / "sampled", ["extract.mode=sampled"], {"cc_index": str(root / "cc_index")})
    return _by_site(full), _by_site(sampled), sampled, ctx


def test_sampled_mode_gives_a_full_reads_pages_for_the_chosen_sites(full_and_sampled, demo):
    full, sampled, _, ctx = full_and_sampled
    _, index = demo
    html_200 = index[(index.fetch_status == 200) & (index.content_mime_detected == "text/html")]
    expected = set(html_200.groupby("url_host_name").size().loc[lambda s: s >= MIN_PAGES].index)
    assert set(sampled) == expected and len(expected) >= 2
    assert ctx.counters["sites"] == len(expected)
    assert set(full) >= expected          # full mode counts HTML pages of any status: a superset at most
    for site in expected:
        assert sampled[site] == full[site], site           # the same pages, in the same order, each cut alike
    sizes = index[index.url_host_name.isin(expected)].groupby("url_host_name").size()
    assert (sizes > MAX_PAGES).any() and (sizes <= MAX_PAGES).any()     # the cut was exercised, and not everywhere
    assert all(len(sampled[s]) == min(MAX_PAGES, sizes[s]) for s in expected)
    assert all(r[4] is not None and r[5] is not None for s in expected for r in sampled[s] if r[2] is None)


def test_sampled_mode_reads_only_the_chosen_sites_ranges(full_and_sampled, demo, spark, tmp_path):
    from crawlplan import storage

    _, _, pages, ctx = full_and_sampled
    root, index = demo
    candidates = index[(index.fetch_status.between(300, 399)) | (index.content_mime_type == "text/html")]
    chosen = candidates[candidates.url_host_name.isin(_sites(pages))].sort_values(
        ["warc_filename", "warc_record_offset"])
    wanted = chosen.groupby("url_host_name").head(MAX_PAGES)
    assert ctx.counters["ranges_read"] == len(wanted)
    assert ctx.counters["bytes_read"] == int(wanted.warc_record_length.sum())     # merge_gap_bytes 0: no gap bytes
    assert ctx.counters["warc_files_touched"] == wanted.warc_filename.nunique()
    assert ctx.counters["captures_kept"] == pages.count() == len(wanted)
    total = sum(p.stat().st_size for p in warc_paths(root))
    assert ctx.counters["bytes_read"] < total / 2                                   # not every file again
    assert not any(k.startswith("rejected_") for k in ctx.counters)
    assert storage.write_dataset(pages, "site_pages", str(tmp_path)) == len(wanted)  # schema-checked write


def test_a_configured_list_in_both_modes_gives_the_same_pages_redirects_included(spark, demo, tmp_path):
    root, index = demo
    first = index[index.fetch_status.between(300, 399) | (index.content_mime_type == "text/html")].sort_values(
        ["warc_filename", "warc_record_offset"]).groupby("url_host_name").head(5)
    site = sorted(first[first.fetch_status.between(300, 399)].url_host_name)[0]     # a redirect among its first 5
    listed = {"sites": [site.upper(), "nowhere.test"], "max_pages": 5}
    full, _ = _run(spark, tmp_path / "full", ["extract.mode=full"], {"warc_paths": str(root / "warc.paths.gz")},
                   **listed)
    sampled, ctx = _run(spark, tmp_path / "sampled", ["extract.mode=sampled"], {"cc_index": str(root / "cc_index")},
                        **listed)
    got = _by_site(sampled)
    assert set(got) == {site} and ctx.counters["sites"] == 1
    assert got == _by_site(full) and len(got[site]) == len(first[first.url_host_name == site])
    assert any(300 <= r[1] < 400 and r[2] and r[4] is None for r in got[site])     # the redirect, with its target
    assert ctx.counters["ranges_read"] == 5
    assert any("nowhere.test" in n and site not in n for n in ctx.notes)


def test_each_mode_requires_its_own_input_before_the_run_starts():
    from crawlplan.dag.context import InputError
    from crawlplan.dag.runner import plan_run

    main = load_pipeline("main")
    sampled = load_conf("local", overrides=["extract.mode=sampled", "inputs.warc_paths=x/warc.paths.gz"])
    with pytest.raises(InputError, match="inputs.cc_index: needed by site_pages"):
        plan_run(main, sampled, until=["site_pages"])
    full = load_conf("local", overrides=["inputs.cc_index=x/cc_index"])
    with pytest.raises(InputError, match="inputs.warc_paths: needed by site_pages"):
        plan_run(main, full, until=["site_pages"])
    ok = load_conf("local", overrides=["extract.mode=sampled", "inputs.cc_index=x/cc_index"])
    assert plan_run(main, ok, until=["site_pages"])[0] == ["site_pages"]


@pytest.mark.quick
def test_full_mode_reject_counts_are_summed_in_spark(spark):
    from crawlplan.source.site_pages import choose_sites, reject_counts, site_totals

    counts = spark.createDataFrame(
        [("a.gz", "x.test", 3, None), ("a.gz", "y.test", 1, None), ("a.gz", None, 0, '{"no_web_host": 2}'),
         ("b.gz", "x.test", 2, None), ("b.gz", None, 0, '{"no_web_host": 1, "unsafe_site_name": 4}'),
         ("c.gz", None, 0, "{}")], "warc_file string, site string, pages long, rejects_json string")
    assert reject_counts(counts) == {"no_web_host": 3, "unsafe_site_name": 4}
    totals = site_totals(counts)
    assert {r.site for r in choose_sites(totals, [], 5).collect()} == {"x.test"}
    assert {r.site for r in choose_sites(totals, ["y.test", "z.test"], 5).collect()} == {"y.test"}


def test_the_index_site_key_and_rejects_follow_the_record_rule(spark):
    """The site of an index row is what ``mirror.site_key`` gives its URL; captures without a web host
    and unsafe names are counted as full mode counts them; a site without HTML is no candidate."""
    from crawlplan.source.mirror import site_key
    from crawlplan.source.site_pages import index_page_sites, index_rejects, index_sites

    rows = [("https://WWW.Example.COM./a", "WWW.Example.COM.", "example.com", 200, "text/html"),
            ("https://www.example.com/b", "www.example.com", "example.com", 301, "text/html"),
            ("https://blog.example.com/", "blog.example.com", "example.com", 404, "text/html"),
            ("https://img.example.org/x.png", "img.example.org", "example.org", 200, "image/png"),
            ("https://bad_host!.test/", "bad_host!.test", None, 200, "text/html"),
            ("dns:example.net", None, None, 200, "text/dns")]
    index = spark.createDataFrame([(*r, r[4], "warc") for r in rows],
                                  "url string, url_host_name string, url_host_registered_domain string, "
                                  "fetch_status int, content_mime_type string, content_mime_detected string, "
                                  "subset string")
    for mode in ("host", "registered_domain"):
        per_site = index_sites(index, mode)
        got = {r.site: (r.pages, r.candidates) for r in index_page_sites(per_site).join(per_site, ["site", "pages"])
               .select("site", "pages", "candidates").collect()}
        want_sites = {site_key(u, mode) for u, *_ in rows[:3]}
        assert set(got) == want_sites, mode
        assert index_rejects(per_site) == {"no_web_host": 1, "unsafe_site_name": 1}
    assert got == {"example.com": (1, 3)}                     # one HTTP 200 HTML page, three the reader may keep
