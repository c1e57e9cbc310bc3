"""The policy sweeps in Spark, from per-host counts: the raw rows of ``ordering_sim``,
``depth_sim`` and ``sample_reliability`` for a host table of any size.

Nothing per host reaches the driver. Spark reduces the host table to tables a setting bounds:
tie blocks of a policy's key (``blocks``), the histogram of host sizes, one row per (probe, sampled
hq) pair, per-cell and per-block sums of the stopping rule's runs, a few hundred pilot hosts. The
driver turns those into curves.

- Ordering (random, Common Crawl, HC, PR, oracle) and the depth policies that crawl hosts whole
  (HC depth, oracle) and uniform breadth are exact expectations over the random tie order: they do
  not depend on the seed's draws, so their seed spread is zero.
- Sample-then-deepen, sample reliability and eb_adaptive need which pages come first: each host's
  page order is a seeded urn (``pageorder``), drawn inside ``mapInPandas`` batch by batch, the same
  for every policy of a seed and in any partitioning. Their spread over seeds is Monte-Carlo.

``host table`` columns: host, n, hq, tld, grp, log_hc, log_pr, cc (the last three nullable).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.window import Window

from crawlplan.policies import adaptive, blocks, pageorder
from crawlplan.policies.simulate import SweepConfig

_KEYS = {"oracle": lambda: F.col("hq") / F.col("n"), "hc": lambda: F.col("log_hc"), "pr": lambda: F.col("log_pr"),
         "common_crawl": lambda: F.col("cc")}
_NEEDS = {"hc": "log_hc", "hc_depth": "log_hc", "pr": "log_pr", "common_crawl": "cc"}
STREAM_PILOT = 3
_AGG_SCHEMA = T.StructType([T.StructField(c, t) for c, t in [
    ("kind", T.StringType()), ("i", T.LongType()), ("a", T.LongType()), ("b", T.LongType()),
    ("hosts", T.LongType()), ("x1", T.DoubleType()), ("x2", T.DoubleType()), ("x3", T.DoubleType())]])


def _tld_table(hosts: DataFrame) -> pd.DataFrame:
    return hosts.groupBy("tld").agg(F.count(F.lit(1)).alias("hosts")).toPandas()


def key_curve(hosts: DataFrame, policy: str, budgets, key_steps: int, totals, tld_hosts) -> blocks.Curve:
    """The expected curve of crawling whole hosts by ``policy``'s key, descending (random: one
    block; ``totals``: hosts, pages, hq of the table; ``tld_hosts``: hosts per TLD)."""
    if policy == "random":
        return blocks.ordered_curve([totals[0]], [totals[1]], [totals[2]], budgets,
                                    tld_first=np.zeros(len(tld_hosts), dtype=np.int64),
                                    tld_count=np.asarray(tld_hosts, dtype=np.float64))
    keyed = hosts.select("tld", "n", "hq", *blocks.block_columns(_KEYS[policy](), key_steps))
    per_block = (keyed.groupBy("_bsign", "_blevel")
                 .agg(F.count(F.lit(1)).alias("hosts"), F.sum("n").alias("pages"), F.sum("hq").alias("hq"))
                 .toPandas().sort_values(["_bsign", "_blevel"], ascending=False, kind="stable").reset_index(drop=True))
    position = {(int(s), int(v)): i for i, (s, v) in enumerate(zip(per_block._bsign, per_block._blevel))}
    first = (keyed.groupBy("tld", "_bsign", "_blevel").agg(F.count(F.lit(1)).alias("c"))
             .groupBy("tld").agg(F.max(F.struct("_bsign", "_blevel", "c")).alias("f"))
             .select("tld", "f._bsign", "f._blevel", "f.c").toPandas())
    tld_first = np.array([position[(int(s), int(v))] for s, v in zip(first._bsign, first._blevel)], dtype=np.int64)
    return blocks.ordered_curve(per_block.hosts, per_block.pages, per_block.hq, budgets, tld_first=tld_first,
                                tld_count=first.c.to_numpy(dtype=np.float64))


def uniform_curve(hosts: DataFrame, budgets, tld_hosts) -> blocks.Curve:
    """Uniform breadth from the histogram of host sizes (at most sqrt(2 x pages) distinct sizes)."""
    hist = hosts.groupBy("n").agg(F.count(F.lit(1)).alias("count"), F.sum("hq").alias("hq"),
                                  F.sum(F.col("hq") / F.col("n")).alias("density")).toPandas()
    return blocks.uniform_curve(hist.n, hist["count"], hist.hq, hist.density, budgets, tld_hosts)


# ---------------------------------------------------------------- per seed: the page-order draws
def _prefix_tables(k: int, k_max: int, min_remaining: int, key_steps: int):
    """mapInPandas body: per batch, the (probe, s) table of sample-then-deepen and the (k, s_k,
    rest-density block) counts of sample reliability, summed within the batch."""
    def fn(batches):
        for pdf in batches:
            n, hq = pdf.n.to_numpy(np.int64), pdf.hq.to_numpy(np.int64)
            pre = pageorder.prefix_hq(n, hq, pageorder.as_keys(pdf.key.to_numpy()), k_max)
            probe = np.minimum(n, k)
            s = pre[np.arange(len(n)), probe - 1]
            std = pd.DataFrame({"a": probe, "b": s, "x1": (n - probe).astype(float), "x2": (hq - s).astype(float)})
            std = std.groupby(["a", "b"], as_index=False).agg(hosts=("x1", "size"), x1=("x1", "sum"), x2=("x2", "sum"))
            std["kind"], std["i"], std["x3"] = "std", 0, 0.0
            parts = [std]
            for kk in range(1, k_max + 1):
                keep = n >= kk + min_remaining
                if not keep.any():
                    break
                sk = pre[keep, kk - 1]
                rest = (hq[keep] - sk) / (n[keep] - kk)
                level = blocks.positive_levels(rest, key_steps)
                rel = pd.DataFrame({"a": sk, "b": level}).groupby(["a", "b"], as_index=False).size()
                rel = rel.rename(columns={"size": "hosts"})
                rel["kind"], rel["i"], rel["x1"], rel["x2"], rel["x3"] = "rel", kk, 0.0, 0.0, 0.0
                parts.append(rel)
            yield _batch_frame(parts)
    return fn


def _batch_frame(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """One batch's sums in the shape of ``_AGG_SCHEMA``."""
    out = pd.concat(parts, ignore_index=True)
    return out[[f.name for f in _AGG_SCHEMA.fields]].astype({"i": "int64", "a": "int64", "b": "int64", "hosts": "int64"})


def _summed(df: DataFrame) -> DataFrame:
    return df.groupBy("kind", "i", "a", "b").agg(F.sum("hosts").alias("hosts"), F.sum("x1").alias("x1"),
                                                  F.sum("x2").alias("x2"), F.sum("x3").alias("x3"))


def reliability_rows(rel: DataFrame, ks) -> list[tuple[int, int, float]]:
    """Spearman(sample density, rest density) per k from the (k, s_k, rest block) counts: mid-ranks
    of both sides from their marginals (rest densities tied within a block), then Pearson of ranks
    from per-(k, s_k) sums of the rest's ranks, all in Spark down to one row per (k, s_k)."""
    w = F.sum("m").over(Window.partitionBy("i").orderBy("b").rowsBetween(Window.unboundedPreceding, 0))
    marg = rel.groupBy("i", "b").agg(F.sum("hosts").alias("m"))
    ranks = marg.select("i", "b", (w - (F.col("m") - 1) / 2.0).alias("ry"))
    per_s = (rel.join(ranks, ["i", "b"]).groupBy("i", "a")
             .agg(F.sum("hosts").alias("c"), F.sum(F.col("hosts") * F.col("ry")).alias("sy"),
                  F.sum(F.col("hosts") * F.col("ry") * F.col("ry")).alias("syy")).toPandas())
    out = []
    for k in ks:
        g = per_s[per_s.i == k].sort_values("a")
        total = float(g.c.sum())
        if total < 3:
            out.append((k, int(total), float("nan")))
            continue
        c = g.c.to_numpy(dtype=np.float64)
        rx = np.cumsum(c) - (c - 1) / 2.0
        sy, syy = g.sy.to_numpy(dtype=np.float64), g.syy.to_numpy(dtype=np.float64)
        mean = (total + 1) / 2.0
        cov = float(np.sum(rx * sy) - total * mean * mean)
        vx = float(np.sum(c * rx * rx) - total * mean * mean)
        vy = float(np.sum(syy) - total * mean * mean)
        rho = cov / np.sqrt(vx * vy) if vx > 1e-9 and vy > 1e-9 else float("nan")
        out.append((k, int(total), float(rho)))
    return out


def _runs_tables(taus, cell_of, twin: bool, key_steps: int):
    """mapInPandas body: the stopping rule's runs per host for each tau, summed per batch by
    (tau, pilot, cell) and by (tau, posterior-mean block); with ``twin`` on the synthetic twin
    (densities from the fitted prior, its own page order) instead of the real pages."""
    # scipy.stats: heavy, only for the twin's beta and binomial draws
    from scipy.stats import beta as beta_dist
    from scipy.stats import binom

    def fn(batches):
        for pdf in batches:
            n = pdf.n.to_numpy(np.int64)
            alpha, beta = pdf.alpha.to_numpy(np.float64), pdf.beta.to_numpy(np.float64)
            keys = pageorder.as_keys(pdf.key.to_numpy())
            hq = pdf.hq.to_numpy(np.int64)
            if twin:
                u1 = pageorder.uniforms(pageorder.as_keys(pdf.draw_key.to_numpy()), 0)
                u2 = pageorder.uniforms(pageorder.as_keys(pdf.draw_key.to_numpy()), 1)
                p = beta_dist.ppf(u1, alpha, beta)
                hq = np.clip(binom.ppf(u2, n, p), 0, n).astype(np.int64)
            pilot = pdf.pilot.to_numpy(bool)
            forced = np.where(pilot, 2, 1)
            cell = cell_of(n, pdf.g.to_numpy(np.int64))
            parts = []
            for ti, tau in taus:
                fetched, found = pageorder.stop_rule_runs(n, hq, keys, alpha, beta, forced, tau)
                c = pd.DataFrame({"a": pilot.astype(np.int64), "b": np.where(pilot, -1, cell),
                                  "x1": fetched.astype(float), "x2": found.astype(float)})
                c = c.groupby(["a", "b"], as_index=False).agg(hosts=("x1", "size"), x1=("x1", "sum"),
                                                               x2=("x2", "sum"))
                c["kind"], c["i"], c["x3"] = "cell", ti, 0.0
                pm = adaptive.posterior_mean(found, fetched, alpha, beta)
                d = pd.DataFrame({"a": np.ones(len(n), dtype=np.int64),
                                  "b": blocks.positive_levels(pm, key_steps),
                                  "x1": (n - fetched).astype(float), "x2": (hq - found).astype(float)})
                d = d.groupby(["a", "b"], as_index=False).agg(hosts=("x1", "size"), x1=("x1", "sum"), x2=("x2", "sum"))
                d["kind"], d["i"], d["x3"] = "deep", ti, 0.0
                parts += [c, d]
            yield _batch_frame(parts)
    return fn


def runs_curve(table: pd.DataFrame, budgets, plan: pd.DataFrame) -> list[float]:
    """``adaptive.budget_curve`` in expectation from one tau's sums: the pilot block first, then
    cells in the order of their rate (found per fetch) in ``plan`` (the twin's sums: the policy
    cannot see the real rates), each cell's hosts in random order; a budget beyond every run
    deepens the stopped hosts by posterior mean, best first, at their rest density."""
    rates = plan[plan.kind == "cell"].assign(rate=lambda d: d.x2 / np.maximum(d.x1, 1.0))[["a", "b", "rate"]]
    cells = table[table.kind == "cell"].merge(rates, on=["a", "b"], how="left")
    cells = cells.sort_values(["a", "rate", "b"], ascending=[False, False, True], kind="stable")
    opened = blocks.ordered_curve(cells.hosts, cells.x1, cells.x2, budgets)
    deep = table[table.kind == "deep"].sort_values("b", ascending=False, kind="stable")
    total_p, total_h = float(cells.x1.sum()), float(cells.x2.sum())
    out = []
    for b, budget in enumerate(budgets):
        if budget <= total_p:
            out.append(float(opened.hq[b]))
        else:
            more = blocks.ordered_curve(deep.hosts, deep.x1, deep.x2, [budget - total_p])
            out.append(total_h + float(more.hq[0]))
    return out


def eb_adaptive(hosts: DataFrame, seed: int, budgets, cfg: SweepConfig, groups: list[str], total: int):
    """``adaptive.adaptive_policy`` in Spark: [(pages, hq, tau), ...] per budget and the prior
    (``total``: hosts in the table)."""
    n_groups = max(1, len(groups)) if cfg.adaptive_groups else 1
    pilot_n = int(min(cfg.pilot_hosts, total, max(10, 0.1 * min(budgets) / 2)))
    pilot_key = pageorder.host_key(F.col("host"), seed, STREAM_PILOT)
    pilot = hosts.select("n", "hq", "grp", pilot_key.alias("_pk"),
                         pageorder.host_key(F.col("host"), seed, pageorder.STREAM_PAGES).alias("key")) \
        .orderBy("_pk").limit(pilot_n).toPandas()
    cut = int(pilot._pk.max())
    n, hq = pilot.n.to_numpy(np.int64), pilot.hq.to_numpy(np.int64)
    k = np.minimum(n, 2)
    s = pageorder.prefix_hq(n, hq, pageorder.as_keys(pilot.key.to_numpy()), 2)[np.arange(len(n)), k - 1]
    code = {g: i for i, g in enumerate(groups)}
    g_pilot = np.array([code[g] for g in pilot.grp], dtype=np.int64) if cfg.adaptive_groups else np.zeros(len(n), int)
    prior = adaptive.beta_prior(s, k, g_pilot, n_groups)

    g_col = F.lit(0)
    if cfg.adaptive_groups:
        g_col = F.element_at(F.create_map(*[x for g, i in code.items() for x in (F.lit(g), F.lit(i))]), F.col("grp"))
    a_map = F.create_map(*[x for i, v in enumerate(prior.alpha) for x in (F.lit(i), F.lit(float(v)))])
    b_map = F.create_map(*[x for i, v in enumerate(prior.beta) for x in (F.lit(i), F.lit(float(v)))])
    table = (hosts.select("host", "n", "hq", g_col.cast("long").alias("g"), (pilot_key <= F.lit(cut)).alias("pilot"))
             .withColumn("alpha", F.element_at(a_map, F.col("g"))).withColumn("beta", F.element_at(b_map, F.col("g"))))

    def cell_of(n_, g_):
        size = adaptive.size_bucket(n_) if cfg.adaptive_sizes else np.zeros(len(n_), dtype=np.int64)
        return size * n_groups + g_

    taus = list(enumerate(adaptive.TAUS))
    twin = table.select("*", pageorder.host_key(F.col("host"), seed, pageorder.STREAM_TWIN).alias("key"),
                        pageorder.host_key(F.col("host"), seed, pageorder.STREAM_TWIN_DRAW).alias("draw_key"))
    twin_sums = _summed(twin.drop("host").mapInPandas(_runs_tables(taus, cell_of, True, cfg.key_steps), _AGG_SCHEMA)).toPandas()
    best = []
    for b in range(len(budgets)):
        got = [(runs_curve(twin_sums[twin_sums.i == ti], [budgets[b]], twin_sums[twin_sums.i == ti])[0], ti)
               for ti, _ in taus]
        best.append(max(got, key=lambda x: (x[0], -x[1]))[1])
    chosen = [(ti, adaptive.TAUS[ti]) for ti in sorted(set(best))]
    real = table.select("*", pageorder.host_key(F.col("host"), seed, pageorder.STREAM_PAGES).alias("key"))
    real_sums = _summed(real.drop("host").mapInPandas(_runs_tables(chosen, cell_of, False, cfg.key_steps), _AGG_SCHEMA)).toPandas()
    results = []
    for b, budget in enumerate(budgets):
        hq_b = runs_curve(real_sums[real_sums.i == best[b]], [budget], twin_sums[twin_sums.i == best[b]])[0]
        results.append((float(budget), hq_b, adaptive.TAUS[best[b]]))
    return results, prior


# ---------------------------------------------------------------- the whole sweep
def available(hosts: DataFrame) -> set[str]:
    """The signals present in the host table (a column with at least one value)."""
    row = hosts.agg(*[F.count(c).alias(c) for c in ("log_hc", "log_pr", "cc")]).head()
    return {c for c in ("log_hc", "log_pr", "cc") if row[c]}


def run_seed(hosts: DataFrame, seed: int, cfg: SweepConfig, *, budgets, fixed: dict,
             groups: list[str]) -> dict[str, list[dict]]:
    """One seed's raw rows (the shape of ``simulate.run_seed``): ``fixed`` holds the seed-free
    curves (``fixed_curves``), recomputed never; the page-order policies are drawn here."""
    ordering, depth = [], []

    def add(rows, policy, curve, **extra):
        for j, (frac, budget) in enumerate(zip(cfg.budgets, budgets)):
            rows.append(dict(seed=seed, policy=policy, budget_frac=frac, budget_pages=budget,
                             pages=float(curve.pages[j]), hq=float(curve.hq[j]), hosts=float(curve.hosts[j]),
                             tlds=float(curve.tlds[j]), **extra))

    for policy in cfg.ordering_policies:
        if policy in fixed:
            for rep in range(cfg.random_repeats if policy == "random" else 1):
                add(ordering, policy, fixed[policy], repeat=rep)
    for policy, source in (("uniform", "uniform"), ("hc_depth", "hc"), ("oracle", "oracle")):
        if policy in cfg.depth_policies and source in fixed:
            add(depth, policy, fixed[source], k=None, detail="")

    k_max = max(cfg.k, max(cfg.reliability_ks), 2)
    keyed = hosts.select("n", "hq", pageorder.host_key(F.col("host"), seed, pageorder.STREAM_PAGES).alias("key"))
    sums = _summed(keyed.mapInPandas(_prefix_tables(cfg.k, k_max, cfg.min_remaining, cfg.key_steps), _AGG_SCHEMA))
    sums = sums.persist(StorageLevel.MEMORY_AND_DISK)
    if "sample_then_deepen" in cfg.depth_policies:
        std = sums.where(F.col("kind") == "std").toPandas()
        table = pd.DataFrame({"probe": std.a, "s": std.b, "hosts": std.hosts, "probe_pages": std.a * std.hosts,
                              "s_pages": std.b * std.hosts, "rest_n": std.x1, "rest_hq": std.x2})
        for frac, budget, (curve, share) in zip(cfg.budgets, budgets, blocks.sample_then_deepen_curve(
                table, budgets, cfg.sample_shares, fixed["_tld_hosts"])):
            depth.append(dict(seed=seed, policy="sample_then_deepen", budget_frac=frac, budget_pages=budget,
                              pages=float(curve.pages[0]), hq=float(curve.hq[0]), hosts=float(curve.hosts[0]),
                              tlds=float(curve.tlds[0]), k=cfg.k,
                              detail="all hosts probed" if share >= 1.0 else f"probe share {share:g}"))
    if "eb_adaptive" in cfg.depth_policies:
        results, prior = eb_adaptive(hosts, seed, budgets, cfg, groups, fixed["_totals"][0])
        for frac, budget, (pages, hq, tau) in zip(cfg.budgets, budgets, results):
            depth.append(dict(seed=seed, policy="eb_adaptive", budget_frac=frac, budget_pages=budget, pages=pages,
                              hq=hq, hosts=None, tlds=None, k=None, detail=f"tau {tau:g}, pilot ICC {prior.icc:.3f}"))
    rel = reliability_rows(sums.where(F.col("kind") == "rel"), cfg.reliability_ks)
    sums.unpersist()
    reliability = [dict(seed=seed, k=k, hosts=h, spearman=rho) for k, h, rho in rel]
    return {"ordering": ordering, "depth": depth, "reliability": reliability}


def fixed_curves(hosts: DataFrame, cfg: SweepConfig, budgets, signals: set[str], totals) -> dict:
    """The seed-free curves: every key ordering and uniform breadth, once per population."""
    wanted = set(cfg.ordering_policies) | {p for p, d in (("hc", "hc_depth"), ("oracle", "oracle"))
                                           if d in cfg.depth_policies}
    tld_hosts = _tld_table(hosts).hosts.to_numpy()
    out = {"_tld_hosts": tld_hosts, "_totals": totals}
    for policy in sorted(wanted):
        if policy in _NEEDS and _NEEDS[policy] not in signals:
            continue
        out[policy] = key_curve(hosts, policy, budgets, cfg.key_steps, totals, tld_hosts)
    if "uniform" in cfg.depth_policies:
        out["uniform"] = uniform_curve(hosts, budgets, tld_hosts)
    return out


def run_sweep(population, cfg: SweepConfig) -> dict[str, pd.DataFrame]:
    """Raw per-seed rows for all seeds; ``population`` is a host table or a factory seed -> host
    table (a fresh population per seed, as ``simulate.run_sweep``)."""
    raw = {"ordering": [], "depth": [], "reliability": []}
    cached = None
    for seed in cfg.seeds:
        hosts = population(seed) if callable(population) else population
        if cached is None or callable(population):
            hosts = hosts.persist(StorageLevel.MEMORY_AND_DISK)
            totals = tuple(int(x or 0) for x in hosts.agg(F.count(F.lit(1)), F.sum("n"), F.sum("hq")).head())
            budgets = [max(1, int(round(f * totals[1]))) for f in cfg.budgets]
            signals = available(hosts)
            groups = sorted(r[0] for r in hosts.select("grp").distinct().collect()) if cfg.adaptive_groups else []
            fixed = fixed_curves(hosts, cfg, budgets, signals, totals)
            cached = hosts
        rows = run_seed(cached, seed, cfg, budgets=budgets, fixed=fixed, groups=groups)
        for key, r in rows.items():
            raw[key].extend(r)
        if callable(population):
            cached.unpersist()
    if cached is not None and not callable(population):
        cached.unpersist()
    return {key: pd.DataFrame(rows) for key, rows in raw.items()}
