"""The statistics nodes. Their jobs are ``stats.<node>`` so each node's parameters are the conf
section ``stats.<node>`` (the runner fingerprints ``conf[job]``; see conf/defaults.yaml)."""
