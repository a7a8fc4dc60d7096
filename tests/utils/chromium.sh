#!/usr/bin/env bash
# Makes sure Debian's headless-capable Chromium is at /usr/bin/chromium, for the tests that open the pages the
# collection writes (tests/integration/test_fleet_report.py). Idempotent: does nothing when it is there. Otherwise
# installs the Debian package chromium with apt-get, which needs root; fails saying what to do when it cannot.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [[ -x $CHROMIUM ]]; then
    exit 0
fi
fail() {
    echo "error: $CHROMIUM is missing and $1. Install Debian's chromium package (as root: apt-get install -y chromium);" \
         "the browser test of the fleet report needs it." >&2
    exit 1
}
command -v apt-get >/dev/null || fail "this system has no apt-get"
if ((EUID != 0)); then
    fail "installing it needs root (this runs as $(id -un))"
fi
echo "Installing Debian's chromium (for the browser test of the fleet report)..."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; } \
    || fail "apt-get could not install it"
[[ -x $CHROMIUM ]] || fail "the package chromium did not install it"
"$CHROMIUM" --version
