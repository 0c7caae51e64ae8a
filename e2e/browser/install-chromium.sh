#!/usr/bin/env bash
# Makes sure Debian's Chromium and ChromeDriver are on this machine, for the browser test of the operators' page
# (OpsPageIT). The Maven build runs it before the integration tests of e2e; it does nothing when both are present.
# Installing needs root and apt-get (CI runs as root); a browser build downloaded by a test tool is never used.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
CHROMEDRIVER=/usr/bin/chromedriver

if [[ -x "$CHROMIUM" && -x "$CHROMEDRIVER" ]]; then
  exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get > /dev/null; then
  echo "install-chromium: $CHROMIUM or $CHROMEDRIVER is missing; install them as root:" >&2
  echo "  apt-get update && apt-get install -y chromium chromium-driver" >&2
  exit 1
fi
echo "install-chromium: installing Debian's chromium and chromium-driver" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q > /dev/null
apt-get install -y -q --no-install-recommends chromium chromium-driver > /dev/null
"$CHROMIUM" --version >&2
"$CHROMEDRIVER" --version >&2
