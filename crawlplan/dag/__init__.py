"""The DAG layer: pipelines as data, a runner with completion markers, atomic dataset I/O."""
