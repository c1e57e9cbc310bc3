"""The SOUrCe nodes. Their jobs are ``source.<node>`` so each node's parameters are the conf
section ``source.<node>`` and a settings change invalidates the node's completion marker."""
