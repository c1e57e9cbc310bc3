"""The site_pages and sitemaps nodes on a tiny WARC (Spark), and the two CLI verbs."""

import json

import pandas as pd
import pytest
from settings_support import read_limits
from test_source_synth import HOST, TYPES, forum_pages, write_warc

from crawlplan.cli import main as cli_main
from crawlplan.conf import load_conf, section
from crawlplan.dag.context import JobContext

SMALL = "tiny.test"


@pytest.fixture(scope="module")
def warc(tmp_path_factory):
    path = tmp_path_factory.mktemp("warc") / "forum.warc.gz"
    small = [(f"https://{SMALL}/", 200, {"Content-Type": "text/html"}, b"<html><body><p>x</p></body></html>"),
             (f"https://{SMALL}/a", 200, {"Content-Type": "text/html"}, b"<html><body><p>y</p></body></html>"),
             (f"https://{HOST}/old", 301, {"Location": "/"}, b""),
             (f"https://{HOST}/logo.png", 200, {"Content-Type": "image/png"}, b"\x89PNG"),
             ("https://bad_host!.test/", 200, {"Content-Type": "text/html"}, b"<html><body>z</body></html>")]
    write_warc(path, forum_pages(), extra=small)
    return str(path)


def _ctx(spark, tmp_path, node, params, external=None):
    from crawlplan.dag.pipeline import load_pipeline

    pipeline = load_pipeline("main")
    listed = {name: (external or {}).get(name) for name in pipeline.external_inputs(node)}   # as the runner does
    conf = load_conf()                                   # the node's section over defaults.yaml, as the runner merges it
    params = {**section(conf, f"source.{node}"), **params}
    return JobContext(spark=spark, node=node, params=params, conf=conf, out_dir=str(tmp_path),
                      search_roots=[str(tmp_path)], external=listed,
                      optional=frozenset(pipeline.nodes[node].optional))


@pytest.mark.spark
@pytest.mark.quick
def test_site_pages_then_sitemaps(spark, warc, tmp_path):
    from crawlplan import storage
    from crawlplan.nodes.source import site_pages, sitemaps

    ctx = _ctx(spark, tmp_path, "site_pages", {"site_key": "host", "sites": [], "min_pages": 10,
                                               "max_pages": 1000}, {"warc_paths": warc})
    pages = site_pages.run(ctx)["site_pages"]
    rows = pages.toPandas()
    assert set(rows["site"]) == {HOST}                        # tiny.test has 2 pages < min_pages
    html_rows = rows[rows["html"].notna()]
    assert len(html_rows) == len(forum_pages())
    assert rows.loc[rows["status"] == 301, "location"].tolist() == [f"https://{HOST}/"]
    first = rows.sort_values("capture_order").iloc[0]
    assert first["url"] == f"https://{HOST}/"
    assert all(link["apath"].startswith("/html/") for ls in html_rows["links"] for link in ls)
    assert storage.write_dataset(pages, "site_pages", str(tmp_path)) == len(rows)   # schema-checked write

    params = {"method": "default", "train_size": 1000, "cv": False, "plan_top": 10,
              "extra_site_types": {HOST: {"page_types": TYPES, "ucc_types": ["thread"], "target_type": "thread"}}}
    out = sitemaps.run(_ctx(spark, tmp_path, "sitemaps", params))
    sm = out["sitemaps"].toPandas()
    assert sm["site"].tolist() == [HOST] and sm["error"].isna().all()
    assert sm["n_clusters"].iloc[0] >= 3
    model = json.loads(sm["model_json"].iloc[0])
    assert model["format"] == "crawlplan.sitemap/21"
    pc = out["page_clusters"].toPandas()
    assert len(pc) == len(forum_pages()) and pc["in_training"].any()
    ev = out["site_eval"].toPandas()
    f = ev[(ev.task == "clustering") & (ev.method == "source") & (ev.metric == "micro_f")]["value"]
    assert f.iloc[0] >= 0.9
    plans = out["host_plans"].toPandas()
    assert plans["rank"].tolist() == list(range(1, len(plans) + 1))


def test_site_pages_selection_by_explicit_list_and_odd_hosts(warc):
    from collections import Counter

    from crawlplan.source.mirror import read_site_pages

    rejects = Counter()
    got = read_site_pages([warc], rejects=rejects, limits=read_limits())
    assert set(got) == {HOST, SMALL}                          # the odd host never becomes a site
    assert rejects["bad_url"] == 1 and rejects["unsafe_site_name"] == 0   # an invalid host: a bad_url record
    only = read_site_pages([warc], sites={SMALL}, limits=read_limits())
    assert set(only) == {SMALL} and len(only[SMALL]) == 2


def test_cli_sitemap_and_crawl_sim(warc, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli_main(["sitemap", "--warc", warc, "--out", str(out)]) == 0
    sm = pd.read_parquet(out / "sitemaps")
    assert sm["site"].tolist() == [HOST]                     # tiny.test: 2 pages < --min-pages 5
    pc = pd.read_parquet(out / "page_clusters")
    assert len(pc) == len(forum_pages())
    sitemap_file = out / "sitemap_json" / f"{HOST}.json"
    assert sitemap_file.is_file()

    sim = tmp_path / "sim"
    assert cli_main(["crawl-sim", "--warc", warc, "--site", HOST, "--mode", "target", "--example",
                     f"https://{HOST}/t/2", "--budget", "15", "--out", str(sim),
                     "--sitemap", str(sitemap_file)]) == 0
    order = pd.read_parquet(sim / "crawl_order")
    assert order["step"].tolist() == list(range(15))
    assert list(order.columns) == ["site", "mode", "step", "url", "cluster", "score"]
    assert cli_main(["crawl-sim", "--warc", warc, "--site", HOST, "--mode", "target", "--budget", "5",
                     "--out", str(sim)]) == 2                # no --example: a clear error
    assert "--example" in capsys.readouterr().err
    assert cli_main(["sitemap", "--warc", warc, "--site", "nowhere.test", "--out", str(out)]) == 2


def test_dns_captures_are_counted_as_no_web_host_not_as_unsafe_names(shared_data):
    """Heritrix writes its DNS lookups as ``dns:`` response records: not pages, and no host."""
    from collections import Counter

    from warcio.archiveiterator import ArchiveIterator

    from crawlplan.source.mirror import read_site_pages

    path = shared_data / "warc" / "aut-example.warc.gz"
    with open(path, "rb") as fh:
        dns = sum(1 for r in ArchiveIterator(fh) if r.rec_type == "response"
                  and (r.rec_headers.get_header("WARC-Target-URI") or "").startswith("dns:"))
    rejects = Counter()
    got = read_site_pages([str(path)], rejects=rejects, limits=read_limits())
    assert dns > 0 and rejects["no_web_host"] == dns
    assert rejects["unsafe_site_name"] == 0
    assert "" not in got and "www.archive.org" in got


@pytest.mark.spark
def test_no_site_qualifies_gives_empty_sitemaps_not_a_crash(spark, warc, tmp_path):
    """A crawl without any site of min_pages (a small re-crawl) writes an empty site_pages, which
    has no Parquet file to infer a schema from; sitemaps must read it as empty."""
    from crawlplan import storage
    from crawlplan.nodes.source import site_pages, sitemaps

    ctx = _ctx(spark, tmp_path, "site_pages", {"site_key": "host", "sites": [], "min_pages": 10_000,
                                               "max_pages": 1000}, {"warc_paths": warc})
    assert storage.write_dataset(site_pages.run(ctx)["site_pages"], "site_pages", str(tmp_path)) == 0
    assert storage.read_dataset(spark, "site_pages", str(tmp_path / "site_pages")).count() == 0
    params = {"method": "default", "train_size": 1000, "cv": False, "plan_top": 10}
    out = sitemaps.run(_ctx(spark, tmp_path, "sitemaps", params))
    assert all(df.count() == 0 for df in out.values())
