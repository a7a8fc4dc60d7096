# -*- coding: utf-8 -*-
"""The requests for port groups and virtual media (ironic/wiring.py): the fields read on each API version, pagination,
and the API each request needs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import wiring as api
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError


class Client(IronicClient):
    """An IronicClient at a given API version whose requests are answered from a list."""

    def __init__(self, version, answers=()):
        super(Client, self).__init__('http://127.0.0.1:6385')
        self._server_version = version
        self.answers = list(answers)
        self.sent = []

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True):
        self.sent.append((method, path, body, params))
        return self.answers.pop(0) if self.answers else None


@pytest.mark.parametrize('version, fields', [
    ((1, 25), ('uuid', 'name', 'node_uuid', 'address', 'standalone_ports_supported')),
    ((1, 26), ('uuid', 'name', 'node_uuid', 'address', 'mode', 'properties', 'standalone_ports_supported')),
    ((1, 103), ('uuid', 'name', 'node_uuid', 'address', 'mode', 'properties', 'standalone_ports_supported',
                'physical_network', 'category')),
])
def test_a_port_group_is_read_with_the_fields_its_api_has(version, fields):
    assert api.group_fields(Client(version)) == fields


def test_port_groups_are_listed_page_by_page_for_one_node():
    client = Client((1, 115), [{'portgroups': [{'uuid': 'a'}], 'next': 'more'}, {'portgroups': [{'uuid': 'b'}]}])
    assert api.list_port_groups(client, 'node-uuid') == [{'uuid': 'a'}, {'uuid': 'b'}]
    assert [params['node'] for _method, _path, _body, params in client.sent] == ['node-uuid', 'node-uuid']
    assert client.sent[1][3]['marker'] == 'a'


@pytest.mark.parametrize('call, feature, version', [
    (lambda client: api.list_port_groups(client, 'n'), 'port_groups', '1.23'),
    (lambda client: api.virtual_media(client, 'n'), 'virtual_media', '1.93'),
    (lambda client: api.attach_virtual_media(client, 'n', 'cdrom', 'http://127.0.0.1/x.iso', 'http'), 'virtual_media',
     '1.93'),
])
def test_each_request_needs_its_api(call, feature, version):
    with pytest.raises(IronicError, match='%s needs Ironic API %s or newer' % (feature, version.replace('.', r'\.'))):
        call(Client((1, 22)))


def test_virtual_media_is_read_as_the_list_ironic_answers():
    device = {'media_types': ['CD', 'DVD'], 'inserted': False, 'image': ''}
    assert api.virtual_media(Client((1, 115), [[device]]), 'n') == [device]
    assert api.virtual_media(Client((1, 115), [None]), 'n') == []


def test_a_detach_names_its_device():
    client = Client((1, 115))
    api.detach_virtual_media(client, 'n', 'cdrom')
    assert client.sent == [('DELETE', '/nodes/n/vmedia', None, {'device_types': 'cdrom'})]
