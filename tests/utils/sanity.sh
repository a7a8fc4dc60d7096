#!/usr/bin/env bash
# Usage: tests/utils/sanity.sh VENV HOME_DIR
# ansible-test sanity, of the ansible-core installed in VENV, on the installed collection
# (.work/collections/ansible_collections/baremetal/lifecycle), with the Python of VENV. HOME_DIR is the home
# ansible-test runs with: it keeps one virtualenv per sanity test there (under .ansible/test).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
COLLECTION="$ROOT/.work/collections/ansible_collections/baremetal/lifecycle"
venv="${1:?usage: $0 VENV HOME_DIR}"
home="${2:?usage: $0 VENV HOME_DIR}"
python_version="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# ansible-test lists the files to test with git when it finds a .git directory at or above the collection.
# The installed collection lives inside this repository's .work/ (git-ignored), so without a repository of
# its own every file would be skipped; an empty repository makes ansible-test see all the files as untracked.
# ansible-galaxy collection install --force recreates the directory, so this is redone on every run.
git -C "$COLLECTION" init -q
# The sanity tests' virtualenvs get their pip from a script ansible-test normally downloads from
# ci-files.testing.ansible.com, which CI cannot reach: pre-seed the cache with an equivalent that uses
# ensurepip plus the package index (see tests/utils/ansible_test_get_pip.py).
pip_version="$("$venv/bin/python" -c 'from types import SimpleNamespace as N
from ansible_test._internal.python_requirements import get_venv_packages as g
print(g(N(version="'"$python_version"'"))["pip"])')"
mkdir -p "$home/.ansible/test/cache"
cp "$ROOT/tests/utils/ansible_test_get_pip.py" "$home/.ansible/test/cache/get_pip_${pip_version//./_}.py"
# No --skip-test and no tests/sanity/ignore-*.txt: every applicable sanity test runs and must pass. The pip
# download cache stays the user's.
cd "$COLLECTION"
HOME="$home" PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/pip}" PATH="$venv/bin:$PATH" \
    "$venv/bin/ansible-test" sanity --python "$python_version" --color no
