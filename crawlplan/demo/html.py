"""HTML of the demo pages: complete documents with the boilerplate real sites carry.

Regular sites get a CMS-like layout (header, nav, main/article, aside, footer) so that main-text
extraction has boilerplate to remove. Forum page types each get their own DOM template and
``class`` attributes, since SOUrCe clusters pages by the XPaths of their leaves and links.
Text is generated here from a per-page ``random.Random`` seeded by (seed, url), so one page's
text never depends on how many pages were rendered before it.
"""

from __future__ import annotations

import random
from html import escape

from crawlplan.demo.pages import Host, Page
from crawlplan.demo.text import page_paragraphs
from crawlplan.demo.vocab import VOCAB
from crawlplan.demo.web import AD_HOST


def _head(h: Host, title: str, description: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{h.lang}">\n<head>\n<meta charset="{h.charset}">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} | {escape(h.name)}</title>\n"
        f'<meta name="description" content="{escape(description[:150])}">\n'
        f'<link rel="stylesheet" href="/static/site.css">\n<link rel="canonical" href="{escape(h.base)}/">\n'
        f"</head>\n"
    )


def _anchor(href: str, text: str, cls: str | None = None) -> str:
    c = f' class="{cls}"' if cls else ""
    return f'<a{c} href="{escape(href)}">{escape(text)}</a>'


def render(h: Host, page: Page, titles: dict[str, str], seed: int) -> str:
    """The full HTML document of ``page``; ``titles`` maps intra-site paths to page titles."""
    rng = random.Random(f"crawlplan-demo-page:{seed}:{page.url}")
    if h.site_type == "forum":
        return _render_forum(h, page, rng)
    return _render_regular(h, page, titles, rng)


def _external_block(page: Page, ui: dict) -> str:
    if not page.external:
        return ""
    items = "".join(f"<li>{_anchor(u, u.split('//', 1)[1].split('/', 1)[0])}</li>" for u in page.external)
    return f'<section class="see-also"><h2>{escape(ui["related"])}</h2><ul>{items}</ul></section>\n'


def _render_regular(h: Host, page: Page, titles: dict[str, str], rng: random.Random) -> str:
    ui = VOCAB[h.lang]["ui"]
    title = page.data.get("title") or h.name
    listings = [p for p in page.links if p.startswith("/category/")]
    nav = [_anchor("/", ui["home"])] + [_anchor(p, titles.get(p, p)) for p in listings[:5]]
    nav += [_anchor("/about", ui["about"]), _anchor("/contact", ui["contact"])]
    header = (f'<header class="site-header"><div class="logo">{_anchor("/", h.name)}</div>\n'
              f'<nav class="main-nav"><ul>{"".join(f"<li>{a}</li>" for a in nav)}</ul></nav>\n'
              f'<form class="search" action="/search"><input name="q" placeholder="{escape(ui["search"])}"></form>'
              f"</header>\n")
    footer = (f'<footer class="site-footer"><p>&copy; 2024 {escape(h.name)}. {escape(ui["rights"])}.</p>\n'
              f'<ul class="footer-links"><li>{_anchor("/privacy", ui["privacy"])}</li>'
              f'<li>{_anchor("/contact", ui["contact"])}</li></ul></footer>\n')
    if page.page_type == "article":
        paragraphs = page_paragraphs(rng, h.lang, page.topic, page.quality)
        body = "".join(f"<p>{escape(p)}</p>\n" for p in paragraphs)
        related = [p for p in page.links if p != "/" and not p.startswith("/category/")]
        aside = ""
        if related:
            items = "".join(f"<li>{_anchor(p, titles.get(p, p))}</li>" for p in related)
            aside = f'<aside class="related"><h2>{escape(ui["related"])}</h2><ul>{items}</ul></aside>\n'
        date = f"2024-{rng.randint(1, 2):02d}-{rng.randint(1, 28):02d}"
        main = (f'<main id="content">\n<article class="post">\n<h1 class="entry-title">{escape(title)}</h1>\n'
                f'<p class="byline"><time datetime="{date}">{escape(ui["published"])} {date}</time></p>\n'
                f'<div class="entry-content">\n{body}</div>\n{_external_block(page, ui)}</article>\n{aside}</main>\n')
        description = paragraphs[0] if paragraphs else title
    else:
        intro = page_paragraphs(rng, h.lang, page.topic, page.quality, n_paragraphs=1 if page.page_type == "listing" else 2)
        items = "".join(f'<li class="teaser"><h2>{_anchor(p, titles.get(p, p))}</h2></li>\n'
                        for p in page.links if p != "/" and not p.startswith("/category/"))
        main = (f'<main id="content">\n<section class="{page.page_type}">\n<h1>{escape(title)}</h1>\n'
                + "".join(f"<p>{escape(p)}</p>\n" for p in intro)
                + f'<ul class="teasers">\n{items}</ul>\n{_external_block(page, ui)}</section>\n</main>\n')
        description = intro[0]
    return _head(h, title, description) + "<body>\n" + header + main + footer + "</body>\n</html>\n"


def _forum_chrome(h: Host, page: Page, title: str, content: str) -> str:
    ui = VOCAB[h.lang]["ui"]
    labels = {"/": ui["home"]}
    nav = "".join(f"<li>{_anchor(p, labels.get(p) or ('Log in' if p.startswith('/login') else p.rsplit('/', 1)[-1]))}</li>"
                  for p in page.data.get("nav", ["/"]))
    ad = (f'<div class="ad-block"><span class="ad-label">Sponsored</span> '
          f'{_anchor(f"https://{AD_HOST}/click?site={h.host}&slot={page.page_type}", "Best deals today - click here")}'
          f"</div>\n")
    external = "".join(f"<li>{_anchor(u, u.split('//', 1)[1].split('/', 1)[0])}</li>" for u in page.external)
    footer = (f'<footer class="forum-footer"><p>&copy; 2024 {escape(h.name)} community</p>'
              + (f'<ul class="partner-links">{external}</ul>' if external else "") + "</footer>\n")
    return (_head(h, title, title) + f'<body class="forum {page.page_type.replace("_", "-")}">\n'
            f'<header class="forum-header"><div class="forum-logo">{_anchor("/", h.name)}</div>'
            f'<nav class="forum-nav"><ul>{nav}</ul></nav></header>\n{ad}'
            f'<main class="forum-main">\n{content}</main>\n{footer}</body>\n</html>\n')


def _pagination(base: str, page: int, pages: int) -> str:
    if pages <= 1:
        return ""
    links = []
    for k in range(1, pages + 1):
        href = base if k == 1 else f"{base}?page={k}"
        links.append(f'<span class="current-page">{k}</span>' if k == page else _anchor(href, str(k), "page-link"))
    return f'<div class="pagination">{" ".join(links)}</div>\n'


def _render_forum(h: Host, page: Page, rng: random.Random) -> str:
    d = page.data
    t = page.page_type
    if t == "thread":
        tags = "".join(_anchor(f"/tag/{x}", x, "tag") for x in d["tags"])
        posts = ""
        for post in d["posts"]:
            body = "".join(f"<p>{escape(p)}</p>" for p in post["body"])
            posts += (f'<div class="post" id="post-{post["n"]}"><div class="post-author">'
                      f'{_anchor("/u/" + post["author"], post["author"], "username")}</div>'
                      f'<div class="post-body">{body}</div></div>\n')
        reply = _anchor(page.links[-1], "Reply", "reply-button") if d["reply"] else ""
        crumbs = f'<div class="breadcrumbs">{_anchor("/f/" + d["board"], d["board"])}</div>\n'
        content = (f'<div class="thread">\n{crumbs}<h1 class="thread-title">{escape(d["title"])}</h1>\n'
                   f'<div class="tags">{tags}</div>\n{posts}{reply}</div>\n')
        return _forum_chrome(h, page, d["title"], content)
    if t == "thread_list":
        rows = "".join(f'<tr class="thread-row"><td class="thread-title">{_anchor(p, title)}</td>'
                       f'<td class="thread-author">{_anchor("/u/" + a, a)}</td><td class="thread-replies">{n - 1}</td></tr>\n'
                       for p, title, a, n in d["rows"])
        content = (f'<div class="board">\n<h1 class="board-title">{escape(d["board"])}</h1>\n'
                   f'<table class="thread-list">\n{rows}</table>\n'
                   f'{_pagination("/f/" + d["board"], d["page"], d["pages"])}</div>\n')
        return _forum_chrome(h, page, d["board"], content)
    if t == "tag":
        items = "".join(f'<li class="tagged-item">{_anchor(p, title)}<span class="excerpt">{escape(ex)}</span></li>\n'
                        for p, title, ex in d["items"])
        content = (f'<div class="tag-page">\n<h1>Threads tagged <span class="tag-name">{escape(d["tag"])}</span></h1>\n'
                   f'<ul class="tagged-threads">\n{items}</ul>\n{_pagination("/tag/" + d["tag"], d["page"], d["pages"])}'
                   f"</div>\n")
        return _forum_chrome(h, page, "tag " + d["tag"], content)
    if t == "user_profile":
        threads = "".join(f"<li>{_anchor(p, title)}</li>" for p, title in d["threads"])
        content = (f'<div class="profile">\n<h1 class="profile-name">{escape(d["user"])}</h1>\n'
                   f'<dl class="user-stats"><dt>Joined</dt><dd>{d["joined"]}</dd><dt>Posts</dt><dd>{d["posts"]}</dd></dl>\n'
                   f'<p class="bio">{escape(d["bio"])}</p>\n<ul class="user-threads">{threads}</ul>\n</div>\n')
        return _forum_chrome(h, page, d["user"], content)
    if t == "login_redirect":
        content = ('<div class="login-box">\n<h1>Please log in</h1>\n'
                   '<p class="login-msg">You must be logged in to continue.</p>\n'
                   '<form class="login-form" action="/login" method="post"><input name="user">'
                   f'<input type="password" name="password"><input type="hidden" name="next" value="{escape(d["next"])}">'
                   "<button>Log in</button></form>\n</div>\n")
        return _forum_chrome(h, page, "Log in", content)
    if t == "search":
        results = "".join(f'<li class="result">{_anchor(p, title)}<p class="snippet">{escape(sn)}</p></li>\n'
                          for p, title, sn in d["results"])
        content = (f'<div class="search-results">\n<h1>Search results for "{escape(d["query"])}"</h1>\n'
                   f'<ol class="results">\n{results}</ol>\n</div>\n')
        return _forum_chrome(h, page, "search " + d["query"], content)
    # index
    boards = "".join(f'<li class="board-item">{_anchor("/f/" + b, b)}</li>' for b in d["boards"])
    cloud = " ".join(_anchor(f"/tag/{x}", x, "tag") for x in d["tags"])
    recent = "".join(f"<li>{_anchor(p, title)}</li>" for p, title in d["recent"])
    searches = "".join(f"<li>{_anchor(f'/search?q={q}', q)}</li>" for q in d["searches"])
    intro = "".join(f"<p>{escape(p)}</p>" for p in d["intro"])
    content = (f'<div class="forum-index">\n<h1>{escape(h.name)}</h1>\n<div class="welcome">{intro}</div>\n'
               f'<ul class="boards">{boards}</ul>\n<div class="tag-cloud">{cloud}</div>\n'
               f'<ul class="recent-threads">{recent}</ul>\n<ul class="popular-searches">{searches}</ul>\n</div>\n')
    return _forum_chrome(h, page, h.name, content)
