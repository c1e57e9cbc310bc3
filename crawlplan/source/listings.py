"""The sample's listings (``target_listing``): the lists of links one sampled page holds under
one Apath, kept where a target crawl could take one for the example's kind, and the one it
takes for an example.

Why: where the example page's URL names no family (one flat folder, no file-name kind marker:
Csound's manual writes ``GEN10.html`` beside 1,700 opcode and chapter pages), the structure is
the only sign of the target, and it can fail both ways: the kind's pages spread over many
structural clusters (the GEN routines over eleven), and the entry page is a table of contents
whose one Apath links every page, so no row ranks the target's own index before the rest. The
site's authors list the kind themselves: an index page of the GEN routines, a namespace list, a
module index. The sample has fetched such pages; a list that holds the example, names less than
``target_listing`` of the URLs the sample knows (a table of contents names everything) and whose
sampled pages are mostly of the example's kind is the authors' list of that kind, so its URLs
are taken as the example's family (``target.TargetFeedback``). Of several such lists the
broadest is taken: a page's navigation (previous, next, up) and its "see also" lists hold the
example too, with a few neighbours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from crawlplan.source.navigation import page_rows
from crawlplan.source.url_kinds import MOSTLY


def sample_listings(urls: Sequence[str], links: Sequence, kinds: Sequence[int], min_pts: int, share: float,
                    resolve: Callable[[str], str | None] | None = None) -> list[dict]:
    """The sample's listings a target crawl may take (:func:`example_listing`): per sampled
    page and Apath the distinct link targets (resolved in the mirror), kept when they are at
    least ``min_pts``, at most ``share`` of the URLs the sample knows (its pages and their
    links), and at least ``min_pts`` of them sampled pages; each once. ``kinds``: the sampled
    pages' kinds. Returns ``[{"urls": [...], "kinds": {kind: sampled pages}}]``."""
    kind_of = {u: int(k) for u, k in zip(urls, kinds)}
    rows: dict[frozenset, None] = {}   # each list once, in the order first seen
    known = set(urls)
    for _kind, _apath, targets in page_rows(kinds, links, resolve):
        known.update(targets)
        rows[frozenset(targets)] = None
    out = []
    for key in rows:
        if len(key) < min_pts or len(key) > share * len(known):
            continue
        kinds_in = Counter(kind_of[u] for u in key if u in kind_of)
        if sum(kinds_in.values()) >= min_pts:
            out.append({"urls": sorted(key), "kinds": dict(kinds_in)})
    return out


def example_listing(listings: Sequence[dict], example: str | None, example_kind: int | None) -> frozenset | None:
    """The broadest of the sample's ``listings`` that holds the ``example`` page (its URL as
    resolved in the mirror) and whose sampled pages are mostly (``MOSTLY``) of ``example_kind``;
    None when no listing holds it so."""
    best: list[str] | None = None
    for listing in listings:
        kinds = listing["kinds"]
        if example not in listing["urls"] or kinds.get(example_kind, 0) < MOSTLY * sum(kinds.values()):
            continue
        if best is None or len(listing["urls"]) > len(best):
            best = listing["urls"]
    return None if best is None else frozenset(best)
