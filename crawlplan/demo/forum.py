"""Forum / Q&A hosts of the demo web, the material for SOUrCe.

A forum is a closed mirror: every intra-site link points to a page that exists, page types have
their own DOM templates (see ``html.py``) and URL patterns (``url_patterns``), and the crawl order
is BFS from the entry page over the links in document order (``Page.links`` lists each page's
intra-site links in the order the template renders them), as a crawler mirroring the site
would store it. Thread pages are the user-created content (UCC); login redirects, tag and search
pages are the navigation traps a structure-aware crawler should learn to avoid or use.
"""

from __future__ import annotations

import math
import random
import re
from urllib.parse import quote

import numpy as np

from crawlplan.demo.pages import Host, Page, bfs_order
from crawlplan.demo.text import page_paragraphs, page_title, short_line
from crawlplan.demo.vocab import SYLLABLES

PER_PAGE = 15


def url_patterns(host: str) -> dict[str, str]:
    """Regular expressions (``re.search`` on the full URL) that define each forum page type."""
    base = "^https://" + re.escape(host)
    return {
        "index": base + r"/$",
        "thread_list": base + r"/f/[a-z0-9-]+(\?page=\d+)?$",
        "thread": base + r"/t/\d+-[a-z0-9-]+$",
        "user_profile": base + r"/u/[A-Za-z0-9_]+$",
        "tag": base + r"/tag/[a-z0-9-]+(\?page=\d+)?$",
        "login_redirect": base + r"/login\?next=",
        "search": base + r"/search\?q=",
    }


def _name(rng: random.Random) -> str:
    core = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    return core + rng.choice(("", "_", "")) + (str(rng.randint(1, 99)) if rng.random() < 0.5 else "")


def _paged(path: str, page: int) -> str:
    return path if page == 1 else f"{path}?page={page}"


def login_path(next_path: str) -> str:
    return "/login?next=" + quote(next_path, safe="")


def build_forum(h: Host, rng: random.Random, trng: random.Random, nrng: np.random.Generator,
                within_sd: float) -> None:
    """Structure draws from ``rng``, text from ``trng``: the structure never depends on quality."""
    target = rng.randint(150, 300)
    n_threads = int(target * 0.45)
    n_users = max(8, int(target * 0.18))
    n_boards = rng.randint(3, 5)
    n_tags = rng.randint(6, 10)

    def quality() -> float:
        return float(h.effect + nrng.normal(0.0, within_sd))

    users = []
    while len(users) < n_users:
        name = _name(rng)
        if name not in users:
            users.append(name)
    boards = []
    while len(boards) < n_boards:
        b = "".join(rng.choice(SYLLABLES) for _ in range(2)) + "-" + rng.choice(("help", "general", "news", "dev",
                                                                                 "questions", "offtopic"))
        if b not in boards:
            boards.append(b)
    tags = []
    while len(tags) < n_tags:
        t = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
        if t not in tags:
            tags.append(t)

    threads: list[Page] = []
    for i in range(n_threads):
        tid = 100 + 3 * i + rng.randint(0, 2)
        slug = "-".join("".join(rng.choice(SYLLABLES) for _ in range(2)) for _ in range(rng.randint(2, 4)))
        path = f"/t/{tid}-{slug}"
        q = quality()
        n_posts = rng.randint(2, 8)
        authors = [users[(i + k * 7) % n_users] if k == 0 else rng.choice(users) for k in range(n_posts)]
        posts = []
        for k, author in enumerate(authors):
            body = page_paragraphs(trng, h.lang, h.topic, q, n_paragraphs=1 if k else rng.randint(1, 3))
            if k and rng.random() < 0.5:
                body = [short_line(trng, h.lang, h.topic, q)]
            posts.append({"author": author, "body": body, "n": k + 1})
        thread_tags = rng.sample(tags, rng.randint(1, 3))
        page = Page(url=h.base + path, path=path, page_type="thread", quality=q, topic=h.topic, ucc=True,
                    data={"title": page_title(trng, h.lang, h.topic, q), "posts": posts, "tags": thread_tags,
                          "board": boards[i % n_boards], "reply": rng.random() < 0.3})
        threads.append(page)

    pages: list[Page] = []
    index = Page(url=h.base + "/", path="/", page_type="index", quality=quality(), topic=h.topic)
    pages.append(index)
    nav = ["/"] + [f"/f/{b}" for b in boards] + [login_path("/")]

    # Thread lists per board, paginated.
    board_first_pages = []
    for b in boards:
        members = [t for t in threads if t.data["board"] == b]
        n_pages = max(1, math.ceil(len(members) / PER_PAGE))
        base = f"/f/{b}"
        for pg in range(1, n_pages + 1):
            chunk = members[(pg - 1) * PER_PAGE: pg * PER_PAGE]
            p = Page(url=h.base + _paged(base, pg), path=_paged(base, pg), page_type="thread_list",
                     quality=quality(), topic=h.topic,
                     data={"board": b, "page": pg, "pages": n_pages,
                           "rows": [(t.path, t.data["title"], t.data["posts"][0]["author"], len(t.data["posts"]))
                                    for t in chunk]})
            p.links = nav + [link for r in p.data["rows"] for link in (r[0], f"/u/{r[2]}")] + \
                [_paged(base, k) for k in range(1, n_pages + 1) if k != pg]
            pages.append(p)
            if pg == 1:
                board_first_pages.append(p)

    # Tag pages, paginated.
    tag_pages = []
    for t in tags:
        members = [th for th in threads if t in th.data["tags"]]
        n_pages = max(1, math.ceil(len(members) / PER_PAGE))
        base = f"/tag/{t}"
        for pg in range(1, n_pages + 1):
            chunk = members[(pg - 1) * PER_PAGE: pg * PER_PAGE]
            p = Page(url=h.base + _paged(base, pg), path=_paged(base, pg), page_type="tag", quality=quality(),
                     topic=h.topic,
                     data={"tag": t, "page": pg, "pages": n_pages,
                           "items": [(th.path, th.data["title"], th.data["posts"][0]["body"][0][:160])
                                     for th in chunk]})
            p.links = nav + [i[0] for i in p.data["items"]] + \
                [_paged(base, k) for k in range(1, n_pages + 1) if k != pg]
            tag_pages.append(p)
    pages += tag_pages

    for th in threads:
        th.links = nav + [f"/f/{th.data['board']}"] + [f"/tag/{t}" for t in th.data["tags"]] + \
            [f"/u/{post['author']}" for post in th.data["posts"]]
        if th.data["reply"]:
            th.links.append(login_path(th.path))
    pages += threads

    for u in users:
        own = [th for th in threads if th.data["posts"][0]["author"] == u]
        n_posts = sum(1 for th in threads for post in th.data["posts"] if post["author"] == u)
        q = quality()
        p = Page(url=h.base + f"/u/{u}", path=f"/u/{u}", page_type="user_profile", quality=q, topic=h.topic,
                 data={"user": u, "posts": n_posts, "joined": f"20{rng.randint(12, 23)}-{rng.randint(1, 12):02d}",
                       "bio": short_line(trng, h.lang, h.topic, q),
                       "threads": [(th.path, th.data["title"]) for th in own[:10]]})
        p.links = nav + [x[0] for x in p.data["threads"]]
        pages.append(p)

    login_targets = ["/"] + [th.path for th in threads if th.data["reply"]]
    for nxt in login_targets:
        p = Page(url=h.base + login_path(nxt), path=login_path(nxt), page_type="login_redirect",
                 quality=quality(), topic=h.topic, data={"next": nxt})
        p.links = ["/"]
        pages.append(p)

    searches = []
    for t in rng.sample(tags, min(len(tags), rng.randint(4, 6))):
        members = [th for th in threads if t in th.data["tags"]][:10]
        path = f"/search?q={t}"
        p = Page(url=h.base + path, path=path, page_type="search", quality=quality(), topic=h.topic,
                 data={"query": t, "results": [(th.path, th.data["title"], th.data["posts"][0]["body"][0][:200])
                                               for th in members]})
        p.links = nav + [r[0] for r in p.data["results"]]
        searches.append(p)
    pages += searches

    recent = threads[-10:]
    index.data = {"boards": boards, "tags": tags, "recent": [(t.path, t.data["title"]) for t in recent],
                  "searches": [s.data["query"] for s in searches],
                  "intro": page_paragraphs(trng, h.lang, h.topic, index.quality, n_paragraphs=1)}
    index.links = nav + [f"/f/{b}" for b in boards] + [f"/tag/{t}" for t in tags] + [t.path for t in recent] + \
        [s.path for s in searches]
    for p in pages:
        p.data["nav"] = ["/"] if p.page_type == "login_redirect" else nav
    h.pages = bfs_order(pages)
