"""Pipelines as data: ``pipelines/<name>.yaml`` lists nodes with their inputs, outputs and params.

A node depends on another when it reads a dataset the other writes. Inputs nobody writes are
external and come from the config's ``inputs.<name>`` key (WARC listing, host index, graph).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from crawlplan.conf import ConfError, get, load_yaml
from crawlplan.paths import resource_dir


@dataclass(frozen=True)
class Node:
    name: str
    job: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    params: dict = field(default_factory=dict, hash=False, compare=False)
    description: str = ""
    optional: tuple[str, ...] = ()      # external inputs the node runs without (the rest must be set)
    required_if: dict = field(default_factory=dict, hash=False, compare=False)  # optional input -> "conf.key=value"


@dataclass
class Pipeline:
    name: str
    nodes: dict[str, Node]
    external: dict[str, str]
    description: str = ""

    def producer(self) -> dict[str, str]:
        """dataset -> node that writes it."""
        return {out: node.name for node in self.nodes.values() for out in node.outputs}

    def dependencies(self, node: str) -> list[str]:
        producer = self.producer()
        return sorted({producer[i] for i in self.nodes[node].inputs if i in producer})

    def unknown_node(self, name: str) -> str:
        """The message for a node name that is not in the pipeline, with the closest name offered."""
        close = difflib.get_close_matches(name, list(self.nodes), n=1, cutoff=0.5)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return f"unknown node '{name}'; {hint}nodes: {', '.join(self.order())}"

    def order(self) -> list[str]:
        """Topological order, stable in file order so runs print nodes predictably."""
        names = list(self.nodes)
        deps = {n: set(self.dependencies(n)) for n in names}
        done: list[str] = []
        while len(done) < len(names):
            ready = [n for n in names if n not in done and deps[n] <= set(done)]
            if not ready:
                cycle = [n for n in names if n not in done]
                raise ConfError(f"pipeline '{self.name}' has a dependency cycle among {cycle}")
            done.append(ready[0])
        return done

    def downstream(self, node: str) -> list[str]:
        """``node`` and everything that depends on it, in run order."""
        keep = {node}
        for name in self.order():
            if set(self.dependencies(name)) & keep:
                keep.add(name)
        return [n for n in self.order() if n in keep]

    def upstream(self, nodes: list[str]) -> list[str]:
        """``nodes`` and everything they depend on, in run order."""
        keep, todo = set(), list(nodes)
        while todo:
            name = todo.pop()
            if name not in keep:
                keep.add(name)
                todo.extend(self.dependencies(name))
        return [n for n in self.order() if n in keep]

    def last(self, nodes: list[str] | None = None) -> list[str]:
        """The nodes of ``nodes`` (default: all) that no other of them depends on: naming these
        names the whole selection (``--until``, one application per last node)."""
        nodes = self.order() if nodes is None else nodes
        feeding = {d for n in nodes for d in self.upstream([n]) if d != n}
        return [n for n in nodes if n not in feeding]

    def external_inputs(self, node: str) -> list[str]:
        producer = self.producer()
        return [i for i in self.nodes[node].inputs if i not in producer]

    def required_inputs(self, node: str, conf: dict | None = None) -> list[str]:
        """External inputs ``node`` cannot run without; with ``conf``, also the optional ones its
        ``required_if`` condition (``section.key=value``, the node's params first) makes required."""
        spec = self.nodes[node]
        out = [i for i in self.external_inputs(node) if i not in spec.optional]
        for inp, condition in spec.required_if.items() if conf is not None else ():
            key, _, value = condition.partition("=")
            setting = spec.params.get(key.split(".", 1)[1], get(conf, key)) if "." in key else get(conf, key)
            if str(setting) == value:
                out.append(inp)
        return out


def pipeline_path(name_or_path: str) -> Path:
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    candidate = resource_dir("pipelines") / f"{name_or_path}.yaml"
    if not candidate.is_file():
        known = sorted(p.stem for p in resource_dir("pipelines").glob("*.yaml"))
        raise ConfError(f"unknown pipeline '{name_or_path}'; known: {', '.join(known)}")
    return candidate


def load_pipeline(name_or_path: str = "main") -> Pipeline:
    path = pipeline_path(name_or_path)
    data = load_yaml(path)
    nodes: dict[str, Node] = {}
    for name, spec in (data.get("nodes") or {}).items():
        if not isinstance(spec, dict):
            raise ConfError(f"pipeline {path}: node '{name}' must be a mapping")
        unknown = set(spec) - {"job", "inputs", "outputs", "params", "description", "optional", "required_if"}
        if unknown:
            raise ConfError(f"pipeline {path}: node '{name}' has unknown key '{sorted(unknown)[0]}'")
        nodes[name] = Node(
            name=name,
            job=str(spec.get("job", name)),
            inputs=tuple(spec.get("inputs") or ()),
            outputs=tuple(spec.get("outputs") or ()),
            params=dict(spec.get("params") or {}),
            description=str(spec.get("description", "")),
            optional=tuple(spec.get("optional") or ()),
            required_if={str(k): str(v) for k, v in (spec.get("required_if") or {}).items()},
        )
    pipeline = Pipeline(
        name=str(data.get("name", path.stem)),
        nodes=nodes,
        external={str(k): str(v) for k, v in (data.get("external") or {}).items()},
        description=str(data.get("description", "")),
    )
    producer: dict[str, str] = {}
    for node in nodes.values():
        for out in node.outputs:
            if out in producer:
                raise ConfError(f"pipeline {path}: dataset '{out}' is written by both "
                                f"'{producer[out]}' and '{node.name}'")
            producer[out] = node.name
    for node in nodes.values():
        for inp in node.inputs:
            if inp not in producer and inp not in pipeline.external:
                raise ConfError(f"pipeline {path}: node '{node.name}' reads '{inp}', which no node writes "
                                f"and which is not listed under 'external'")
        for opt in node.optional:
            if opt not in node.inputs or opt in producer:
                raise ConfError(f"pipeline {path}: node '{node.name}' lists '{opt}' as optional, but it is not "
                                f"one of its external inputs")
        for inp, condition in node.required_if.items():
            if inp not in node.optional or "=" not in condition:
                raise ConfError(f"pipeline {path}: node '{node.name}': required_if needs an optional input and a "
                                f"condition 'section.key=value', got {inp}: {condition}")
    pipeline.order()
    return pipeline


def describe(pipeline: Pipeline) -> str:
    lines = [f"pipeline {pipeline.name}: {pipeline.description}".rstrip(": ")]
    if pipeline.external:
        lines.append("external inputs (config key inputs.<name>):")
        for name, doc in pipeline.external.items():
            lines.append(f"  {name}: {doc}")
    lines.append("nodes in run order:")
    for i, name in enumerate(pipeline.order(), 1):
        node = pipeline.nodes[name]
        deps = pipeline.dependencies(name)
        lines.append(f"  {i}. {name} (job {node.job})")
        reads = [f"{i} (optional)" if i in node.optional else i for i in node.inputs]
        lines.append(f"       reads:  {', '.join(reads) or '-'}")
        lines.append(f"       writes: {', '.join(node.outputs) or '-'}")
        lines.append(f"       after:  {', '.join(deps) or '-'}")
    return "\n".join(lines)
