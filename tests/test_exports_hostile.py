"""Hostile budget rows through every export format, each output read back by the consumer's parser.

Host keys and plan URLs come from the open web, and crawlers load the crawler formats as
configuration (issue #27). A row with quotes, angle brackets, ``]]>``, ``<!--``, line breaks,
TAB, NUL, ``../``, a 10 kB name, a Heritrix bean injection or broken text must never reach a
crawler file: it is skipped and counted (``skipped_unsafe``), while the normal rows - and a valid
IDN host, in A-labels - keep their budgets. The tables keep every row, quoted by their writers.
"""

from __future__ import annotations

import csv
import json
import re
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from settings_support import export_settings

from crawlplan.hosts import surt_host
from crawlplan.policies import export
from crawlplan.policies.exports import heritrix, nutch, stream, urlfrontier
from crawlplan.policies.exports.safety import UINT32_MAX, valid_seed_url

PROCESS_BUILDER = "java.lang.ProcessBuilder"
# closes the <value>, the list, the property and the association bean, then opens a bean Heritrix
# would instantiate (and start) when it loads the file, then reopens what it closed
INJECTION = ("com,x,)</value></list></property></bean>"
             f'<bean class="{PROCESS_BUILDER}" init-method="start"><constructor-arg><list>'
             "<value>touch</value><value>/tmp/crawlplan-pwned</value></list></constructor-arg></bean>"
             f'<bean class="{heritrix.ASSOCIATION}"><property name="surtPrefixes"><list><value>http://(com,y')
BAD_HOSTS = {
    "quote": 'com,ex"ample', "angle": "com,ex<ample>", "cdata": "com,x]]>y", "comment": "com,x<!--y",
    "newline": "com,evil\nhttps://injected.example/", "cr": "com,evil\rinjected", "tab": "com,evil\tnutch.score=99",
    "nul": "com,nul\x00byte", "dotdot": "com,example/../../etc", "long": "com," + "a" * 10_000,
    "heritrix": INJECTION, "replacement": "com,bad\ufffdutf8", "c1": "com,bad\x80\x85x", "ls": "com,line\u2028sep",
    "empty_label": "com,,example", "space": "com,ex ample", "port": "com,example:8080", "amp": "com,a&b",
}
GOOD = ["com,example", "de,beispiel,blog", "org,wiki", "uk,co,news", "com,shop,www"]
IDN = "example,bücher"          # bücher.example -> xn--bcher-kva.example
IDN_ASCII = "example,xn--bcher-kva"


def _plan(host: str, urls: list[str]) -> str:
    return json.dumps([{"rank": 1, "cluster": 2, "apath": "/html/body/a", "expected_share": 0.5,
                        "url_pattern": rf"^https?://{re.escape(host)}/t/\d+$", "seed_urls": urls, "targets": []}])


def _row(surt: str, rank: int, pages: int = 10, **kw) -> dict:
    domain = ".".join(reversed(surt.split(",")[:2]))
    return {"surt_host_name": surt, "registered_domain": kw.get("domain", domain), "tld": surt.split(",")[0],
            "language": "en", "sample_size": 5, "sampled_density": 0.5, "estimate": 0.25, "allocated_pages": pages,
            "rank": rank, "policy": kw.get("policy", "eb_shrinkage"), "reason": kw.get("reason", "rank"),
            export.PLAN_COLUMN: kw.get("plan", "")}


@pytest.fixture(scope="module")
def budgets() -> tuple[pd.DataFrame, dict[str, set[str]]]:
    """Normal rows between hostile ones (ranks interleaved), and per crawler format the host keys
    it must skip."""
    rows, rank = [], 0
    for surt in GOOD:
        rank += 1
        rows.append(_row(surt, rank, policy="eb\tshrinkage", reason='floor:language=de\r\n"x"\x00'))
    rows.append(_row(IDN, rank + 1))
    rows.append(_row("org,planned", rank + 2, plan=_plan("planned.org", ["https://planned.org/t/1"])))
    rank += 3
    for surt in BAD_HOSTS.values():
        rank += 1
        rows.append(_row(surt, rank))
    bad_plans = {"net,plan,quote": ['https://quote.plan.net/t/1"><bean class="x">'],
                 "net,plan,scheme": ["file:///etc/passwd"], "net,plan,js": ["javascript:alert(1)"],
                 "net,plan,other": ["https://victim.example/"], "net,plan,userinfo": ["https://plan.net@victim.example/"],
                 "net,plan,newline": ["https://newline.plan.net/t/1\nhttps://x.example/"],
                 "net,plan,long": ["https://long.plan.net/" + "a" * 3000]}
    for surt, urls in bad_plans.items():
        rank += 1
        rows.append(_row(surt, rank, plan=_plan(".".join(reversed(surt.split(","))), urls)))
    rows.append(_row("net,plan,json", rank + 1, plan="[{not json"))
    rows.append(_row("com,gooddomain", rank + 2, domain="good\n#evil.com"))       # only cc-nutch writes domains
    rows.append(_row("com,huge", rank + 3, pages=UINT32_MAX + 1))                  # urlfrontier: limit is uint32
    rows.append(_row("com,zero<pages", rank + 4, pages=0))                         # written by no crawler format
    unsafe = set(BAD_HOSTS.values()) | set(bad_plans) | {"net,plan,json"}
    skip = {"heritrix": unsafe, "nutch": unsafe, "cc-nutch": unsafe | {"com,gooddomain"},
            "urlfrontier": unsafe | {"com,huge"}}
    return pd.DataFrame(rows), skip


def _safe_hosts(df: pd.DataFrame, skip: set[str]) -> list[str]:
    """Host keys a crawler format writes, in rank order, in their ASCII form."""
    keep = df[(df.allocated_pages > 0) & ~df.surt_host_name.isin(skip)].sort_values("rank")
    return [IDN_ASCII if s == IDN else s for s in keep.surt_host_name]


def _url_host(url: str) -> str:
    return ",".join(reversed(url.split("://", 1)[1].split("/", 1)[0].split(".")))


def _lines(path: Path) -> list[str]:
    """A file's lines as Java's line readers and Python's splitlines both see them: they must agree."""
    text = path.read_text(encoding="utf-8")
    assert "\r" not in text and "\x00" not in text
    assert text.splitlines() == text.split("\n")[:-1] and text.endswith("\n"), path
    return text.split("\n")[:-1]


def test_the_payload_would_inject_a_bean_under_string_concatenation():
    """The crafted host is a real attack: written raw into <value>, the file is well-formed XML
    with a ProcessBuilder bean."""
    raw = (f'<beans xmlns="http://www.springframework.org/schema/beans"><bean class="{heritrix.ASSOCIATION}">'
           f'<property name="surtPrefixes"><list><value>http://({INJECTION},)</value></list></property></bean></beans>')
    classes = [b.get("class") for b in ET.fromstring(raw).iter("{http://www.springframework.org/schema/beans}bean")]
    assert PROCESS_BUILDER in classes


def check_heritrix(folder: Path, want: list[str]) -> None:
    beans = folder / heritrix.BEANS
    root = ET.parse(beans).getroot()                   # well-formed, or ParseError
    xml.dom.minidom.parse(str(beans))
    classes = {b.get("class") for b in root.iter("{http://www.springframework.org/schema/beans}bean")}
    assert classes == {heritrix.SHEET, heritrix.ASSOCIATION}
    assert PROCESS_BUILDER not in beans.read_text(encoding="utf-8")
    _, assocs = heritrix.read_sheets(beans)
    prefixes = [p for ps, _ in assocs for p in ps]
    assert all(re.fullmatch(r"http://\([a-z0-9,-]+,\)(/[A-Za-z_-]+/)?", p) for p in prefixes), prefixes
    assert {p for p in prefixes if p.endswith(")")} == {p for h in want for p in heritrix.host_prefixes(h)}
    assert [p for p in prefixes if not p.endswith(")")] == ["http://(org,planned,)/t/", "http://(org,planned,www,)/t/"]
    seeds = _lines(folder / heritrix.SEEDS)
    assert all(valid_seed_url(u) for u in seeds)
    roots = [u for u in seeds if u.count("/") == 3]
    assert [_url_host(u) for u in roots] == want       # one root per safe row, in rank order
    back = heritrix.read_back(folder)
    assert back.surt_host_name.tolist() == [h for h in want if not h.endswith(",www")]   # read_back folds www keys


def check_nutch(folder: Path, want: list[str], cc: bool) -> None:
    lines = _lines(folder / nutch.SEEDS)
    host_lines = [x.split("\t") for x in lines if x.endswith("\tcrawlplan.seed=host")]
    cluster_lines = [x.split("\t") for x in lines if x.endswith("\tcrawlplan.seed=cluster")]
    assert len(host_lines) + len(cluster_lines) == len(lines)
    assert all(len(f) == 8 for f in host_lines) and all(len(f) == 7 for f in cluster_lines)
    assert [_url_host(f[0]) for f in host_lines] == want
    assert all(valid_seed_url(f[0]) for f in host_lines + cluster_lines)
    meta = [dict(kv.split("=", 1) for kv in f[1:]) for f in host_lines]
    assert meta[0]["crawlplan.policy"] == "eb shrinkage" and meta[0]["crawlplan.reason"] == 'floor:language=de  "x" '
    assert [u[0] for u in cluster_lines] == ["https://planned.org/t/1"]
    ET.parse(folder / nutch.SITE_XML)
    back = (nutch.cc_nutch if cc else nutch.apache_nutch).read_back(folder)
    assert back.surt_host_name.tolist() == [surt_host(".".join(reversed(h.split(",")))) for h in want]  # www folded
    if cc:
        limits = [x.split("\t") for x in _lines(folder / nutch.LIMITS) if not x.startswith("#")]
        assert all(len(f) == 5 and re.fullmatch(r"[a-z0-9.-]+", f[0]) for f in limits)
        assert "good\n#evil.com" not in (folder / nutch.LIMITS).read_text(encoding="utf-8")


def check_urlfrontier(folder: Path, want: list[str]) -> None:
    from test_policies_exports_native import _urlfrontier_pool

    puts = [json.loads(x) for x in _lines(folder / urlfrontier.PUT)]
    limits = [json.loads(x) for x in _lines(folder / urlfrontier.LIMITS)]
    keys = [urlfrontier.queue_key(h) for h in want]
    assert [x["key"] for x in limits] == keys
    infos = [p["discovered"]["info"] for p in puts]
    roots = [i for i in infos if i["metadata"]["crawlplan.seed"]["values"] == ["host"]]
    assert [i["key"] for i in roots] == keys and all(valid_seed_url(i["url"]) for i in infos)
    try:
        from google.protobuf import json_format, message_factory
    except ImportError:          # protobuf is a test extra: the JSON checks above still ran
        return
    pool = _urlfrontier_pool()
    item = message_factory.GetMessageClass(pool.FindMessageTypeByName("urlfrontier.URLItem"))
    limit = message_factory.GetMessageClass(pool.FindMessageTypeByName("urlfrontier.CrawlLimitParams"))
    parsed = [json_format.Parse(x, item()).discovered.info for x in _lines(folder / urlfrontier.PUT)]
    assert [i.key for i in parsed if list(i.metadata["crawlplan.seed"].values) == ["host"]] == keys
    assert [json_format.Parse(x, limit()).key for x in _lines(folder / urlfrontier.LIMITS)] == keys


def check_tables(out: Path, df: pd.DataFrame) -> None:
    """Every row kept, every value back exactly as it was."""
    want = df.sort_values(["rank", "surt_host_name"]).surt_host_name.tolist()
    with open(out / "budgets.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == export.BUDGET_COLUMNS + [export.PLAN_COLUMN]
    assert [r[0] for r in rows[1:]] == want and all(len(r) == len(rows[0]) for r in rows)
    assert pq.read_table(out / "budgets.parquet").column("surt_host_name").to_pylist() == want
    jsonl = (out / "budgets.jsonl").read_text(encoding="utf-8")
    assert jsonl.splitlines() == jsonl.split("\n")[:-1]        # U+2028 escaped: one line per row
    assert [json.loads(x)["surt_host_name"] for x in jsonl.splitlines()] == want


def check_all(out: Path, df: pd.DataFrame, skip: dict[str, set[str]]) -> None:
    check_tables(out, df)
    check_heritrix(out / "heritrix", _safe_hosts(df, skip["heritrix"]))
    check_nutch(out / "nutch", _safe_hosts(df, skip["nutch"]), cc=False)
    check_nutch(out / "cc-nutch", _safe_hosts(df, skip["cc-nutch"]), cc=True)
    check_urlfrontier(out / "urlfrontier", _safe_hosts(df, skip["urlfrontier"]))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix != ".parquet"}


def test_hostile_rows_through_every_format_in_memory(budgets, tmp_path):
    df, skip = budgets
    for fmt in export.FORMATS:
        export.write(df, fmt, tmp_path / fmt if fmt in export.CRAWLER_FORMATS else tmp_path)
    check_all(tmp_path, df, skip)
    assert IDN_ASCII in _safe_hosts(df, skip["heritrix"]) and "org,planned" in _safe_hosts(df, skip["heritrix"])


def test_hostile_rows_through_the_cli_spark_export(spark, budgets, tmp_path, capsys):
    """``export budgets --format all`` (the Spark job): the same checks, the bytes of the in-memory
    export, and the summary's skipped_unsafe per crawler format is the number of unsafe rows."""
    from crawlplan.cli import main

    df, skip = budgets
    src = tmp_path / "budgets"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), src / "part-0.parquet")
    assert main(["export", "budgets", "--input", str(src), "--plans", "none", "--format", "all",
                 "--out", str(tmp_path / "all")]) == 0
    printed = capsys.readouterr().out
    check_all(tmp_path / "all", df, skip)
    for fmt in export.CRAWLER_FORMATS:
        n = len(_safe_hosts(df, skip[fmt]))
        assert f"{fmt}: {tmp_path / 'all' / fmt} ({n} hosts; skipped_unsafe {len(skip[fmt])}:" in printed, printed
    assert f"({len(df)} hosts; a table keeps every row" in printed
    mem = tmp_path / "mem"
    mem.mkdir()
    for fmt in export.FORMATS:
        export.write(df, fmt, mem / fmt if fmt in export.CRAWLER_FORMATS else mem)
    assert _files(tmp_path / "all") == _files(mem)
    job = stream.StreamSettings(part_rows=4, copy_buffer_bytes=64)
    done = stream.export_budgets(spark, str(src), "urlfrontier", str(tmp_path / "u"), export_settings(), job)
    assert (done.rows, done.skipped_unsafe) == (len(_safe_hosts(df, skip["urlfrontier"])), len(skip["urlfrontier"]))
    assert stream.export_budgets(spark, str(src), "csv", str(tmp_path / "t.csv"), export_settings(), job) \
        == stream.Exported(str(tmp_path / "t.csv"), len(df), 0)


def test_formatters_refuse_an_unchecked_host():
    """Called directly, the per-row builders raise rather than write an invalid host."""
    for build in (export.seed_url, heritrix.host_prefixes, urlfrontier.queue_key):
        with pytest.raises(ValueError, match="not a valid host"):
            build(BAD_HOSTS["heritrix"])
    with pytest.raises(ValueError, match="no valid limits domain"):
        nutch.limit_domain("com,example", "good\n#evil.com")
    assert export.seed_url(IDN) == "https://xn--bcher-kva.example/"
    with pytest.raises(ValueError, match="printable"):
        export_settings(hostdb="crawl/hostdb\x01")


@pytest.mark.parametrize("url, ok", [
    ("https://example.com/t/1?a=b&c=%20#x", True), ("http://example.com:8080/", True),
    ("https://xn--bcher-kva.example/", True), ("https://bücher.example/", False), ("ftp://example.com/", False),
    ("https://example.com/a b", False), ("https://example.com/<x>", False), ('https://example.com/"', False),
    ("https://user@example.com/", False), ("https://example.com:99999/", False), ("https:///x", False),
    ("https://[::1]/", False), ("https://example.com/" + "a" * 2100, False), ("https://ex_ample.com/", False),
])
def test_seed_urls_crawler_files_accept(url, ok):
    assert valid_seed_url(url) is ok


def test_the_scrapy_adapter_crawls_only_valid_hosts_of_the_table(budgets, tmp_path):
    """The budgets table keeps hostile rows; the crawl loop's Scrapy adapter reading it skips them."""
    from crawlplan.crawlers.scrapy import load_plan

    df, skip = budgets
    plan = load_plan(str(export.write(df, "jsonl", tmp_path / "b.jsonl")))
    invalid = set(BAD_HOSTS.values()) | {"com,zero<pages"}
    want = [urlfrontier.queue_key(IDN_ASCII if s == IDN else s)
            for s in df.sort_values("rank").surt_host_name if s not in invalid and s != "net,plan,json"]
    assert [h.key for h in plan] == want and [h.position for h in plan] == list(range(1, len(want) + 1))
