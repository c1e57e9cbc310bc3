#!/usr/bin/env bash
# One command for the test suite on a fresh machine (what .ci/run calls). Sets up .venv first.
set -uo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run || exit 1
[ -x scripts/test-extras.sh ] && { scripts/test-extras.sh || echo "test.sh: optional test tools not all installed (see above)"; }
.venv/bin/python -m pytest "$@"
rc=$?
if [ "$rc" = 5 ]; then
  echo "test.sh: pytest collected no tests"
  exit 0
fi
exit "$rc"
