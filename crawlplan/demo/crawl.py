"""The embedded demo crawl: a small synthetic web in Common Crawl's own formats.

``ensure_demo`` is what ``crawlplan run`` calls when no inputs are configured: it generates the
demo once into a cache folder and afterwards only checks the completion marker. Generation writes
into a temporary sibling folder and renames it into place, so an interrupted run never leaves a
folder that looks complete.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from crawlplan.ccindex.build import build_index
from crawlplan.demo.forum import url_patterns
from crawlplan.demo.graph import PREVIOUS_RELEASE, RELEASE, build_graph, build_previous_graph, write_graph
from crawlplan.demo.hostindex import build_host_index, ground_truth_tables, host_index_schema
from crawlplan.demo.warcs import CRAWL, write_paths_listing, write_warcs
from crawlplan.demo.web import build_web

GENERATOR_VERSION = "6"
WARC_PATHS = "warc.paths.gz"
CC_INDEX = "cc_index"              # the columnar URL index of the demo's WARC files (crawlplan index build)
PREVIOUS_GRAPH = "graph_previous"   # the release before, for stats.host_graph.previous_release
MIN_HOSTS = 10


def demo_paths(out_dir: str | os.PathLike) -> dict[str, str]:
    root = Path(out_dir).resolve()
    return {"warc_paths": str(root / WARC_PATHS), "cc_index": str(root / CC_INDEX), "host_index": str(root / "host_index"),
            "web_graph": str(root / "graph"), "ground_truth": str(root / "ground_truth")}


def previous_graph_path(out_dir: str | os.PathLike) -> str:
    """The demo's earlier graph release: what ``stats.host_graph.previous_release`` reads on the demo."""
    return str(Path(out_dir).resolve() / PREVIOUS_GRAPH)


def _marker(hosts: int, seed: int) -> dict:
    return {"hosts": int(hosts), "seed": int(seed), "generator_version": GENERATOR_VERSION}


def is_complete(out_dir: str | os.PathLike, hosts: int, seed: int) -> bool:
    marker = Path(out_dir) / "_SUCCESS"
    try:
        found = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return all(found.get(k) == v for k, v in _marker(hosts, seed).items())


def generate_demo(out_dir: str | os.PathLike, hosts: int = 300, seed: int = 0) -> dict:
    """Write the whole demo crawl into ``out_dir`` (written in place; see ``ensure_demo``)."""
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    web = build_web(hosts, seed)
    warc_files, records = write_warcs(web, root, seed)
    write_paths_listing(warc_files, root / WARC_PATHS)
    build_index([str(root / rel) for rel in warc_files], str(root / CC_INDEX), base=str(root))

    graph = build_graph(web, seed)
    graph_files = write_graph(graph, root / "graph", RELEASE)
    previous = build_previous_graph(graph, seed)
    write_graph(previous, root / PREVIOUS_GRAPH, PREVIOUS_RELEASE)

    index = build_host_index(web, records, graph, seed)
    schema = host_index_schema()
    for crawl, df in index.items():
        part = root / "host_index" / f"crawl={crawl}" / "part-00000.parquet"
        part.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pandas(df, schema=schema, preserve_index=False), part)

    truth = root / "ground_truth"
    truth.mkdir(parents=True, exist_ok=True)
    host_df, page_df = ground_truth_tables(web, records, index[CRAWL])
    pq.write_table(pa.Table.from_pandas(host_df, preserve_index=False), truth / "hosts.parquet")
    pq.write_table(pa.Table.from_pandas(page_df, preserve_index=False), truth / "pages.parquet")
    patterns = {h.host: url_patterns(h.host) for h in web.hosts if h.site_type == "forum"}
    (truth / "page_types.yaml").write_text(
        "# Page types of the demo's forum hosts: regular expressions searched in the full URL.\n"
        + yaml.safe_dump(patterns, sort_keys=True, allow_unicode=True))

    summary = {
        **_marker(hosts, seed), "crawl": CRAWL, "graph_release": RELEASE,
        "warc_files": len(warc_files), "response_records": len(records),
        "html_pages": int(len(page_df)), "hosts_crawled": len(web.hosts),
        "forum_hosts": sorted(patterns), "graph_vertices": len(graph.vertices),
        "graph_edges": int(len(graph.edges)), "host_index_crawls": sorted(index),
        "previous_graph_release": PREVIOUS_RELEASE, "previous_graph_vertices": len(previous.vertices),
        "graph_files": {k: str(Path(v).relative_to(root)) for k, v in graph_files.items()},
    }
    (root / "_SUCCESS").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


def ensure_demo(out_dir: str | os.PathLike, hosts: int = 300, seed: int = 0, echo=print) -> dict[str, str]:
    """Generate the demo into ``out_dir`` unless its ``_SUCCESS`` marker matches; return its paths.

    An existing folder is replaced only if it is an older demo (it has a ``_SUCCESS``) or empty:
    a mistyped ``demo.dir`` must never delete someone's data. Two processes generating at once
    both finish; the second to finish keeps the first one's complete folder.
    """
    root = Path(out_dir).resolve()
    if is_complete(root, hosts, seed):
        return demo_paths(root)
    if hosts < MIN_HOSTS:
        raise ValueError(f"the demo web needs at least {MIN_HOSTS} hosts, got {hosts}")
    if root.exists() and not (root / "_SUCCESS").is_file() and (not root.is_dir() or any(root.iterdir())):
        raise ValueError(f"{root} exists and is not a demo crawl folder (no _SUCCESS marker); "
                         f"choose another demo folder or remove it")
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = root.parent / f".{root.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    echo(f"generating the demo crawl ({hosts} hosts, seed {seed}) into {root} ...")
    started = time.monotonic()
    try:
        summary = generate_demo(tmp, hosts=hosts, seed=seed)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = root.parent / f".{root.name}.old-{os.getpid()}"
    try:
        if root.exists():
            root.rename(old)
        tmp.rename(root)
    except OSError:
        if not is_complete(root, hosts, seed):      # not a lost race with another generator
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    echo(f"demo crawl ready in {time.monotonic() - started:.1f}s: {summary['html_pages']} HTML pages on "
         f"{summary['hosts_crawled']} hosts in {summary['warc_files']} WARC files")
    return demo_paths(root)
