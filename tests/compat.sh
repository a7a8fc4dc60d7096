#!/usr/bin/env bash
# The smoke suite (pytest -m smoke) against Ironic releases, each installed from PyPI in a virtualenv of its own.
#
#   tests/compat.sh [--write-table] [RELEASE...]
#
# RELEASE is one of the supported releases below (default: all of them; "newest" is the Ironic of .work/ironic-venv,
# the one the full suite runs against). A missing virtualenv is created under $IRONIC_COMPAT_VENVS (default
# .work/ironic-compat) with the pinned packages. Prints one line per release; with --write-table, also writes the
# table into docs/compatibility.md (between its compat-table markers) and regenerates the docsite page made from
# it. Fails if any release fails.
# Run by `make test-compat` (every release) and by tests/run.sh (the oldest one).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/.work"
VENV="$WORK/venv"
COMPAT_VENVS="${IRONIC_COMPAT_VENVS:-$WORK/ironic-compat}"
DOC="$ROOT/docs/compatibility.md"

# release -> the pip requirements of its virtualenv: the release's newest point release, and what its own upper
# constraints pin where today's PyPI would break it.
declare -A PACKAGES=(
    [24.1]="ironic==24.1.5"
    [26.1]="ironic==26.1.6"
    [29.1]="ironic==29.1.0"
    [32.1]="ironic==32.1.0 oslo.service==4.3.0"
    [35.1]="ironic==35.1.0"
)
SUPPORTED=(24.1 26.1 29.1 32.1 35.1 newest)

write_table=false
releases=()
for argument in "$@"; do
    case "$argument" in
        --write-table) write_table=true ;;
        newest | 24.1 | 26.1 | 29.1 | 32.1 | 35.1) releases+=("$argument") ;;
        *) echo "tests/compat.sh: unknown release '$argument' (supported: ${SUPPORTED[*]})" >&2; exit 2 ;;
    esac
done
((${#releases[@]})) || releases=("${SUPPORTED[@]}")

export PATH="$VENV/bin:$PATH"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"
export PIP_DISABLE_PIP_VERSION_CHECK=1

venv_of() {
    if [[ $1 == newest ]]; then echo "$WORK/ironic-venv"; else echo "$COMPAT_VENVS/ironic-$1"; fi
}

install() {
    # The newest Ironic's virtualenv is the role's own (installed on first use by the test session).
    local release="$1" target
    target="$(venv_of "$release")"
    [[ $release == newest || -x "$target/bin/ironic" ]] && return 0
    echo "tests/compat.sh: installing ${PACKAGES[$release]} into $target"
    rm -rf "$target"
    mkdir -p "$COMPAT_VENVS"
    # shellcheck disable=SC2086  # PACKAGES holds several requirements
    "$VENV/bin/python" -m venv "$target" && "$target/bin/pip" install --quiet ${PACKAGES[$release]}
}

rows=()
failed=()
for release in "${releases[@]}"; do
    start=$SECONDS
    report="$(mktemp)"
    if install "$release"; then
        BAREMETAL_LIFECYCLE_IRONIC_VENV="$(venv_of "$release")" \
            python -m pytest "$ROOT/tests/integration" -m smoke -p no:cacheprovider -q --junitxml="$report" \
            -o junit_family=xunit2 || true
    fi
    # The junit report says what ran; the Ironic that ran is read from its virtualenv.
    row="$(python - "$report" "$(venv_of "$release")" "$release" "$((SECONDS - start))" <<'EOF'
import glob, os, re, sys
import xml.etree.ElementTree as ET
report, venv, release, seconds = sys.argv[1:]
installed = glob.glob(os.path.join(venv, 'lib', 'python*', 'site-packages', 'ironic-*.dist-info'))
version = re.sub(r'^ironic-|\.dist-info$', '', os.path.basename(installed[0])) if installed else 'not installed'
api = ''
if installed:
    source = open(os.path.join(os.path.dirname(installed[0]), 'ironic', 'api', 'controllers', 'v1', 'versions.py')).read()
    maximum = re.search(r'^MINOR_MAX_VERSION = (\w+)', source, re.M).group(1)
    api = '1.%s' % re.search(r'^%s = (\d+)' % maximum, source, re.M).group(1)
counts = dict(tests=0, failures=0, errors=0, skipped=0)
try:
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == 'testsuite' else suite.find('testsuite')
    counts = dict((key, int(suite.get(key, 0))) for key in counts)
except (ET.ParseError, OSError):
    counts['errors'] = 1
passed = counts['tests'] - counts['failures'] - counts['errors'] - counts['skipped']
verdict = 'pass' if counts['tests'] and not (counts['failures'] or counts['errors']) else 'FAIL'
print('| %s | %s | %s | %s | %d | %d | %d | %s s |' % (
    release, version, api, verdict, passed, counts['failures'] + counts['errors'], counts['skipped'], seconds))
EOF
)"
    rm -f "$report"
    echo "$row"
    rows+=("$row")
    [[ $row == *"| pass |"* ]] || failed+=("$release")
done

if $write_table; then
    python - "$DOC" "$(date -u +%Y-%m-%d)" "${rows[@]}" <<'EOF'
import re, sys
doc, day, rows = sys.argv[1], sys.argv[2], sys.argv[3:]
table = '\n'.join(['<!-- compat-table:start (written by make test-compat) -->',
                   'Smoke suite (`pytest -m smoke`) run by `make test-compat` on %s:' % day, '',
                   '| Release | Ironic | API | Result | Passed | Failed | Skipped | Time |',
                   '| --- | --- | --- | --- | --- | --- | --- | --- |'] + rows + ['<!-- compat-table:end -->'])
text = open(doc).read()
text, found = re.subn(r'<!-- compat-table:start.*?<!-- compat-table:end -->', lambda _m: table, text, flags=re.S)
if not found:
    sys.exit('%s has no compat-table markers' % doc)
open(doc, 'w').write(text)
EOF
    python "$ROOT/docs/generate_docsite.py"
fi

if ((${#failed[@]})); then
    echo "tests/compat.sh: the smoke suite failed on: ${failed[*]}" >&2
    exit 1
fi
