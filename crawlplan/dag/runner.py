"""Runs pipeline nodes in topological order in one SparkSession.

A node whose outputs exist and whose completion marker carries the same fingerprint (inputs,
params, code version) is skipped, so a relaunch after a crash redoes only unfinished work.
"""

from __future__ import annotations

import glob
import hashlib
import importlib
import json
import logging
import os
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path

from pyspark.sql import DataFrame

from crawlplan import __version__, storage
from crawlplan.conf import get, section
from crawlplan.dag.context import InputError, JobContext
from crawlplan.dag.lease import LeaseSettings, OutputLease
from crawlplan.dag.pipeline import Node, Pipeline
from crawlplan.dag.progress import ProgressReporter
from crawlplan.dag.required import check_required_rows
from crawlplan.security import redact

log = logging.getLogger("crawlplan")

_CODE_VERSION: str | None = None


def code_version() -> str:
    """Hash of the package's Python source: a code change invalidates completion markers. The same
    files hash alike from a checkout and from the ``crawlplan package`` zip (spark-submit
    --py-files), so a node run either way is recognised by the other."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        digest = hashlib.sha256(__version__.encode())
        for name, data in _package_sources():
            digest.update(name.encode())
            digest.update(data)
        _CODE_VERSION = digest.hexdigest()[:16]
    return _CODE_VERSION


def _package_sources() -> list[tuple[str, bytes]]:
    """(``crawlplan/...py``, bytes) of every source file, sorted by that name."""
    package = Path(__file__).resolve().parents[1]
    if package.is_dir():
        files = [(p.relative_to(package.parent).as_posix(), p) for p in package.rglob("*.py")]
        return sorted((name, p.read_bytes()) for name, p in files
                      if "/__pycache__/" not in name and "/_resources/" not in name)
    archive = next(p for p in package.parents if p.is_file())
    prefix = package.relative_to(archive).as_posix()
    with zipfile.ZipFile(archive) as zf:
        return sorted((name[len(prefix) - len(package.name):], zf.read(name)) for name in zf.namelist()
                      if name.startswith(prefix + "/") and name.endswith(".py")
                      and "/__pycache__/" not in name and "/_resources/" not in name)


def load_job(job: str):
    """``job`` names a module ``crawlplan.nodes.<job>`` with a ``run(ctx)`` function, or any
    ``package.module:function`` (for extensions outside the package)."""
    if ":" in job:
        module_name, _, attr = job.partition(":")
        return getattr(importlib.import_module(module_name), attr)
    module = importlib.import_module(f"crawlplan.nodes.{job}")
    return module.run


def job_state(job: str, params: dict, conf: dict):
    """What a job depends on besides its inputs, params and code (e.g. model files): the job
    module's optional ``fingerprint(params, conf)``. Computed before a run to decide skipping
    and again after it for the marker, so state a run creates itself (demo models) does not
    force the next run."""
    if ":" in job:  # package.module:function -> package.module:function_fingerprint
        module_name, _, attr = job.partition(":")
        hook = getattr(importlib.import_module(module_name), f"{attr}_fingerprint", None)
    else:
        hook = getattr(importlib.import_module(f"crawlplan.nodes.{job}"), "fingerprint", None)
    return hook(params, conf) if hook else None


def node_params(node: Node, conf: dict) -> dict:
    params = dict(get(conf, node.job, {}) or {})
    params.update(node.params)
    return params


def _external_fingerprint(value) -> list:
    """Paths plus size and mtime of local files; remote paths by name only."""
    values = value if isinstance(value, list) else [value]
    out = []
    for item in values:
        if item is None or str(item).strip() == "":
            continue  # an unset input; Path("") would be the working directory
        item = str(item)
        if "://" in item and not item.startswith("file://"):
            out.append(item)
            continue
        local = item.removeprefix("file://")
        matches = sorted(glob.glob(local)) or [local]
        for m in matches[:10000]:
            p = Path(m)
            if p.is_dir():
                stats = [(str(f), f.stat().st_size, int(f.stat().st_mtime)) for f in sorted(p.rglob("*"))
                         if f.is_file()][:10000]
                out.append([m, stats])
            elif p.exists():
                st = p.stat()
                out.append([m, st.st_size, int(st.st_mtime)])
            else:
                out.append([m, None])
    return out


def marker_path(out_dir: str, node: str) -> str:
    return storage.join(out_dir, "_markers", f"{node}.json")


def work_root(out_dir: str, node: str) -> str:
    """All of a node's partial work, under every fingerprint: dropped when the node is done."""
    return storage.join(out_dir, "_work", node)


def work_dir(out_dir: str, node: str, fingerprint: str) -> str:
    """Where a node keeps partial work (extract's waves) that a relaunch with the same
    fingerprint resumes from; a changed param or input gets a fresh folder."""
    return storage.join(work_root(out_dir, node), fingerprint)


def plan_run(pipeline: Pipeline, conf: dict, *, only: str | None = None, start: str | None = None,
             until: list[str] | None = None) -> tuple[list[str], set[str]]:
    """The nodes a run visits, in order, and those it forces; checks first that every external
    input they need is set, so a missing graph fails the run before an hour of extraction, not
    after it."""
    order, forced = pipeline.order(), set()
    for name in ([only] if only else []) + ([start] if start else []) + list(until or []):
        if name not in pipeline.nodes:
            raise KeyError(pipeline.unknown_node(name))
    if only and until:
        raise ValueError("--only and --until select nodes in two ways; give one of them")
    if only:
        order, forced = [only], {only}
    else:
        if until:
            order = pipeline.upstream(list(until))
        if start:
            if start not in order:
                raise ValueError(f"--from {start}: that node is not among the nodes --until selects "
                                 f"({', '.join(order)})")
            forced = set(pipeline.downstream(start)) & set(order)
    check_inputs(pipeline, order, conf)
    return order, forced


def check_inputs(pipeline: Pipeline, nodes: list[str], conf: dict, *, verb: str = "run") -> None:
    """Raise one error naming every external input ``nodes`` need that the conf leaves unset, and
    the selection (``crawlplan run --until`` or ``crawlplan submit --only``) that runs what needs
    none of them."""
    external = dict(get(conf, "inputs", {}) or {})
    missing: dict[str, list[str]] = {}
    for name in nodes:
        for inp in pipeline.required_inputs(name, conf):
            if external.get(inp) in (None, "", []):
                missing.setdefault(inp, []).append(name)
    if missing:
        blocked = {n for names in missing.values() for n in names}
        runnable = [n for n in nodes if not set(pipeline.upstream([n])) & blocked]
        lines = [f"  inputs.{k}: needed by {', '.join(v)}" for k, v in missing.items()]
        if verb == "run":
            selection = "crawlplan run --until " + ",".join(pipeline.last(runnable))
        else:
            selection = f"crawlplan {verb} " + " ".join(f"--only {n}" for n in runnable)
        hint = f"\nor run only the nodes that need none of them: {selection}" if runnable else ""
        where = ("set them under inputs: in the --conf file (the jobs get that file and the profile, not --set)"
                 if verb == "submit" else "set them with --set inputs.NAME=PATH (or in a --conf file)")
        raise InputError("this run needs inputs that are not set:\n" + "\n".join(lines) + "\n" + where + hint)


class Runner:
    """Runs nodes with the completion-marker rules: a node whose marker carries the fingerprint it
    would run with (and whose outputs exist) is skipped unless forced. ``roots`` are where
    upstream datasets and their markers are looked up: the output folder for ``crawlplan run``,
    plus the ``--input`` folders for one job (``crawlplan job``, ``spark-submit jobs/NODE.py``)."""

    def __init__(self, spark, conf: dict, out_dir: str, *, echo=print, roots: list[str] | None = None):
        self.spark = spark
        self.conf = conf
        self.out_dir = out_dir.rstrip("/") or "."
        self.echo = echo
        self.roots = roots or [self.out_dir]
        self.lease: OutputLease | None = None

    @contextmanager
    def leased(self):
        """Hold the output folder's lease (docs/security.md) while nodes run: its creation is the
        folder's test write, before any node, and a second run on the folder refuses at once."""
        if self.lease is not None:
            yield self.lease
            return
        with OutputLease(self.spark, self.out_dir, LeaseSettings.from_conf(self.conf)) as lease:
            self.lease = lease
            try:
                yield lease
            finally:
                self.lease = None

    def upstream_marker(self, dataset: str, producer: str) -> dict | None:
        """The marker of the node that wrote ``dataset``, from the first root holding either."""
        for root in self.roots:
            marker = storage.read_json(self.spark, marker_path(root, producer))
            if marker is not None:
                return marker
            if storage.exists(self.spark, storage.join(root, dataset)):
                return None
        return None

    def fingerprint(self, pipeline: Pipeline, node: Node, external: dict) -> str:
        """Inputs (upstream markers' fingerprints, external files' sizes and mtimes), the node's
        own params (a setting of another node never counts), the code and the job's state."""
        producer = pipeline.producer()
        params = node_params(node, self.conf)
        parts: dict = {"job": node.job, "params": params, "code": code_version(), "inputs": {},
                       "state": job_state(node.job, params, self.conf)}
        for inp in node.inputs:
            if inp in producer:
                marker = self.upstream_marker(inp, producer[inp])
                parts["inputs"][inp] = (marker or {}).get("fingerprint") or self._unmarked(inp)
            else:
                parts["inputs"][inp] = _external_fingerprint(external.get(inp))
        blob = json.dumps(parts, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    def _unmarked(self, dataset: str) -> list:
        """A dataset passed with --input without its producer's marker: its files stand for it."""
        for root in self.roots:
            if storage.exists(self.spark, storage.join(root, dataset)):
                return _external_fingerprint(storage.join(root, dataset))
        return []

    def is_complete(self, node: Node, fingerprint: str) -> bool:
        marker = storage.read_json(self.spark, marker_path(self.out_dir, node.name))
        if not marker or marker.get("fingerprint") != fingerprint:
            return False
        return all(storage.exists(self.spark, storage.join(self.out_dir, out)) for out in node.outputs)

    def run_pipeline(self, pipeline: Pipeline, *, only: str | None = None, start: str | None = None,
                     until: list[str] | None = None, force: bool = False) -> dict:
        order, forced = plan_run(pipeline, self.conf, only=only, start=start, until=until)
        forced = set(order) if force else forced
        external = dict(get(self.conf, "inputs", {}) or {})
        with self.leased():
            return {name: self.run_node(pipeline, pipeline.nodes[name], external, force=name in forced,
                                        label=f"[{i}/{len(order)}] {name}")
                    for i, name in enumerate(order, 1)}

    def run_node(self, pipeline: Pipeline, node: Node, external: dict, *, force: bool, label: str) -> dict:
        """Skip ``node`` when its marker is current, else check its inputs are not empty and run it."""
        with self.leased() as lease:
            lease.check()
            return self._run_node(pipeline, node, external, force=force, label=label)

    def _run_node(self, pipeline: Pipeline, node: Node, external: dict, *, force: bool, label: str) -> dict:
        fp = self.fingerprint(pipeline, node, external)
        partial = work_root(self.out_dir, node.name)
        if not force and self.is_complete(node, fp):
            self.echo(f"{label}: up to date, skipped")
            storage.delete(self.spark, partial)             # a crashed run's leftovers under another fingerprint
            return {"status": "skipped", "fingerprint": fp}
        if force:
            storage.delete(self.spark, partial)             # forced means from scratch, not resumed
        check_required_rows(self.spark, self.conf, pipeline, node, self.upstream_marker, self.roots)
        self.echo(f"{label}: running (job {node.job})")
        ctx = JobContext(
            spark=self.spark, node=node.name, params=node_params(node, self.conf), conf=self.conf,
            out_dir=self.out_dir, search_roots=self.roots,
            external={k: external.get(k) for k in pipeline.external_inputs(node.name)},
            optional=frozenset(node.optional), work_dir=work_dir(self.out_dir, node.name, fp),
            tmp_dir=self.lease.tmp_dir,
        )
        return self.execute(node, ctx, fp, refingerprint=lambda: self.fingerprint(pipeline, node, external))

    def execute(self, node: Node, ctx: JobContext, fingerprint: str, refingerprint=None) -> dict:
        started = time.time()
        run = load_job(node.job)
        with ProgressReporter(self.spark, node.name, echo=self.echo,
                              every_s=float(section(self.conf, "run")["progress_every_s"])):
            results = run(ctx) or {}
            unknown = set(results) - set(node.outputs)
            if unknown:
                raise ValueError(f"node '{node.name}' returned undeclared output '{sorted(unknown)[0]}'")
            rows: dict[str, int] = {}
            for out in node.outputs:
                if out in results:
                    df = results[out]
                    if not isinstance(df, DataFrame):
                        raise TypeError(f"node '{node.name}' output '{out}' is not a DataFrame")
                    rows[out] = storage.write_dataset(df, out, self.out_dir, context=f"node {node.name}",
                                                      tmp_dir=ctx.tmp_dir)
                elif out in ctx.files_outputs:
                    storage.move(self.spark, ctx.files_outputs[out], storage.join(self.out_dir, out))
                else:
                    raise ValueError(f"node '{node.name}' did not produce its declared output '{out}'")
        self.spark.catalog.clearCache()  # nodes persist shared intermediates; release them
        if refingerprint is not None:
            fingerprint = refingerprint()
        elapsed = time.time() - started
        marker = {
            "node": node.name, "job": node.job, "fingerprint": fingerprint, "code_version": code_version(),
            # markers are kept and shared: secret-looking params (S3 keys) and URL passwords are redacted
            "rows": rows, "counters": ctx.counters, "notes": redact(ctx.notes), "params": redact(ctx.params),
            "inputs": redact({k: v for k, v in ctx.external.items()}),
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": round(elapsed, 2),
        }
        storage.write_text(self.spark, marker_path(self.out_dir, node.name), json.dumps(marker, indent=2,
                                                                                         default=str))
        storage.delete(self.spark, work_root(self.out_dir, node.name))   # done: no resuming needed
        counts = ", ".join([f"{k}={v:,}" for k, v in rows.items()] + [f"{k}/ (files)" for k in ctx.files_outputs])
        extra = ", ".join(f"{k}={v:,}" for k, v in ctx.counters.items())
        self.echo(f"    done in {elapsed:.1f}s: {counts}" + (f" | {extra}" if extra else ""))
        return {"status": "ran", **marker}


def job_roots(output: str, inputs: list[str]) -> list[str]:
    """Where one job (or one application of several, ``--with-upstream``) looks up upstream
    datasets and markers: its output folder, then its ``--input`` folders."""
    return list(dict.fromkeys([output.rstrip("/") or "."] + [os.path.abspath(p) if "://" not in p else p
                                                            for p in inputs]))


def single_job_external(pipeline: Pipeline, name: str, conf: dict, inputs: list[str]) -> dict:
    """The external inputs of one job: --input feeds the external input only of nodes that read
    nothing else (extract); for the others it names folders holding upstream datasets."""
    node = pipeline.nodes[name]
    external_names = pipeline.external_inputs(name)
    external = dict(get(conf, "inputs", {}) or {})
    if external_names and inputs and len(external_names) == len(node.inputs) and not external.get(external_names[0]):
        external[external_names[0]] = inputs if len(inputs) > 1 else inputs[0]
    return external


def up_to_date(conf: dict, pipeline: Pipeline, names: list[str], out_dir: str, *,
               roots: list[str] | None = None, external: dict | None = None) -> bool:
    """Whether every node of ``names`` has a current marker and its outputs, read in this process
    before any SparkSession exists: a relaunch of finished work (a scheduler retrying a pipeline,
    ``crawlplan run`` on a finished output) answers in a second instead of starting Spark to skip.
    False when the client cannot reach the folder (``crawlplan.filesystems``): Spark decides then."""
    runner = Runner(None, conf, out_dir, roots=roots)
    external = external if external is not None else dict(get(conf, "inputs", {}) or {})
    try:
        return all(runner.is_complete(pipeline.nodes[name], runner.fingerprint(pipeline, pipeline.nodes[name],
                                                                                 external))
                   for name in names)
    except (OSError, ValueError) as exc:
        log.debug("markers not readable without Spark (%s): Spark checks them", exc)
        return False


def run_single_job(spark, conf: dict, pipeline: Pipeline, name: str, inputs: list[str], output: str, *,
                   force: bool = False, echo=print) -> dict:
    """``crawlplan job NODE`` and ``spark-submit jobs/NODE.py``: one node, inputs from the command
    line, skipped like in ``crawlplan run`` when its marker under ``output`` is current (``force``
    redoes it), so relaunching a failed scheduled pipeline starts at the node that failed."""
    node = pipeline.nodes[name]
    external = single_job_external(pipeline, name, conf, inputs)
    roots = job_roots(output, inputs)
    # run.retry_failed (--retry-failed) redoes a finished extract's failed files: never "up to date"
    force = force or (node.job == "extract" and bool(get(conf, "run.retry_failed", False)))
    runner = Runner(spark, conf, output, echo=echo, roots=roots)
    return runner.run_node(pipeline, node, external, force=force, label=name)
