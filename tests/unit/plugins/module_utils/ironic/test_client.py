# -*- coding: utf-8 -*-
"""The client's polls and node views over real HTTP against a scripted server on loopback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import client as _ironic
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import POLL_LIST_ALL_RATIO, IronicClient

from .scripted import ScriptedIronic, ironic_error

# The states a poll may list nodes by (the engine passes those the conductor moves a node on from).
TRANSIENT_STATES = frozenset(('cleaning', 'deploying'))


def test_polls_read_in_proportion_to_the_nodes_in_play(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': [{'uuid': 'a', 'provision_state': 'cleaning'}]}))
    server.on('GET', '/v1/nodes/b', (200, {'uuid': 'b', 'provision_state': 'available'}))
    server.on('GET', '/v1/nodes/c', (200, {'uuid': 'c', 'provision_state': 'deploying'}))
    server.on('GET', '/v1/nodes/d', (404, ironic_error('Node d could not be found.')))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'a': {'provision_state': 'cleaning'}, 'b': {'provision_state': 'cleaning'},
                                'c': {'provision_state': 'deploying'}, 'd': {'provision_state': 'manageable'}},
                               TRANSIENT_STATES)
    assert sorted(latest) == ['a', 'b', 'c']  # d is gone
    paths = [request[1] for request in server.requests[1:]]
    lists = [path for path in paths if path.startswith('/v1/nodes?')]
    assert len(paths) == 4 and len(lists) == 1 and 'provision_state=cleaning' in lists[0]  # a list, GETs of b, c, d


@pytest.mark.parametrize('held, lists_all', [(POLL_LIST_ALL_RATIO * 2, True), (POLL_LIST_ALL_RATIO * 2 + 1, False)])
def test_polls_list_everything_while_ironic_holds_at_most_the_ratio_of_nodes_per_node_polled(server, held, lists_all):
    nodes = [{'uuid': 'u%d' % index, 'provision_state': 'manageable'} for index in range(held)]
    server.on('GET', '/v1/nodes', (200, {'nodes': nodes}))
    for node in nodes[:2]:
        server.on('GET', '/v1/nodes/%s' % node['uuid'], (200, node))
    client = IronicClient(server.endpoint)
    _nodes, complete = client.list_nodes(fields=('uuid',), first=held + 1)
    assert complete and client.node_count is None  # a list learns nothing by itself: its caller says what it read
    client.count_nodes(_nodes)
    assert client.node_count == held
    # Both were just sent a verb from a stable state: neither is in a list of a transient state.
    latest = client.poll_nodes({'u0': {'provision_state': 'enroll'}, 'u1': {'provision_state': 'enroll'}},
                               TRANSIENT_STATES)
    assert sorted(latest) == ['u0', 'u1']
    polls = [request[1].split('?')[0] for request in server.requests[2:]]
    assert polls == (['/v1/nodes'] if lists_all else ['/v1/nodes/u0', '/v1/nodes/u1'])


@pytest.mark.parametrize('max_version, absent', [('1.94', {'disable_power_off', 'health'}), ('1.108', {'health'}),
                                                 ('1.115', set())])
def test_a_field_newer_than_the_server_is_never_requested_and_is_absent_from_views(max_version, absent):
    server = ScriptedIronic(max_version=max_version)
    try:
        answer = dict((field, None) for field in _ironic.NODE_SUMMARY_FIELDS if field not in absent)
        server.on('GET', '/v1/nodes/n1', (200, answer))
        node = IronicClient(server.endpoint).get_node('n1', _ironic.NODE_SUMMARY_FIELDS)
        requested = set(server.requests[-1][1].split('fields=')[1].replace('%2C', ',').split(','))
        assert requested == set(_ironic.NODE_SUMMARY_FIELDS) - absent
        assert set(_ironic.summarize_node(node)) == set(_ironic.NODE_SUMMARY_FIELDS) - absent
    finally:
        server.close()


def test_conductors_are_read_over_the_tasks_reads_and_none_before_api_1_49(server):
    server.on('GET', '/v1/conductors',
              (200, {'conductors': [{'hostname': 'c1', 'conductor_group': '', 'alive': False, 'updated_at': 'T0'},
                                    {'hostname': 'c2', 'conductor_group': '', 'alive': True, 'updated_at': 'T0'}]}),
              (200, {'conductors': [{'hostname': 'c1', 'conductor_group': '', 'alive': False, 'updated_at': 'T0'},
                                    {'hostname': 'c2', 'conductor_group': '', 'alive': True, 'updated_at': 'T5'}]}))
    client = IronicClient(server.endpoint)
    # c1 is dead once c2's heartbeat was seen to advance (_conductors.ConductorWatch): one watch per client.
    assert [client.conductors()['c1']['dead'] for _read in range(2)] == [False, True]
    assert server.requests[-1][2] == '1.115' and 'updated_at' in server.requests[-1][1]

    old = ScriptedIronic(max_version='1.48')
    try:
        assert IronicClient(old.endpoint).conductors() == {}
        assert [request[1] for request in old.requests] == ['/']
    finally:
        old.close()
