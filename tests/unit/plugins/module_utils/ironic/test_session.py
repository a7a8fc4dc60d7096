# -*- coding: utf-8 -*-
"""The auth session over real HTTP against a scripted server on loopback: the negotiated microversion, the
server's release, pagination."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient

from .scripted import ScriptedIronic


def test_the_highest_common_microversion_is_sent(server):
    client = IronicClient(server.endpoint)
    server.on('GET', '/v1/nodes/n1', (200, {'uuid': 'n1'}))
    client.get_node('n1')
    assert server.requests[-1][2] == '1.115'


def test_list_follows_pagination_with_a_marker(server):
    first = [{'uuid': 'u%d' % index} for index in range(3)]
    server.on('GET', '/v1/nodes', (200, {'nodes': first, 'next': 'http://x/v1/nodes?marker=u2'}),
              (200, {'nodes': [{'uuid': 'u3'}]}))
    nodes = IronicClient(server.endpoint).list_nodes(fields=('uuid',), provision_state='available')
    assert [node['uuid'] for node in nodes] == ['u0', 'u1', 'u2', 'u3']
    second_page = server.requests[-1][1]
    assert 'marker=u2' in second_page and 'provision_state=available' in second_page


@pytest.mark.parametrize('max_version, version, release, words', [
    ('1.90', (1, 90), (24, 1), 'Ironic 24.1 (API 1.90)'),
    ('1.101', (1, 101), (32, 0), 'Ironic 32.0 or 32.1 (API 1.101)'),
    ('1.120', (1, 115), (39, 0), 'Ironic newer than 39.0 (API 1.120)'),
])
def test_the_servers_release_is_read_from_its_newest_api_version_with_one_request(max_version, version, release, words):
    server = ScriptedIronic(max_version=max_version)
    try:
        client = IronicClient(server.endpoint)
        assert (client.version, client.release, client.describe_server()) == (version, release, words)
        assert client.server_version == capabilities.parse_version(max_version) and client.api_calls == 1
    finally:
        server.close()
