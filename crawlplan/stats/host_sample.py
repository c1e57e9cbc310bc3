"""Seeded bounded host samples per group, for the statistics that need a group in one place:
Kendall's tau and the bootstrap CI of Spearman's rho.

Spearman and weighted Spearman are exact Spark aggregations at any size
(``ranks.group_spearman``). Kendall's tau-b and the host bootstrap need every host of a group
in one Python worker, so they run (in ``applyInPandas``) on at most ``max_hosts`` hosts of each
group: the group itself when it is that small (then every number equals the whole-group
computation exactly), else a simple random sample of exactly ``max_hosts`` hosts, the ones with
the smallest seeded hash of the host key (the same hosts whatever the partitioning). No worker
holds more than ``max_hosts`` hosts, and the bootstrap's cost per group stops growing with it.

The error of the sampled numbers, for a group of n > m = ``max_hosts`` hosts:

- Kendall's tau-b of the sample is unbiased for the group's tau up to O(1/m), with standard
  error at most sqrt(2 (1 - tau^2) / m) (Daniels and Kendall's bound for a U-statistic; the
  finite-population factor sqrt(1 - m/n) only lowers it): <= 0.0045 at m = 10^5.
- The CI: the percentile bootstrap runs on the sample (its own rho_m and replicates), and its
  endpoints are moved to the size of the group, ``rho + sqrt(m / n) (q - rho_m)`` with rho the
  exact rho of the whole group. This is the m-out-of-n bootstrap rescaled by the 1/sqrt(n) rate
  of Spearman's rho (asymptotically normal for a fixed population correlation); the relative
  error of the half-width is of order 1/sqrt(m) (about 0.3% at 10^5), below the Monte-Carlo
  error of the percentiles themselves (a few % at 1000 replicates). Endpoints are clipped to
  [-1, 1].
"""

from __future__ import annotations

import math

import pandas as pd
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from crawlplan.stats import reference

_HASH_RANGE = 2 ** 53          # the hash's low 53 bits, exactly representable as a double
_HASH_SLACK_SD = 4.0           # Bernoulli pre-filter: 4 standard deviations above max_hosts
STAT_FIELDS = (("_sampled", T.LongType()), ("_kendall", T.DoubleType()), ("_rho_sample", T.DoubleType()),
               ("_q_low", T.DoubleType()), ("_q_high", T.DoubleType()))


def check_max_hosts(max_hosts: int) -> None:
    """On the driver: a sample must hold enough hosts for a rank correlation."""
    if max_hosts < 3:
        raise ValueError(f"max_hosts_per_group must be >= 3 (hosts one worker holds for Kendall's tau and the "
                         f"bootstrap), got {max_hosts}")


def bounded_sample(frame: DataFrame, groups: list[str], key: str, max_hosts: int, seed: int) -> DataFrame:
    """At most ``max_hosts`` rows of every group (``key`` unique within a group): all of a small
    group, else the ``max_hosts`` rows with the smallest seeded hash of ``key``.

    The group sizes are a Spark aggregation joined back (one row per group, broadcast), a
    Bernoulli filter keeps about max_hosts + 4 sqrt(max_hosts) rows of a large group, and a
    window numbers only those, so no task sorts a whole group; the 4-sigma slack makes a
    sample short of ``max_hosts`` a 3e-5 event (it would then be a smaller random sample)."""
    u = (F.pmod(F.xxhash64(F.lit(int(seed)), F.col(key)), F.lit(_HASH_RANGE)) / float(_HASH_RANGE)).alias("_u")
    sizes = frame.groupBy(*groups).agg(F.count(F.lit(1)).alias("_group_n"))
    keep = (max_hosts + _HASH_SLACK_SD * math.sqrt(max_hosts) + 10) / F.col("_group_n")
    pre = frame.join(F.broadcast(sizes), groups).select("*", u).where(F.col("_u") < keep)
    # a small group passes the filter whole (keep >= 1), so every window partition holds at
    # most max_hosts + slack rows
    order = Window.partitionBy(*groups).orderBy("_u", key)
    return pre.withColumn("_i", F.row_number().over(order)).where(F.col("_i") <= max_hosts).drop(
        "_i", "_u", "_group_n")


def sample_statistics(pdf: pd.DataFrame, groups: list[str], key: str, x: str, y: str, *, seed_prefix: tuple,
                      replicates: int, seed: int, alpha: float, kendall: bool) -> pd.DataFrame:
    """One group's sample (pandas, at most ``max_hosts`` rows) -> its size, Kendall's tau-b, its
    own rho and the percentile bootstrap endpoints. Sorted by ``key`` and seeded by
    ``group_seed(seed, *seed_prefix, *group)``, so the bootstrap does not depend on row order."""
    head = [pdf[g].iloc[0] for g in groups]
    pdf = pdf.sort_values(key, kind="mergesort")
    xs, ys = pdf[x].to_numpy(float), pdf[y].to_numpy(float)
    n = int(xs.size)
    nan = float("nan")
    tau = reference.kendall_tau(xs, ys) if kendall and n >= 3 else nan
    rho = reference.spearman(xs, ys) if n >= 3 else nan
    lo, hi = reference.bootstrap_spearman(xs, ys, replicates, reference.group_seed(seed, *seed_prefix, *head), alpha)
    return pd.DataFrame([[*head, n, tau, rho, lo, hi]], columns=[*groups, *(f for f, _ in STAT_FIELDS)])


def sampled_statistics(frame: DataFrame, groups: list[str], key: str, x: str, y: str, *, max_hosts: int,
                       replicates: int, seed: int, alpha: float, seed_prefix: tuple = (),
                       kendall: bool = True) -> DataFrame:
    """Per group: ``_sampled``, ``_kendall``, ``_rho_sample``, ``_q_low``, ``_q_high`` from the
    group's bounded sample (``bounded_sample``), one ``applyInPandas`` call per group."""
    check_max_hosts(max_hosts)
    reference.check_bootstrap(replicates, alpha)
    sample = bounded_sample(frame.select(*groups, key, x, y), groups, key, max_hosts, seed)
    schema = frame.select(*groups).schema
    for name, kind in STAT_FIELDS:
        schema = schema.add(name, kind)

    def fn(pdf: pd.DataFrame) -> pd.DataFrame:
        return sample_statistics(pdf, groups, key, x, y, seed_prefix=tuple(seed_prefix), replicates=replicates,
                                 seed=seed, alpha=alpha, kendall=kendall)

    return sample.groupBy(*groups).applyInPandas(fn, schema)


def rescaled(q: Column, rho: Column, hosts: Column) -> Column:
    """A bootstrap endpoint at the group's size: ``q`` itself when the sample was the whole
    group, else ``rho + sqrt(m / n) (q - rho_m)``, clipped to [-1, 1] (see the module doc)."""
    sampled = F.col("_sampled")
    moved = rho + F.sqrt(sampled / hosts) * (q - F.col("_rho_sample"))
    return F.when(sampled >= hosts, q).otherwise(F.greatest(F.lit(-1.0), F.least(F.lit(1.0), moved)))
