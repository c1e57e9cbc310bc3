"""The closed loop on the demo crawl: plan -> crawl (Scrapy over pywb on 127.0.0.1) -> re-plan.

``closed_loop`` exports a budgets dataset (with its within-host plans) in every format, serves
the demo's WARC files with pywb, crawls them with Scrapy twice - driven by the plan, then a
uniform-breadth crawl with the same number of fetches - and measures what each crawl got
against the demo's ground truth (``is_hq`` pages; forum threads for the within-host part).
The plan's own prediction is Σ budget × estimate (its posterior mean density) over the hosts it
crawled. ``replan`` feeds the plan crawl's WARC back into ``crawlplan run``.

    crawlplan crawl-loop --run out/ --out loop/ [--replan]   # budgets, host_plans, page_clusters of a run
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd
from warcio.archiveiterator import ArchiveIterator

from crawlplan.crawlers.replay import ReplayServer
from crawlplan.hosts import strip_www
from crawlplan.policies import export
from crawlplan.policies.export import read_budgets

CRAWL_VENV = ".venv-crawl"


def crawl_python(repo: Path | None = None) -> Path | None:
    """The crawl venv's python (pywb + Scrapy), or None when scripts/test-extras.sh has not made it."""
    repo = repo or Path(__file__).resolve().parents[2]
    py = repo / CRAWL_VENV / "bin" / "python"
    if not py.exists():
        return None
    ok = subprocess.run([str(py), "-c", "import pywb, scrapy, warcio"], capture_output=True).returncode == 0
    return py if ok else None


def page_key(url: str) -> str:
    """URL identity across the www / bare host variants and the scheme."""
    p = urlsplit(url)
    return strip_www((p.hostname or "").lower()) + (p.path or "/") + (f"?{p.query}" if p.query else "")


def export_plan(run_dir: Path, out: Path) -> Path:
    """Every export format of the run's budgets (+ host_plans, page_clusters); returns the JSONL."""
    df, _ = export.read_budgets_with_plans(Path(run_dir) / "budgets")
    out.mkdir(parents=True, exist_ok=True)
    for fmt in export.FORMATS:
        export.write(df, fmt, out / fmt if fmt in export.CRAWLER_FORMATS else out)
    return out / "budgets.jsonl"


def crawled_pages(warc: Path) -> pd.DataFrame:
    """Fetches of a crawl WARC: url, status, key (page_key), html (200 text/html)."""
    rows = []
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            status = int(rec.http_headers.get_statuscode() or 0)
            ctype = (rec.http_headers.get_header("Content-Type") or "").lower()
            url = rec.rec_headers.get_header("WARC-Target-URI")
            rows.append({"url": url, "status": status, "key": page_key(url),
                         "html": status == 200 and "html" in ctype})
    return pd.DataFrame(rows, columns=["url", "status", "key", "html"])


def measure(warc: Path, truth: pd.DataFrame) -> dict:
    """High-quality yield of one crawl against the demo's ground truth pages."""
    fetched = crawled_pages(warc)
    pages = fetched[fetched.html].drop_duplicates("key").merge(truth, on="key", how="left")
    forum = pages[pages.page_type.isin(["thread"]) | pages.site_type.eq("forum")]
    return {"fetches": int(len(fetched)), "html_pages": int(len(pages)),
            "hq_pages": int(pages.is_hq.fillna(False).sum()),
            "hq_share": round(float(pages.is_hq.fillna(False).mean()), 4) if len(pages) else 0.0,
            "hosts": int(pages.key.str.split("/", n=1).str[0].nunique()),
            "forum_pages": int(len(forum)), "forum_threads": int((forum.page_type == "thread").sum())}


def ground_truth(demo: Path) -> pd.DataFrame:
    pages = pd.read_parquet(demo / "ground_truth" / "pages.parquet", columns=["url", "host", "page_type", "is_hq"])
    hosts = pd.read_parquet(demo / "ground_truth" / "hosts.parquet", columns=["host", "site_type"])
    pages = pages.merge(hosts, on="host", how="left")
    return pages.assign(key=pages.url.map(page_key)).drop_duplicates("key")[["key", "page_type", "is_hq", "site_type"]]


def predicted(plan_jsonl: Path, fetches_by_host: dict[str, int]) -> dict:
    """The plan's prediction: Σ budget × estimate, and the same over the pages actually fetched."""
    rows = [json.loads(line) for line in plan_jsonl.read_text().splitlines() if line.strip()]
    est = {strip_www(".".join(reversed(r["surt_host_name"].split(",")))): (r["allocated_pages"], r["estimate"])
           for r in rows}
    budget = sum(b * e for b, e in est.values() if b > 0)
    spent = sum(n * est[h][1] for h, n in fetches_by_host.items() if h in est)
    return {"planned_pages": int(sum(b for b, _ in est.values())), "predicted_hq_at_budget": round(budget, 1),
            "predicted_hq_at_fetches": round(spent, 1)}


def run_scrapy(py: Path, plan: Path, prefix: str, out: Path, mode: str, total: int = 0) -> dict:
    repo = Path(__file__).resolve().parents[2]
    cmd = [str(py), "-m", "crawlplan.crawlers.scrapy", "--plan", str(plan), "--replay", prefix,
           "--warc", str(out / f"crawl-{mode}.warc.gz"), "--stats", str(out / f"crawl-{mode}.json"), "--mode", mode]
    if total:
        cmd += ["--total", str(total)]
    subprocess.run(cmd, check=True, env={**os.environ, "PYTHONPATH": str(repo)}, cwd=str(out))
    return json.loads((out / f"crawl-{mode}.json").read_text())


def replan(warc: Path, out: Path, extra: list[str] = ()) -> dict:
    """``crawlplan run`` on the crawl's WARC: the next plan from what this crawl fetched."""
    listing = out / "crawl.paths.gz"
    with gzip.open(listing, "wt") as fh:
        fh.write(str(warc.resolve()) + "\n")
    # only what the next plan needs: extract, classify, allocate; site_pages, sitemaps (host_plans)
    cmd = [sys.executable, "-m", "crawlplan.cli", "run", "--out", str(out / "replan"), "--until", "allocate,sitemaps",
           "--set", f"inputs.warc_paths={listing}", *extra]
    subprocess.run(cmd, check=True)

    budgets = read_budgets(out / "replan" / "budgets")
    return {"replan_hosts": int(len(budgets)), "replan_hosts_with_budget": int((budgets.allocated_pages > 0).sum()),
            "replan_pages": int(budgets.allocated_pages.sum())}


def closed_loop(plan: Path, demo: Path, out: Path, *, py: Path | None = None, do_replan: bool = False,
                replan_args: list[str] = ()) -> dict:
    """Crawl ``demo`` twice (plan, uniform) from the budgets JSONL ``plan``; measure; re-plan."""
    py = py or crawl_python()
    if py is None:
        raise RuntimeError(f"no crawl venv ({CRAWL_VENV} with pywb and Scrapy): run scripts/test-extras.sh")
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(demo / "warc.paths.gz", "rt") as fh:
        warcs = [str(demo / line.strip()) for line in fh if line.strip()]
    with ReplayServer(str(py), out / "pywb", warcs) as server:
        plan_stats = run_scrapy(py, plan, server.prefix, out, "plan")
        run_scrapy(py, plan, server.prefix, out, "uniform", total=plan_stats["fetches"])
        replay = {"pid": server.proc.pid, "port": server.port}
    truth = ground_truth(demo)
    result = {"plan": {**measure(out / "crawl-plan.warc.gz", truth), **predicted(plan, plan_stats["fetches_by_host"]),
                       "over_cap_refused": plan_stats["refused_over_cap"]},
              "uniform": measure(out / "crawl-uniform.warc.gz", truth),
              "caps_held": all(n <= cap for n, cap in _caps(plan, plan_stats["fetches_by_host"])),
              "fetches_by_host": plan_stats["fetches_by_host"], "replay": replay}
    if do_replan:
        result["replan"] = replan(out / "crawl-plan.warc.gz", out, list(replan_args))
    (out / "loop.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    (out / "yield.md").write_text(yield_table(result) + "\n")
    return result


def _caps(plan: Path, fetched: dict[str, int]):
    rows = [json.loads(line) for line in plan.read_text().splitlines() if line.strip()]
    cap = {strip_www(".".join(reversed(r["surt_host_name"].split(",")))): int(r["allocated_pages"]) for r in rows}
    return [(n, cap.get(h, 0)) for h, n in fetched.items()]


def yield_table(r: dict) -> str:
    p, u = r["plan"], r["uniform"]
    lines = ["| | fetches | HTML pages | high-quality pages | HQ share | hosts | forum threads |",
             "|---|---|---|---|---|---|---|",
             f"| plan (prediction: Σ fetched × estimate) | {p['fetches']} | | {p['predicted_hq_at_fetches']} | "
             f"{p['predicted_hq_at_fetches'] / max(p['fetches'], 1):.3f} | | |",
             f"| crawl driven by the plan (Scrapy) | {p['fetches']} | {p['html_pages']} | {p['hq_pages']} | "
             f"{p['hq_share']:.3f} | {p['hosts']} | {p['forum_threads']} |",
             f"| uniform breadth, same fetches (Scrapy) | {u['fetches']} | {u['html_pages']} | {u['hq_pages']} | "
             f"{u['hq_share']:.3f} | {u['hosts']} | {u['forum_threads']} |"]
    return "\n".join(lines)
