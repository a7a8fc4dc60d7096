# -*- coding: utf-8 -*-
"""The client's polls and node views over real HTTP against a scripted server on loopback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
from urllib.parse import unquote

import pytest
from loopback_http import LoopbackHandler

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import client as _ironic
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import POLL_LIST_ALL_RATIO, IronicClient

from .scripted import ScriptedIronic, ironic_error

# The states a poll may list nodes by (the engine passes those the conductor moves a node on from).
TRANSIENT_STATES = frozenset(('cleaning', 'deploying'))
# Where an agent may run on a node (the engine passes its wait states).
WAIT_STATES = frozenset(('clean wait', 'wait call-back', 'service wait', 'inspect wait', 'rescue wait'))


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


def test_nodes_that_may_have_landed_are_looked_for_in_one_list_of_their_landing_state_latest_first(server):
    # u0 landed, u1 is still on its way, u2 is the only one landing in 'available', c was last seen cleaning.
    server.on('GET', '/v1/nodes', (200, {'nodes': [{'uuid': 'c', 'provision_state': 'cleaning'}]}),
              (200, {'nodes': [{'uuid': 'other', 'provision_state': 'manageable'},
                               {'uuid': 'u0', 'provision_state': 'manageable'}]}))
    server.on('GET', '/v1/nodes/u1', (200, {'uuid': 'u1', 'provision_state': 'verifying'}))
    server.on('GET', '/v1/nodes/u2', (200, {'uuid': 'u2', 'provision_state': 'available'}))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'u0': {'provision_state': 'enroll'}, 'u1': {'provision_state': 'enroll'},
                                'u2': {'provision_state': 'manageable'}, 'c': {'provision_state': 'cleaning'},
                                'c2': {'provision_state': 'cleaning'}},
                               TRANSIENT_STATES, landing={'u0': 'manageable', 'u1': 'manageable', 'u2': 'available'})
    assert latest['u0']['provision_state'] == 'manageable' and latest['u1']['provision_state'] == 'verifying'
    assert latest['u2']['provision_state'] == 'available' and 'other' not in latest
    paths = [unquote(request[1]) for request in server.requests[1:]]
    lists = [path for path in paths if path.startswith('/v1/nodes?')]
    landed = [path for path in lists if 'provision_state=manageable' in path]
    assert len(lists) == 2 and len(landed) == 1 and 'sort_key=provision_updated_at' in landed[0] and 'sort_dir=desc' in landed[0]
    assert 'limit=4' in landed[0]  # POLL_LANDED_FACTOR times the two looked for
    # Read alone: c2, which left the list of cleaning nodes for a landing not given; u1, not landed yet; u2, the only
    # one landing in 'available'.
    assert sorted(path for path in paths if path.startswith('/v1/nodes/')) == [
        '/v1/nodes/c2?fields=' + ','.join(client.poll_fields), '/v1/nodes/u1?fields=' + ','.join(client.poll_fields),
        '/v1/nodes/u2?fields=' + ','.join(client.poll_fields)]


def test_a_poll_of_100_nodes_in_an_ironic_of_1000_reads_their_landing_state_not_every_node(server):
    # The fleet role's 1,000-node round, 100 nodes in play: each just sent a verb from 'enroll' and lands in
    # 'manageable'. One list of their landing state (200 nodes) costs Ironic less than one of all 1,000.
    nodes = [{'uuid': 'u%d' % index, 'provision_state': 'manageable'} for index in range(1000)]
    server.on('GET', '/v1/nodes', (200, {'nodes': nodes}), (200, {'nodes': nodes[:200]}))
    client = IronicClient(server.endpoint)
    client.count_nodes(client.list_nodes(fields=('uuid',), first=1001)[0])
    in_play = ['u%d' % index for index in range(100)]
    latest = client.poll_nodes(dict((uuid, {'provision_state': 'enroll'}) for uuid in in_play), TRANSIENT_STATES,
                               landing=dict((uuid, 'manageable') for uuid in in_play))
    assert sorted(latest) == sorted(in_play)
    polls = [unquote(request[1]) for request in server.requests[2:]]
    assert len(polls) == 1 and 'provision_state=manageable' in polls[0] and 'limit=200' in polls[0]


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


# What Ironic records in a node's driver_internal_info while its agent works ('clean wait', Ironic 39): the
# agent's token among it, in clear as an Ironic allowed to show passwords would give it.
AGENT_TOKEN = 'agent-token-4f1b9c2e77d0'
DRIVER_INTERNAL_INFO = {'agent_secret_token': AGENT_TOKEN, 'agent_url': 'http://127.0.0.1:9999/agent',
                        'agent_version': '10.2.0', 'agent_last_heartbeat': '2026-11-28T22:04:45.387800',
                        'clean_steps': [{'interface': 'deploy', 'step': 'erase_devices', 'priority': 10}]}


def ironic_date(monkeypatch, date):
    """The scripted Ironic answers with this Date header (Ironic's clock), whatever this machine's clock says."""
    monkeypatch.setattr(LoopbackHandler, 'date_time_string', lambda self, timestamp=None: date)


def fields_asked(request):
    return set(unquote(request[1].split('fields=')[1].split('&')[0]).split(','))


def test_a_node_last_seen_in_a_wait_state_is_read_with_its_agents_heartbeat_aged_by_ironics_clock(server, monkeypatch):
    ironic_date(monkeypatch, 'Sat, 28 Nov 2026 22:04:49 GMT')
    server.on('GET', '/v1/nodes/w', (200, {'uuid': 'w', 'provision_state': 'clean wait',
                                           'driver_internal_info': DRIVER_INTERNAL_INFO}))
    server.on('GET', '/v1/nodes/c', (200, {'uuid': 'c', 'provision_state': 'cleaning'}))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'w': {'provision_state': 'clean wait'}, 'c': {'provision_state': 'cleaning'}},
                               TRANSIENT_STATES, WAIT_STATES)
    # Ironic's recorded time, and its age against Ironic's own Date (whole seconds): 3.6 s.
    assert latest['w']['agent_heartbeat'] == {'at': '2026-11-28T22:04:45.387800', 'age': 3.6}
    assert 'driver_internal_info' not in latest['w'] and 'agent_heartbeat' not in latest['c']
    asked = dict((request[1].split('?')[0], fields_asked(request)) for request in server.requests[1:])
    assert 'driver_internal_info' in asked['/v1/nodes/w'] and 'driver_internal_info' not in asked['/v1/nodes/c']


def test_the_agents_token_and_the_rest_of_driver_internal_info_are_never_kept(server, monkeypatch):
    ironic_date(monkeypatch, 'Sat, 28 Nov 2026 22:04:49 GMT')
    nodes = [{'uuid': uuid, 'provision_state': 'wait call-back', 'driver_internal_info': DRIVER_INTERNAL_INFO}
             for uuid in ('a', 'b')]
    server.on('GET', '/v1/nodes', (200, {'nodes': nodes}))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'a': {'provision_state': 'wait call-back'}, 'b': {'provision_state': 'wait call-back'}},
                               frozenset(('wait call-back',)), WAIT_STATES)
    assert sorted(latest) == ['a', 'b']
    text = json.dumps(latest)
    assert AGENT_TOKEN not in text and 'agent_url' not in text and 'clean_steps' not in text
    assert all(node['agent_heartbeat']['age'] == 3.6 for node in latest.values())


def test_a_poll_while_a_node_waits_on_its_agent_reads_by_state_never_every_nodes_driver_internal_info(server):
    nodes = [{'uuid': 'u%d' % index, 'provision_state': 'available'} for index in range(4)]
    server.on('GET', '/v1/nodes', (200, {'nodes': nodes}))
    server.on('GET', '/v1/nodes/u0', (200, dict(nodes[0], provision_state='clean wait')))
    server.on('GET', '/v1/nodes/u1', (200, dict(nodes[1], provision_state='cleaning')))
    client = IronicClient(server.endpoint)
    client.count_nodes(nodes)
    client.poll_nodes({'u0': {'provision_state': 'clean wait'}, 'u1': {'provision_state': 'cleaning'}},
                      TRANSIENT_STATES, WAIT_STATES)
    polls = [request[1].split('?')[0] for request in server.requests[1:]]
    assert sorted(polls) == ['/v1/nodes/u0', '/v1/nodes/u1']  # not the list of all 4 it reads otherwise


def test_no_heartbeat_recorded_is_no_heartbeat_and_no_date_is_no_age(server, monkeypatch):
    ironic_date(monkeypatch, '')
    server.on('GET', '/v1/nodes/w', (200, {'uuid': 'w', 'provision_state': 'clean wait',
                                           'driver_internal_info': {'agent_secret_token': AGENT_TOKEN}}))
    server.on('GET', '/v1/nodes/v', (200, {'uuid': 'v', 'provision_state': 'clean wait',
                                           'driver_internal_info': DRIVER_INTERNAL_INFO}))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'w': {'provision_state': 'clean wait'}, 'v': {'provision_state': 'clean wait'}},
                               frozenset(), WAIT_STATES)
    assert latest['w'] == {'uuid': 'w', 'provision_state': 'clean wait'}
    # Without Ironic's clock the age is not known: this machine's clock is never compared with Ironic's.
    assert latest['v']['agent_heartbeat'] == {'at': '2026-11-28T22:04:45.387800', 'age': None}


@pytest.mark.parametrize('recorded, answered, age', [
    ('2026-11-28T22:04:45.387800', '2026-11-28T22:04:49+00:00', 3.6),
    ('2026-11-28T22:04:45', '2026-11-28T22:06:45+00:00', 120.0),
    # The Date header has whole seconds: a heartbeat in the second Ironic answered is 0 s old, never less.
    ('2026-11-28T22:04:49.700000', '2026-11-28T22:04:49+00:00', 0.0),
    ('not a time', '2026-11-28T22:04:49+00:00', None),
])
def test_a_heartbeats_age_is_between_two_times_of_ironics_clock(recorded, answered, age):
    seen = _ironic.heartbeat_seen(recorded, datetime.datetime.fromisoformat(answered))
    assert seen == {'at': recorded, 'age': age}
