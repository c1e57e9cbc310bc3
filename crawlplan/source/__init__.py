"""SOUrCe (structure-oriented unsupervised crawling): per-site sitemaps from bag-of-XPaths
clustering (``crawlplan.source.learner.SitemapLearner``), an Apath navigation table, and crawlers
for user-created content or a target type."""
