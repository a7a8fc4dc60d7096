#!/usr/bin/env bash
# debian_package.sh PACKAGE PROGRAM WHY: makes sure the Debian package PACKAGE has installed PROGRAM (an absolute
# path), which the tests need for WHY (said in the messages). Idempotent: does nothing when PROGRAM is there.
# Otherwise installs PACKAGE with apt-get, which needs root; fails saying what to do when it cannot. tests/run.sh
# runs it for chromium (the browser test of the fleet report, tests/integration/browser.py) and ipmitool (the tests of
# the ipmi hardware type, tests/integration/test_ipmi.py).
set -euo pipefail

if (($# != 3)); then
    echo "usage: $0 PACKAGE PROGRAM WHY" >&2
    exit 2
fi
package="$1"
program="$2"
why="$3"
if [[ -x $program ]]; then
    exit 0
fi
fail() {
    echo "error: $program is missing and $1. Install Debian's $package package (as root: apt-get install -y $package);" \
         "$why needs it." >&2
    exit 1
}
command -v apt-get >/dev/null || fail "this system has no apt-get"
if ((EUID != 0)); then
    fail "installing it needs root (this runs as $(id -un))"
fi
echo "Installing Debian's $package (for $why)..."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "$package" >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "$package" >/dev/null; } \
    || fail "apt-get could not install it"
[[ -x $program ]] || fail "the package $package did not install it"
echo "$package: $program is installed."
