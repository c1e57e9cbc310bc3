"""The demo web's pages and hosts: the types the site builders (``web``, ``forum``) fill and the
writers (``warcs``, ``html``, ``hostindex``) read, apart from both so neither imports the other."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

HQ_THRESHOLD = 0.6             # is_hq = true_quality > HQ_THRESHOLD (about 27% of pages)


@dataclass
class Page:
    url: str
    path: str
    page_type: str
    quality: float
    topic: str
    links: list[str] = field(default_factory=list)      # intra-site paths, in document order
    external: list[str] = field(default_factory=list)   # absolute URLs on other hosts
    data: dict = field(default_factory=dict)             # template material (titles, posts, ...)
    ucc: bool = False

    @property
    def is_hq(self) -> bool:
        return self.quality > HQ_THRESHOLD


@dataclass
class Host:
    host: str
    lang: str
    topic: str
    tld: str
    site_type: str                   # regular | forum
    effect: float                    # latent host quality (host effect)
    popularity: float
    url_style: str
    charset: str
    name: str
    pages: list[Page] = field(default_factory=list)
    extras: list[dict] = field(default_factory=list)     # non-HTML / non-200 fetches
    in_graph: bool = True

    @property
    def base(self) -> str:
        return f"https://{self.host}"



def bfs_order(pages: list[Page]) -> list[Page]:
    """Pages in BFS order over intra-site links from the first page; unreachable ones dropped."""
    by_path = {p.path: p for p in pages}
    seen = {pages[0].path}
    queue = deque([pages[0]])
    ordered = []
    while queue:
        page = queue.popleft()
        ordered.append(page)
        for link in page.links:
            if link in by_path and link not in seen:
                seen.add(link)
                queue.append(by_path[link])
    return ordered
