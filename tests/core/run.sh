#!/usr/bin/env bash
# Usage: tests/core/run.sh [--sanity] MINOR...   (for example: tests/core/run.sh --sanity 2.16 2.21)
# The collection against other ansible-core releases, each in its own virtual environment .work/core-MINOR
# (tests/core/venv.sh): with --sanity, ansible-test sanity of that release; the unit tests of the plugins; and the
# smoke tests below, each against its own Ironic. Ends with a table of the results; fails if any failed.
# Run after `make install` (make test and make test-core do it).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"

# The smoke tests: the README's demo (the ironic_standalone role, baremetal_node, baremetal_provision_state and its
# progress plugin, module_defaults groups), the fleet role with a vault-encrypted fleet file, and the inventory
# plugin's strings from Ironic, which no release may template.
SMOKE=(
    tests/integration/test_demo.py
    tests/integration/test_fleet_role.py::test_a_fleet_file_is_read_with_the_vault_secrets_of_the_play
    tests/integration/test_inventory.py::test_strings_from_ironic_are_never_templated
)

sanity=false
if [[ ${1:-} == --sanity ]]; then
    sanity=true
    shift
fi
(($#)) || { echo "usage: $0 [--sanity] MINOR..." >&2; exit 2; }

rows=()
failed=0
step() {  # step NAME COMMAND...: runs it, prints its output, sets $result to "passed (N s)" or "FAILED (N s)"
    local name="$1" start=$SECONDS
    shift
    echo "----- ansible-core $minor: $name -----"
    if "$@"; then
        result="passed ($((SECONDS - start)) s)"
    else
        result="FAILED ($((SECONDS - start)) s)"
        failed=1
    fi
}

for minor in "$@"; do
    start=$SECONDS
    venv="$ROOT/.work/core-$minor"
    step "virtual environment" "$ROOT/tests/core/venv.sh" "$minor"
    if [[ $result == FAILED* ]]; then
        rows+=("$minor|-|-|venv $result|-|-|-")
        continue
    fi
    version="$("$venv/bin/python" -c 'from ansible.release import __version__; print(__version__)')"
    python="$("$venv/bin/python" -c 'import platform; print(platform.python_version())')"
    sanity_result="not run"
    if $sanity; then
        step "sanity" "$ROOT/tests/utils/sanity.sh" "$venv" "$venv/ansible-test-home"
        sanity_result="$result"
    fi
    cd "$ROOT" || exit 1
    step "unit tests" "$venv/bin/python" -m pytest tests/unit/plugins -q -p no:cacheprovider
    unit_result="$result"
    step "smoke tests" "$venv/bin/python" -m pytest "${SMOKE[@]}" -q -p no:cacheprovider
    smoke_result="$result"
    rows+=("$minor|$version|$python|$sanity_result|$unit_result|$smoke_result|$((SECONDS - start)) s")
done

echo
{
    echo "minor|ansible-core|python|sanity|unit tests|smoke tests|total"
    printf '%s\n' "${rows[@]}"
} | column -t -s '|'
exit "$failed"
