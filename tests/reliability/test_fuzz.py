"""Bounded fuzz runs (hypothesis) on the WARC reader, the XPath feature extractor, and
property tests of the statistics (complementing tests/test_stats_reference.py, which already
checks ICC1's affine invariance and Spearman's bounds against scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from settings_support import extract_settings

from crawlplan.extract.records import process_warc_file
from crawlplan.source import features as F
from crawlplan.stats import reference

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@pytest.fixture(scope="module")
def seed_warc(shared_data) -> bytes:
    # small real Common Crawl capture: warcinfo/request/response/metadata records, one HTML page
    return (shared_data / "warc" / "whirlwind.warc.gz").read_bytes()


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("zero"), st.integers(0, 10**6), st.integers(1, 400)),
)


def _mutate(data: bytes, ops) -> bytes:
    buf = bytearray(data)
    for kind, pos, arg in ops:
        if not buf:
            break
        pos %= len(buf)
        if kind == "flip":
            buf[pos] ^= arg
        elif kind == "cut":
            del buf[pos:]
        elif kind == "insert":
            buf[pos:pos] = bytes([arg]) * 7
        else:
            buf[pos:pos + arg] = bytes(min(arg, len(buf) - pos))
    return bytes(buf)


def _accounting(rows):
    file_row = rows[-1]
    assert file_row["kind"] == "file" and sum(r["kind"] == "file" for r in rows) == 1
    docs = sum(r["kind"] == "doc" for r in rows)
    rejects = [r for r in rows if r["kind"] == "reject"]
    assert file_row["documents"] == docs and file_row["rejected"] == len(rejects)
    assert docs + sum(r["offset"] is not None for r in rejects) == file_row["responses"]
    assert file_row["file_status"] in ("ok", "truncated", "corrupt", "missing")
    assert all(r["reason"] for r in rejects)
    return file_row


@pytest.mark.slow   # hundreds of damaged files read: 9 s per reader
@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
@FUZZ
@given(ops=st.lists(mutation, min_size=1, max_size=4))
def test_reader_never_raises_on_mutated_bytes(seed_warc, tmp_path, reader, ops):
    path = tmp_path / f"fuzz-{reader}.warc.gz"
    path.write_bytes(_mutate(seed_warc, ops))
    rows = list(process_warc_file(str(path), extract_settings(reader=reader, extractor="resiliparse",
                                                              timeout_s=5)))
    file_row = _accounting(rows)
    assert file_row["responses"] <= 3  # damage never invents more responses than a few phantoms


@pytest.mark.slow   # 8 s
@FUZZ
@given(data=st.binary(max_size=3000))
def test_reader_on_arbitrary_bytes(tmp_path, data):
    path = tmp_path / "arbitrary.warc.gz"
    path.write_bytes(data)
    _accounting(list(process_warc_file(str(path), extract_settings(extractor="resiliparse", timeout_s=5))))


# --- XPath feature extractor ----------------------------------------------------------------

tags = st.sampled_from(["div", "a", "p", "ul", "li", "span", "table", "td", "base", "script", "html", "body"])
attrs = st.sampled_from(['', ' class="x y"', ' id="main"', ' href="/t/1"', ' href="http://other.org/"',
                         ' href="javascript:void(0)"', ' href="//x.example.com/p?q=1#f"', ' href="../../.."',
                         ' href="http://[::1"', ' href="mailto:a@b"', ' class=""', ' href="/\x00"'])


@st.composite
def html_soup(draw):
    parts = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append(f"<{draw(tags)}{draw(attrs)}>")
        elif kind == 1:
            parts.append(f"</{draw(tags)}>")
        elif kind == 2:
            parts.append(draw(st.text(max_size=20)))
        else:
            parts.append(draw(st.sampled_from(["<!--", "-->", "<![CDATA[", "<?xml ?>", "&amp;", "&#0;", "<", ">"])))
    return "".join(parts)


@FUZZ
@given(html=st.one_of(html_soup(), st.binary(max_size=500)), mode=st.sampled_from(F.XPATH_CLASS_MODES))
def test_xpath_features_never_raise(html, mode):
    out = F.extract("http://site.example.com/a/b.html", html, xpath_classes=mode)
    assert out.error is None or isinstance(out.error, str)
    assert all(isinstance(k, str) and n > 0 for k, n in out.xpaths.items())
    for apath, url in out.links:
        assert isinstance(apath, str) and url.startswith(("http://", "https://"))
        assert F._host(url) == "site.example.com"  # only links within the page's own site


# --- statistics -----------------------------------------------------------------------------

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def grouped(draw):
    k = draw(st.integers(2, 8))
    sizes = [draw(st.integers(1, 6)) for _ in range(k)]
    values = [draw(finite) for _ in range(sum(sizes))]
    groups = [g for g, n in enumerate(sizes) for _ in range(n)]
    return np.array(values), np.array(groups)


@settings(max_examples=80, deadline=None)
@given(data=grouped(), perm_seed=st.integers(0, 2**31 - 1))
def test_icc1_ignores_row_order_and_group_names(data, perm_seed):
    values, groups = data
    assume(len(values) > len(set(groups)))
    a = reference.icc1(values, groups)
    rng = np.random.default_rng(perm_seed)
    order = rng.permutation(len(values))
    relabel = {g: f"host-{rng.integers(1 << 30)}-{g}" for g in set(groups)}
    b = reference.icc1(values[order], np.array([relabel[g] for g in groups[order]]))
    for x, y in ((a.icc1, b.icc1), (a.ms_between, b.ms_between), (a.ms_within, b.ms_within)):
        assert (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-6)
    if not math.isnan(a.icc1):
        assert a.icc1 <= 1 + 1e-9


@settings(max_examples=80, deadline=None)
@given(st.lists(finite, min_size=1, max_size=40))
def test_midranks_sum_and_order(x):
    r = reference.midranks(x)
    n = len(x)
    assert math.isclose(float(np.sum(r)), n * (n + 1) / 2, rel_tol=1e-9)
    for i in range(n):
        for j in range(n):
            if x[i] < x[j]:
                assert r[i] < r[j]
            elif x[i] == x[j]:
                assert r[i] == r[j]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=3, max_size=40))
def test_rank_correlations_symmetric_bounded_and_monotone_invariant(pairs):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    assume(len(set(x)) > 1 and len(set(y)) > 1)
    s, t = reference.spearman(x, y), reference.kendall_tau(x, y)
    assert math.isclose(s, reference.spearman(y, x), abs_tol=1e-9) and math.isclose(t, reference.kendall_tau(y, x), abs_tol=1e-9)
    assert -1 - 1e-9 <= s <= 1 + 1e-9 and -1 - 1e-9 <= t <= 1 + 1e-9
    # a strictly increasing transform of x changes no rank. arctan is monotone in floating point
    # but not always strict (5e-324 / 1e5 underflows to 0), so only samples it keeps apart count
    tx = np.arctan(x / 1e5)
    if len(set(tx)) == len(set(x)):
        assert math.isclose(reference.spearman(tx, y), s, abs_tol=1e-9)
    assert math.isclose(reference.spearman(x, -y), -s, abs_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=5, max_size=30), st.integers(0, 1000))
def test_bootstrap_ci_is_ordered_and_reproducible(pairs, seed):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    assume(len(set(x)) > 2 and len(set(y)) > 2)
    lo, hi = reference.bootstrap_spearman(x, y, replicates=50, seed=seed, alpha=0.05)
    assert (lo, hi) == reference.bootstrap_spearman(x, y, replicates=50, seed=seed, alpha=0.05)
    if not (math.isnan(lo) or math.isnan(hi)):
        assert -1 - 1e-9 <= lo <= hi <= 1 + 1e-9


@settings(max_examples=80, deadline=None)
@given(st.floats(0.01, 0.99), st.floats(1, 1000), st.floats(1, 1000))
def test_spearman_brown_grows_with_pages_and_stays_below_one(icc, m1, m2):
    lo, hi = sorted((m1, m2))
    assert reference.spearman_brown(icc, lo) <= reference.spearman_brown(icc, hi) + 1e-12 < 1 + 1e-9
    assert 0 <= reference.correlation_ceiling(reference.spearman_brown(icc, hi)) <= 1


def test_an_unparsable_base_href_or_redirect_is_not_fatal():
    """Found by the fuzz run: ``<base href="http://[::1">`` made urljoin raise ValueError."""
    from crawlplan.source.features import extract

    feats = extract("http://site.example/a", '<html><head><base href="http://[::1"></head>'
                    '<body><a href="/b">b</a></body></html>')
    assert feats.error is None or feats.error == ""
    assert [target for _, target in feats.links] == ["http://site.example/b"]


def test_a_mirror_counts_unparsable_urls_and_redirects_as_rejects():
    from crawlplan.source.mirror import SitePage, build_mirror

    page = b'<html><body><a href="/b">b</a></body></html>'
    mirror = build_mirror("site.example", [
        SitePage("http://site.example/", 0, 200, page),
        SitePage("http://[::1/x", 1, 200, page),
        SitePage("http://site.example/old", 2, 301, None, "http://[::1"),
    ])
    assert len(mirror) == 1
    assert mirror.rejects["bad_url"] == 1 and mirror.rejects["bad_redirect"] == 1
