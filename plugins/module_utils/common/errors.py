# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one root of this collection's errors, caught once in the module base class, and the one message of a missing
Python library."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os
import sys


class BaremetalError(Exception):
    """A failure whose message says what went wrong and what to do.

    result holds what the task already did (a partial module result), so a failure in the middle
    of the work still reports it: BaremetalModule.run fails the task with both.
    """

    def __init__(self, message, result=None):
        super(BaremetalError, self).__init__(message)
        self.result = dict(result or {})


class MissingLibrary(BaremetalError):
    """A Python library of requirements.txt that the Python running the task cannot import."""


# The collection's root (.../ansible_collections/baremetal/lifecycle) when this file is read from it, on the controller
# (filters, the inventory plugin). A module runs from the copy Ansible ships to the host: no requirements.txt there.
_REQUIREMENTS = os.path.join(os.path.abspath(__file__).rsplit(os.sep + 'plugins' + os.sep, 1)[0], 'requirements.txt')
_DEFAULT_REQUIREMENTS = '~/.ansible/collections/ansible_collections/baremetal/lifecycle/requirements.txt'


def missing_library_message(package, purpose, alternative=None):
    """What to do when the Python library ``package`` (its name on PyPI) is missing: the pip command that installs
    the collection's requirements.txt into the Python that runs the module or plugin. ``purpose`` says what needs it ("validating
    driver_info"), ``alternative`` how to do without it, if there is a way."""
    if os.path.isfile(_REQUIREMENTS):
        requirements, where = _REQUIREMENTS, ''
    else:
        requirements = _DEFAULT_REQUIREMENTS
        where = (' (that is where ansible-galaxy installs the collection by default; '
                 "'ansible-galaxy collection list baremetal.lifecycle' shows where it is)")
    return ('%s needs the Python library %s, which this Python (%s) cannot import. Install the '
            "collection's Python requirements into that Python: %s -m pip install -r %s%s.%s"
            % (purpose[:1].upper() + purpose[1:], package, sys.executable, sys.executable, requirements, where,
               ' Or %s.' % alternative if alternative else ''))


def import_library(name, package, purpose, alternative=None):
    """Import the module ``name`` of the library ``package`` when a task needs it, not before; raise MissingLibrary
    (missing_library_message) when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise MissingLibrary(missing_library_message(package, purpose, alternative))
