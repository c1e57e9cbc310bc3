"""Crawler adapters: real crawlers driven by a crawlplan export (``crawlplan.crawlers.<name>``).

``scrapy`` runs Scrapy with the plan's per-host caps, host order and within-host URL priorities
and writes WARC; ``replay`` serves WARC files on 127.0.0.1 with pywb; ``loop`` closes the loop
plan -> crawl -> re-plan on the demo crawl. ``scrapy`` and ``replay`` run in the crawl venv
(``.venv-crawl``, scripts/test-extras.sh), whose pins differ from the main one.
"""
