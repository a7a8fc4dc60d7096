#!/usr/bin/env bash
# The compatibility edges, run by `make test-matrix` (after `make venv install`), in two lanes of about the same
# length (each lane's output is printed when both have ended):
#   - the unit and smoke tests against the oldest supported ansible-core (tests/core/run.sh CORE_OLDEST), then the
#     smoke suite against the oldest supported Ironic release, 24.1 (tests/compat.sh; its virtualenv is created
#     under .work/ironic-compat on first use);
#   - the unit and smoke tests against the newest supported ansible-core (CORE_NEWEST).
# CORE_OLDEST and CORE_NEWEST are given by the Makefile. `make test-core` and `make test-compat` run the whole
# matrices (every ansible-core minor with sanity; every Ironic release); this is their two ends, about 9 minutes.
# Every stage runs; the script fails if any of them failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/.work"
if [[ ! -d "$WORK/collections/ansible_collections/baremetal/lifecycle" ]]; then
    echo "error: run 'make venv install' first (or use 'make test-matrix')" >&2
    exit 2
fi
if [[ -z ${CORE_OLDEST:-} || -z ${CORE_NEWEST:-} ]]; then
    echo "error: set CORE_OLDEST and CORE_NEWEST, the ansible-core releases to test besides .work/venv's (make test-matrix does)" >&2
    exit 2
fi
export PATH="$WORK/venv/bin:$PATH"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"

source "$ROOT/tests/utils/stages.sh"

oldest_core_lane() {
    stage "ansible-core $CORE_OLDEST" "$ROOT/tests/core/run.sh" "$CORE_OLDEST"
    stage "smoke suite on Ironic 24.1" bash "$ROOT/tests/compat.sh" 24.1
}
newest_core_lane() {
    stage "ansible-core $CORE_NEWEST" "$ROOT/tests/core/run.sh" "$CORE_NEWEST"
}

lanes oldest_core_lane newest_core_lane
end_of_stages
