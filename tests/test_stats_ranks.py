"""Distributed ranks, Spearman and quantiles (crawlplan.stats.ranks) against scipy and numpy,
with value buckets forced small so that the offsets between buckets are exercised."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps

from crawlplan.stats import ranks, reference


def _long(spark, groups: dict[str, np.ndarray]):
    rows = [(g, int(i), float(v)) for g, vals in groups.items() for i, v in enumerate(vals)]
    return spark.createDataFrame(rows, "g string, id long, v double")


@pytest.mark.parametrize("rows_per_bucket", [1_000_000, 7])
def test_average_ranks_and_positions_equal_scipy(spark, rows_per_bucket):
    rng = np.random.default_rng(5)
    data = {"ties": rng.integers(0, 6, 80).astype(float),  # heavy ties across bucket edges
            "floats": rng.normal(size=53), "one": np.array([0.25])}
    out, counts = ranks.ranked(_long(spark, data), ["g"], "v", rows_per_bucket=rows_per_bucket)
    assert counts == {(g,): len(v) for g, v in data.items()}
    got = out.toPandas()
    for g, vals in data.items():
        part = got[got.g == g].sort_values("id")
        assert np.allclose(part["_rank"].to_numpy(), sps.rankdata(vals))
        # the value fills sorted positions [_below, _below + _ties)
        ordered = np.sort(vals)
        for below, ties, v in zip(part["_below"], part["_ties"], part["v"]):
            assert ties == (vals == v).sum() and (ordered[below:below + ties] == v).all()


@pytest.mark.parametrize("rows_per_bucket", [1_000_000, 10])
def test_quantiles_equal_numpy(spark, rows_per_bucket):
    rng = np.random.default_rng(9)
    data = {"a": np.round(rng.random(101), 2), "b": rng.lognormal(size=40), "c": np.array([3.0]),
            "d": np.array([1.0, 2.0])}
    probs = [0.1, 0.5, 0.9]
    got = ranks.quantiles(_long(spark, data), ["g"], "v", probs, rows_per_bucket=rows_per_bucket)
    for g, vals in data.items():
        assert got[(g,)] == pytest.approx(list(np.quantile(vals, probs)), abs=1e-12)


@pytest.mark.parametrize("rows_per_bucket", [1_000_000, 3])
def test_weighted_quantiles_equal_numpy_on_the_expanded_values(spark, rows_per_bucket):
    """A value -> count table gives the quantiles of the values repeated count times."""
    table = {"a": [(0.5, 3), (0.1, 1), (0.9, 4), (0.7, 2)], "b": [(2.0, 1)], "c": [(1.0, 5), (4.0, 5)]}
    rows = [(g, v, n) for g, pairs in table.items() for v, n in pairs]
    df = spark.createDataFrame(rows, "g string, v double, n long")
    probs = [0.1, 0.25, 0.5, 0.9]
    got = ranks.quantiles(df, ["g"], "v", probs, weight="n", rows_per_bucket=rows_per_bucket)
    for g, pairs in table.items():
        expanded = np.repeat([v for v, _ in pairs], [n for _, n in pairs])
        assert got[(g,)] == pytest.approx(list(np.quantile(expanded, probs)), abs=1e-12)


@pytest.mark.parametrize("rows_per_bucket", [1_000_000, 9])
def test_spearman_matrix_equals_scipy(spark, rows_per_bucket):
    rng = np.random.default_rng(3)
    x = rng.normal(size=60)
    cols = {"x": x, "y": x + rng.normal(size=60), "t": np.round(x, 0), "neg": -x ** 3}
    rows = [(i, *(float(cols[c][i]) for c in cols)) for i in range(60)]
    df = spark.createDataFrame(rows, "k long, x double, y double, t double, neg double")
    got = ranks.spearman_matrix(df, "k", list(cols), rows_per_bucket=rows_per_bucket)
    ref = sps.spearmanr(np.column_stack(list(cols.values()))).statistic
    assert np.allclose(got, ref, atol=1e-12)
    assert got[0, 3] == pytest.approx(-1.0)


def test_spearman_of_a_constant_column_is_nan(spark):
    df = spark.createDataFrame([(i, float(i), 1.0) for i in range(5)], "k long, a double, c double")
    got = ranks.spearman_matrix(df, "k", ["a", "c"])
    assert got[0, 0] == 1.0 and np.isnan(got[0, 1]) and np.isnan(got[1, 1])


@pytest.mark.parametrize("rows_per_bucket", [1_000_000, 4])
def test_group_spearman_equals_scipy_and_the_weighted_reference(spark, rows_per_bucket):
    """Per group, from ranks of distinct values and six sums: rho = scipy, weighted rho =
    ``reference.weighted_spearman``; below 3 rows or a constant column NaN."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=70)
    data = {"ties": (np.round(x, 0), np.round(x + rng.normal(size=70), 0)),      # heavy ties
            "floats": (x[:41], -x[:41] ** 3 + rng.normal(size=41)),
            "const": (x[:5], np.ones(5)), "two": (x[:2], x[:2])}
    w = {g: 1 + np.arange(len(a)) % 5 for g, (a, _) in data.items()}
    rows = [(g, float(a[i]), float(b[i]), int(w[g][i])) for g, (a, b) in data.items() for i in range(len(a))]
    df = spark.createDataFrame(rows, "g string, x double, y double, w long")
    got = {r.g: r for r in ranks.group_spearman(df, ["g"], "x", "y", "w", rows_per_bucket=rows_per_bucket).collect()}
    for g in ("ties", "floats"):
        a, b = data[g]
        assert got[g]._n == len(a)
        assert got[g]._spearman == pytest.approx(sps.spearmanr(a, b).statistic, abs=1e-12)
        assert got[g]._weighted_spearman == pytest.approx(reference.weighted_spearman(a, b, w[g]), abs=1e-12)
    assert np.isnan(got["const"]._spearman) and np.isnan(got["const"]._weighted_spearman)
    assert got["two"]._n == 2 and np.isnan(got["two"]._spearman)
    plain = ranks.group_spearman(df, ["g"], "x", "y", rows_per_bucket=rows_per_bucket)
    assert "_weighted_spearman" not in plain.columns


def test_quantiles_collect_one_row_per_tied_order_statistic(spark, monkeypatch):
    """Thousands of rows tied at the median reach the driver as one picked row, and the
    quantile is exact."""
    collected: list[int] = []
    vals = np.concatenate([np.zeros(10), np.full(3000, 0.5), np.ones(10)])
    frame = _long(spark, {"g": vals})
    cls = type(frame)   # the session's DataFrame class (pyspark.sql.classic under Spark 4)
    collect = cls.collect

    def spy(self):
        rows = collect(self)
        collected.append(len(rows))
        return rows

    monkeypatch.setattr(cls, "collect", spy)
    got = ranks.quantiles(frame, ["g"], "v", [0.5, 0.99])
    monkeypatch.undo()
    assert collected and max(collected) <= 2
    assert got[("g",)] == pytest.approx(list(np.quantile(vals, [0.5, 0.99])), abs=1e-12)


def test_quantile_frame_is_one_row_per_group_with_numpy_percentiles(spark):
    data = {"a": np.round(np.random.default_rng(1).random(57), 1), "b": np.array([2.0, 4.0])}
    got = {r.g: r for r in ranks.quantile_frame(_long(spark, data), ["g"], "v", [0.5, 0.9], ["p50", "p90"]).collect()}
    assert set(got) == {"a", "b"}
    for g, vals in data.items():
        assert (got[g].p50, got[g].p90) == pytest.approx(tuple(np.quantile(vals, [0.5, 0.9])), abs=1e-12)


def test_a_test_that_uses_the_spark_fixture_is_marked_spark(spark, request):
    """conftest marks it (issue 31): ``-m "not spark"`` leaves out every Spark test, marked or not."""
    assert request.node.get_closest_marker("spark") is not None and spark.range(2).count() == 2
