# -*- coding: utf-8 -*-
"""One error root: every failure of the collection carries a message and the partial result."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import errors as _errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError, MissingLibrary, import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, IronicError, NotFound)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.power import PowerError


@pytest.mark.parametrize('error_type', [IronicError, NotFound, AnswerLost, NodeError, PlanError, PowerError])
def test_every_error_of_the_collection_is_caught_by_the_one_root(error_type):
    with pytest.raises(BaremetalError) as caught:
        raise error_type('what went wrong; what to do')
    assert str(caught.value) == 'what went wrong; what to do'
    assert caught.value.result == {}


def test_the_partial_result_travels_with_the_error_and_is_a_copy():
    partial = {'changed': True, 'transitions': [{'verb': 'manage'}]}
    error = BaremetalError('refused', partial)
    partial['changed'] = False
    assert error.result == {'changed': True, 'transitions': [{'verb': 'manage'}]}


def test_a_library_is_imported_when_asked_for():
    assert import_library('json', 'json', 'reading JSON') is sys.modules['json']


def test_a_missing_library_names_the_pip_command_with_the_collections_requirements(monkeypatch):
    """On the controller (a filter, the inventory plugin) this file is read from the installed collection, beside
    its requirements.txt: the command names that file."""
    monkeypatch.setitem(sys.modules, 'jsonschema', None)
    with pytest.raises(MissingLibrary) as caught:
        import_library('jsonschema', 'jsonschema', 'validating driver_info', 'set validate_driver_info: false')
    collection = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(_errors.__file__)))))
    requirements = os.path.join(collection, 'requirements.txt')
    assert os.path.isfile(requirements)
    assert str(caught.value) == (
        "Validating driver_info needs the Python library jsonschema, which this Python (%s) cannot import. Install "
        "the collection's Python requirements into that Python: %s -m pip install -r %s. Or set "
        "validate_driver_info: false." % (sys.executable, sys.executable, requirements))
    assert isinstance(caught.value, BaremetalError)


def test_a_module_names_requirements_where_ansible_galaxy_installs_them_and_how_to_find_them(monkeypatch, tmp_path):
    """A module runs from the copy of its files that Ansible ships, without requirements.txt."""
    monkeypatch.setitem(sys.modules, 'openstack', None)
    monkeypatch.setitem(sys.modules, 'openstack.config', None)
    monkeypatch.setattr(_errors, '_REQUIREMENTS', str(tmp_path / 'requirements.txt'))
    with pytest.raises(MissingLibrary) as caught:
        import_library('openstack.config', 'openstacksdk', 'keystone authentication')
    assert str(caught.value) == (
        "Keystone authentication needs the Python library openstacksdk, which this Python (%s) cannot import. "
        "Install the collection's Python requirements into that Python: %s -m pip install -r "
        "~/.ansible/collections/ansible_collections/baremetal/lifecycle/requirements.txt (that is where "
        "ansible-galaxy installs the collection by default; 'ansible-galaxy collection list baremetal.lifecycle' "
        "shows where it is)." % (sys.executable, sys.executable))
