# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How baremetal_hardware turns its options into one HardwareDeclaration per node, and which values it scrubs."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import targets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as hardware

PARAMS = dict(node=None, nodes=None, select=None, bios_settings={'ProcTurboMode': 'Disabled'}, raid=None,
              firmware=[{'component': 'bmc', 'version': '2', 'url': 'http://127.0.0.1/b', 'wait': None}],
              apply='cleaning', allow_destructive=False, allow_reboot=False)


def hardware_requests(**params):
    """(ident, HardwareDeclaration) of each node, as baremetal_hardware makes them of its options."""
    params = dict(PARAMS, **params)
    task = dict((key, params[key]) for key in hardware.DECLARATION_KEYS)
    return [(target.ident, hardware.declaration_of(target.settings))
            for target in targets(None, params, task, hardware.ELEMENT_TYPES)]


def test_a_nodes_element_overrides_the_task_options_for_that_node_only():
    requests = hardware_requests(nodes=['a', {'node': 'b', 'raid': {}, 'apply': 'never'}])
    (first, a), (second, b) = requests
    assert (first, second) == ('a', 'b')
    assert a.bios_settings == b.bios_settings == {'ProcTurboMode': 'Disabled'}
    assert (a.raid, a.apply) == (None, 'cleaning') and (b.raid, b.apply) == ({}, 'never')
    # suboptions Ansible filled with null are not passed on to the firmware step
    assert a.firmware == [{'component': 'bmc', 'version': '2', 'url': 'http://127.0.0.1/b'}]


def test_an_unknown_key_in_a_nodes_element_is_named():
    with pytest.raises(BaremetalError) as error:
        hardware_requests(nodes=[{'node': 'b', 'bios': {}}])
    assert 'nodes[0] must be' in str(error.value) and 'got keys bios, node' in str(error.value)


def test_a_wrong_type_in_a_nodes_element_is_named():
    with pytest.raises(BaremetalError, match=r"nodes\[1\]\.apply must be one of cleaning, servicing, never, not 'now'"):
        hardware_requests(nodes=['a', {'node': 'b', 'apply': 'now'}])


def test_password_like_bios_values_are_scrubbed_wherever_they_are_declared():
    params = dict(PARAMS, bios_settings={'AdminPassword': 'top'}, nodes=[{'node': 'b', 'bios_settings': {
        'SetupPwd': 'inner', 'ProcTurboMode': 'Enabled'}}, 'c'])
    assert secrets.no_log_values(params) >= set(['top', 'inner'])
