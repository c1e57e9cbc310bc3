"""The crawl-policy nodes (``simulate``, ``allocate``). Their jobs are ``policies.<node>``, so a
node's parameters are the conf section ``policies.<node>``; the scalar keys of ``policies`` are
shared by both (``common.params``)."""
