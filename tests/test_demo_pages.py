"""Demo pages as HTML: forum mirrors for SOUrCe (closure, BFS order, types) and main-text extraction."""

from __future__ import annotations

import re
from collections import Counter, defaultdict, deque
from urllib.parse import urljoin, urlsplit

import lxml.html
import pandas as pd
import pytest
import trafilatura
import yaml
from demo_support import default_demo, iter_records, warc_paths


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return default_demo(tmp_path_factory)


@pytest.fixture(scope="module")
def pages(root):
    return pd.read_parquet(root / "ground_truth" / "pages.parquet").set_index("url")


@pytest.fixture(scope="module")
def html_by_host(root):
    """host -> [(url, html text)] for every HTML 200 response, in WARC order."""
    out = defaultdict(list)
    for path in warc_paths(root):
        for _, _, rec, payload in iter_records(path):
            if rec.rec_type != "response" or rec.http_headers.get_statuscode() != "200":
                continue
            ctype = rec.http_headers.get_header("Content-Type")
            if not ctype.startswith("text/html"):
                continue
            charset = ctype.split("charset=")[1]
            url = rec.rec_headers.get_header("WARC-Target-URI")
            out[urlsplit(url).hostname].append((url, payload.decode(charset)))
    return out


@pytest.fixture(scope="module")
def patterns(root):
    return yaml.safe_load((root / "ground_truth" / "page_types.yaml").read_text())


def _links(url: str, html: str) -> list[str]:
    doc = lxml.html.fromstring(html)
    return [urljoin(url, a.get("href")) for a in doc.iter("a") if a.get("href")]


def test_forum_links_are_closed_and_records_in_bfs_order(html_by_host, patterns):
    assert len(patterns) == 5
    for host in patterns:
        records = html_by_host[host]
        urls = [u for u, _ in records]
        assert len(set(urls)) == len(urls) and 120 <= len(urls) <= 300
        known = set(urls)
        graph = {}
        external = 0
        for url, html in records:
            targets = _links(url, html)
            internal = [t for t in targets if urlsplit(t).hostname == host]
            missing = [t for t in internal if t not in known]
            assert not missing, f"{url} links to pages outside the mirror: {missing[:3]}"
            external += len(targets) - len(internal)
            graph[url] = internal
        assert external > 0                                  # ads and partner links leave the site
        # BFS from the entry page reaches every page, and depth never decreases in WARC order.
        entry = f"https://{host}/"
        assert urls[0] == entry
        depth = {entry: 0}
        queue = deque([entry])
        while queue:
            u = queue.popleft()
            for v in graph[u]:
                if v not in depth:
                    depth[v] = depth[u] + 1
                    queue.append(v)
        assert set(depth) == known
        order = [depth[u] for u in urls]
        assert order == sorted(order)
        # exactly the order of a BFS that follows links in document order
        seen, queue, bfs = {entry}, deque([entry]), []
        while queue:
            u = queue.popleft()
            bfs.append(u)
            for v in graph[u]:
                if v not in seen:
                    seen.add(v)
                    queue.append(v)
        assert bfs == urls


def test_forum_page_types_have_url_patterns_and_templates(html_by_host, patterns, pages):
    markers = {"thread": "post-body", "thread_list": "thread-list", "user_profile": "user-stats",
               "tag": "tagged-threads", "login_redirect": "login-form", "search": "search-results",
               "index": "forum-index"}
    for host, regexes in patterns.items():
        counts = Counter()
        paginated = Counter()
        for url, html in html_by_host[host]:
            matched = [t for t, rx in regexes.items() if re.search(rx, url)]
            assert len(matched) == 1, (url, matched)
            page_type = matched[0]
            assert pages.loc[url, "page_type"] == page_type
            assert pages.loc[url, "ucc"] == (page_type == "thread")
            assert f'class="{markers[page_type]}"' in html, (url, page_type)
            assert 'class="ad-block"' in html
            counts[page_type] += 1
            paginated[page_type] += 'class="pagination"' in html
        assert counts["index"] == 1
        assert counts["thread"] >= 40 and counts["user_profile"] >= 8
        for t in ("thread_list", "tag", "login_redirect", "search"):
            assert counts[t] >= 4, (host, t, counts)
        assert paginated["thread_list"] + paginated["tag"] >= 2
        assert "Please log in" in next(h for u, h in html_by_host[host] if "/login?" in u)


def _extract(html: str) -> str | None:
    return trafilatura.extract(html, favor_precision=True, include_comments=False, include_tables=True,
                               include_links=False, include_images=False, deduplicate=False)


def _sentence_len(text: str) -> float:
    parts = [p for p in re.split(r"[.!?。！]+\s*", text) if p.strip()]
    return sum(len(p.split()) for p in parts) / max(1, len(parts))


def test_trafilatura_extracts_the_main_text_without_boilerplate(html_by_host, pages):
    docs = [(u, h) for host_docs in html_by_host.values() for u, h in host_docs]
    articles = [(u, h) for u, h in docs if pages.loc[u, "page_type"] == "article"]
    sample = articles[::max(1, len(articles) // 120)]
    ok, hq_len, lq_len = 0, [], []
    for url, html in sample:
        text = _extract(html)
        doc = lxml.html.fromstring(html)
        body = [p.text_content() for p in doc.xpath('//div[@class="entry-content"]/p')]
        footer = doc.xpath('//footer//p')[0].text_content()
        if not text:
            continue
        ok += 1
        longest = max(body, key=len)
        assert longest[:60] in text, url
        assert footer not in text
        if pages.loc[url, "language"] != "ja":
            (hq_len if pages.loc[url, "is_hq"] else lq_len).append(_sentence_len(text))
    assert ok >= 0.95 * len(sample)
    assert sum(hq_len) / len(hq_len) > 1.3 * sum(lq_len) / len(lq_len)
    languages = {pages.loc[u, "language"] for u, _ in sample}
    assert len(languages) >= 6


def test_trafilatura_extracts_forum_posts(html_by_host, patterns):
    host = sorted(patterns)[0]
    threads = [(u, h) for u, h in html_by_host[host] if "/t/" in u][:15]
    for url, html in threads:
        text = _extract(html)
        assert text, url
        first_post = lxml.html.fromstring(html).xpath('//div[@class="post-body"]/p')[0].text_content()
        assert first_post[:40] in text


def test_a_classifier_trained_on_labelled_texts_ranks_demo_pages_by_quality(html_by_host, pages, tmp_path):
    """What the demo models rely on: text quality in the pages is the text quality of the labels."""
    fasttext = pytest.importorskip("fasttext")
    from scipy.stats import spearmanr

    from crawlplan.demo.text import labelled_texts

    train = tmp_path / "train.txt"
    train.write_text("".join(f"{label} {text.replace(chr(10), ' ')}\n"
                             for label, text in labelled_texts("gneissweb_quality", 2000, seed=0)))
    model = fasttext.train_supervised(str(train), epoch=5, wordNgrams=2, dim=32, minCount=2, verbose=0, seed=1,
                                      thread=1)
    docs = [(u, h) for host_docs in html_by_host.values() for u, h in host_docs
            if pages.loc[u, "page_type"] == "article" and pages.loc[u, "language"] == "en"][::6]
    truth, scores = [], []
    for url, html in docs:
        text = _extract(html)
        if not text:
            continue
        # the C++ binding: fasttext-wheel's Python predict() breaks under numpy 2
        probs = {label: p for p, label in model.f.predict(text.replace("\n", " ") + "\n", 2, 0.0, "strict")}
        scores.append(probs.get("__label__hq", 0.0))
        truth.append(pages.loc[url, "true_quality"])
    assert len(scores) >= 80
    assert spearmanr(truth, scores)[0] > 0.6
