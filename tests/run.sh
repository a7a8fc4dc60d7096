#!/usr/bin/env bash
# Full test suite, run by `make test` (after `make venv install`):
#   1. ansible-test sanity on the installed collection (.work/collections/ansible_collections/baremetal/lifecycle)
#   2. the import layers of plugins/module_utils (lint-imports, .importlinter), ansible-lint --profile production
#      on the repository
#   3. galaxy-importer on the built tarball, as Galaxy runs it on an upload (no error, no warning)
#   4. release notes: antsibull-changelog lint, and CHANGELOG.md is what changelogs/ generates
#   5. docsite: antsibull-docs lint-collection-docs --plugin-docs, then the whole site built offline (no warning)
#   6. execution environment: ansible-builder introspect finds the collection's requirements
#   7. molecule test of the fleet role
#   8. pytest tests (unit and integration tests, on two pytest-xdist workers; the integration tests start their
#      own Ironic), after making sure Debian's chromium is installed for the browser test and Debian's ipmitool for
#      the tests of the ipmi hardware type (tests/utils/debian_package.sh installs each with apt-get when its program
#      is missing, as root; else it fails saying so)
# Every stage runs; the script fails if any of them failed. Stage 8 runs beside stages 1-7 (two lanes, see below):
# each lane's output is printed when both have ended. The compatibility edges (the oldest and newest ansible-core,
# the oldest Ironic) are tests/matrix.sh's, `make test-matrix`: long matrices run in their own target.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/.work"
VENV="$WORK/venv"
COLLECTION="$WORK/collections/ansible_collections/baremetal/lifecycle"

if [[ ! -x "$VENV/bin/ansible-test" || ! -d "$COLLECTION" ]]; then
    echo "error: run 'make venv install' first (or use 'make test')" >&2
    exit 2
fi
export PATH="$VENV/bin:$PATH"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"

source "$ROOT/tests/utils/stages.sh"

sanity() {
    # ansible-test keeps one virtualenv per sanity test under ~/.ansible/test; keep them in .work instead.
    "$ROOT/tests/utils/sanity.sh" "$VENV" "$WORK/ansible-test-home"
}

lint() {
    (cd "$ROOT" && ansible-lint --profile production --nocolor)
}

import_layers() {
    # The layers of plugins/module_utils import only downward (.importlinter, a `layers` contract), read from the
    # installed collection, where the package names resolve as Ansible imports them.
    (cd "$WORK/collections" && lint-imports --no-cache "$ROOT/.importlinter")
}

galaxy_import() {
    # Build the tarball as it would be uploaded and run Galaxy's own import checks on it (galaxy-importer:
    # metadata, READMEs, ansible-doc of every plugin, ansible-lint). Galaxy shows warnings to every visitor,
    # so any WARNING or ERROR line fails the stage like a failed import.
    local out
    out="$(mktemp -d)"
    ansible-galaxy collection build --output-path "$out" "$ROOT" >/dev/null || { rm -rf "$out"; return 1; }
    (cd "$out" && GALAXY_IMPORTER_CONFIG="$ROOT/tests/publish/galaxy-importer.cfg" \
        python -m galaxy_importer.main baremetal-lifecycle-*.tar.gz >import.log 2>&1)
    local status=$?
    cat "$out/import.log"
    if ((status)) || grep -qE '^(WARNING|ERROR)' "$out/import.log"; then
        echo "galaxy-importer: the import failed or warned (see above)" >&2
        status=1
    fi
    rm -rf "$out"
    return "$status"
}

release_notes() {
    # Every fragment and changelogs/changelog.yaml are valid antsibull-changelog input, and CHANGELOG.md is what
    # `antsibull-changelog generate` makes of them (generated again in a scratch copy and compared).
    (cd "$ROOT" && antsibull-changelog lint && antsibull-changelog lint-changelog-yaml changelogs/changelog.yaml) \
        || return 1
    local copy status=0
    copy="$(mktemp -d)"
    cp -r "$ROOT/galaxy.yml" "$ROOT/changelogs" "$ROOT/CHANGELOG.md" "$copy/"
    (cd "$copy" && antsibull-changelog generate) && diff -u "$ROOT/CHANGELOG.md" "$copy/CHANGELOG.md" || {
        echo "CHANGELOG.md is not generated from changelogs/: run 'antsibull-changelog generate'" >&2
        status=1
    }
    rm -rf "$copy"
    return "$status"
}

docsite() {
    # antsibull-docs lints the installed collection's documentation (every plugin, module and role, and the
    # guides in docs/docsite/), then builds the site people read: collection docs and guides, in a scratch directory.
    antsibull-docs lint-collection-docs --plugin-docs "$COLLECTION" || return 1
    local site status=0
    site="$(mktemp -d)"
    antsibull-docs sphinx-init --use-current --dest-dir "$site" baremetal.lifecycle >/dev/null \
        && antsibull-docs --config-file "$site/antsibull-docs.cfg" collection --use-current --cleanup everything \
            --dest-dir "$site/rst" baremetal.lifecycle >/dev/null || { rm -rf "$site"; return 1; }
    # Offline: no intersphinx inventories, so references into Ansible's own documentation (common return values,
    # ansible-core's configuration and environment variables) cannot resolve; any other warning fails the stage.
    echo 'intersphinx_mapping = {}' >>"$site/conf.py"
    sphinx-build -M html "$site/rst" "$site/build" -c "$site" -q --keep-going -w "$site/warnings.log" >/dev/null 2>&1 \
        || status=1
    grep -vE "undefined label: '[a-z_]+' \[ref.ref\]|'envvar' reference target not found: ANSIBLE_[A-Z_]+ \[ref.envvar\]" \
        "$site/warnings.log" >&2 && status=1
    for page in index docsite/guide_engine; do
        [[ -f "$site/build/html/collections/baremetal/lifecycle/$page.html" ]] || { echo "no page $page" >&2; status=1; }
    done
    rm -rf "$site"
    return "$status"
}

execution_environment() {
    # ansible-builder introspects the installed collection as it does when building an execution environment
    # that includes it: it must find meta/execution-environment.yml and install exactly requirements.txt.
    local found status=0
    found="$(mktemp)"
    ansible-builder introspect --sanitize --write-pip "$found" "$WORK/collections" || status=1
    diff -u <(grep -vE '^\s*(#|$)' "$ROOT/requirements.txt" | sort) <(sed 's/ *#.*//' "$found" | grep . | sort) || {
        echo "ansible-builder would not install the collection's requirements.txt (see meta/execution-environment.yml)" >&2
        status=1
    }
    [[ -f "$COLLECTION/meta/execution-environment.yml" ]] || { echo "meta/execution-environment.yml missing" >&2; status=1; }
    rm -f "$found"
    return "$status"
}

unit_and_integration() {
    # Two pytest-xdist workers, each with its own session Ironic: most tests wait on Ironic or on an ansible
    # process, so two of them at a time fill the machine's two cores. --dist loadfile runs a module whole on one
    # worker: its module-scoped Ironic, Keystone or split topology starts once. --no-loadscope-reorder keeps the
    # order tests/conftest.py gives the files, longest first (pytest-xdist would start the files with the most
    # tests first, and the long integration files last). The 15 slowest tests, then the 15 slowest test files
    # (tests/conftest.py's pytest_terminal_summary), are listed last: where the stage's time goes.
    (cd "$ROOT" && python -m pytest tests -n 2 --dist loadfile --no-loadscope-reorder --durations=15)
}

# Two lanes at the same time: pytest, whose two workers often wait (on Ironic's conductors, a played agent, a killed
# conductor's takeover), and the checks of the code and of what is published with Molecule, one process at a time,
# which use the cores those waits leave idle.
tests_lane() {
    stage "chromium for the browser test" "$ROOT/tests/utils/debian_package.sh" chromium /usr/bin/chromium \
        "the browser test of the fleet report"
    stage "ipmitool for the IPMI tests" "$ROOT/tests/utils/debian_package.sh" ipmitool /usr/bin/ipmitool \
        "the tests of the ipmi hardware type"
    stage "pytest" unit_and_integration
}
checks_lane() {
    stage "ansible-test sanity" sanity
    stage "import layers" import_layers
    stage "ansible-lint" lint
    stage "galaxy-importer" galaxy_import
    stage "release notes" release_notes
    stage "docsite" docsite
    stage "execution environment" execution_environment
    stage "molecule fleet" env -C "$ROOT" ANSIBLE_COLLECTIONS_PATH="$WORK/collections" molecule test -s fleet
}

lanes tests_lane checks_lane
end_of_stages
