"""The embedded demo crawl: caching contract, determinism, Common Crawl formats, planted properties."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from demo_support import default_demo, iter_records, warc_paths
from scipy.stats import spearmanr

import crawlplan.demo.crawl as demo
from crawlplan.hosts import rev_host, surt_host


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return default_demo(tmp_path_factory)


@pytest.fixture(scope="module")
def truth(root):
    return (pd.read_parquet(root / "ground_truth" / "hosts.parquet"),
            pd.read_parquet(root / "ground_truth" / "pages.parquet"))


# --- caching contract -------------------------------------------------------------------------

def test_ensure_demo_returns_absolute_paths_and_caches(tmp_path):
    target = tmp_path / "d"
    messages = []
    paths = demo.ensure_demo(target, hosts=20, seed=1, echo=messages.append)
    assert set(paths) == {"warc_paths", "cc_index", "host_index", "web_graph", "ground_truth"}
    assert all(Path(p).is_absolute() and Path(p).exists() for p in paths.values())
    assert paths["warc_paths"].endswith("warc.paths.gz")
    marker = json.loads((target / "_SUCCESS").read_text())
    assert (marker["hosts"], marker["seed"], marker["generator_version"]) == (20, 1, demo.GENERATOR_VERSION)
    assert messages, "generation should say what it does"

    stamp = (target / "warc.paths.gz").stat().st_mtime_ns
    messages.clear()
    assert demo.ensure_demo(target, hosts=20, seed=1, echo=messages.append) == paths
    assert messages == [] and (target / "warc.paths.gz").stat().st_mtime_ns == stamp

    demo.ensure_demo(target, hosts=20, seed=2, echo=messages.append)     # different seed: regenerated
    assert json.loads((target / "_SUCCESS").read_text())["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]            # no temp or old folders left


def test_interrupted_generation_never_looks_complete(tmp_path, monkeypatch):
    def boom(out_dir, hosts, seed):
        (Path(out_dir) / "warc.paths.gz").parent.mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / "warc.paths.gz").write_bytes(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "generate_demo", boom)
    with pytest.raises(KeyboardInterrupt):
        demo.ensure_demo(tmp_path / "d", hosts=20, seed=0, echo=lambda *_: None)
    assert list(tmp_path.iterdir()) == []
    assert not demo.is_complete(tmp_path / "d", 20, 0)


def test_ensure_demo_never_replaces_a_foreign_folder(tmp_path):
    precious = tmp_path / "data"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a demo crawl folder"):
        demo.ensure_demo(precious, hosts=20, seed=0, echo=lambda *_: None)
    assert (precious / "keep.txt").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    demo.ensure_demo(empty, hosts=12, seed=0, echo=lambda *_: None)
    assert demo.is_complete(empty, 12, 0)


def test_generation_is_deterministic_and_seed_dependent(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for path, seed in ((a, 5), (b, 5), (c, 6)):
        demo.generate_demo(path, hosts=24, seed=seed)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files_a:
        if rel.suffix == ".parquet":
            assert pq.read_table(a / rel).equals(pq.read_table(b / rel)), rel
        else:
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    warcs_a = [a / p for p in files_a if p.name.endswith(".warc.gz")]
    assert len(warcs_a) >= 6
    other = pd.read_parquet(c / "ground_truth" / "pages.parquet")
    assert set(other.url) != set(pd.read_parquet(a / "ground_truth" / "pages.parquet").url)
    assert [p.read_bytes() for p in warc_paths(a)] != [p.read_bytes() for p in warc_paths(c)]


def test_cli_writes_and_reports(tmp_path, capsys):
    from crawlplan.cli import main

    assert main(["demo-data", "--out", str(tmp_path / "cli"), "--hosts", "15", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "inputs.warc_paths=" in out and "HTML pages" in out
    assert f"stats.host_graph.previous_release={demo.previous_graph_path(tmp_path / 'cli')}" in out and str((tmp_path / "cli").resolve()) in out
    assert demo.is_complete(tmp_path / "cli", 15, 2)


# --- WARC files -------------------------------------------------------------------------------

def test_warc_listing_is_relative_and_laid_out_like_common_crawl(root):
    with gzip.open(root / "warc.paths.gz", "rt") as fh:
        lines = [line.strip() for line in fh]
    assert 6 <= len(lines) <= 10
    for line in lines:
        assert line.startswith("crawl-data/CC-MAIN-2024-10/segments/") and "/warc/CC-MAIN-" in line
        assert line.endswith(".warc.gz") and (root / line).is_file()
    assert len({line.split("/")[3] for line in lines}) >= 2      # several segments


def test_every_record_reads_and_fetches_are_nutch_triples(root):
    types, statuses, mimes = Counter(), Counter(), Counter()
    for path in warc_paths(root):
        data = path.read_bytes()
        records = list(iter_records(path))
        assert records[0][2].rec_type == "warcinfo"
        assert records[0][2].rec_headers.get_header("WARC-Filename") == path.name
        by_id = {}
        for offset, length, rec, payload in records:
            # one gzip member per record
            assert gzip.decompress(data[offset:offset + length]).startswith(b"WARC/1.0\r\n")
            h = rec.rec_headers
            by_id[h.get_header("WARC-Record-ID")] = rec
            types[rec.rec_type] += 1
            assert h.get_header("WARC-Date").startswith("2024-02-2")
            if rec.rec_type == "response":
                assert rec.http_headers.protocol == "HTTP/1.1"
                statuses[int(rec.http_headers.get_statuscode())] += 1
                mimes[h.get_header("WARC-Identified-Payload-Type")] += 1
                digest = "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode()
                assert h.get_header("WARC-Payload-Digest") == digest
                assert h.get_header("WARC-Block-Digest").startswith("sha1:")
                assert h.get_header("WARC-IP-Address")
                assert int(rec.http_headers.get_header("Content-Length")) == len(payload)
                request = by_id[h.get_header("WARC-Concurrent-To")]
                assert request.rec_type == "request"
                assert request.rec_headers.get_header("WARC-Target-URI") == h.get_header("WARC-Target-URI")
            if rec.rec_type == "metadata":
                assert by_id[h.get_header("WARC-Concurrent-To")].rec_type == "response"
                assert payload.startswith(b"fetchTimeMs: ")
    assert types["request"] == types["response"] == types["metadata"]
    assert types["warcinfo"] == len(warc_paths(root))
    assert {200, 301, 404} <= set(statuses)
    assert {"text/html", "text/plain", "image/jpeg", "application/pdf"} <= set(mimes)


def test_ground_truth_pages_point_at_their_response_records(root, truth):
    _, pages = truth
    sample = pages.sample(40, random_state=0)
    for row in sample.itertuples():
        with open(root / row.warc_file, "rb") as fh:
            fh.seek(row.warc_record_offset)
            blob = fh.read(row.warc_record_length)
        text = gzip.decompress(blob)
        assert b"WARC-Type: response" in text
        assert f"WARC-Target-URI: {row.url}\r\n".encode() in text


# --- the synthetic web's planted properties ---------------------------------------------------

def _icc1(values: pd.Series, groups: pd.Series) -> float:
    """One-way ANOVA ICC1 for unbalanced groups, written independently of the generator."""
    df = pd.DataFrame({"y": values.to_numpy(), "g": groups.to_numpy()})
    stats = df.groupby("g")["y"].agg(["size", "mean"])
    n, k, total = stats["size"], len(stats), len(df)
    grand = df["y"].mean()
    msb = (n * (stats["mean"] - grand) ** 2).sum() / (k - 1)
    msw = ((df["y"] - df["g"].map(stats["mean"])) ** 2).sum() / (total - k)
    n0 = (total - (n ** 2).sum() / total) / (k - 1)
    return (msb - msw) / (msb + (n0 - 1) * msw)


def test_planted_icc_is_recovered(truth):
    hosts, pages = truth
    assert _icc1(pages.true_quality, pages.host) == pytest.approx(0.5, abs=0.05)
    big = set(hosts.loc[hosts.n_pages >= 3, "host"])
    sub = pages[pages.host.isin(big)]
    assert _icc1(sub.true_quality, sub.host) == pytest.approx(0.5, abs=0.05)
    assert ((pages.true_quality > 0.6) == pages.is_hq).all()
    share = pages.groupby("host").is_hq.mean()
    np.testing.assert_allclose(hosts.set_index("host").hq_share.loc[share.index], share)


def test_size_languages_and_tlds(truth):
    hosts, pages = truth
    assert len(hosts) == 300 and hosts.host.is_unique
    assert 3000 <= len(pages) <= 5000 and pages.url.is_unique
    regular = hosts[hosts.site_type == "regular"]
    assert (regular.n_pages >= 1).all() and (regular.n_pages >= 3).mean() > 0.6
    assert regular.n_pages.max() >= 8 * regular.n_pages.median()          # heavy tail
    langs = hosts.language.value_counts(normalize=True)
    assert langs.idxmax() == "en" and 0.45 < langs["en"] < 0.7 and len(langs) >= 6
    suffixes = {h.split(".", 1)[1] if h.count(".") >= 2 and h.split(".")[-2] in ("co", "ac", "org", "com")
                else h.rsplit(".", 1)[1] for h in hosts.host}
    assert {"com", "org", "net", "de", "fr", "edu", "gov", "jp", "es", "it", "nl", "ru", "co.uk", "ac.uk"} <= suffixes
    forums = hosts[hosts.site_type == "forum"]
    assert len(forums) == 5 and forums.n_pages.between(120, 300).all()


def test_host_index_columns_types_and_coverage(root, truth):
    from crawlplan.demo.hostindex import host_index_schema

    hosts, _ = truth
    parts = sorted((root / "host_index").glob("crawl=*/part-*.parquet"))
    assert [p.parent.name for p in parts] == ["crawl=CC-MAIN-2023-40", "crawl=CC-MAIN-2024-10"]
    expected = host_index_schema()
    for part in parts:
        schema = pq.read_schema(part)
        assert schema.names == expected.names
        for field in expected:
            assert schema.field(field.name).type == field.type, field.name
    # cc-host-index's athena_schema.v2.sql: every count, length and _pct is int, the ranks double
    for name in ("fetch_200", "nutch_numRecords", "robots_200", "warc_record_length_median", "warc_record_length_av",
                 "fetch_200_lote_pct", "nutch_fetched_pct", "nutch_unfetched_pct"):
        assert str(expected.field(name).type) == "int32", name
    for name in ("hcrank", "prank", "hcrank10", "prank10"):
        assert str(expected.field(name).type) == "double", name

    index = pd.read_parquet(parts[1])
    assert index.surt_host_name.is_unique
    crawled = index[index.surt_host_name.isin(set(hosts.surt_host_name))]
    assert len(crawled) == len(hosts)
    assert (crawled.nutch_numRecords > crawled.nutch_fetched).all()
    assert (crawled.nutch_fetched >= crawled.fetch_200).all() and (crawled.fetch_200 >= 1).all()
    parts_sum = crawled[["nutch_fetched", "nutch_gone", "nutch_notModified", "nutch_redirPerm",
                         "nutch_redirTemp", "nutch_unfetched"]].sum(axis=1)
    assert (parts_sum == crawled.nutch_numRecords).all()
    assert len(index) > len(hosts)                          # graph-only hosts have rows too
    m = hosts.merge(index, on="surt_host_name")
    assert (m.known_urls == m.nutch_numRecords).all() and (m.fetched_urls == m.nutch_fetched).all()
    rho = spearmanr(m.nutch_fetched / m.nutch_numRecords, m.hq_share)[0]
    assert abs(rho) < 0.3                                   # coverage only weakly related to quality
    lote = m[m.language != "en"]
    assert (lote.fetch_200_lote_pct >= 50).all() and (m[m.language == "en"].fetch_200_lote == 0).all()


# --- web graph release ------------------------------------------------------------------------

def _gz_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt") as fh:
        return fh.read().splitlines()


def test_graph_release_files_are_consistent(root, truth):
    hosts, _ = truth
    g = root / "graph"
    release = "cc-main-2023-24-demo"
    # listings relative to the bucket, as Common Crawl writes them; the parts sit in the release folder
    prefix = f"projects/hyperlinkgraph/{release}/host/"
    listed = _gz_lines(g / f"{release}-host-vertices.paths.gz") + _gz_lines(g / f"{release}-host-edges.paths.gz")
    assert all(rel.startswith(prefix) and (g / rel[len(prefix):]).is_file() for rel in listed), listed
    vertices = [line.split("\t") for rel in _gz_lines(g / f"{release}-host-vertices.paths.gz")
                for line in _gz_lines(g / rel[len(prefix):])]
    edges = [tuple(map(int, line.split("\t"))) for rel in _gz_lines(g / f"{release}-host-edges.paths.gz")
             for line in _gz_lines(g / rel[len(prefix):])]
    assert len(_gz_lines(g / f"{release}-host-vertices.paths.gz")) >= 2
    ids = [int(i) for i, _ in vertices]
    names = [v for _, v in vertices]
    assert ids == list(range(len(ids))) and names == sorted(names) and len(set(names)) == len(names)
    assert all(0 <= a < len(ids) and 0 <= b < len(ids) and a != b for a, b in edges)
    assert len(set(edges)) == len(edges) and edges == sorted(edges)

    crawled = set(hosts.rev_host)
    assert set(hosts.rev_host) == {rev_host(h) for h in hosts.host}
    assert len(set(names) - crawled) >= 5                   # hosts not in the crawl
    assert 1 <= len(crawled - set(names)) <= 10             # crawled hosts missing from the graph

    ranks = _gz_lines(g / f"{release}-host-ranks.txt.gz")
    assert ranks[0] == "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
    rows = [r.split("\t") for r in ranks[1:]]
    assert [int(r[0]) for r in rows] == list(range(1, len(names) + 1))
    hc = [float(r[1]) for r in rows]
    assert hc == sorted(hc, reverse=True)
    assert sorted(int(r[2]) for r in rows) == list(range(1, len(names) + 1))
    assert sorted(r[4] for r in rows) == names
    assert sum(float(r[3]) for r in rows) == pytest.approx(1.0, abs=1e-4)
    # PageRank as cc-webgraph's JoinSortRanks prints it: a Java double (more digits than a float holds)
    from crawlplan.demo.graph import java_double
    assert all(r[3] == java_double(float(r[3])) for r in rows)
    assert any(np.float64(float(r[3])) != np.float64(np.float32(float(r[3]))) for r in rows)

    # HC recomputed from the published edges matches the published values
    from crawlplan.demo.graph import harmonic_centrality
    recomputed = harmonic_centrality(len(names), np.array(edges))
    published = {r[4]: float(r[1]) for r in rows}
    np.testing.assert_allclose([published[v] for v in names], recomputed, rtol=1e-6)


def test_centrality_is_confounded_with_language_not_quality(root, truth):
    hosts, _ = truth
    index = pd.read_parquet(root / "host_index" / "crawl=CC-MAIN-2024-10")
    m = hosts[hosts.in_graph].merge(index, on="surt_host_name")
    en = m.language == "en"
    assert m[en].hcrank.median() > 1.3 * m[~en].hcrank.median()
    assert m[~en].quality.mean() > m[en].quality.mean()
    assert abs(spearmanr(m.hcrank, m.hq_share)[0]) < 0.3
    assert (index.set_index("surt_host_name").loc[[surt_host(h) for h in hosts[~hosts.in_graph].host], "hcrank"]
            == 0).all()


def test_surt_and_rev_keys_agree(truth):
    hosts, pages = truth
    assert (hosts.surt_host_name.str.replace(",", ".") == hosts.rev_host).all()
    by_host = defaultdict(set)
    for row in pages.itertuples():
        by_host[row.host].add(row.surt_host_name)
    assert all(s == {surt_host(h)} for h, s in by_host.items())


def test_stats_command_reports_the_planted_properties(root, truth, capsys):
    from crawlplan.demo.stats import main, measure

    hosts, pages = truth
    m = measure(root)
    assert m["hosts"] == len(hosts) and m["html_pages"] == len(pages)
    assert m["icc1_true_quality"] == pytest.approx(_icc1(pages.true_quality, pages.host), abs=1e-4)
    assert m["median_hc_english"] > m["median_hc_non_english"]
    assert m["known_urls_total"] > m["fetched_urls_total"]
    assert main([str(root)]) == 0 and '"icc1_true_quality"' in capsys.readouterr().out
    assert main([]) == 2


def test_run_without_inputs_reads_the_demo_and_its_previous_graph_release(tmp_path):
    from crawlplan.commands import prepare_default_inputs
    from crawlplan.conf import load_conf

    conf = load_conf("local", overrides=[f"demo.dir={tmp_path / 'd'}", "demo.hosts=12", "demo.seed=3"])
    got = prepare_default_inputs(conf, echo=lambda *_: None)
    assert got["inputs"]["web_graph"] == demo.demo_paths(tmp_path / "d")["web_graph"]
    previous = got["stats"]["host_graph"]["previous_release"]
    assert previous == demo.previous_graph_path(tmp_path / "d")
    assert sorted(p.name for p in Path(previous).glob("*.gz")) == [
        "cc-main-2023-14-demo-host-edges.paths.gz", "cc-main-2023-14-demo-host-ranks.txt.gz",
        "cc-main-2023-14-demo-host-vertices.paths.gz"]
    assert conf["stats"]["host_graph"]["previous_release"] == ""      # the caller's conf is not changed
    mine = load_conf("local", overrides=[f"demo.dir={tmp_path / 'd'}", "demo.hosts=12", "demo.seed=3",
                                         "stats.host_graph.previous_release=/data/graph-2022"])
    assert prepare_default_inputs(mine, echo=lambda *_: None)["stats"]["host_graph"]["previous_release"] == \
        "/data/graph-2022"
    own_graph = load_conf("local", overrides=[f"demo.dir={tmp_path / 'd'}", "demo.hosts=12", "demo.seed=3",
                                              "inputs.web_graph=/data/graph-2024"])
    got = prepare_default_inputs(own_graph, echo=lambda *_: None)
    assert got["inputs"]["web_graph"] == "/data/graph-2024"
    assert got["stats"]["host_graph"]["previous_release"] == ""      # not the demo's graph paired with yours
