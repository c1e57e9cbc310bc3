#!/usr/bin/env bash
# Headless Chromium for `crawlplan report-check` (and the report's browser test): installed with
# apt when missing and possible. ./setup.sh and scripts/test-extras.sh both call this script.
# Exit 0 when a Chromium is there afterwards; otherwise 1, after printing how to install one.
set -uo pipefail
have() { [ -n "${CRAWLPLAN_CHROMIUM:-}" ] && [ -x "$CRAWLPLAN_CHROMIUM" ] && return 0
         command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
           || command -v google-chrome >/dev/null 2>&1; }
have && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; else SUDO=none; fi
if [ "$SUDO" != none ] && command -v apt-get >/dev/null; then
  echo "install-chromium: installing chromium with apt (for crawlplan report-check)"
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
have && exit 0
echo "install-chromium: no Chromium installed: crawlplan report-check needs one." >&2
echo "  install it with: sudo apt-get install -y chromium   (Debian/Ubuntu)" >&2
echo "  or point CRAWLPLAN_CHROMIUM at a Chrome/Chromium binary" >&2
exit 1
