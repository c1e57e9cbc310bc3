"""How fast the CLI answers: the light verbs and a `crawlplan run` whose nodes are all current,
this checkout against another one (``--peer``: a checkout of an earlier revision), side by side.

    git worktree add ../cli-before aec23c4^      # the CLI before issue 31's changes
    .venv/bin/python bench/bench_cli.py --peer ../cli-before --repeats 5

Each command runs as a fresh process (``python -m crawlplan.cli ...`` with the checkout first on
``PYTHONPATH``, the same interpreter for both), ``--repeats`` times, alternating between the two
checkouts so that load drift hits both; the table gives the median wall seconds and the ratio.
The finished run: each checkout's ``crawlplan run`` writes the embedded demo to its own output
folder once (untimed), then the same command is timed: it must find every marker current.

``--smoke``: ``--help`` and ``pipeline show`` of this checkout once each, checked to exit 0 and
print the verbs and the nodes; no peer, no run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import REPO, RESULTS, machine, ok

LIGHT = (["--help"], ["pipeline", "show"], ["models", "list"], ["export", "budgets", "--help"])


def crawlplan(checkout: Path, argv: list[str], timeout: float = 900) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of ``crawlplan ARGV`` run from ``checkout`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "crawlplan.cli", *argv], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - started, done


def timed(checkouts: dict[str, Path], argv_of, repeats: int) -> dict[str, list[float]]:
    """Each checkout's wall seconds for its argv, ``repeats`` rounds, alternating."""
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for _ in range(repeats):
        for name, checkout in checkouts.items():
            secs, done = crawlplan(checkout, argv_of(name))
            if done.returncode != 0:
                raise SystemExit(f"{name}: crawlplan {' '.join(argv_of(name))} exited {done.returncode}:\n"
                                 f"{done.stderr[-2000:]}")
            times[name].append(secs)
    return times


def smoke() -> int:
    secs, done = crawlplan(REPO, ["--help"])
    assert done.returncode == 0 and "pipeline" in done.stdout and "run" in done.stdout, done.stderr
    secs2, shown = crawlplan(REPO, ["pipeline", "show"])
    assert shown.returncode == 0 and "extract" in shown.stdout and "allocate" in shown.stdout, shown.stderr
    print(f"crawlplan --help {secs:.2f}s, pipeline show {secs2:.2f}s")
    return ok("--help and pipeline show answered with the verbs and the nodes")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", type=Path, help="a checkout of another revision, measured side by side")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-run", action="store_true", help="light verbs only (no demo run)")
    ap.add_argument("--smoke", action="store_true", help="--help and pipeline show once, checked")
    args = ap.parse_args()
    if args.smoke:
        return smoke()
    checkouts = {"this": REPO}
    if args.peer:
        checkouts["peer"] = args.peer.resolve()
    rows = []
    for argv in LIGHT:
        times = timed(checkouts, lambda _name, argv=argv: argv, args.repeats)
        rows.append((" ".join(argv), times))
    if not args.skip_run:
        outs = {name: tempfile.mkdtemp(prefix=f"bench-cli-{name}-", dir=RESULTS) for name in checkouts}
        for name, checkout in checkouts.items():           # the first run writes everything: untimed
            _, done = crawlplan(checkout, ["run", "--out", outs[name]], timeout=1800)
            if done.returncode != 0:
                raise SystemExit(f"{name}: the demo run failed:\n{done.stderr[-2000:]}")
        rows.append(("run (every node current)",
                     timed(checkouts, lambda name: ["run", "--out", outs[name]], args.repeats)))
    print(f"\nmachine: {json.dumps(machine())}")
    names = list(checkouts)
    print("| command | " + " | ".join(f"{n} median s" for n in names) + (" | peer/this |" if args.peer else " |"))
    print("|---|" + "---:|" * (len(names) + bool(args.peer)))
    result = []
    for label, times in rows:
        med = {n: statistics.median(times[n]) for n in names}
        cells = " | ".join(f"{med[n]:.2f}" for n in names)
        ratio = f" | {med['peer'] / med['this']:.1f}×" if args.peer else ""
        print(f"| `crawlplan {label}` | {cells}{ratio} |")
        result.append({"command": label, "seconds": times, "median": med})
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cli.json").write_text(json.dumps({"machine": machine(), "argv": sys.argv, "rows": result,
                                                  "peer": str(args.peer) if args.peer else None}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
