"""Readers for Common Crawl's host-level datasets: the web graph release, the host index v2 and
the GneissWeb annotations. Each reader returns a DataFrame keyed by ``rev_host`` and/or
``surt_host_name`` in the exact forms of ``crawlplan.hosts``, so joins with documents hold."""
