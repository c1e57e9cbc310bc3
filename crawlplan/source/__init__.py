"""SOUrCe (structure-oriented unsupervised crawling): per-site sitemaps from bag-of-XPaths
clustering, an Apath navigation table, and crawlers for user-created content or a target type."""

from crawlplan.source.learner import SitemapLearner

__all__ = ["SitemapLearner"]
