"""Issue 28 part 2, before and after: each thing Common Crawl publishes or its scripts download,
read by the checkout on ``PYTHONPATH``. Run it once per checkout and compare the lines:

    PYTHONPATH=<old checkout> .venv/bin/python scripts/readers_before_after.py
    PYTHONPATH=. .venv/bin/python scripts/readers_before_after.py

Each case builds its input in a temporary folder (in the published form: flat-schema index of a
2017 crawl, a host graph release copied the way cc-webgraph's download script lays it out, the
host index's ``v2.paths.gz``, a small release, the demo writers' files) and prints one line
``case: outcome``. Only entry points both versions have are called, with the settings' defaults
of ``conf/defaults.yaml`` where a newer parameter exists (found by signature)."""

from __future__ import annotations

import gzip
import inspect
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

OLD = "CC-MAIN-2017-39"
WARC = f"crawl-data/{OLD}/segments/1505818689752.21/warc/CC-MAIN-20170923160736-20170923180736-00256.warc.gz"
RELEASE = "cc-main-2024-feb-apr-may"
PREFIX = f"projects/hyperlinkgraph/{RELEASE}/host"
# cc-webgraph's TestHostToDomainGraph.hostGraphWithWwwDomains: 8 names, 5 with a www label
WWW_NAMES = ["name.hiro", "name.hiro.adam", "name.hiro.www", "name.his.forgot.ben.www", "name.his.forgot.never",
             "name.his.prz.www", "name.his.www", "name.hit.www"]


def _gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


def _with_defaults(fn, **wanted):
    """The keyword arguments ``fn`` knows (a newer setting is passed only where it exists)."""
    known = inspect.signature(fn).parameters
    return {k: v for k, v in wanted.items() if k in known}


def _failure(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"fails: {type(exc).__name__}: {first[:160]}"


def old_crawl(spark, root: Path) -> str:
    """The sampled extract on an index of a crawl before 2018-39 (no content_languages)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from crawlplan.conf import load_conf
    from crawlplan.dag.pipeline import load_pipeline
    from crawlplan.dag.runner import run_single_job

    schema = pa.schema([("url", pa.string()), ("url_host_name", pa.string()), ("url_path", pa.string()),
                        ("fetch_status", pa.int16()), ("content_mime_type", pa.string()),
                        ("content_mime_detected", pa.string()), ("warc_filename", pa.string()),
                        ("warc_record_offset", pa.int32()), ("warc_record_length", pa.int32())])
    warc = root / WARC
    warc.parent.mkdir(parents=True)
    rows = []
    with open(warc, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for host, path in [("www.example.com", p) for p in ("/", "/a", "/a/b", "/x")] + [("example.org", "/")]:
            words = " ".join(f"{host} {path} sentence {i} about the topic of this page." for i in range(30))
            body = f"<html><head><title>{host}{path}</title></head><body><p>{words}</p></body></html>".encode()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                                       protocol="HTTP/1.1")
            start = fh.tell()
            writer.write_record(writer.create_warc_record(f"https://{host}{path}", "response",
                                                          payload=io.BytesIO(body), http_headers=headers))
            rows.append(dict(url=f"https://{host}{path}", url_host_name=host, url_path=path, fetch_status=200,
                             content_mime_type="text/html", content_mime_detected="text/html", warc_filename=WARC,
                             warc_record_offset=start, warc_record_length=fh.tell() - start))
    part = root / "cc_index" / f"crawl={OLD}" / "subset=warc"
    part.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), part / "part-00000.parquet")
    conf = load_conf("local", overrides=["extract.mode=sampled", "extract.sample.k=2",
                                         "extract.sample.strata=[language, depth]", "extract.extractor=resiliparse",
                                         "extract.language_id=none", f"inputs.cc_index={root / 'cc_index'}"])
    try:
        result = run_single_job(spark, conf, load_pipeline("main"), "extract", [], str(root / "out"),
                                echo=lambda *_: None)
    except BaseException as exc:  # noqa: BLE001 - the outcome is the point
        return _failure(exc)
    notes = [n for n in result.get("notes", []) if "content_languages" in n]
    return f"ok: {result['rows']['documents']} documents; note: {notes[0] if notes else 'none'}"


def graph_copy(spark, root: Path) -> str:
    """A host graph release in one folder, listings bucket-relative (cc-webgraph's download script)."""
    from crawlplan.graph import webgraph

    copy = root / "my-graphs" / RELEASE
    _gz(copy / f"{RELEASE}-host-ranks.txt.gz", "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
        "1\t3.0E7\t1\t0.01\tcom.example\n2\t2.0E7\t2\t0.005\torg.example\n")
    _gz(copy / "vertices" / "part-00000.txt.gz", "0\tcom.example\n1\torg.example\n")
    _gz(copy / "edges" / "part-00000.txt.gz", "0\t1\n1\t0\n")
    for kind in ("vertices", "edges"):
        _gz(copy / f"{RELEASE}-host-{kind}.paths.gz", f"{PREFIX}/{kind}/part-00000.txt.gz\n")
    try:
        vertices = webgraph.read_vertices(spark, str(copy), None, convention="stripped").count()
        edges = webgraph.read_edges(spark, str(copy), None).count()
    except BaseException as exc:  # noqa: BLE001
        return _failure(exc)
    return f"ok: {vertices} vertices, {edges} edges"


def host_index_listing(spark, root: Path) -> str:
    """The host index opened from ``v2.paths.gz`` (cc-host-index's README)."""
    from crawlplan.graph import hostindex

    schema = pa.schema([("surt_host_name", pa.string()), ("url_host_tld", pa.string()), ("hcrank10", pa.float64()),
                        ("fetch_200", pa.int32()), ("fetch_200_lote_pct", pa.int32())])
    entries = []
    for crawl, n in (("CC-MAIN-2025-08", 10), ("CC-MAIN-2025-13", 12)):
        folder = root / "projects" / "host-index-testing" / "v2" / f"crawl={crawl}"
        folder.mkdir(parents=True)
        row = dict(surt_host_name="org,commoncrawl", url_host_tld="org", hcrank10=5.1, fetch_200=n,
                   fetch_200_lote_pct=0)
        pq.write_table(pa.Table.from_pylist([row], schema=schema), folder / "part-00000.gz.parquet")
        entries.append(f"projects/host-index-testing/v2/crawl={crawl}/part-00000.gz.parquet")
    _gz(root / "v2.paths.gz", "".join(e + "\n" for e in entries))
    try:
        read = hostindex.read_host_index(spark, str(root / "v2.paths.gz"), columns=["fetch_200"])
        got = sorted((r.crawl, r.fetch_200) for r in read.collect())
    except BaseException as exc:  # noqa: BLE001
        return _failure(exc)
    return f"ok: {got}"


def small_release(spark, root: Path) -> str:
    """The www. convention of a 2024 release (stripped, by Common Crawl's record) with 8 names."""
    from crawlplan.graph import webgraph

    folder = root / RELEASE
    _gz(folder / f"{RELEASE}-host-ranks.txt.gz", "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
        + "".join(f"{i + 1}\t{10.0 - i}\t{i + 1}\t0.1\t{n}\n" for i, n in enumerate(WWW_NAMES)))
    from crawlplan.conf import load_conf, section

    inputs = section(load_conf("local"), "inputs")
    wanted = {"min_names": inputs["www_min_names"]} if "www_min_names" in inputs else {}
    try:
        found = webgraph.release_convention(spark, str(folder), **_with_defaults(webgraph.release_convention, **wanted))
    except BaseException as exc:  # noqa: BLE001
        return _failure(exc)
    return f"{found.convention} ({found.describe()})"


def demo_types(_spark, root: Path) -> str:
    """Types and listing forms of the demo's host index and web graph writers."""
    out = root / "demo"
    subprocess.run([sys.executable, "-c", "from crawlplan.cli import main; main()", "demo-data", "--out", str(out),
                    "--hosts", "20"], check=True, capture_output=True, env=os.environ.copy())
    part = next((out / "host_index").rglob("*.parquet"))
    schema = pq.read_schema(part)
    pct = [f for f in schema if f.name.endswith("_pct")]
    counts = schema.field("fetch_200").type
    ranks = next(out.rglob("*host-ranks.txt.gz"))
    with gzip.open(ranks, "rt") as fh:
        first = fh.readlines()[1].split("\t")
    listing = next(out.rglob("*host-vertices.paths.gz"))
    with gzip.open(listing, "rt") as fh:
        entry = fh.readline().strip()
    return (f"host index fetch_200 {counts}, _pct {sorted({str(f.type) for f in pct})}; "
            f"ranks pr_val {first[3]!r}; listing entry {entry!r}")


CASES = (old_crawl, graph_copy, host_index_listing, small_release, demo_types)


def main() -> int:
    from crawlplan.conf import load_conf
    from crawlplan.spark import build_session

    spark = build_session(load_conf("local", overrides=["spark.master=local[2]", "spark.log_level=ERROR"]))
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"{case.__name__}: {case(spark, Path(tmp))}", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
