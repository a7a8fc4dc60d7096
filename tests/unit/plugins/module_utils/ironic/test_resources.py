# -*- coding: utf-8 -*-
"""The named collections' calls and the API version each needs; hardware and port endpoints over real HTTP
against a scripted server on loopback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.resources import COLLECTIONS, CollectionEndpoints
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound

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


class Recorder(object):
    """A session that records each request and answers them all alike."""

    def __init__(self, version, answer=None):
        self.version = version
        self.answer = answer
        self.sent = []

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d or newer' % ((feature,) + version))

    def request(self, method, path, body=None, retry_busy=True):
        self.sent.append((method, path, body))
        self.retry_busy = retry_busy
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def collection(name, session):
    return CollectionEndpoints.collection(session, name)


@pytest.mark.parametrize('name', sorted(COLLECTIONS))
def test_each_collection_finds_creates_updates_and_deletes_at_its_path_and_a_missing_member_is_none(name):
    session = Recorder((1, 115), {'uuid': 'm-1'})
    members = collection(name, session)
    members.create({'name': 'm'})
    members.update('m-1', [{'op': 'replace', 'path': '/extra', 'value': {}}])
    members.delete('m-1')
    assert [sent[:2] for sent in session.sent] == [
        ('POST', '/%s' % name), ('PATCH', '/%s/m-1' % name), ('DELETE', '/%s/m-1' % name)]
    assert collection(name, Recorder((1, 115), NotFound('gone'))).find('m') is None


def test_releasing_an_allocation_takes_the_lock_at_once_when_asked_as_a_nodes_write_does():
    session = Recorder((1, 115))
    collection('allocations', session).delete('a-1', retry_busy=False)
    assert session.sent == [('DELETE', '/allocations/a-1', None)] and session.retry_busy is False


@pytest.mark.parametrize('name, words', [('runbooks', 'runbooks needs Ironic API 1.92'),
                                         ('inspection_rules', 'inspection rules needs Ironic API 1.96'),
                                         ('deploy_templates', 'deploy templates needs Ironic API 1.55'),
                                         ('allocations', 'allocations needs Ironic API 1.52')])
def test_an_api_without_the_collection_is_refused_before_any_request_naming_its_version(name, words):
    session = Recorder((1, 51))
    for call in (lambda members: members.find('m'), lambda members: members.delete('m')):
        with pytest.raises(IronicError, match=words):
            call(collection(name, session))
    assert session.sent == []


@pytest.mark.parametrize('field, needed', [('node', '1.58'), ('owner', '1.60')])
def test_an_allocation_field_the_api_lacks_is_refused_before_the_post(field, needed):
    session = Recorder((1, 57))
    with pytest.raises(IronicError, match='%s needs Ironic API %s' % (field, needed)):
        collection('allocations', session).create({'name': 'a', 'resource_class': 'gpu', field: 'x'})
    assert session.sent == []


def test_an_allocation_is_updated_from_1_57():
    with pytest.raises(IronicError, match='updating an allocation needs Ironic API 1.57'):
        collection('allocations', Recorder((1, 56))).update('a-1', [])
