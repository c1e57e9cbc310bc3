"""What a node's ``run`` function gets: the session, its params, and a way to find inputs."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession

from crawlplan import storage

log = logging.getLogger("crawlplan")


class InputError(ValueError):
    pass


@dataclass
class JobContext:
    spark: SparkSession
    node: str
    params: dict
    conf: dict
    out_dir: str
    search_roots: list[str]
    external: dict[str, object] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files_outputs: dict[str, str] = field(default_factory=dict)
    optional: frozenset[str] = frozenset()     # the node's optional external inputs (pipeline file)
    work_dir: str = ""      # kept across a failed run of the same node and fingerprint; removed on success
    tmp_dir: str = ""       # this run's own temporary folder (its output lease's); "" = OUT/_tmp

    def read(self, dataset: str) -> DataFrame:
        """A dataset written by an upstream node (or passed with ``--input``)."""
        for root in self.search_roots:
            for candidate in (storage.join(root, dataset), root):
                if candidate == root and root.rstrip("/").rsplit("/", 1)[-1] != dataset:
                    continue
                if storage.exists(self.spark, candidate):
                    return storage.read_dataset(self.spark, dataset, candidate)
        raise InputError(
            f"node '{self.node}' needs dataset '{dataset}', not found under: {', '.join(self.search_roots)}. "
            f"Run the node that writes it first, or pass its folder with --input."
        )

    def has(self, dataset: str) -> bool:
        try:
            self.read(dataset)
            return True
        except InputError:
            return False

    def input(self, name: str):
        """An external input (config key ``inputs.<name>``): a path, a glob or a list of them; None
        when unset, which only the node's ``optional`` inputs may be."""
        if name not in self.external:
            raise InputError(f"node '{self.node}' reads input '{name}', which its entry in the pipeline file does "
                             f"not list: add it to the node's inputs (and to optional: if the node runs without it)")
        value = self.external.get(name)
        if value in (None, "", []):
            if name in self.optional:
                return None
            raise InputError(f"node '{self.node}' needs input '{name}': set it with --set inputs.{name}=PATH "
                             f"(or --input PATH when running the job alone)")
        return value

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + int(n)

    def note(self, message: str) -> None:
        """A line for the logs and the report (e.g. 'demo models: scores are not real quality')."""
        log.warning("[%s] %s", self.node, message)
        self.notes.append(message)

    def files_output(self, name: str) -> str:
        """A fresh folder for a non-tabular output (HTML report, model files); moved into place
        by the runner when the node succeeds."""
        tmp = storage.join(self.tmp_dir or storage.join(self.out_dir, "_tmp"), f"{name}-{uuid.uuid4().hex[:12]}")
        self.files_outputs[name] = tmp
        return tmp
