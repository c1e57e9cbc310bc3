"""Host statistics (the paper's RQ1, the correlation half of RQ2, RQ4).

``reference`` holds the statistics as pure numpy/scipy functions: the definitions, unit-tested
against independent computations. ``hoststats``, ``correlate`` and ``coverage`` are the Spark
transforms that compute the same quantities at Common Crawl scale with aggregations, calling
into ``reference`` only for per-group work on executors (``applyInPandas``).
"""
