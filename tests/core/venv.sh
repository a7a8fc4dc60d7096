#!/usr/bin/env bash
# Usage: tests/core/venv.sh MINOR   (MINOR: 2.16, 2.17, ...)
# Creates, once, .work/core-MINOR: a virtual environment with the newest ansible-core MINOR.x, what the collection
# needs at run time (requirements.txt) and what its unit tests need (pytest, hypothesis), with a Python that this
# ansible-core supports on the controller. Prints its path. Rerun: nothing is installed again unless what it asks for
# changed (the stamp holds the request).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
minor="${1:?usage: $0 MINOR (for example 2.16)}"
[[ $minor =~ ^2\.([0-9]+)$ ]] || { echo "error: '$minor' is not an ansible-core minor version like 2.16" >&2; exit 2; }
venv="$ROOT/.work/core-$minor"
next="2.$((BASH_REMATCH[1] + 1))"

# The controller Pythons of each ansible-core, the first found is used: 3.11 (the project's) where it is supported.
case "$minor" in
    2.16|2.17) pythons="3.11 3.12 3.10" ;;
    2.18|2.19) pythons="3.11 3.12 3.13" ;;
    *) pythons="3.12 3.13 3.14" ;;
esac

find_python() {
    local version candidate
    for version in $pythons; do
        # On PATH, then any pyenv installation (its shims answer only for the selected versions).
        for candidate in "python$version" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version"*/bin/"python$version"; do
            if "$candidate" -c 'import sys, venv' >/dev/null 2>&1; then
                echo "$candidate"
                return 0
            fi
        done
    done
    echo "error: ansible-core $minor needs one of Python $pythons on the controller; none was found" >&2
    return 1
}

request="ansible-core>=$minor,<$next
pytest
hypothesis
$(grep -vE '^\s*(#|$)' "$ROOT/requirements.txt")"
stamp="$venv/.request"
if [[ -x $venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$request" ]]; then
    echo "$venv"
    exit 0
fi
python="$(find_python)"
rm -rf "$venv"
"$python" -m venv "$venv"
mapfile -t packages <<<"$request"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" >&2
echo "$request" >"$stamp"
echo "$venv"
