"""Stand-in for the get-pip.py bootstrap script that ansible-test downloads from ci-files.testing.ansible.com.

ansible-test creates one virtual environment per sanity test without pip, then runs
``get_pip_<version>.py <pip options> pip==<version> --no-setuptools --no-wheel`` in it.  That host is not
reachable from every CI machine (only package registries are), so tests/run.sh installs this script in the
ansible-test cache instead: it bootstraps the pip bundled with Python (ensurepip) and then lets that pip install
the requested packages (pip==<version>) from the package index, which is what get-pip.py does too.
"""

from __future__ import annotations

import subprocess
import sys

GET_PIP_ONLY_OPTIONS = ('--no-setuptools', '--no-wheel')


def main() -> None:
    """Bootstrap pip with ensurepip, then install the requested packages with it."""
    # In a subprocess: ensurepip.bootstrap() sets PIP_CONFIG_FILE=/dev/null in os.environ, which would hide the
    # machine's pip configuration (index, certificates) from the second pip run.
    subprocess.run([sys.executable, '-m', 'ensurepip'], check=True)
    args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY_OPTIONS]
    subprocess.run([sys.executable, '-m', 'pip', 'install', '--upgrade', *args], check=True)


if __name__ == '__main__':
    main()
