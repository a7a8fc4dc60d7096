# -*- coding: utf-8 -*-
"""The writer half of baremetal_node (node/writer.py): a node's change applied, its BMC checked after a rotated
secret.

The behaviour against a real Ironic is tested in tests/integration/test_node.py and test_node_lost_answers.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import writer as node_utils
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import POLL_MAX_DELAY
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, Locked
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change, NodeError

from ..common.fake_clock import FakeClock


class RotatingClient(object):
    """Applies a PATCH, and answers the BMC check with a refusal: what a rotation to a wrong password meets."""

    def __init__(self):
        self.asked = []

    def update_node(self, ident, patch, reset_interfaces=False, retry_busy=True):
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


class LockedClient(FakeClock):
    """A node a conductor keeps locked until ``locked_until`` (fake clock); the transport's own retries of a write
    (retry_busy) take 30 s before it answers Locked."""

    def __init__(self, locked_until):
        super(LockedClient, self).__init__()
        self.locked_until = locked_until
        self.patches = []

    def update_node(self, ident, patch, reset_interfaces=False, retry_busy=True):
        self.patches.append(self.now)
        if self.now < self.locked_until:
            if retry_busy:
                self.sleep(30)
            reason = 'Node %s is locked by host c1, please retry after the current operation is completed.' % ident
            raise Locked('Ironic refused PATCH /v1/nodes/%s (HTTP 409): %s' % (ident, reason), 409, reason)
        return {'uuid': ident, 'name': 'n1', 'driver': 'redfish', 'driver_info': {'redfish_password': '******'}}


def test_a_record_write_waits_for_a_node_a_conductor_keeps_locked_within_the_timeout():
    client = LockedClient(locked_until=40.0)
    result = node_utils.apply_change(client, rotation(), False, verify_bmc=False, timeout=300, clock=client.clock,
                                     sleep=client.sleep)
    assert result['changed'] is True and result['error'] is None
    assert 40 <= client.now <= 40 + POLL_MAX_DELAY  # sent again at the poll's pace, taken once the lock is gone


def test_a_record_write_locked_past_the_timeout_fails_naming_the_node_the_write_and_the_lock():
    client = LockedClient(locked_until=float('inf'))
    with pytest.raises(NodeError) as failed:
        node_utils.apply_change(client, rotation(), False, verify_bmc=False, timeout=300, clock=client.clock,
                                sleep=client.sleep)
    assert str(failed.value) == (
        "node n1: updating its driver_info never went through: a conductor kept the node locked until the timeout "
        "(300 s) passed (Ironic's latest answer: Node u-1 is locked by host c1, please retry after the current "
        "operation is completed). It is at work on the node, often waiting for a slow BMC: raise timeout, or look at "
        "the conductor's log.")
    assert failed.value.result['changed'] is False
    assert 300 <= client.now <= 300 + POLL_MAX_DELAY
