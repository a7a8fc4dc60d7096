# -*- coding: utf-8 -*-
"""The writer half of baremetal_node (node/writer.py): a POST whose answer was lost is found, never sent twice;
a refused write fails the node with the result it names.

The behaviour against a real Ironic is tested in tests/integration/test_node.py and test_node_lost_answers.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import writer as node_utils
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change


class LosingClient(object):
    """A client whose first POST of a node is applied by 'Ironic' but whose answer is lost (or refused 409)."""

    def __init__(self, failure, stored=None):
        self.failure = failure
        self.stored = stored
        self.posts = 0

    def create_node(self, body):
        self.posts += 1
        if self.posts == 1:
            if self.stored is None:
                self.stored = dict(body, uuid='u-1', provision_state='enroll')
            raise self.failure
        return dict(body, uuid='u-2', provision_state='enroll')

    def find_node(self, ident, fields=None):
        return self.stored


def test_a_node_whose_answer_was_lost_is_found_by_name_and_not_created_twice():
    client = LosingClient(node_utils.AnswerLost('the answer to POST /nodes was lost'))
    body = {'name': 'n1', 'driver': 'fake-hardware'}
    node = node_utils._create_node(client, body, {'driver': 'fake-hardware'})  # pylint: disable=protected-access
    assert (node['uuid'], client.posts) == ('u-1', 1)


def test_a_node_whose_post_never_arrived_is_sent_again():
    client = LosingClient(node_utils.AnswerLost('lost'), stored=None)
    client.find_node = lambda ident, fields=None: None
    node = node_utils._create_node(client, {'name': 'n1', 'driver': 'fake-hardware'},  # pylint: disable=protected-access
                                   {'driver': 'fake-hardware'})
    assert (node['uuid'], client.posts) == ('u-2', 2)


def test_a_name_taken_by_the_record_we_sent_is_no_failure_but_another_record_is():
    conflict = node_utils.IronicError('Ironic refused POST /nodes (HTTP 409): name n1 exists', 409)
    same = {'name': 'n1', 'uuid': 'u-0', 'driver': 'fake-hardware', 'provision_state': 'enroll'}
    client = LosingClient(conflict, stored=same)
    assert node_utils._create_node(client, {'name': 'n1', 'driver': 'fake-hardware'},  # pylint: disable=protected-access
                                   {'driver': 'fake-hardware'}) is same
    other = dict(same, driver='ipmi')
    with pytest.raises(node_utils.IronicError, match='409'):
        node_utils._create_node(LosingClient(conflict, stored=other),  # pylint: disable=protected-access
                                {'name': 'n1', 'driver': 'fake-hardware'}, {'driver': 'fake-hardware'})


def test_a_refused_write_fails_with_the_given_result_and_a_lost_answer_passes_unchanged():
    with pytest.raises(node_utils.NodeError) as refused:
        with record.when_refused(node_utils.NOTHING_CREATED):
            raise node_utils.IronicError('Ironic refused POST /nodes (HTTP 400): no such trait', 400)
    assert 'no such trait' in str(refused.value) and refused.value.result == node_utils.NOTHING_CREATED
    lost = node_utils.AnswerLost('the answer to POST /nodes was lost')
    with pytest.raises(node_utils.AnswerLost) as passed:
        with record.when_refused(node_utils.NOTHING_CREATED):
            raise lost
    assert passed.value is lost and passed.value.result == {}


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
        raise node_utils.IronicError('Ironic refused GET /v1/nodes/u-1/management/boot_device (HTTP 500): returned '
                                     'code 401', 500)


def rotation():
    node = {'uuid': 'u-1', 'name': 'n1', 'driver': 'redfish', 'driver_info': {'redfish_password': '******'}}
    return Change(Declaration('n1', declared={'driver_info': {'redfish_password': 'new'}}), node, [], send_secrets=True)


def test_a_rotated_secret_is_checked_right_after_its_write_and_a_refusal_fails_the_node_as_written():
    client = RotatingClient()
    with pytest.raises(node_utils.NodeError, match='node n1: Ironic cannot use its BMC') as failed:
        node_utils.apply_change(client, rotation(), False)
    assert client.asked == ['PATCH', 'validate', 'boot_device']
    assert failed.value.result['changed'] is True and failed.value.result['bmc_verified'] is False


def test_verify_bmc_false_writes_without_asking_the_bmc():
    client = RotatingClient()
    assert node_utils.apply_change(client, rotation(), False, verify_bmc=False)['bmc_verified'] is None
    assert client.asked == ['PATCH']
