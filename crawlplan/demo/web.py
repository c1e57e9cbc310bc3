"""The synthetic web behind the demo crawl: hosts, pages, latent quality and the link structure.

The planted properties are the ones the paper measures, so every downstream stage has something
real to find:

- page true quality = host effect + page noise with equal variances: ICC1 = 0.5 (``ICC1``);
- host sizes are heavy-tailed (lognormal), most hosts have at least 3 pages;
- link popularity (hence harmonic centrality and PageRank) depends strongly on language (English
  hosts are linked more) and only weakly on quality, while non-English hosts are slightly better
  on average: the language confound of the paper's §5;
- a few forum / Q&A hosts with typed pages and closed internal link structure for SOUrCe.

Pure Python and numpy; nothing here touches the file system.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from crawlplan.demo.forum import build_forum
from crawlplan.demo.pages import Host, Page
from crawlplan.demo.text import page_title
from crawlplan.demo.vocab import LANGUAGES, SITE_WORDS, SYLLABLES, TOPICS
from crawlplan.hosts import host_of, rev_host
from crawlplan.stats.reference import anova_n0

ICC1 = 0.5                     # planted between-host share of page true-quality variance
QUALITY_VARIANCE = 1.0         # total variance of page true quality

_LANG_SHARES = {"en": 0.55, "de": 0.10, "fr": 0.08, "es": 0.08, "ja": 0.06, "it": 0.05, "nl": 0.04, "ru": 0.04}
_TLDS = {
    "en": {"com": 38, "org": 15, "net": 8, "edu": 8, "gov": 5, "co.uk": 8, "ac.uk": 4, "org.uk": 2, "io": 4,
           "info": 3, "com.au": 3, "ca": 2},
    "de": {"de": 85, "com": 8, "at": 7}, "fr": {"fr": 85, "com": 15}, "es": {"es": 75, "com": 15, "com.mx": 10},
    "it": {"it": 90, "com": 10}, "nl": {"nl": 90, "com": 10}, "ja": {"jp": 45, "co.jp": 25, "ac.jp": 15, "com": 15},
    "ru": {"ru": 90, "com": 10},
}
# Mean shift of the host effect by language (before scaling): non-English hosts slightly better.
_LANG_QUALITY = {"en": -0.15, "de": 0.2, "fr": 0.15, "es": 0.1, "ja": 0.25, "it": 0.1, "nl": 0.2, "ru": 0.05}
_URL_STYLES = ("articles", "dated", "post", "wiki", "news")
# Hosts that are in the web graph but not in the crawl (link targets every crawl sees).
GRAPH_ONLY_HOSTS = ("twitter.com", "www.facebook.com", "www.youtube.com", "en.wikipedia.org", "github.com",
                    "www.linkedin.com", "www.instagram.com", "ads.adnetwork-demo.com", "cdn.trackpixel-demo.net",
                    "de.wikipedia.org", "fr.wikipedia.org", "ja.wikipedia.org")
AD_HOST = "ads.adnetwork-demo.com"

FORUM_PAGE_TYPES = ("index", "thread_list", "thread", "user_profile", "tag", "login_redirect", "search")
REGULAR_PAGE_TYPES = ("home", "listing", "article")


@dataclass
class Web:
    hosts: list[Host]
    graph_only: list[str]

    def host_edges(self) -> set[tuple[str, str]]:
        """Host-level links (graph form, www dropped) found in the crawled pages."""
        edges = set()
        for h in self.hosts:
            src = rev_host(h.host)
            for p in h.pages:
                for url in p.external:
                    dst = rev_host(host_of(url))
                    if dst != src:
                        edges.add((src, dst))
            if h.site_type == "forum":     # every forum page carries an ad block
                edges.add((src, rev_host(AD_HOST)))
        return edges


def _choice_weighted(rng: random.Random, options: dict[str, float]) -> str:
    keys = list(options)
    return rng.choices(keys, weights=[options[k] for k in keys])[0]


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(syllables))


def _slug(rng: random.Random) -> str:
    return "-".join(_word(rng, rng.randint(2, 3)) for _ in range(rng.randint(2, 4)))


def _charset(rng: random.Random, lang: str) -> str:
    legacy = {"de": "windows-1252", "fr": "ISO-8859-1", "es": "windows-1252", "it": "ISO-8859-1",
              "ja": "Shift_JIS", "ru": "windows-1251"}
    if lang in legacy and rng.random() < 0.25:
        return legacy[lang]
    return "UTF-8"


def _host_name(rng: random.Random, tld: str, topic: str, site_type: str, taken: set[str]) -> str:
    while True:
        core = _word(rng, rng.randint(2, 3))
        if rng.random() < 0.5:
            core += rng.choice(("-", "")) + rng.choice(SITE_WORDS)
        if site_type == "forum":
            sub = rng.choice(("forum.", "community.", "talk.", "qa."))
        else:
            sub = rng.choices(("www.", "", "blog.", "news.", "docs."), weights=(55, 30, 6, 5, 4))[0]
        host = f"{sub}{core}.{tld}"
        if rev_host(host) not in taken:
            taken.add(rev_host(host))
            return host


def _sizes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Heavy-tailed regular host sizes: lognormal, median about 6 pages, a few hosts above 100."""
    return np.clip(np.rint(np.exp(rng.normal(1.85, 0.95, n))), 1, 160).astype(int)


def build_web(hosts: int = 300, seed: int = 0) -> Web:
    """The whole synthetic web for ``hosts`` crawled hosts, deterministic in ``seed``.

    Built twice: the first pass fixes structure and page noise, then the host effects are scaled
    so that the one-way ANOVA ICC1 of page true quality grouped by host is exactly ``ICC1`` on
    the realised (unbalanced) page counts; the second pass renders text at the final qualities.
    Structure draws never depend on quality, so both passes produce the same pages.
    """
    first = _build_web(hosts, seed, effect_scale=1.0)
    return _build_web(hosts, seed, effect_scale=_icc_scale(first))


def _icc_scale(web: Web) -> float:
    """Scale s of the host effects such that ICC1(s * effect + noise) == ICC1 exactly: the
    estimator of ``crawlplan.stats.reference.icc1_from_sums`` solved for the between-host mean square."""
    effects, noise_means, n, within = [], [], [], []
    for h in web.hosts:
        q = np.array([p.quality for p in h.pages])
        e = q - h.effect
        effects.append(h.effect)
        noise_means.append(e.mean())
        n.append(len(q))
        within.append(((e - e.mean()) ** 2).sum())
    b, m, n = np.array(effects), np.array(noise_means), np.array(n, dtype=float)
    k, total = len(n), n.sum()
    msw = sum(within) / (total - k)
    n0 = anova_n0(k, total, (n ** 2).sum())
    # MSB(s) * (k - 1) = sum n (s * (b - bw) + (m - mw))^2 with n-weighted means bw, mw.
    bc = b - (n * b).sum() / total
    mc = m - (n * m).sum() / total
    qa, qb, qc = (n * bc ** 2).sum(), 2 * (n * bc * mc).sum(), (n * mc ** 2).sum()
    target = msw * (1.0 + (n0 - 1.0) * ICC1) / (1.0 - ICC1) * (k - 1)   # MSB that gives ICC1
    disc = qb ** 2 - 4 * qa * (qc - target)
    return float((-qb + math.sqrt(max(disc, 0.0))) / (2 * qa))


def _build_web(hosts: int, seed: int, effect_scale: float) -> Web:
    if hosts < 10:
        raise ValueError(f"the demo web needs at least 10 hosts, got {hosts}")
    rng = random.Random(f"crawlplan-demo-web:{seed}")
    nrng = np.random.default_rng([seed, 20240210])
    n_forums = max(1, round(hosts / 60))
    taken = {rev_host(h) for h in GRAPH_ONLY_HOSTS}

    langs = ["en"] + [_choice_weighted(rng, _LANG_SHARES) for _ in range(hosts - 1)]
    site_types = ["forum" if i < n_forums else "regular" for i in range(hosts)]
    for i in range(n_forums):   # forums: mostly English, as on the web the paper sampled
        langs[i] = "en" if i % 3 != 2 else rng.choice(("de", "fr", "es"))

    # Host effects: language shift + individual part, scaled to the planted between-host variance.
    raw = np.array([_LANG_QUALITY[lang] for lang in langs]) + nrng.normal(0.0, 1.0, hosts)
    base_effects = (raw - raw.mean()) / raw.std() * math.sqrt(ICC1 * QUALITY_VARIANCE)
    effects = base_effects * effect_scale
    # Popularity: English hosts are linked much more; quality helps only a little.
    pop = np.exp(1.1 * (np.array(langs) == "en") + 0.25 * base_effects / base_effects.std()
                 + nrng.normal(0, 0.8, hosts))
    sizes = _sizes(nrng, hosts)

    out: list[Host] = []
    for i in range(hosts):
        lang, site_type = langs[i], site_types[i]
        tld = _choice_weighted(rng, _TLDS[lang])
        if tld in ("edu", "ac.uk", "ac.jp"):
            topic = rng.choice(("education", "science", "science", "medicine", "technology"))
        elif tld == "gov":
            topic = rng.choice(("general", "medicine", "education"))
        else:
            topic = rng.choice(TOPICS)
        name_host = _host_name(rng, tld, topic, site_type, taken)
        out.append(Host(host=name_host, lang=lang, topic=topic, tld=tld, site_type=site_type,
                        effect=float(effects[i]), popularity=float(pop[i]), url_style=rng.choice(_URL_STYLES),
                        charset=_charset(rng, lang), name=_site_name(name_host)))

    within_sd = math.sqrt((1.0 - ICC1) * QUALITY_VARIANCE)
    for i, h in enumerate(out):
        trng = random.Random(f"crawlplan-demo-text:{seed}:{h.host}")
        if h.site_type == "forum":
            build_forum(h, rng, trng, nrng, within_sd)
        else:
            _build_regular(h, int(sizes[i]), rng, trng, nrng, within_sd)
    _link_hosts(out, rng)
    _add_extras(out, rng)
    # A few crawled hosts are missing from the graph release (it was built from other crawls).
    regular = [h for h in out if h.site_type == "regular"]
    for h in rng.sample(regular, max(2, hosts // 100)):
        h.in_graph = False
    return Web(hosts=out, graph_only=list(GRAPH_ONLY_HOSTS))


def _site_name(host: str) -> str:
    labels = host.split(".")
    core = labels[1] if labels[0] in ("www", "blog", "news", "docs", "forum", "community", "talk", "qa") else labels[0]
    return " ".join(part.capitalize() for part in core.split("-"))


def _article_path(h: Host, rng: random.Random, k: int) -> str:
    slug = _slug(rng)
    if h.url_style == "articles":
        return f"/articles/{slug}"
    if h.url_style == "dated":
        return f"/{rng.randint(2015, 2024)}/{rng.randint(1, 12):02d}/{slug}/"
    if h.url_style == "post":
        return f"/post/{1000 + 7 * k + rng.randint(0, 6)}-{slug}.html"
    if h.url_style == "wiki":
        return f"/wiki/{slug.replace('-', '_').capitalize()}"
    return f"/news/{slug}.html"


def _page_quality(h: Host, nrng: np.random.Generator, within_sd: float) -> float:
    return float(h.effect + nrng.normal(0.0, within_sd))


def _page_topic(h: Host, rng: random.Random) -> str:
    return h.topic if rng.random() < 0.8 else rng.choice(TOPICS)


def _build_regular(h: Host, size: int, rng: random.Random, trng: random.Random, nrng: np.random.Generator,
                   within_sd: float) -> None:
    """Home page, category listings (on bigger hosts) and articles, linked like a small CMS site."""
    home = Page(url=h.base + "/", path="/", page_type="home", quality=_page_quality(h, nrng, within_sd),
                topic=h.topic)
    pages = [home]
    n_listings = 0 if size < 6 else min(6, 1 + size // 12)
    n_articles = size - 1 - n_listings
    listings = []
    for j in range(n_listings):
        path = f"/category/{_word(rng, 2)}-{j + 1}/"
        listings.append(Page(url=h.base + path, path=path, page_type="listing",
                             quality=_page_quality(h, nrng, within_sd), topic=h.topic))
    articles = []
    seen = {"/"} | {p.path for p in listings}
    for k in range(n_articles):
        path = _article_path(h, rng, k)
        while path in seen:
            path = _article_path(h, rng, k)
        seen.add(path)
        articles.append(Page(url=h.base + path, path=path, page_type="article",
                             quality=_page_quality(h, nrng, within_sd), topic=_page_topic(h, rng)))
    pages += listings + articles
    home.data["title"] = h.name
    for listing in listings:
        listing.data["title"] = page_title(trng, h.lang, h.topic, 2.0)
    for a in articles:
        a.data["title"] = page_title(trng, h.lang, a.topic, a.quality)
    # Internal links: home -> listings and newest articles; listing -> its articles; article ->
    # home, its listing and a few related articles.
    home.links = [p.path for p in listings] + [p.path for p in articles[:8]]
    for j, listing in enumerate(listings):
        members = articles[j::max(1, n_listings)]
        listing.links = ["/"] + [p.path for p in members[:25]]
        for a in members:
            a.data["listing"] = listing.path
    for a in articles:
        related = rng.sample(articles, min(len(articles), rng.randint(1, 4)))
        a.links = ["/"] + ([a.data["listing"]] if "listing" in a.data else []) + \
            [r.path for r in related if r is not a]
    h.pages = pages


def _link_hosts(hosts: list[Host], rng: random.Random) -> None:
    """External links: preferential by popularity, mostly within the same language."""
    weights_by_lang = {}
    for lang in LANGUAGES:
        weights_by_lang[lang] = [hh.popularity * (4.0 if hh.lang == lang else 1.0) for hh in hosts]
    for h in hosts:
        n_targets = min(len(hosts) - 1, max(1, int(rng.expovariate(1 / 4.0)) + 1))
        targets = set()
        for _ in range(3 * n_targets):
            t = rng.choices(hosts, weights=weights_by_lang[h.lang])[0]
            if t is not h:
                targets.add(t.host)
            if len(targets) >= n_targets:
                break
        by_host = {t.host: t for t in hosts if t.host in targets}
        content_pages = [p for p in h.pages if p.page_type in ("home", "article", "thread")] or h.pages
        for target_host in sorted(targets):
            t = by_host[target_host]
            page = rng.choice(content_pages)
            dest = rng.choice(t.pages[: max(1, min(len(t.pages), 10))])
            page.external.append(dest.url)
        if rng.random() < 0.35:   # social and encyclopedia links: graph-only hosts
            wiki = {"de": "de.wikipedia.org", "fr": "fr.wikipedia.org", "ja": "ja.wikipedia.org"}
            options = list(GRAPH_ONLY_HOSTS[:7]) + [wiki.get(h.lang, "en.wikipedia.org")] * 2
            rng.choice(content_pages).external.append(f"https://{rng.choice(options)}/")


def _add_extras(hosts: list[Host], rng: random.Random) -> None:
    """Non-HTML and non-200 fetches: what a real crawl also stores and the extractor must reject."""
    for h in hosts:
        r = rng.random()
        if r < 0.12:
            h.extras.append({"kind": "robots", "path": "/robots.txt", "status": 200})
        if rng.random() < 0.08:
            h.extras.append({"kind": "redirect", "path": "/index.php", "status": 301, "location": h.base + "/"})
        if rng.random() < 0.05:
            h.extras.append({"kind": "redirect", "path": "/latest", "status": 302,
                             "location": h.pages[-1].url})
        if rng.random() < 0.07:
            h.extras.append({"kind": "not_found", "path": f"/{_slug(rng)}.html", "status": 404})
        if rng.random() < 0.08:
            h.extras.append({"kind": "image", "path": f"/images/{_word(rng, 3)}.jpg", "status": 200})
        if rng.random() < 0.05:
            h.extras.append({"kind": "pdf", "path": f"/files/{_word(rng, 3)}.pdf", "status": 200})
        if rng.random() < 0.015:
            h.extras.append({"kind": "server_error", "path": "/search", "status": 500})
