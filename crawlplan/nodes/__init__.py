"""One module per DAG job: ``run(ctx) -> dict[str, DataFrame]`` (see DEVELOPERS.md)."""
