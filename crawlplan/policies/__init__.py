"""Crawl policies: the paper's RQ2 (host ordering) and RQ3 (crawl depth) simulations, the
sample-then-deepen allocator that turns them into per-host budgets, and a policy that beats it.

Everything that simulates is plain numpy over per-host arrays (``population.Population``), so a
530k-host sweep runs in seconds on one core; Spark only aggregates page scores to host counts.
"""
