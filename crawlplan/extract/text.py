"""Main-text extraction with a per-record time limit.

trafilatura is the reference extractor (the paper's); resiliparse's ``extract_plain_text`` is
about ten times faster. Both run under a wall-clock limit: some pages send trafilatura into
minutes-long backtracking, and one page must not stall a WARC file's whole task.
"""

from __future__ import annotations

import _signal
import itertools
import re
import signal
import threading


class ExtractionTimeout(Exception):
    pass


class time_limit:  # noqa: N801 - used as ``with time_limit(s):``, like the function it replaced
    """SIGALRM-based limit; a no-op off the main thread (where signals cannot be used).

    Entered once per record, so it is kept cheap (10 against 29 microseconds, measured, for a
    contextmanager over ``signal.signal``, whose enum conversion of a function handler raises
    and catches a ValueError each time): ``_signal`` is the C module ``signal`` wraps.
    """

    __slots__ = ("seconds", "armed", "previous")

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False
        self.previous = None        # may itself be None: a handler not installed from Python

    def _raise(self, signum, frame):
        raise ExtractionTimeout(f"extraction exceeded {self.seconds:g}s")

    def __enter__(self):
        if self.seconds > 0 and threading.current_thread() is threading.main_thread():
            self.previous = _signal.signal(signal.SIGALRM, self._raise)
            self.armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _signal.signal(signal.SIGALRM, signal.SIG_DFL if self.previous is None else self.previous)
            self.armed = False


TRAFILATURA_OPTION_KEYS = ("favor_precision", "favor_recall", "include_comments", "include_tables",
                           "include_links", "include_images", "include_formatting", "deduplicate",
                           "with_metadata", "target_language", "fast")


def trafilatura_options(conf_section: dict | None) -> dict:
    opts = dict(conf_section or {})
    unknown = set(opts) - set(TRAFILATURA_OPTION_KEYS)
    if unknown:
        raise ValueError(f"unknown trafilatura option '{sorted(unknown)[0]}'")
    return opts


def extract_trafilatura(html: str, options: dict) -> str:
    # trafilatura: heavy (lxml, dateparser), loaded on the worker for extractor: trafilatura
    import trafilatura

    return trafilatura.extract(html, output_format="txt", **options) or ""


# resiliparse's main-content pass is quadratic in nesting depth (3k levels: 1 s, 10k: 11 s, 100k:
# about 20 min) and runs in C, where the SIGALRM time limit cannot interrupt it. Pages nested
# deeper than this are refused before parsing; the deepest of the 1,171 realpages is ~1,500 by
# the estimate below, and a page with fewer tags than the limit is never scanned.
MAX_NESTING_DEPTH = 5000
_TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)")
# void elements and elements whose end tag HTML lets authors omit do not nest reliably
_NO_NEST = frozenset("area base br col embed hr img input link meta source track wbr p li dt dd tr td th "
                     "option optgroup thead tbody tfoot colgroup rb rt rp".split())


def nesting_depth(html: str, limit: int = MAX_NESTING_DEPTH) -> int:
    """Estimate of the element nesting depth (open minus close tags, peak); 0 when the page has
    too few tags to be nested deeper than ``limit``."""
    if html.count("<") <= limit:
        return 0
    steps = [-1 if closing else 1 for closing, name in _TAG_RE.findall(html) if name.lower() not in _NO_NEST]
    return max(itertools.accumulate(steps), default=0)


def extract_resiliparse(html: str, options: dict | None = None) -> str:
    # resiliparse: native extension, loaded on the worker for extractor: resiliparse
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    depth = nesting_depth(html)
    if depth > MAX_NESTING_DEPTH:
        raise RecursionError(f"nesting deeper than {MAX_NESTING_DEPTH} levels")
    tree = HTMLTree.parse(html)
    return extract_plain_text(tree, main_content=True, alt_texts=False, links=False, list_bullets=True,
                              comments=False) or ""


EXTRACTORS = {"trafilatura": extract_trafilatura, "resiliparse": extract_resiliparse}


def extract_text(html: str, extractor: str, options: dict, timeout_s: float) -> str:
    try:
        fn = EXTRACTORS[extractor]
    except KeyError:
        raise ValueError(f"unknown extractor '{extractor}'; choose one of {', '.join(EXTRACTORS)}") from None
    with time_limit(timeout_s):
        return fn(html, options)
