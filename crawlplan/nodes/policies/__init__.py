"""The crawl-policy nodes (``simulate``, ``allocate``). Their jobs are ``policies.<node>``, so a
node's parameters are the conf section ``policies.<node>`` — the section the runner fingerprints."""
