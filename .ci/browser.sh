#!/usr/bin/env bash
# Installs Debian's chromium and chromium-driver for the replay page's browser test (tests/test_replay_page.py),
# only where /usr/bin/chromium or /usr/bin/chromedriver is missing. Nothing else downloads a browser.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo"
fi
echo ".ci/browser.sh: installing chromium and chromium-driver with apt-get" >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
