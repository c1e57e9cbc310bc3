"""Budget export: every format, byte-for-byte determinism, Nutch seed lines, the CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from settings_support import allocator_config, export_settings

from crawlplan.policies import export
from crawlplan.policies.allocate_table import allocate


@pytest.fixture
def plan():
    sampled = pd.DataFrame({
        "surt_host_name": ["com,example", "de,beispiel,blog", "org,wiki", "uk,co,news"],
        "registered_domain": ["example.com", "beispiel.de", "wiki.org", "news.co.uk"],
        "tld": ["com", "de", "org", "uk"], "language": ["en", "de", "en", "en"],
        "n_pages": [10, 4, 30, 3], "hq_pages": [6, 3, 25, 0], "cap_known": [100, 50, 5, 20]})
    unsampled = pd.DataFrame({"surt_host_name": ["edu,uni"], "registered_domain": ["uni.edu"], "tld": ["edu"],
                              "cap_known": [40]})
    return allocate(sampled, unsampled, allocator_config(total_budget=120, explore_share=0.05,
                                                        language_floors={"de": 0.1}))


def _bytes(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())} if path.is_dir() else path.read_bytes()


def test_all_formats_are_deterministic(plan, tmp_path):
    shuffled = plan.sample(frac=1, random_state=1)
    for fmt in export.FORMATS:
        a = export.write(plan, fmt, tmp_path / f"a.{fmt}")
        b = export.write(shuffled, fmt, tmp_path / f"b.{fmt}")
        assert _bytes(a) == _bytes(b), fmt
        assert a.is_dir() == (fmt in export.CRAWLER_FORMATS)


def test_csv_and_jsonl_content(plan, tmp_path):
    csv = export.write(plan, "csv", tmp_path / "b.csv").read_text()
    lines = csv.splitlines()
    assert lines[0] == ",".join(export.BUDGET_COLUMNS)
    assert len(lines) == len(plan) + 1
    back = pd.read_csv(tmp_path / "b.csv")
    assert back.allocated_pages.sum() == plan.allocated_pages.sum()
    recs = [json.loads(x) for x in export.write(plan, "jsonl", tmp_path / "b.jsonl").read_text().splitlines()]
    assert [r["rank"] for r in recs] == sorted(r["rank"] for r in recs)
    unsampled = [r for r in recs if r["policy"] == "explore"][0]
    assert unsampled["sampled_density"] is None and unsampled["language"] is None


def test_parquet_round_trip(plan, tmp_path):
    path = export.write(plan, "parquet", tmp_path / "b.parquet")
    back = export.read_budgets(path)
    pd.testing.assert_frame_equal(back, export.canonical(plan))


def test_nutch_seed_lines(plan, tmp_path):
    text = (export.write(plan, "nutch", tmp_path / "nutch") / "seeds.txt").read_text()
    lines = text.splitlines()
    assert len(lines) == int((plan.allocated_pages > 0).sum())
    pattern = re.compile(r"^https://[a-z0-9.\-]+/(\t[A-Za-z.]+=[^\t]+)+$")
    assert all(pattern.match(line) for line in lines)
    by_url = {line.split("\t")[0]: dict(kv.split("=", 1) for kv in line.split("\t")[1:]) for line in lines}
    assert "https://blog.beispiel.de/" in by_url
    meta = by_url["https://news.co.uk/"] if "https://news.co.uk/" in by_url else next(iter(by_url.values()))
    assert set(meta) == {"nutch.score", "nutch.fetchInterval", "crawlplan.budget", "crawlplan.rank", "crawlplan.policy",
                         "crawlplan.reason", "crawlplan.seed"}
    total = sum(int(m["crawlplan.budget"]) for m in by_url.values())
    assert total == plan.allocated_pages.sum()
    assert export.seed_url("com,example", "http") == "http://example.com/"


# spark: the CLI's export job reuses the shared session (tests/conftest.py)
def test_cli_writes_all_formats(spark, plan, tmp_path):
    from crawlplan.cli import main

    src = tmp_path / "budgets"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(plan, preserve_index=False), src / "part-0.parquet")
    assert main(["export", "budgets", "--input", str(src), "--format", "all", "--out", str(tmp_path / "x")]) == 0
    names = sorted(p.name for p in (tmp_path / "x").iterdir())
    assert names == ["budgets.csv", "budgets.jsonl", "budgets.parquet", "cc-nutch", "heritrix", "nutch", "urlfrontier"]
    assert (tmp_path / "x" / "heritrix" / "crawlplan-sheets.cxml").is_file()
    assert main(["export", "budgets", "--input", str(tmp_path / "missing"), "--format", "csv",
                 "--out", str(tmp_path / "y.csv")]) == 2


def test_unknown_format_and_wrong_dataset(plan, tmp_path):
    with pytest.raises(ValueError, match="unknown export format"):
        export.write(plan, "xml", tmp_path / "a.xml")
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1]}), other)
    with pytest.raises(ValueError, match="not a budgets dataset"):
        export.read_budgets(other)


def test_within_host_plans_travel_with_the_budgets(plan, tmp_path):
    plans = pd.DataFrame({
        "site": ["www.example.com", "www.example.com", "wiki.org"],
        "rank": [2, 1, 1], "cluster": [3, 1, 0],
        "apath": ["/html/body/a[next]", "/html/body/ul/li/a[thread]", "/html/body/a"],
        "expected_share": [0.25, 0.75, 0.5], "links_seen": [8.0, 20.0, 4.0],
        "wanted_basis": ["labels", "labels", "structure"]})
    with_plans = export.attach_plans(plan, plans, top=5)
    by_host = dict(zip(with_plans.surt_host_name, with_plans[export.PLAN_COLUMN]))
    example = json.loads(by_host["com,example"])  # www.example.com joins com,example
    assert [p["rank"] for p in example] == [1, 2] and example[0]["apath"] == "/html/body/ul/li/a[thread]"
    assert by_host["de,beispiel,blog"] == ""
    jsonl = export.write(with_plans, "jsonl", tmp_path / "p.jsonl").read_text().splitlines()
    rows = {json.loads(line)["surt_host_name"]: json.loads(line) for line in jsonl}
    assert rows["org,wiki"]["within_host_plan"][0]["expected_share"] == 0.5
    assert rows["uk,co,news"]["within_host_plan"] == []
    assert "within_host_plan" in export.write(with_plans, "csv", tmp_path / "p.csv").read_text().splitlines()[0]
    patterns = {("www.example.com", 1): {"url_pattern": r"^https?://www\.example\.com/t/\d+[^/]*$",
                                         "seed_urls": ["https://www.example.com/t/1-a"]}}
    with_urls = export.attach_plans(plan, plans, top=5, patterns=patterns)
    seeds = (export.write(with_urls, "nutch", tmp_path / "n") / "seeds.txt").read_text().splitlines()
    cluster = [line for line in seeds if line.startswith("https://www.example.com/t/1-a\t")]
    assert len(cluster) == 1 and "crawlplan.seed=cluster" in cluster[0] and "crawlplan.budget=" in cluster[0]
    assert export.write(with_plans, "csv", tmp_path / "a.csv").read_bytes() == \
        export.write(with_plans.sample(frac=1, random_state=2), "csv", tmp_path / "b.csv").read_bytes()


def _many(n: int = 3000) -> pd.DataFrame:
    """A budgets frame of ``n`` hosts with everything the formats treat specially: zero budgets,
    rank ties (host breaks them), shared and missing registered domains, missing languages and
    densities, CSV quoting, ``www`` hosts and within-host plans with seeds and URL sections."""
    rng = np.random.default_rng(7)
    hosts = [f"com,site{i % 700:03d},h{i:04d}" if i % 11 else f"org,solo{i:04d},www" for i in range(n)]
    plans = {}
    for i in range(0, n, 37):
        host = hosts[i].split(",")
        name = ".".join(reversed([p for p in host if p != "www"]))
        plans[hosts[i]] = json.dumps([
            {"rank": 1, "cluster": 2, "apath": "/html/body/a", "expected_share": 0.6,
             "url_pattern": rf"^https?://{re.escape(name)}/tag/[^/]+$", "seed_urls": [f"https://{name}/tag/a"],
             "targets": [{"cluster": 3, "share": 0.9, "url_pattern": rf"^https?://{re.escape(name)}/t/\d+$",
                          "seed_urls": [f"https://{name}/t/1", f"https://{name}/t/2"]}]},
            {"rank": 2, "cluster": 0, "apath": "/html/body/a[next]", "expected_share": 0.25, "url_pattern": None,
             "seed_urls": [f"https://{name}/"], "targets": []}], separators=(",", ":"))
    density = rng.random(n)
    density[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        "surt_host_name": hosts,
        "registered_domain": [None if i % 13 == 0 else f"site{i % 700:03d}.com" for i in range(n)],
        "tld": ["com" if i % 11 else "org" for i in range(n)],
        "language": [None if i % 7 == 0 else ("en", "de", "fr")[i % 3] for i in range(n)],
        "sample_size": rng.integers(0, 40, n), "sampled_density": density, "estimate": rng.random(n) / 3,
        "allocated_pages": rng.choice([0, 3, 10, 50, 200], n), "rank": [i // 2 + 1 for i in range(n)],
        "policy": rng.choice(["eb_shrinkage", "explore"], n),
        "reason": [("rank", "floor:language=de;capped:politeness", 'say "hi", ok')[i % 3] for i in range(n)],
        export.PLAN_COLUMN: [plans.get(h, "") for h in hosts]}).sample(frac=1, random_state=3)


def test_spark_export_equals_the_pandas_export(spark, tmp_path, monkeypatch):
    """Several thousand rows through the Spark job in small parts: every format's bytes equal the
    in-memory export's, and the text really went through several parts."""
    from crawlplan import storage
    from crawlplan.policies.exports import stream

    many = _many()
    src = tmp_path / "budgets"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(many, preserve_index=False), src / "part-0.parquet")
    parts = []
    concat = storage.concat_text

    def counted(spark_, folder, path, **kw):
        parts.append(len(storage.part_files(spark_, folder)))
        return concat(spark_, folder, path, **kw)

    monkeypatch.setattr(storage, "concat_text", counted)
    job = stream.StreamSettings(part_rows=500, copy_buffer_bytes=64)
    settings = export_settings(precedence_levels=4, segments=3, partition_pages=120, crawl_id="cc")
    for fmt in export.FORMATS:
        want = export.write(many, fmt, tmp_path / "pandas" / fmt, settings=settings)
        got = stream.export_budgets(spark, str(src), fmt, str(tmp_path / "spark" / fmt), settings, job).path
        if fmt == "parquet":
            a, b = pq.read_table(want), pq.read_table(got)
            assert a.schema.equals(b.schema) and a.equals(b)
            continue
        assert _bytes(tmp_path / "spark" / fmt) == _bytes(want), fmt
    assert len(parts) == 9 and min(parts) >= 1 and max(parts) >= 4, parts
    assert not [p.name for p in (tmp_path / "spark").rglob("*") if p.name.startswith(".")]


@pytest.mark.quick
def test_a_frame_handed_over_keeps_the_nullable_parquet_schema(spark):
    """A node's frame has non-null columns; the export's rows are nullable, as the pandas era's file."""
    from pyspark.sql import types as T

    from crawlplan.policies.exports.within_host import typed

    kinds = {"sample_size": T.IntegerType(), "sampled_density": T.DoubleType(), "estimate": T.DoubleType(),
             "allocated_pages": T.LongType(), "rank": T.LongType()}
    schema = T.StructType([T.StructField(c, kinds.get(c, T.StringType()), False) for c in export.BUDGET_COLUMNS])
    row = ("com,a", "a.com", "com", "en", 3, 0.5, 0.25, 10, 1, "eb_shrinkage", "rank")
    out = typed(spark.createDataFrame([row], schema))
    assert all(f.nullable for f in out.schema.fields)
    assert dict(zip(out.columns, out.first())) == {**dict(zip(export.BUDGET_COLUMNS, row))}
    assert out.schema["sample_size"].dataType == T.LongType()
