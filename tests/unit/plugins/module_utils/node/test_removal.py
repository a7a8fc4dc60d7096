# -*- coding: utf-8 -*-
"""Deleting the nodes a task declares absent (node/removal.py): with keep_workload, maintenance then DELETE and never
a provision move; without, every node that must first be brought to manageable moves in one run of the engine."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import removal
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options


# -- state: absent with keep_workload: maintenance, then DELETE, never a provision move ---------------------------

class RecordingClient(object):
    """Holds one node and records every write; any provision request fails the test."""

    poll_fields = ('uuid', 'name', 'provision_state', 'target_provision_state')
    release = None  # the newest

    def __init__(self, delete_refused=None, **node):
        self.node = dict({'uuid': 'u-1', 'name': 'n1', 'provision_state': 'active', 'target_provision_state': None,
                          'maintenance': False, 'maintenance_reason': None, 'protected': False, 'driver': 'fake-hardware'},
                         **node)
        self.delete_refused = delete_refused
        self.writes = []

    def find_node(self, ident, fields=None):
        return dict(self.node)

    def list_ports(self, **query):
        return [{'uuid': 'p-1', 'address': '52:54:00:00:00:01', 'node_uuid': 'u-1'}]

    def set_maintenance(self, ident, reason=None, retry_busy=True):
        self.writes.append(('PUT maintenance', ident, reason))

    def delete_node(self, ident, retry_busy=True):
        self.writes.append(('DELETE node', ident))
        if self.delete_refused:
            raise self.delete_refused

    def delete_port(self, uuid, retry_busy=True):
        self.writes.append(('DELETE port', uuid))

    def set_provision_state(self, ident, verb, **arguments):
        raise AssertionError('keep_workload sent the provision verb %s' % verb)


def absent(client, check_mode=False, keep_workload=True):
    return removal.remove_nodes(client, [Declaration('n1', state='absent', keep_workload=keep_workload)], check_mode, 60)[0]


@pytest.mark.parametrize('state', ['active', 'deploy failed', 'available', 'rescue', 'clean failed'])
def test_keep_workload_sets_maintenance_then_deletes_the_record_without_a_provision_move(state):
    client = RecordingClient(provision_state=state)
    result = absent(client)
    assert client.writes == [('PUT maintenance', 'u-1', removal.DETACH_REASON), ('DELETE node', 'u-1')]
    assert result['changed'] and result['plan'] == [] and result['transitions'] == []
    assert result['detach'] == {'provision_state': state, 'maintenance_set': True,
                                'maintenance_reason': removal.DETACH_REASON}
    assert result['diff']['after'] == {} and result['diff']['before']['name'] == 'n1'


def test_keep_workload_in_check_mode_writes_nothing_and_says_what_it_would_do():
    client = RecordingClient()
    result = absent(client, check_mode=True)
    assert client.writes == []
    assert result['changed'] and result['plan'] == []
    assert result['detach'] == {'provision_state': 'active', 'maintenance_set': True,
                                'maintenance_reason': removal.DETACH_REASON}


def test_keep_workload_deletes_a_node_already_in_maintenance_or_deletable_as_it_is_without_setting_maintenance():
    in_maintenance = RecordingClient(maintenance=True, maintenance_reason='disk swap')
    assert absent(in_maintenance)['detach'] == {'provision_state': 'active', 'maintenance_set': False,
                                                'maintenance_reason': 'disk swap'}
    assert in_maintenance.writes == [('DELETE node', 'u-1')]
    manageable = RecordingClient(provision_state='manageable')
    assert absent(manageable)['detach']['maintenance_set'] is False
    assert manageable.writes == [('DELETE node', 'u-1')]


def test_keep_workload_refuses_a_protected_node_for_the_task_before_any_write():
    client = RecordingClient(protected=True, protected_reason='prod db')
    with pytest.raises(NodeError, match='node n1 cannot be deleted: Ironic deletes no protected node, and it is '
                                        'protected. Set protected: false'):
        absent(client)
    assert client.writes == []


@pytest.mark.parametrize('node, message', [
    ({'provision_state': 'deploying', 'target_provision_state': 'active'}, 'node n1 is moving \\(deploying'),
    ({'provision_state': 'active', 'target_provision_state': 'deleted'}, 'node n1 is moving'),
])
def test_keep_workload_refuses_before_any_write_what_ironic_would_refuse_or_a_node_in_a_move(node, message):
    client = RecordingClient(**node)
    assert re.search(message, absent(client)['error'])
    assert client.writes == []


def test_a_refused_delete_after_maintenance_says_the_node_is_left_in_maintenance_and_changed():
    client = RecordingClient(delete_refused=IronicError('Ironic refused DELETE (HTTP 409): locked', 409))
    failed = absent(client)
    assert re.search('locked.*left in maintenance, its workload untouched', failed['error'])
    assert failed['changed'] is True and failed['detach']['maintenance_set'] is True


class Job(object):
    """What converge returns for one node: it reached manageable (or, with error, did not)."""

    def __init__(self, uuid, error=None):
        self.uuid = uuid
        self.error = error

    def result(self):
        return {'plan': [{'verb': 'manage'}], 'transitions': [], 'changed': True, 'error': self.error}


class Fleet(RecordingClient):
    """Several nodes, each found by name."""

    def __init__(self, nodes):
        super(Fleet, self).__init__()
        self.nodes = nodes

    def find_node(self, ident, fields=None):
        return next((dict(node) for node in self.nodes if node['name'] == ident), None)

    def list_nodes(self, fields=None, first=None, **filters):
        return [dict(node) for node in self.nodes], True

    def count_nodes(self, nodes):
        return nodes

    def list_ports(self, node_uuid=None, **query):
        return [{'uuid': 'p-' + node_uuid, 'address': '52:54:00:00:00:01', 'node_uuid': node_uuid}]


def test_the_nodes_that_must_move_before_their_delete_move_in_one_run_of_the_engine(monkeypatch):
    nodes = [{'uuid': 'u-%d' % index, 'name': 'n%d' % index, 'provision_state': state, 'maintenance': False}
             for index, state in enumerate(['active', 'available', 'manageable', 'active'])]
    runs = []

    def converge(client, targets, **options):
        runs.append([(target.ident, target.state, target.options.allow_destructive) for target in targets])
        return [Job(target.ident, 'deploy stuck' if target.ident == 'u-3' else None) for target in targets], []

    monkeypatch.setattr(removal, 'converge', converge)
    client = Fleet(nodes)
    declarations = [Declaration(node['name'], state='absent', options=Options(allow_destructive=True)) for node in nodes]
    declarations.append(Declaration('gone', state='absent'))
    results = removal.remove_nodes(client, declarations, False, 60, concurrency=2)
    assert runs == [[('u-0', 'manageable', True), ('u-1', 'manageable', True), ('u-3', 'manageable', True)]]
    assert [result['error'] for result in results[:3]] == [None] * 3 and results[4]['changed'] is False
    assert results[3]['error'].startswith('deploy stuck Ironic deletes nodes only in')
    assert [result['name'] for result in results] == ['n0', 'n1', 'n2', 'n3', 'gone']
    # Ironic deletes a node's ports with the node: none is deleted ahead, so a refused DELETE leaves them.
    assert sorted(client.writes) == [('DELETE node', 'u-0'), ('DELETE node', 'u-1'), ('DELETE node', 'u-2')]


def test_a_delete_ironic_would_refuse_fails_the_task_before_any_node_moves(monkeypatch):
    def converge(client, targets, **options):
        raise AssertionError('a node moved')

    monkeypatch.setattr(removal, 'converge', converge)
    client = Fleet([{'uuid': 'u-0', 'name': 'n0', 'provision_state': 'active', 'maintenance': False},
                    {'uuid': 'u-1', 'name': 'n1', 'provision_state': 'manageable', 'maintenance': False,
                     'protected': True}])
    declarations = [Declaration(name, state='absent', options=Options(allow_destructive=True)) for name in ('n0', 'n1')]
    with pytest.raises(NodeError, match='node n1 cannot be deleted: Ironic deletes no protected node'):
        removal.remove_nodes(client, declarations, False, 60)
    assert client.writes == []
