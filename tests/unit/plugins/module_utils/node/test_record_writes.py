# -*- coding: utf-8 -*-
"""The writes of a node's record (node/record_writes.py): a POST whose answer was lost is found, never sent twice;
a refused write fails the node with the result it names.

The behaviour against a real Ironic is tested in tests/integration/test_node.py and test_node_lost_answers.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_writes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError


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
    client = LosingClient(AnswerLost('the answer to POST /nodes was lost'))
    body = {'name': 'n1', 'driver': 'fake-hardware'}
    node = record_writes._create_node(client, body, {'driver': 'fake-hardware'})  # pylint: disable=protected-access
    assert (node['uuid'], client.posts) == ('u-1', 1)


def test_a_node_whose_post_never_arrived_is_sent_again():
    client = LosingClient(AnswerLost('lost'), stored=None)
    client.find_node = lambda ident, fields=None: None
    node = record_writes._create_node(client, {'name': 'n1', 'driver': 'fake-hardware'},  # pylint: disable=protected-access
                                      {'driver': 'fake-hardware'})
    assert (node['uuid'], client.posts) == ('u-2', 2)


def test_a_name_taken_by_the_record_we_sent_is_no_failure_but_another_record_is():
    conflict = IronicError('Ironic refused POST /nodes (HTTP 409): name n1 exists', 409)
    same = {'name': 'n1', 'uuid': 'u-0', 'driver': 'fake-hardware', 'provision_state': 'enroll'}
    client = LosingClient(conflict, stored=same)
    assert record_writes._create_node(client, {'name': 'n1', 'driver': 'fake-hardware'},  # pylint: disable=protected-access
                                      {'driver': 'fake-hardware'}) is same
    other = dict(same, driver='ipmi')
    with pytest.raises(IronicError, match='409'):
        record_writes._create_node(LosingClient(conflict, stored=other),  # pylint: disable=protected-access
                                   {'name': 'n1', 'driver': 'fake-hardware'}, {'driver': 'fake-hardware'})


def test_a_refused_write_fails_with_the_given_result_and_a_lost_answer_passes_unchanged():
    with pytest.raises(record.NodeError) as refused:
        with record.when_refused(record_writes.NOTHING_CREATED):
            raise IronicError('Ironic refused POST /nodes (HTTP 400): no such trait', 400)
    assert 'no such trait' in str(refused.value) and refused.value.result == record_writes.NOTHING_CREATED
    lost = AnswerLost('the answer to POST /nodes was lost')
    with pytest.raises(AnswerLost) as passed:
        with record.when_refused(record_writes.NOTHING_CREATED):
            raise lost
    assert passed.value is lost and passed.value.result == {}
