"""The allocator: budget, caps, exploration reserve, diversity floors, ranking, determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from settings_support import allocator_config

from crawlplan.policies.allocate import BUDGET_COLUMNS, allocate


def hosts(rows):
    return pd.DataFrame(rows, columns=["surt_host_name", "registered_domain", "tld", "language", "n_pages",
                                       "hq_pages", "cap_known"])


@pytest.fixture
def sampled():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        lang = ["en", "de", "fr"][i % 3]
        tld = {"en": "com", "de": "de", "fr": "fr"}[lang] if i % 10 else "edu"
        n = int(rng.integers(1, 30))
        hq = int(rng.binomial(n, 0.7 if lang == "en" else 0.2))
        rows.append((f"{tld},host{i:02d}", f"host{i:02d}.{tld}", tld, lang, n, hq, int(rng.integers(0, 400))))
    return hosts(rows)


@pytest.fixture
def unsampled():
    return pd.DataFrame({"surt_host_name": [f"org,new{i}" for i in range(20)],
                         "registered_domain": [f"new{i}.org" for i in range(20)], "tld": "org",
                         "cap_known": [10] * 20})


def test_columns_budget_and_caps(sampled, unsampled):
    cfg = allocator_config(total_budget=3000, politeness_max=150, explore_share=0.02, explore_pages=3)
    plan = allocate(sampled, unsampled, cfg)
    assert list(plan.columns) == BUDGET_COLUMNS
    assert plan.allocated_pages.sum() == 3000
    caps = dict(zip(sampled.surt_host_name, sampled.cap_known))
    for row in plan.itertuples():
        if row.policy != "explore":
            assert row.allocated_pages <= min(caps[row.surt_host_name], 150)
    capped = plan[plan.reason.str.contains("capped:politeness")]
    assert (capped.allocated_pages == 150).all() and len(capped) > 0
    assert list(plan["rank"]) == list(range(1, len(plan) + 1))


def test_exploration_reserve(sampled, unsampled):
    cfg = allocator_config(total_budget=2000, explore_share=0.03, explore_pages=3)
    plan = allocate(sampled, unsampled, cfg)
    ex = plan[plan.policy == "explore"]
    assert len(ex) == 20 and ex.sample_size.eq(0).all() and ex.sampled_density.isna().all()
    assert ex.allocated_pages.max() <= 3
    assert ex.allocated_pages.sum() == 60  # 3 % of 2000 = 60 pages = 20 hosts x 3
    assert (ex[ex.allocated_pages > 0].reason == "explore").all()
    # without unsampled hosts the reserve goes back to the ranked hosts
    plan = allocate(sampled, None, cfg)
    assert plan.allocated_pages.sum() == 2000 and (plan.policy != "explore").all()


def test_ranked_fill_follows_the_estimate(sampled):
    plan = allocate(sampled, None, allocator_config(total_budget=1500, politeness_max=10_000))
    got = plan[plan.allocated_pages > 0]
    left = plan[(plan.allocated_pages == 0) & (plan.reason == "below_cutoff")]
    assert got.estimate.min() >= left.estimate.max()
    assert plan.estimate.is_monotonic_decreasing


def test_language_and_tld_category_floors(sampled):
    base = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000))
    share = lambda plan, lang: plan[plan.language == lang].allocated_pages.sum() / 2000  # noqa: E731
    assert share(base, "de") < 0.2
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   language_floors={"de": 0.2}))
    assert share(plan, "de") >= 0.2 - 1e-9
    assert plan.allocated_pages.sum() == 2000
    assert plan.reason.str.startswith("floor:language=de").any()
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   tld_category_floors={"academic": 0.25}))
    edu = plan[plan.tld == "edu"].allocated_pages.sum()
    cap_edu = sampled[sampled.tld == "edu"].cap_known.sum()
    assert edu >= min(500, cap_edu)
    plan = allocate(sampled, None, allocator_config(total_budget=2000, politeness_max=10_000,
                                                   min_share_per_language=0.15))
    for lang in ("en", "de", "fr"):
        assert share(plan, lang) >= 0.15 - 1e-9


def test_shrinkage_ranks_a_lucky_one_page_host_below_a_consistent_host():
    df = hosts([("com,lucky", "lucky.com", "com", "en", 1, 1, 100), ("com,solid", "solid.com", "com", "en", 50, 40, 100),
                ("com,poor", "poor.com", "com", "en", 40, 2, 100), ("com,meh", "meh.com", "com", "en", 30, 6, 100)])
    eb = allocate(df, None, allocator_config(total_budget=100, policy="eb_shrinkage"))
    raw = allocate(df, None, allocator_config(total_budget=100, policy="sample_then_deepen"))
    assert eb.surt_host_name.iloc[0] == "com,solid"
    assert raw.surt_host_name.iloc[0] == "com,lucky"
    assert (raw.estimate == raw.sampled_density).all()


def test_unknown_caps_default_and_zero_caps(sampled):
    df = sampled.copy()
    df.loc[0, "cap_known"] = None
    df.loc[1, "cap_known"] = 0
    plan = allocate(df, None, allocator_config(total_budget=10**6, default_cap=7, politeness_max=10**6))
    row = plan.set_index("surt_host_name")
    assert row.loc[df.surt_host_name[0], "allocated_pages"] == 7
    assert row.loc[df.surt_host_name[1], "allocated_pages"] == 0
    assert row.loc[df.surt_host_name[1], "reason"] == "no_capacity"
    assert plan.allocated_pages.sum() < 10**6  # caps bind


def test_deterministic_under_row_order(sampled, unsampled):
    cfg = allocator_config(total_budget=2500, explore_share=0.02, language_floors={"fr": 0.1})
    a = allocate(sampled, unsampled, cfg)
    b = allocate(sampled.sample(frac=1, random_state=3), unsampled.sample(frac=1, random_state=4), cfg)
    pd.testing.assert_frame_equal(a, b)


def test_bad_input_is_a_clear_error(sampled):
    bad = sampled.copy()
    bad.loc[0, "hq_pages"] = bad.loc[0, "n_pages"] + 1
    with pytest.raises(ValueError, match="hq_pages"):
        allocate(bad, None, allocator_config())
    with pytest.raises(ValueError, match="unknown allocator policy"):
        allocator_config(policy="hc")
