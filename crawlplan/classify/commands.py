"""What the `crawlplan` verbs of the classify domain do (their parsers are in ``classify/cli.py``).

Loaded only when one of them runs, so `crawlplan --help` and the light verbs do not pay for
Spark, pandas or this domain's libraries."""

from __future__ import annotations

import sys

from crawlplan.classify.models import DEMO_WARNING, ModelError, model_dir, pull, status
from crawlplan.classify.registry import load_registry, select
from crawlplan.conf import load_conf
from crawlplan.demo.models import train_demo


def _conf(args):
    return load_conf(args.profile, args.conf, args.overrides)


def _specs(conf, names):
    registry = load_registry(conf)
    return registry, select(registry, names or None)


def _size(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def cmd_list(args) -> int:
    conf = _conf(args)
    registry, _ = _specs(conf, None)
    print(f"model cache: {model_dir(conf)}")
    header = f"{'name':18} {'kind':11} {'state':9} {'size':>9}  {'pin':28} source"
    print(header)
    print("-" * len(header))
    demo_seen = False
    for spec in registry.values():
        st = status(spec, conf, verify=not args.no_verify)
        state = "demo" if st.demo and st.present else ("present" if st.present else "missing")
        demo_seen |= state == "demo"
        print(f"{st.name:18} {st.kind:11} {state:9} {_size(st.size):>9}  {st.pin:28} {st.source}")
        if args.long:
            print(f"{'':18} path: {st.path}")
            if spec.note:
                print(f"{'':18} {spec.note}")
    if demo_seen:
        print("\n'demo' = a small model trained on generated text by `crawlplan models train-demo`: "
              "its scores are not real quality. `crawlplan models pull NAME` replaces it.")
    return 0


def cmd_pull(args) -> int:
    conf = _conf(args)
    registry, _ = _specs(conf, None)
    names = args.names or [s.name for s in registry.values() if s.kind == "fasttext" and s.hf_repo]
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise KeyError(f"unknown classifier '{unknown[0]}'; known: {', '.join(registry)}")
    failed = 0
    for i, name in enumerate(names):
        try:
            path = pull(registry[name], conf)
            print(f"  {name}: {path}")
        except ModelError as exc:
            failed += 1
            print(f"crawlplan: error: {exc}", file=sys.stderr)
            rest = names[i + 1:]
            if exc.offline and rest:  # each would wait through the same retries and fail the same way
                print(f"crawlplan: skipped {', '.join(rest)}: the Hub is unreachable", file=sys.stderr)
                failed += len(rest)
                break
            if args.fail_fast:
                break
    return 1 if failed else 0


def cmd_train_demo(args) -> int:
    conf = _conf(args)
    _, specs = _specs(conf, args.names)
    print(f"training demo models ({DEMO_WARNING})")
    written = train_demo(specs, conf, force=args.force)
    print(f"{len(written)} demo models in place")
    return 0

