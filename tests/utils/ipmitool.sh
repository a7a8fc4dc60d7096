#!/usr/bin/env bash
# Makes sure Debian's ipmitool is at /usr/bin/ipmitool, for the tests of the ipmi hardware type
# (tests/integration/test_ipmi.py): Ironic's ipmitool power and management interfaces run that command against the
# tests' IPMI BMC emulator (tests/integration/ipmi_bmc.py). Idempotent: does nothing when it is there. Otherwise
# installs the Debian package ipmitool with apt-get, which needs root; fails saying what to do when it cannot.
set -euo pipefail

IPMITOOL=/usr/bin/ipmitool
if [[ -x $IPMITOOL ]]; then
    exit 0
fi
fail() {
    echo "error: $IPMITOOL is missing and $1. Install Debian's ipmitool package (as root: apt-get install -y ipmitool);" \
         "the tests of the ipmi hardware type need it." >&2
    exit 1
}
command -v apt-get >/dev/null || fail "this system has no apt-get"
if ((EUID != 0)); then
    fail "installing it needs root (this runs as $(id -un))"
fi
echo "Installing Debian's ipmitool (for the tests of the ipmi hardware type)..."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends ipmitool >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends ipmitool >/dev/null; } \
    || fail "apt-get could not install it"
[[ -x $IPMITOOL ]] || fail "the package ipmitool did not install it"
"$IPMITOOL" -V
