# -*- coding: utf-8 -*-
"""The node endpoints over real HTTP against a scripted server on loopback: what an older API lacks, inventory, history."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import transport as _transport
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.nodes import failure_reason
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .scripted import ScriptedIronic, ironic_error


def test_a_verb_the_server_is_too_old_for_names_the_version_it_needs():
    old = ScriptedIronic(max_version='1.16')
    try:
        client = IronicClient(old.endpoint)
        with pytest.raises(IronicError) as caught:
            client.set_provision_state('n1', 'adopt')
        assert "the 'adopt' verb needs Ironic API 1.17 or newer; this server supports up to 1.16" in str(caught.value)
        assert [request[0] for request in old.requests] == ['GET']  # nothing was sent to the node
    finally:
        old.close()


def test_a_field_the_server_is_too_old_for_names_the_version_it_needs():
    old = ScriptedIronic(max_version='1.60')
    try:
        with pytest.raises(IronicError) as caught:
            IronicClient(old.endpoint).set_provision_state('n1', 'active', deploy_steps=[{'step': 'x'}])
        assert 'deploy_steps needs Ironic API 1.69 or newer' in str(caught.value)
    finally:
        old.close()


def test_a_config_drive_dictionary_needs_the_version_that_builds_it():
    old = ScriptedIronic(max_version='1.55')
    try:
        old.on('PUT', '/v1/nodes/n1/states/provision', (202, None))
        client = IronicClient(old.endpoint)
        client.set_provision_state('n1', 'active', configdrive='http://127.0.0.1:9/configdrive.iso')
        with pytest.raises(IronicError) as caught:
            client.set_provision_state('n1', 'active', configdrive={'user_data': '#cloud-config'})
        assert 'a config_drive dictionary needs Ironic API 1.56 or newer' in str(caught.value)
    finally:
        old.close()


def test_a_conductor_group_filter_is_sent_as_ironic_stores_groups(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': []}))
    IronicClient(server.endpoint).list_nodes(fields=('uuid',), conductor_group='Rack1')
    assert 'conductor_group=rack1' in server.requests[-1][1]


def test_servicing_on_a_server_before_api_1_87_names_the_version_and_sends_nothing():
    old = ScriptedIronic(max_version='1.86')
    try:
        with pytest.raises(IronicError) as caught:
            IronicClient(old.endpoint).set_provision_state('n1', 'service', service_steps=[{'step': 'x'}])
        assert '1.87' in str(caught.value) and "'service' verb" in str(caught.value)
        assert [request[0] for request in old.requests] == ['GET']
    finally:
        old.close()


@pytest.mark.parametrize('max_version, answers, expected', [
    ('1.115', [(200, {'inventory': {'cpu': {'count': 8}}, 'plugin_data': {'secret': 'x'}})], {'cpu': {'count': 8}}),
    ('1.115', [(404, ironic_error('Node inventory record for node 2 could not be found.'))], None),
    ('1.80', [], None),  # no inventory endpoint before 1.81: not even asked
])
def test_the_inventory_is_read_where_ironic_keeps_one(max_version, answers, expected):
    scripted = ScriptedIronic(max_version=max_version)
    try:
        if answers:
            scripted.on('GET', '/v1/nodes/n1/inventory', *answers)
        assert IronicClient(scripted.endpoint).get_inventory('n1') == expected
        assert len([request for request in scripted.requests if 'inventory' in request[1]]) == len(answers)
    finally:
        scripted.close()


NO_INVENTORY = 'Node inventory record for node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 could not be found.'


def test_the_stored_inventory_comes_with_its_plugin_data(server):
    stored = {'inventory': {'cpu': {'count': 8}}, 'plugin_data': {'root_disk': {'name': '/dev/sda'}}}
    server.on('GET', '/v1/nodes/n1/inventory', (200, stored))
    assert IronicClient(server.endpoint).stored_inventory('n1') == dict(stored, inventory_note=None)
    assert server.requests[-1][1:3] == ('/v1/nodes/n1/inventory', '1.115')


def test_no_stored_inventory_is_said_in_ironics_own_words(server):
    # Ironic answers so for a node never inspected, and for every node when its [inventory]data_backend is none.
    server.on('GET', '/v1/nodes/n1/inventory', (404, ironic_error(NO_INVENTORY)))
    assert IronicClient(server.endpoint).stored_inventory('n1') == {
        'inventory': None, 'plugin_data': None, 'inventory_note': NO_INVENTORY}


def test_a_node_gone_is_no_missing_inventory(server):
    server.on('GET', '/v1/nodes/n1/inventory', (404, ironic_error('Node n1 could not be found.')))
    with pytest.raises(_transport.NotFound, match='Node n1 could not be found'):
        IronicClient(server.endpoint).stored_inventory('n1')


def test_the_stored_inventory_before_api_1_81_names_both_versions_and_is_not_asked():
    old = ScriptedIronic(max_version='1.80')
    try:
        with pytest.raises(IronicError, match='inventory needs Ironic API 1.81 or newer; this server supports up to 1.80'):
            IronicClient(old.endpoint).stored_inventory('n1')
        assert [request[1] for request in old.requests] == ['/']
    finally:
        old.close()


def test_node_history_is_the_latest_events_oldest_first(server):
    server.on('GET', '/v1/nodes/n1/history', (200, {'history': [{'event': 'new'}, {'event': 'old'}]}))
    client = IronicClient(server.endpoint)
    assert [event['event'] for event in client.node_history('n1', 2)] == ['old', 'new']
    assert 'sort_dir=desc' in server.requests[-1][1] and 'limit=2' in server.requests[-1][1]
    client._server_version = (1, 77)
    assert client.node_history('n1', 2) == []


def test_the_whole_history_follows_pagination_oldest_first(server):
    server.on('GET', '/v1/nodes/n1/history',
              (200, {'history': [{'uuid': 'e1'}, {'uuid': 'e2'}], 'next': 'http://x/v1/nodes/n1/history?marker=e2'}),
              (200, {'history': [{'uuid': 'e3'}]}))
    assert [event['uuid'] for event in IronicClient(server.endpoint).whole_node_history('n1')] == ['e1', 'e2', 'e3']
    pages = [request[1] for request in server.requests if request[1].startswith('/v1/nodes/n1/history')]
    assert len(pages) == 2 and 'detail=true' in pages[0] and 'marker=e2' in pages[1]


def test_a_failure_reason_is_the_last_error_and_the_history_is_not_read(server):
    assert failure_reason(IronicClient(server.endpoint), {'uuid': 'n1', 'last_error': 'Deploy step failed'}) == (
        'Deploy step failed')
    assert not [request for request in server.requests if 'history' in request[1]]


def test_a_failure_reason_ironic_cleared_is_the_newest_error_its_history_keeps(server):
    server.on('GET', '/v1/nodes/n1/history', (200, {'history': [
        {'created_at': '2026-11-29T08:03:53', 'severity': 'INFO', 'event': 'not an error'},
        {'created_at': '2026-11-29T08:03:51', 'severity': 'ERROR', 'event': 'Deploy step deploy.write_image failed '},
        {'created_at': '2026-11-28T10:00:00', 'severity': 'ERROR', 'event': 'an older error'}]}))
    assert failure_reason(IronicClient(server.endpoint), {'uuid': 'n1', 'last_error': None}) == (
        'Deploy step deploy.write_image failed (recorded in its history at 2026-11-29T08:03:51; Ironic has since '
        'cleared its last_error)')


@pytest.mark.parametrize('answer', [(200, {'history': [{'severity': 'INFO', 'event': 'powered on'}]}),
                                    (200, {'history': []}), (500, ironic_error('database unavailable'))])
def test_a_failure_reason_is_none_when_the_history_keeps_no_error_or_cannot_be_read(server, answer):
    server.on('GET', '/v1/nodes/n1/history', answer)
    assert failure_reason(IronicClient(server.endpoint), {'uuid': 'n1', 'last_error': ''}) is None
