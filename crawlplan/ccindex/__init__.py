"""Common Crawl's columnar URL index (cc-index-table): write one for any WARC files (``build``) and
draw k captures per host from it in Spark (``sample``) for the sampled extract."""
