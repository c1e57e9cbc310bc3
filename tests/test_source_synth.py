"""A tiny synthetic forum for the SOUrCe tests: four page templates with distinct DOM structure
and URL patterns, written as a BFS-ordered WARC when a test needs files."""

from __future__ import annotations

import io
import random
from collections import deque

HOST = "forum.test"
BASE = f"https://{HOST}"
TYPES = {"index": r"^https://forum\.test/$", "board": r"/f/", "thread": r"/t/\d+$", "user": r"/u/",
         "login": r"/login\?next="}


def _header() -> str:
    return (f'<header><nav><ul><li><a class="home" href="{BASE}/">Home</a></li>'
            f'<li><a class="login" href="/login?next=%2F">Log in</a></li></ul></nav></header>')


def forum_pages(n_boards: int = 3, threads_per_board: int = 8, n_users: int = 6, seed: int = 0) -> dict[str, str]:
    """url -> HTML. Threads hold 2-6 posts; every page links back into the site."""
    rng = random.Random(seed)
    users = [f"user{i}" for i in range(n_users)]
    pages: dict[str, str] = {}
    boards = [f"b{i}" for i in range(n_boards)]
    items = "".join(f'<li><a class="board" href="/f/{b}">{b}</a></li>' for b in boards)
    pages[f"{BASE}/"] = f"<html><body>{_header()}<main><h1>Forum</h1><ul class='boards'>{items}</ul></main></body></html>"
    tid = 0
    for b in boards:
        rows = []
        for _ in range(rng.randint(threads_per_board // 2, threads_per_board)):
            tid += 1
            author = rng.choice(users)
            posts = "".join(
                f'<div class="post"><a class="user" href="/u/{rng.choice(users)}">u</a>'
                + "".join(f"<p>text {k}</p>" for k in range(rng.randint(1, 3))) + "</div>"
                for _ in range(rng.randint(2, 6)))
            pages[f"{BASE}/t/{tid}"] = (f"<html><body>{_header()}<main><article><h1>Thread {tid}</h1>{posts}"
                                        f'<a class="back" href="/f/{b}">back</a>'
                                        f'<a class="reply" href="/login?next=%2Ft%2F{tid}">reply</a>'
                                        f"</article></main></body></html>")
            rows.append(f'<tr><td><a class="thread" href="/t/{tid}">t{tid}</a></td>'
                        f'<td><a class="user" href="/u/{author}">{author}</a></td><td>3</td></tr>')
        pages[f"{BASE}/f/{b}"] = (f"<html><body>{_header()}<main><h1>{b}</h1><table>{''.join(rows)}</table>"
                                  f"</main></body></html>")
    for u in users:
        recent = "".join(f'<li><a class="thread" href="/t/{rng.randint(1, tid)}">t</a></li>' for _ in range(3))
        pages[f"{BASE}/u/{u}"] = (f"<html><body>{_header()}<main><section class='profile'><dl><dt>Name</dt>"
                                  f"<dd>{u}</dd><dt>Posts</dt><dd>4</dd></dl><ol>{recent}</ol></section>"
                                  f"</main></body></html>")
    for nxt in ["%2F"] + [f"%2Ft%2F{i}" for i in range(1, tid + 1)]:
        pages[f"{BASE}/login?next={nxt}"] = (f"<html><body><form action='/login'><input name='u'/>"
                                             f"<input name='p'/><button>go</button></form>"
                                             f'<a class="home" href="{BASE}/">home</a></body></html>')
    return pages


def bfs_order(pages: dict[str, str]) -> list[str]:
    from crawlplan.source.features import extract

    start = f"{BASE}/"
    order, seen, queue = [], {start}, deque([start])
    while queue:
        url = queue.popleft()
        order.append(url)
        for _, t in extract(url, pages[url]).links:
            if t in pages and t not in seen:
                seen.add(t)
                queue.append(t)
    return order + [u for u in pages if u not in seen]


def write_warc(path, pages: dict[str, str], extra: list[tuple[str, int, dict, bytes]] = ()) -> None:
    """Responses in BFS order; ``extra`` = (url, status, headers, body) records appended."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        records = [(u, 200, {"Content-Type": "text/html; charset=utf-8"}, pages[u].encode()) for u in bfs_order(pages)]
        for url, status, headers, body in list(records) + list(extra):
            http = StatusAndHeaders(f"{status} OK", list(headers.items()), protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                          http_headers=http))


def test_synthetic_forum_is_a_closed_site():
    from crawlplan.source.features import extract

    pages = forum_pages()
    for url, html in pages.items():
        for _, target in extract(url, html).links:
            assert target in pages, (url, target)
    assert len(bfs_order(pages)) == len(pages)
