"""Main-text extraction with a per-record time limit.

trafilatura is the reference extractor (the paper's); resiliparse's ``extract_plain_text`` is
about ten times faster. Both run under a wall-clock limit: some pages send trafilatura into
minutes-long backtracking, and one page must not stall a WARC file's whole task.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class ExtractionTimeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    """SIGALRM-based limit; a no-op off the main thread (where signals cannot be used)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise ExtractionTimeout(f"extraction exceeded {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
    import trafilatura

    return trafilatura.extract(html, output_format="txt", **options) or ""


def extract_resiliparse(html: str, options: dict | None = None) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

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
