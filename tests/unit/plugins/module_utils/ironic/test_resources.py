# -*- coding: utf-8 -*-
"""Runbook, hardware and port endpoints over real HTTP against a scripted server on loopback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .scripted import ScriptedIronic


def test_bios_is_read_with_its_registry_where_the_api_has_one():
    for version, query in (('1.74', '/v1/nodes/n1/bios?detail=true'), ('1.73', '/v1/nodes/n1/bios')):
        scripted = ScriptedIronic(max_version=version)
        try:
            scripted.on('GET', '/v1/nodes/n1/bios', (200, {'bios': [{'name': 'A', 'value': '1'}]}))
            assert IronicClient(scripted.endpoint).get_bios('n1') == [{'name': 'A', 'value': '1'}]
            assert scripted.requests[-1][1] == query
        finally:
            scripted.close()


def test_firmware_and_bios_name_the_version_they_need():
    old = ScriptedIronic(max_version='1.39')
    try:
        client = IronicClient(old.endpoint)
        with pytest.raises(IronicError, match='firmware components needs Ironic API 1.86 or newer'):
            client.get_firmware('n1')
        with pytest.raises(IronicError, match='BIOS settings needs Ironic API 1.40 or newer'):
            client.get_bios('n1')
        assert [request[0] for request in old.requests] == ['GET']
    finally:
        old.close()


def test_target_raid_config_is_put_as_the_body(server):
    server.on('PUT', '/v1/nodes/n1/states/raid', (204, None))
    layout = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}
    IronicClient(server.endpoint).set_target_raid_config('n1', layout)
    assert server.requests[-1][0::3] == ('PUT', layout)


def test_a_node_is_found_by_the_mac_address_of_a_port_and_an_unknown_address_finds_none(server):
    server.on('GET', '/v1/ports', (200, {'ports': [{'node_uuid': 'u-7'}]}), (200, {'ports': []}))
    server.on('GET', '/v1/nodes/u-7', (200, {'uuid': 'u-7', 'name': 'rack1-node07'}))
    client = IronicClient(server.endpoint)
    assert client.find_node_by_mac('52:54:00:12:34:56', ('uuid', 'name')) == {'uuid': 'u-7', 'name': 'rack1-node07'}
    ports = [path for method, path, _version, _body in server.requests if path.startswith('/v1/ports')]
    assert 'address=52%3A54%3A00%3A12%3A34%3A56' in ports[0] and 'fields=node_uuid' in ports[0]
    assert client.find_node_by_mac('52:54:00:00:00:99') is None
