"""Native crawler exports: golden files, the round trip, and the names each crawler reads.

Golden files live in tests/golden/budget_exports/ (regenerate after a deliberate format change:
``CRAWLPLAN_UPDATE_GOLDEN=1 pytest tests/test_policies_exports_native.py``). The crawler APIs
are written down in tests/fixtures/crawler_api/ from the crawlers' sources (versions there).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
import yaml
from settings_support import allocator_config, export_settings

from crawlplan.policies import export
from crawlplan.policies.allocate_table import allocate
from crawlplan.policies.exports import heritrix, nutch, read_back

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "budget_exports"
API = {name: yaml.safe_load((HERE / "fixtures" / "crawler_api" / f"{name}.yaml").read_text())
       for name in ("heritrix", "nutch", "cc_nutch", "urlfrontier")}


@pytest.fixture
def plan():
    """Seven hosts, two sharing a registered domain, one with a within-host plan, one unfunded."""
    sampled = pd.DataFrame({
        "surt_host_name": ["com,example", "com,example,blog", "de,beispiel", "org,wiki", "uk,co,news",
                           "io,forum,talk", "net,spam"],
        "registered_domain": ["example.com", "example.com", "beispiel.de", "wiki.org", "news.co.uk", "forum.io",
                              "spam.net"],
        "tld": ["com", "com", "de", "org", "uk", "io", "net"], "language": ["en", "en", "de", "en", "en", "en", "en"],
        "n_pages": [10, 8, 4, 30, 6, 20, 10], "hq_pages": [6, 5, 3, 25, 3, 12, 0],
        "cap_known": [40, 40, 12, 9, 40, 60, 50]})
    budgets = allocate(sampled, None, allocator_config(total_budget=150, explore_share=0.0))
    plans = pd.DataFrame({"site": ["talk.forum.io", "talk.forum.io"], "rank": [1, 2], "cluster": [2, 0],
                          "apath": ["/html/body/ul/li/a[thread]", "/html/body/a[next]"],
                          "expected_share": [0.8, 0.3], "links_seen": [40.0, 6.0], "wanted_basis": ["labels"] * 2})
    patterns = {("talk.forum.io", 2): {"url_pattern": r"^https?://talk\.forum\.io/tag/[^/]+$",
                                       "seed_urls": ["https://talk.forum.io/tag/a"]},
                ("talk.forum.io", 3): {"url_pattern": r"^https?://talk\.forum\.io/t/\d+[^/]*$",
                                       "seed_urls": ["https://talk.forum.io/t/1-hello", "https://talk.forum.io/t/2-x"]},
                ("talk.forum.io", 0): {"url_pattern": None, "seed_urls": ["https://talk.forum.io/"]}}
    # tag pages (cluster 2) link to threads (cluster 3) 9 times in 10, to tag pages once
    navigation = {("talk.forum.io", 2, "/html/body/ul/li/a[thread]"): {3: 9.0, 2: 1.0}}
    return export.attach_plans(budgets, plans, patterns=patterns, navigation=navigation)


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())} if path.is_dir() else {path.name: path.read_bytes()}


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_golden_files(plan, tmp_path, fmt):
    written = _files(export.write(plan, fmt, tmp_path / fmt if fmt in export.CRAWLER_FORMATS else tmp_path))
    golden = GOLDEN / fmt
    if os.environ.get("CRAWLPLAN_UPDATE_GOLDEN"):
        golden.mkdir(parents=True, exist_ok=True)
        for name, data in written.items():
            (golden / name).write_bytes(data)
    if fmt == "parquet":   # the bytes name the writer's pyarrow version: compare schema and rows
        import pyarrow.parquet as pq

        got, want = pq.read_table(tmp_path / "budgets.parquet"), pq.read_table(golden / "budgets.parquet")
        assert got.schema.equals(want.schema) and got.equals(want)
        return
    assert written == _files(golden), f"{fmt} export differs from {golden}"


def test_spark_export_writes_the_golden_files(spark, plan, tmp_path):
    """The Spark job (what the CLI runs) writes the same golden bytes as the in-memory export."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from crawlplan.policies.exports import stream

    src = tmp_path / "budgets"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(plan, preserve_index=False), src / "part-0.parquet")
    job = stream.StreamSettings(part_rows=2, copy_buffer_bytes=16)
    for fmt in export.FORMATS:
        name = fmt if fmt in export.CRAWLER_FORMATS else export.TABLE_FILES[fmt]
        out = stream.export_budgets(spark, str(src), fmt, str(tmp_path / name), export_settings(), job).path
        if fmt == "parquet":
            got, want = pq.read_table(out), pq.read_table(GOLDEN / fmt / "budgets.parquet")
            assert got.schema.equals(want.schema) and got.equals(want)
        else:
            assert _files(Path(out)) == _files(GOLDEN / fmt if fmt in export.CRAWLER_FORMATS else GOLDEN / fmt / name)
    with pytest.raises(ValueError, match="writes a folder"):
        stream.export_budgets(spark, str(src), "nutch", str(tmp_path / "seeds.txt"), export_settings(), job)


def test_one_budget_round_trips_through_every_format(plan, tmp_path):
    want = plan[plan.allocated_pages > 0].sort_values("rank")[["surt_host_name", "allocated_pages", "rank"]]
    assert len(want) >= 5 and (plan.allocated_pages == 0).any()
    back = {"csv": pd.read_csv(export.write(plan, "csv", tmp_path)),
            "parquet": export.read_budgets(export.write(plan, "parquet", tmp_path)),
            "jsonl": pd.read_json(export.write(plan, "jsonl", tmp_path), lines=True)}
    for fmt in export.TABLE_FORMATS:
        got = back[fmt]
        assert got.allocated_pages.sum() == plan.allocated_pages.sum(), fmt
        got = got[got.allocated_pages > 0].sort_values("rank")
        assert got[["surt_host_name", "allocated_pages", "rank"]].values.tolist() == want.values.tolist(), fmt
    for fmt in export.CRAWLER_FORMATS:
        got = read_back(fmt, export.write(plan, fmt, tmp_path / fmt))
        assert got.surt_host_name.tolist() == want.surt_host_name.tolist(), fmt      # rank order
        assert got.allocated_pages.tolist() == want.allocated_pages.tolist(), fmt    # budgets
        if fmt != "heritrix":                                                         # rank numbers carried
            assert got["rank"].tolist() == want["rank"].tolist(), fmt


def test_heritrix_names_and_shared_sheets(plan, tmp_path):
    api = API["heritrix"]
    folder = export.write(plan, "heritrix", tmp_path / "h")
    root = ET.parse(folder / heritrix.BEANS).getroot()
    ns = "{http://www.springframework.org/schema/beans}"
    for bean in root.iter(ns + "bean"):
        cls = bean.get("class")
        assert cls in api["classes"], cls
        props = [p.get("name") for p in bean.findall(ns + "property")]
        assert set(props) <= set(api["classes"][cls]["properties"]), (cls, props)
    sheets, assocs = heritrix.read_sheets(folder / heritrix.BEANS)
    for entries in sheets.values():
        assert set(entries) <= set(api["bean_paths"]), entries
        assert all(v < api["precedence_floor"] for k, v in entries.items() if k.endswith("Precedence"))
    for prefixes, names in assocs:
        assert set(names) <= set(sheets)
        assert all(re.fullmatch(r"http://\([a-z0-9,-]+,\)(/[A-Za-z_-]+/)?", p) for p in prefixes), prefixes
    # inside the forum's queue the thread section (where the plan's links lead) comes first
    uri = {p: sheets[n][heritrix.URI_PRECEDENCE] for ps, ns in assocs for p in ps for n in ns
           if heritrix.URI_PRECEDENCE in sheets[n]}
    assert uri["http://(io,forum,talk,)/t/"] == 1 and uri["http://(io,forum,talk,)/tag/"] == 1
    seeds = (folder / heritrix.SEEDS).read_text().split()
    assert seeds[0] == export.seed_url(plan.sort_values("rank").surt_host_name.iloc[0])
    assert "https://talk.forum.io/t/1-hello" in seeds


def test_heritrix_hosts_with_equal_settings_share_one_sheet():
    n = 3000
    many = pd.DataFrame({"surt_host_name": [f"com,host{i:05d}" for i in range(n)],
                         "registered_domain": [f"host{i:05d}.com" for i in range(n)], "tld": "com", "language": "en",
                         "sample_size": 5, "sampled_density": 0.5, "estimate": [1 - i / n for i in range(n)],
                         "allocated_pages": [(10, 50, 200)[i % 3] for i in range(n)], "rank": range(1, n + 1),
                         "policy": "eb_shrinkage", "reason": "rank"})
    text = heritrix.render(export.canonical(many), export_settings(precedence_levels=4))[heritrix.BEANS]
    assert text.count('id="crawlplanPages') == 3 * 4                   # budgets x precedence bands, not hosts
    assert text.count('id="crawlplanQueue-') == n                        # one queue key per host (www. folded in)
    assert text.count("<value>http://(com,host") == 2 * 2 * n           # bare and www. prefix per host: budget, queue


def _jexl(expr: str, env: dict) -> float:
    """Evaluate the generated JEXL (arithmetic and one ternary) in Python, to check what it means."""
    cond, rest = expr.split(" ? ", 1)
    then, other = rest.rsplit(" : ", 1)
    names = {k.replace(".", "_"): v for k, v in env.items()}
    def py(e: str) -> str:     # JEXL's ``x ?? y``: y when x is undefined
        known = "max.crawlplan.budget" in env
        e = re.sub(r"\(max\.crawlplan\.budget \?\? (\d+)\)",
                   lambda m: "(max_crawlplan_budget)" if known else f"({m.group(1)})", e)
        return e.replace("max.crawlplan.budget", "max_crawlplan_budget")
    return float(eval(py(then), {}, names) if eval(py(cond), {}, names) else eval(py(other), {}, names))


@pytest.mark.parametrize("segments", [1, 3])
def test_apache_nutch_names_and_cap_expression(plan, tmp_path, segments):
    api = API["nutch"]
    folder = export.write(plan, "nutch", tmp_path / "n", settings=export_settings(segments=segments))
    props = nutch.read_properties(folder / nutch.SITE_XML)
    assert set(props) <= set(api["properties"])
    expr = props["generate.max.count.expr"]
    variables = set(re.findall(r"[A-Za-z_][A-Za-z_.]*", expr))
    assert variables <= set(api["jexl_variables"]) | {"max." + props["hostdb.numeric.fields"]}
    assert props["hostdb.numeric.fields"] == nutch.BUDGET_KEY
    for line in (folder / nutch.SEEDS).read_text().splitlines():
        keys = [kv.split("=", 1)[0] for kv in line.split("\t")[1:]]
        assert {k for k in keys if k.startswith("nutch.")} <= set(api["injector_metadata"])
    host = {"max.crawlplan.budget": 40.0, "fetched": 0, "notModified": 0, "gone": 0, "redirTemp": 0, "redirPerm": 0}
    assert _jexl(expr, host) == pytest.approx(40 / segments)
    assert _jexl(expr, {**host, "fetched": 30, "gone": 4, "redirPerm": 2}) == pytest.approx(max(4 / segments, 1.0))
    assert _jexl(expr, {**host, "fetched": 45}) == 1.0          # spent: 1, as <= 0 would mean "no limit"


@pytest.mark.parametrize("segments", [1, 4])
def test_cc_nutch_domain_limits(plan, tmp_path, segments):
    api = API["cc_nutch"]
    folder = export.write(plan, "cc-nutch", tmp_path / "c", settings=export_settings(segments=segments))
    assert set(nutch.read_properties(folder / nutch.SITE_XML)) <= set(api["properties"])
    lines = [x for x in (folder / nutch.LIMITS).read_text().splitlines() if x and not x.startswith("#")]
    assert all(len(x.split("\t")) == len(api["limits_line"]["fields"]) for x in lines)
    limits = nutch.read_limits(folder / nutch.LIMITS).set_index("domain")
    funded = plan[plan.allocated_pages > 0]
    for domain, hosts in funded.groupby("registered_domain"):
        row = limits.loc[domain]
        total = int(hosts.allocated_pages.sum())
        assert total <= row.urls_per_segment * segments < total + segments
        assert row.urls_per_host_per_segment * segments >= hosts.allocated_pages.max()
        assert row.hosts == len(hosts)
    assert limits.loc["example.com"].hosts == 2                  # two hosts, one domain line


def _urlfrontier_pool():
    from google.protobuf import descriptor_pb2, descriptor_pool

    api = API["urlfrontier"]
    scalar = {"string": 9, "uint32": 13, "uint64": 4, "bool": 8}
    fd = descriptor_pb2.FileDescriptorProto(name="urlfrontier.proto", package=api["package"], syntax="proto3")
    for msg, fields in api["messages"].items():
        m = fd.message_type.add(name=msg)
        oneof_of = {}
        for i, (oneof, members) in enumerate(api.get("oneofs", {}).get(msg, {}).items()):
            m.oneof_decl.add(name=oneof)
            oneof_of.update({name: i for name in members})
        for fname, (num, ftype, label) in fields.items():
            f = m.field.add(name=fname, number=num, json_name=fname if fname.isidentifier() and "_" not in fname
                            else re.sub(r"_(\w)", lambda x: x.group(1).upper(), fname))
            f.label = 3 if label == "repeated" else 1
            if fname in oneof_of:
                f.oneof_index = oneof_of[fname]
            if ftype.startswith("map<"):
                entry = m.nested_type.add(name=fname.capitalize() + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=9, label=1)
                entry.field.add(name="value", number=2, type=11, label=1,
                                type_name=f".{api['package']}.{ftype[4:-1].split(',')[1]}")
                f.type, f.label, f.type_name = 11, 3, f".{api['package']}.{msg}.{entry.name}"
            elif ftype in scalar:
                f.type = scalar[ftype]
            else:
                f.type, f.type_name = 11, f".{api['package']}.{ftype}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return pool


def test_urlfrontier_lines_parse_as_the_published_messages(plan, tmp_path):
    pytest.importorskip("google.protobuf", reason="protobuf (test extra) is not installed")
    from google.protobuf import json_format, message_factory

    pool = _urlfrontier_pool()
    item_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("urlfrontier.URLItem"))
    limit_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("urlfrontier.CrawlLimitParams"))
    folder = export.write(plan, "urlfrontier", tmp_path / "u", settings=export_settings(crawl_id="cc2025"))
    items = [json_format.Parse(line, item_cls()) for line in (folder / "puturls.jsonl").read_text().splitlines()]
    limits = [json_format.Parse(line, limit_cls()) for line in (folder / "setcrawllimit.jsonl").read_text().splitlines()]
    assert all(i.WhichOneof("item") == "discovered" for i in items)
    keys = {i.discovered.info.key for i in items}
    assert {x.key for x in limits} == keys and all(x.crawlID == "cc2025" for x in limits)
    assert all(i.discovered.info.crawlID == "cc2025" for i in items)
    funded = plan[plan.allocated_pages > 0]
    assert sorted(x.limit for x in limits) == sorted(funded.allocated_pages.tolist())
    forum = [i for i in items if i.discovered.info.key == "talk.forum.io"]
    assert forum[0].discovered.info.metadata["crawlplan.seed"].values == ["host"]
    assert forum[1].discovered.info.url == "https://talk.forum.io/t/1-hello"        # wanted pages first
    assert list(forum[1].discovered.info.metadata["crawlplan.target_patterns"].values) == \
        [r"^https?://talk\.forum\.io/t/\d+[^/]*$"]
    with pytest.raises(json_format.ParseError):                    # the check is strict: unknown names fail
        json_format.Parse(json.dumps({"discovered": {"info": {"url": "u", "queue": "k"}}}), item_cls())


def test_crawler_formats_need_a_folder(plan, tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ValueError, match="writes a folder"):
        export.write(plan, "heritrix", tmp_path / "f.txt")
    with pytest.raises(ValueError, match="writes a folder"):
        export.write(plan, "nutch", tmp_path / "seeds.txt")     # the old single-file nutch export
    with pytest.raises(ValueError, match="precedence floor"):
        export_settings(precedence_levels=300)


def test_cluster_url_patterns_describe_clusters_by_url():
    from crawlplan.source.plans import cluster_url_patterns, url_shape

    assert url_shape("https://f.io/t/12-a-b") == r"^https?://f\.io/t/\d+[^/]*$"
    assert url_shape("https://f.io/f/news?page=2") == r"^https?://f\.io/f/[^/]+\?page=[^&]*$"
    urls = ([f"https://f.io/t/{i}-x" for i in range(8)] + [f"https://f.io/t/{i}-y" for i in range(8, 11)]
            + ["https://f.io/f/a", "https://f.io/f/a?page=2", "https://f.io/u/bob"])
    clusters = [3] * 8 + [5] * 3 + [2, 2, 4]
    found = cluster_url_patterns(pd.DataFrame({"site": "f.io", "url": urls, "cluster": clusters}))
    assert found[("f.io", 3)]["url_pattern"] == r"^https?://f\.io/t/\d+[^/]*$"    # the majority keeps the shape
    assert found[("f.io", 5)]["url_pattern"] is None and found[("f.io", 5)]["seed_urls"]
    assert re.search(found[("f.io", 2)]["url_pattern"], "https://f.io/f/b?page=9")
    assert not re.search(found[("f.io", 2)]["url_pattern"], "https://f.io/t/1-x")
    assert found[("f.io", 3)]["pattern_precision"] == round(8 / 11, 4)


# spark: the CLI's export job reuses the shared session (tests/conftest.py)
def test_cli_finds_plans_clusters_and_sitemaps_beside_the_budgets(spark, plan, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from crawlplan.cli import main

    run = tmp_path / "run"
    for name, table in {
        "budgets": pa.Table.from_pandas(plan.drop(columns=export.PLAN_COLUMN), preserve_index=False),
        "host_plans": pa.table({"site": ["talk.forum.io"], "rank": [1], "cluster": [2], "apath": ["/a"],
                                "expected_share": [0.9], "links_seen": [10.0], "wanted_basis": ["labels"]}),
        "page_clusters": pa.table({"site": ["talk.forum.io"] * 4,
                                   "url": [f"https://talk.forum.io/t/{i}-x" for i in range(3)] + ["https://talk.forum.io/f/a"],
                                   "cluster": [3, 3, 3, 2]}),
        "sitemaps": pa.table({"site": ["talk.forum.io"],
                              "navigation": [[{"cluster": 2, "apath": "/a", "to_cluster": 3, "weight": 5.0}]]}),
    }.items():
        (run / name).mkdir(parents=True)
        pq.write_table(table, run / name / "part-0.parquet")
    assert main(["export", "budgets", "--input", str(run / "budgets"), "--format", "jsonl", "--out",
                 str(tmp_path / "b.jsonl")]) == 0
    rows = {r["surt_host_name"]: r for r in map(json.loads, (tmp_path / "b.jsonl").read_text().splitlines())}
    item = rows["io,forum,talk"]["within_host_plan"][0]
    assert item["url_pattern"] == r"^https?://talk\.forum\.io/f/[^/]+$"
    assert item["targets"] == [{"cluster": 3, "share": 1.0, "url_pattern": r"^https?://talk\.forum\.io/t/\d+[^/]*$",
                                "seed_urls": ["https://talk.forum.io/t/0-x", "https://talk.forum.io/t/1-x",
                                              "https://talk.forum.io/t/2-x"]}]
    assert main(["export", "budgets", "--input", str(run / "budgets"), "--format", "jsonl", "--sitemaps",
                 str(tmp_path / "missing"), "--out", str(tmp_path / "c.jsonl")]) == 2
