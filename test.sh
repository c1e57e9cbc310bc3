#!/usr/bin/env bash
# One command for the test suite on a fresh machine (what .ci/run calls). Sets up .venv first.
set -uo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run || exit 1
[ -x scripts/test-extras.sh ] && { scripts/test-extras.sh || echo "test.sh: optional test tools not all installed (see above)"; }
# one pytest-xdist worker per core, at most 4 (each holds its own local SparkSession); whole test
# files per worker so a module's fixtures are built once, and the files that share the cluster,
# Connect server and demo run in two groups, each on one worker and first (tests/conftest.py:
# SERVER_GROUPS; the rest
# in collection order, not largest file first); `-n 0` after the options runs everything in this
# process (`./test.sh -n 0 --pdb`)
workers=$(.venv/bin/python -c 'import os; n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(); print(max(1, min(n or 1, 4)))')
if [ "${1:-}" = "--quick" ]; then
  # the quick tier: unit tests and the Spark tests marked quick (tiny frames on a local session);
  # no cluster, Connect, Airflow or browser runs (markers applied and checked in tests/conftest.py)
  shift
  set -- -m "not slow and (not spark or quick)" "$@"
  export CRAWLPLAN_CLUSTER_PIPELINE=0
fi
.venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
rc=$?
if [ "$rc" = 5 ]; then
  echo "test.sh: pytest collected no tests"
  exit 0
fi
exit "$rc"
