#!/usr/bin/env bash
# One command on a fresh machine: Java check (apt install when missing and possible), .venv with
# everything installed, headless Chromium for `crawlplan report-check` (apt when missing and
# possible; setup goes on without it), then the main pipeline on the embedded demo crawl.
#   ./setup.sh            set up and run `crawlplan run` (outputs in out/, report path printed)
#   ./setup.sh --no-run   set up only
set -euo pipefail
cd "$(dirname "$0")"
RUN=1
[ "${1:-}" = "--no-run" ] && RUN=0

PY=${PYTHON:-python3}
need_java() {
  if command -v java >/dev/null 2>&1; then
    v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    [ -n "$v" ] && [ "$v" -ge 17 ] && return 1
  fi
  return 0
}
if need_java; then
  echo "setup: Java 17+ not found; installing OpenJDK 17 with apt" >&2
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; else SUDO=none; fi
  if [ "$SUDO" = none ] || ! command -v apt-get >/dev/null; then
    echo "setup: cannot install Java here: install a JDK/JRE 17+ (e.g. apt-get install openjdk-17-jre-headless) and rerun" >&2
    exit 1
  fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null \
    || $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
  need_java && { echo "setup: Java install failed; install Java 17+ and rerun" >&2; exit 1; }
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
    || { echo "setup: Python >= 3.11 is required (found $($PY --version 2>&1)); set PYTHON=/path/to/python3.11" >&2; exit 1; }
  "$PY" -m venv .venv
fi
stamp=.venv/.crawlplan-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[spark,test]"
  touch "$stamp"
fi
scripts/install-chromium.sh || echo "setup: continuing without Chromium (only crawlplan report-check needs it)" >&2
echo "setup: ready (.venv, $(java -version 2>&1 | head -1))"
if [ "$RUN" = 1 ]; then
  exec .venv/bin/crawlplan run
fi
