"""The embedded demo crawl and demo models (``crawlplan.demo.crawl.ensure_demo`` is what
``crawlplan run`` calls without inputs). Empty, so that importing ``crawlplan.demo.cli`` for the
parser loads nothing of the generator."""
