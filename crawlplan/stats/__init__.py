"""Host statistics (the paper's RQ1, the correlation half of RQ2, RQ4).

``reference`` holds the statistics as pure numpy/scipy functions: the definitions, unit-tested
against independent computations; its ``icc1_from_sums`` is the project's one ICC1. One module
per node (``host_stats``, ``host_graph``, ``correlations``, ``host_quality``) holds the Spark
transforms that compute the same quantities at Common Crawl scale with aggregations, calling
into ``reference`` only for per-group work on executors (``applyInPandas``), and the node's
settings (``from_params``).
"""
