"""Downstream of a sampled extract: host sizes from the index, the report's sampling table, and
the sampled-plan quality measures."""

from __future__ import annotations

import numpy as np
import pytest
from settings_support import allocator_config

from crawlplan.conf import load_conf, section
from crawlplan.policies.sample_quality import HostSample, calibrated_sample, plan_quality, read_share


def test_read_share_counts_small_hosts_whole():
    assert read_share(np.array([1, 5, 100]), 5) == pytest.approx(11 / 106)
    assert read_share(np.array([1, 5, 100]), 100) == 1.0


def test_a_sample_equal_to_the_full_pages_plans_like_the_full_extract():
    rng = np.random.default_rng(0)
    n = rng.integers(3, 60, 400)
    hq = rng.binomial(n, rng.beta(1, 3, 400))
    hosts = HostSample(np.array([f"h{i}" for i in range(400)]), np.array(["com", "de"] * 200),
                       np.array(["en", "de"] * 200), n, hq, n, hq)
    q = plan_quality(hosts, allocator_config(), min_pages=int(section(load_conf(), "policies.simulate")["min_pages"]))
    assert q["spearman_density"] == pytest.approx(1.0)
    for share in (0.05, 0.1, 0.2):
        assert q[f"oracle_share_sample@{share:g}"] == pytest.approx(q[f"oracle_share_full@{share:g}"])
        assert 0.5 < q[f"oracle_share_full@{share:g}"] <= 1.0 + 1e-9


def test_calibrated_sample_draws_k_pages_without_replacement():
    from crawlplan.policies.population import Population

    pop = Population(n=np.array([3, 10, 50]), hq=np.array([3, 0, 25]), tld=np.zeros(3), group=np.zeros(3))
    n_s, hq_s = calibrated_sample(pop, 5, np.random.default_rng(1))
    assert n_s.tolist() == [3, 5, 5] and hq_s[0] == 3 and hq_s[1] == 0 and 0 <= hq_s[2] <= 5


@pytest.mark.spark
@pytest.mark.quick
def test_sampled_hosts_are_scaled_to_their_index_size_and_reported_by_size(spark):
    from crawlplan.policies.hostdata import with_population
    from crawlplan.report.collect import sampling_frame

    hosts = spark.createDataFrame([("com,a", 4, 2), ("com,b", 3, 3), ("com,c", 5, 1)], "surt_host_name string, n_pages long, hq_pages long")
    pop = spark.createDataFrame([("com,a", None, 120, 100, 4, 0.04, "sampled", "cc_index"),
                                 ("com,b", None, 3, 3, 3, 1.0, "sampled", "cc_index")],
                                "surt_host_name string, crawl string, captures long, html_captures long, selected long, "
                                "sampling_fraction double, mode string, source string")
    got = {r.surt_host_name: (r.n_pages, r.hq_pages) for r in with_population(hosts, pop).collect()}
    assert got == {"com,a": (100, 50), "com,b": (3, 3), "com,c": (5, 1)}   # com,c: not in the index, as read
    table = sampling_frame(pop).set_index("html_captures_per_host")
    assert table.loc["51-100", "sampling_fraction"] == pytest.approx(0.04)
    assert table.loc["3-5", "sampling_fraction"] == 1.0


@pytest.mark.spark
def test_a_full_extract_counts_each_hosts_captures_and_skips_unparsable_urls(spark):
    from crawlplan.nodes.extract import full_population

    docs = spark.createDataFrame([("com,a",), ("com,a",)], "surt_host_name string")
    rejects = spark.createDataFrame(
        [("https://www.a.com/x.jpg", "filter", "non_html"), ("https://a.com/e", "extract", "empty_text"),
         ("<https://bad url>", "filter", "status"), (None, "read", "read_error")],
        "url string, stage string, reason string")
    pop = full_population({"documents": docs, "rejects": rejects}).collect()
    assert [(r.surt_host_name, r.captures, r.html_captures, r.sampling_fraction, r.mode) for r in pop] == [
        ("com,a", 4, 3, 1.0, "full")]
