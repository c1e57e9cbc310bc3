"""``docs/datasets.md`` generated from ``schemas/*.yaml`` and the pipeline, so the page that
explains the datasets cannot drift from the contracts the runner enforces (a test checks the
committed page equals a fresh rendering)."""

from __future__ import annotations

from crawlplan.conf import load_yaml
from crawlplan.dag.pipeline import Pipeline
from crawlplan.paths import resource_dir

HEADER = """# Datasets

Generated from `schemas/*.yaml` and `pipelines/{pipeline}.yaml` by `crawlplan docs datasets`;
do not edit by hand (a test fails when this page and the schemas disagree). Every dataset is
Parquet at `OUT/<dataset>/`, written atomically by the node that produces it and checked
against its schema on write and on read. Types are Spark SQL types.
"""


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def render_datasets(pipeline: Pipeline) -> str:
    producer = pipeline.producer()
    readers: dict[str, list[str]] = {}
    for name in pipeline.order():
        for inp in pipeline.nodes[name].inputs:
            readers.setdefault(inp, []).append(name)
    files = sorted(resource_dir("schemas").glob("*.yaml"))
    out = [HEADER.format(pipeline=pipeline.name), "| dataset | written by | read by | description |",
           "|---|---|---|---|"]
    docs = {f.stem: load_yaml(f) for f in files}
    for name, data in docs.items():
        out.append(f"| [`{name}`](#{name}) | {producer.get(name, '(external or CLI)')} | "
                   f"{', '.join(readers.get(name, [])) or '-'} | {_cell(data.get('description', ''))} |")
    for name, data in docs.items():
        out += ["", f"## {name}", "", _cell(data.get("description", "")), ""]
        where = producer.get(name)
        out.append(f"Written by node `{where}`." if where else "Not written by a pipeline node (external input or a CLI verb).")
        if data.get("partition_by"):
            out.append(f"Partitioned by {', '.join(f'`{p}`' for p in data['partition_by'])}.")
        out += ["", "| column | type | nullable | meaning |", "|---|---|---|---|"]
        for col in data.get("columns", []):
            out.append(f"| `{col['name']}` | `{_cell(col['type'])}` | {'yes' if col.get('nullable', True) else 'no'} | "
                       f"{_cell(col.get('doc', ''))} |")
    external = pipeline.external
    if external:
        out += ["", "## External inputs", "", "Set with `inputs.<name>` in the config (empty = the demo crawl).", "",
                "| input | what |", "|---|---|"]
        out += [f"| `{k}` | {_cell(v)} |" for k, v in external.items()]
    return "\n".join(out) + "\n"
