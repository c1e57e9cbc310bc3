"""Centrality and formatting of the demo web graph, against hand computations."""

from __future__ import annotations

import re

import numpy as np
import pytest

from crawlplan.demo.graph import harmonic_centrality, java_double, java_float, pagerank


@pytest.mark.parametrize("value, expected", [
    (34626736.0, "3.4626736E7"), (1.2345e-5, "1.2345E-5"), (1e-5, "1.0E-5"), (0.0031234, "0.0031234"),
    (139.81667, "139.81667"), (1.0, "1.0"), (0.0, "0.0"), (12345678.0, "1.2345678E7"), (0.001, "0.001"),
])
def test_java_float_matches_java_float_to_string(value, expected):
    assert java_float(value) == expected


@pytest.mark.parametrize("value, expected", [
    # PageRank values of cc-main-2024-25-dec-jan-feb-host-ranks.txt.gz, as Common Crawl printed them
    (0.005384977821460953, "0.005384977821460953"), (0.0032959808223701, "0.0032959808223701"),
    (1e-5, "1.0E-5"), (3.4626736e7, "3.4626736E7"), (1.0, "1.0"), (0.0, "0.0"), (1.5e-10, "1.5E-10"),
])
def test_java_double_matches_java_double_to_string(value, expected):
    assert java_double(value) == expected
    assert float(java_double(value)) == value


def test_harmonic_centrality_on_a_path_and_a_star():
    # 0 -> 1 -> 2: HC counts distances *into* a node.
    edges = np.array([[0, 1], [1, 2]])
    assert harmonic_centrality(3, edges).tolist() == pytest.approx([0.0, 1.0, 1.5])
    # star into 0 from 1..4 plus 0 -> 5
    edges = np.array([[1, 0], [2, 0], [3, 0], [4, 0], [0, 5]])
    hc = harmonic_centrality(6, edges)
    assert hc[0] == pytest.approx(4.0)
    assert hc[5] == pytest.approx(1.0 + 4 * 0.5)
    assert hc[1] == 0.0


def _dense_pagerank(n, edges, d=0.85):
    out = np.zeros((n, n))
    for a, b in edges:
        out[b, a] = 1.0
    deg = out.sum(axis=0)
    m = np.where(deg > 0, out / np.where(deg > 0, deg, 1), 1.0 / n)   # dangling columns: uniform
    g = d * m + (1 - d) / n
    vals, vecs = np.linalg.eig(g)
    v = np.real(vecs[:, np.argmax(np.real(vals))])
    return v / v.sum()


def test_pagerank_equals_the_dense_eigenvector_with_dangling_nodes():
    edges = np.array([[0, 1], [1, 2], [2, 0], [3, 2], [2, 4], [1, 4]])   # 4 is dangling
    pr = pagerank(5, edges)
    assert pr.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(pr, _dense_pagerank(5, edges), atol=1e-10)


def test_java_float_output_parses_back_to_the_float32():
    rng = np.random.default_rng(0)
    for x in np.concatenate([rng.lognormal(0, 8, 200), [1e-3, 9.999999e6, 1e7]]):
        s = java_float(float(x))
        assert re.fullmatch(r"\d+\.\d+(E-?\d+)?", s), s
        assert np.float32(float(s)) == np.float32(x)


def test_previous_release_differs_as_described_and_its_centralities_are_recomputed():
    from scipy.stats import spearmanr

    from crawlplan.demo.graph import GONE_HOSTS, NEW_HOST_SHARE, build_graph, build_previous_graph
    from crawlplan.demo.web import build_web

    graph = build_graph(build_web(60, 0), 0)
    prev = build_previous_graph(graph, 0)
    now, then = set(graph.vertices), set(prev.vertices)
    assert len(now - then) == round(NEW_HOST_SHARE * len(now))
    assert len(then - now) == GONE_HOSTS
    assert prev.vertices == sorted(prev.vertices)
    np.testing.assert_allclose(prev.hc, harmonic_centrality(len(prev.vertices), prev.edges))
    np.testing.assert_allclose(prev.pr, pagerank(len(prev.vertices), prev.edges))
    same = build_previous_graph(graph, 0)
    assert same.vertices == prev.vertices and np.array_equal(same.edges, prev.edges)
    # related but not identical rankings over the hosts in both releases
    a = dict(zip(graph.vertices, graph.hc))
    b = dict(zip(prev.vertices, prev.hc))
    common = sorted(now & then)
    rho = spearmanr([a[h] for h in common], [b[h] for h in common])[0]
    assert 0.6 < rho < 0.99
