# -*- coding: utf-8 -*-
"""The writer half of baremetal_node (node/writer.py): a node's change applied, its BMC checked after a rotated
secret.

The behaviour against a real Ironic is tested in tests/integration/test_node.py and test_node_lost_answers.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import writer as node_utils
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change, NodeError


class RotatingClient(object):
    """Applies a PATCH, and answers the BMC check with a refusal: what a rotation to a wrong password meets."""

    def __init__(self):
        self.asked = []

    def update_node(self, ident, patch, reset_interfaces=False):
        self.asked.append('PATCH')
        return {'uuid': ident, 'name': 'n1', 'driver': 'redfish', 'driver_info': {'redfish_password': '******'}}

    def validate_node(self, ident):
        self.asked.append('validate')
        return {'management': {'result': True}, 'power': {'result': True}}

    def get_boot_device(self, ident):
        self.asked.append('boot_device')
        raise IronicError('Ironic refused GET /v1/nodes/u-1/management/boot_device (HTTP 500): returned '
                          'code 401', 500)


def rotation():
    node = {'uuid': 'u-1', 'name': 'n1', 'driver': 'redfish', 'driver_info': {'redfish_password': '******'}}
    return Change(Declaration('n1', declared={'driver_info': {'redfish_password': 'new'}}), node, [], send_secrets=True)


def test_a_rotated_secret_is_checked_right_after_its_write_and_a_refusal_fails_the_node_as_written():
    client = RotatingClient()
    with pytest.raises(NodeError, match='node n1: Ironic cannot use its BMC') as failed:
        node_utils.apply_change(client, rotation(), False)
    assert client.asked == ['PATCH', 'validate', 'boot_device']
    assert failed.value.result['changed'] is True and failed.value.result['bmc_verified'] is False


def test_verify_bmc_false_writes_without_asking_the_bmc():
    client = RotatingClient()
    assert node_utils.apply_change(client, rotation(), False, verify_bmc=False)['bmc_verified'] is None
    assert client.asked == ['PATCH']
