# -*- coding: utf-8 -*-
"""What baremetal_node_info adds to each node, over real HTTP against the scripted Ironic of ironic/scripted.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.info import FACETS, asked_facets, node_entry
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import MASK

from ..ironic.scripted import ScriptedIronic, ironic_error

NODE = {'uuid': 'n1', 'name': 'rack1-node07', 'provision_state': 'manageable'}
LINKS = [{'href': 'http://127.0.0.1/v1/nodes/n1/bios/x', 'rel': 'self'}]


@pytest.fixture
def server():
    scripted = ScriptedIronic()
    yield scripted
    scripted.close()


def script_facets(scripted, uuid='n1'):
    scripted.on('GET', '/v1/nodes/%s/inventory' % uuid, (200, {
        'inventory': {'cpu': {'count': 8}, 'bmc_address': '10.0.0.9'},
        'plugin_data': {'root_disk': {'name': '/dev/sda'}, 'bmc_password': 'plugin-pw',
                        'image_url': 'http://admin:url-pw@127.0.0.1/ipa'}}))
    scripted.on('GET', '/v1/nodes/%s/firmware' % uuid, (200, {'firmware': [
        {'component': 'bmc', 'initial_version': '1.0', 'current_version': '1.1', 'last_version_flashed': None,
         'vendor': 'Contoso', 'model': 'R1', 'serial_number': 'S1'}]}))
    scripted.on('GET', '/v1/nodes/%s/bios' % uuid, (200, {'bios': [
        {'name': 'BootPin', 'value': '4242', 'attribute_type': 'Password', 'read_only': False, 'links': LINKS},
        {'name': 'AdminPassword', 'value': 'bios-pw', 'attribute_type': 'String', 'links': LINKS},
        {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration',
         'allowable_values': ['Enabled', 'Disabled'], 'links': LINKS}]}))
    scripted.on('GET', '/v1/nodes/%s/history' % uuid, (200, {'history': [{'event': 'Node created', 'links': LINKS}]}))


def facet_requests(scripted):
    return [request[1] for request in scripted.requests if request[1] != '/']


def test_each_facet_asked_is_one_get_and_adds_what_ironic_returns_with_secrets_masked(server):
    script_facets(server)
    client = IronicClient(server.endpoint)
    entry = node_entry(client, NODE, ('uuid', 'name'), asked_facets(client, dict.fromkeys(FACETS, True)))
    assert facet_requests(server) == ['/v1/nodes/n1/history?detail=true&limit=1000', '/v1/nodes/n1/inventory',
                                      '/v1/nodes/n1/firmware', '/v1/nodes/n1/bios?detail=true']
    assert entry['inventory'] == {'cpu': {'count': 8}, 'bmc_address': '10.0.0.9'}
    assert entry['plugin_data'] == {'root_disk': {'name': '/dev/sda'}, 'bmc_password': MASK,
                                    'image_url': 'http://admin:%s@127.0.0.1/ipa' % MASK}
    assert entry['inventory_note'] is None
    assert entry['firmware'] == [{'component': 'bmc', 'initial_version': '1.0', 'current_version': '1.1',
                                  'last_version_flashed': None, 'vendor': 'Contoso', 'model': 'R1',
                                  'serial_number': 'S1'}]
    assert entry['bios'] == [
        {'name': 'BootPin', 'value': MASK, 'attribute_type': 'Password', 'read_only': False},
        {'name': 'AdminPassword', 'value': MASK, 'attribute_type': 'String'},
        {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration',
         'allowable_values': ['Enabled', 'Disabled']}]
    assert entry['history'] == [{'event': 'Node created'}]
    for secret in ('plugin-pw', 'url-pw', '4242', 'bios-pw'):
        assert secret not in str(entry)


def test_no_facet_asked_reads_nothing_beside_the_node(server):
    script_facets(server)
    client = IronicClient(server.endpoint)
    entry = node_entry(client, NODE, ('uuid', 'name'), asked_facets(client, dict.fromkeys(FACETS, False)))
    assert entry == {'uuid': 'n1', 'name': 'rack1-node07'}
    assert facet_requests(server) == []


def test_reads_are_one_per_node_for_the_facet_asked(server):
    for uuid in ('n1', 'n2', 'n3'):
        script_facets(server, uuid)
    client = IronicClient(server.endpoint)
    asked = asked_facets(client, {'firmware': True})
    for uuid in ('n1', 'n2', 'n3'):
        assert set(node_entry(client, {'uuid': uuid}, ('uuid',), asked)) == {'uuid', 'firmware'}
    assert facet_requests(server) == ['/v1/nodes/n1/firmware', '/v1/nodes/n2/firmware', '/v1/nodes/n3/firmware']


def test_a_node_without_a_stored_inventory_says_why_instead_of_failing(server):
    reason = 'Node inventory record for node n1 could not be found.'
    server.on('GET', '/v1/nodes/n1/inventory', (404, ironic_error(reason)))
    client = IronicClient(server.endpoint)
    entry = node_entry(client, NODE, ('uuid',), asked_facets(client, {'inventory': True}))
    assert entry == {'uuid': 'n1', 'inventory': None, 'plugin_data': None, 'inventory_note': reason}


@pytest.mark.parametrize('facet, needed, server_version', [
    ('inventory', '1.81', '1.80'),
    ('firmware', '1.86', '1.85'),
    ('bios', '1.40', '1.39'),
    ('history', '1.78', '1.77'),
])
def test_a_facet_the_api_is_too_old_for_is_refused_naming_both_versions_before_any_read(facet, needed, server_version):
    old = ScriptedIronic(max_version=server_version)
    try:
        with pytest.raises(IronicError) as caught:
            asked_facets(IronicClient(old.endpoint), {facet: True})
        expected = '%s needs Ironic API %s or newer; this server supports up to %s' % (facet, needed, server_version)
        assert expected in str(caught.value)
        assert facet_requests(old) == []
    finally:
        old.close()


def test_bios_from_1_40_to_1_73_is_the_settings_without_their_registry():
    old = ScriptedIronic(max_version='1.73')
    try:
        old.on('GET', '/v1/nodes/n1/bios', (200, {'bios': [{'name': 'SetupPwd', 'value': 'x', 'links': LINKS}]}))
        client = IronicClient(old.endpoint)
        assert node_entry(client, NODE, ('uuid',), asked_facets(client, {'bios': True})) == {
            'uuid': 'n1', 'bios': [{'name': 'SetupPwd', 'value': MASK}]}
        assert facet_requests(old) == ['/v1/nodes/n1/bios']
    finally:
        old.close()
