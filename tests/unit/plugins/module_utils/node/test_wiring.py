# -*- coding: utf-8 -*-
"""How a node's port groups and virtual media join its record (node/wiring.py): read only where declared, their
problems before any write, their changes in the record's Change and diff, and the node's view after the writes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import virtual_media, wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change, declared_record

from .every_version import EveryVersion

MAC = '52:54:00:00:00:01'
URL = 'http://reader:Zq-secret@127.0.0.1:8080/boot.iso'
NODE = {'uuid': 'node-uuid', 'name': 'node0', 'provision_state': 'enroll'}


class Client(EveryVersion):
    """Ironic holding one port group of another node, and a BMC with an empty virtual CD."""

    def __init__(self):
        self.sent = []

    def request(self, method, path, body=None, params=None, retry_busy=True):
        self.sent.append((method, path))
        if path == '/portgroups':
            return {'portgroups': []}
        if path == '/portgroups/taken':
            return {'uuid': 'g9', 'name': 'taken', 'node_uuid': 'other-node'}
        if path.endswith('/vmedia'):
            return [{'media_types': ['CD'], 'inserted': False, 'image': ''}]
        if path.startswith('/portgroups/'):
            raise NotFound('no such port group', 404)
        raise AssertionError('unexpected %s %s' % (method, path))


def planned(params, node, ports=()):
    declaration = Declaration('node0', declared=declared_record(params))
    change = Change(declaration, node, list(ports), False)
    client = Client()
    change.wiring = wiring.plan(client, declaration.declared, node, change)
    return change, client


def test_nothing_is_read_for_a_node_that_declares_no_wiring():
    change, client = planned({'ports': [{'address': MAC}]}, NODE, ports=[{'uuid': 'p', 'address': MAC}])
    assert change.wiring is None and client.sent == [] and not change.changed


def test_declared_groups_and_media_are_read_planned_and_in_the_diff_with_the_url_password_masked():
    change, client = planned({'port_groups': [{'name': 'bond0'}], 'ports': [{'address': MAC, 'port_group': 'bond0'}],
                              'virtual_media': [{'device_type': 'cdrom', 'image_url': URL}]},
                             NODE, ports=[{'uuid': 'p', 'address': MAC, 'portgroup_uuid': None}])
    assert change.changed
    assert client.sent == [('GET', '/portgroups'), ('GET', '/nodes/node-uuid/vmedia'), ('GET', '/portgroups/bond0')]
    assert change.diff['before']['port_groups'] == [] and change.diff['after']['port_groups'][0]['ports'] == [MAC]
    assert change.diff['after']['virtual_media'] == {'cdrom': 'http://reader:********@127.0.0.1:8080/boot.iso'}
    assert wiring.view(change.wiring, {'name': 'node0'}) == {'name': 'node0', 'port_groups': [],
                                                             'virtual_media': {'cdrom': None}}


def test_a_group_name_another_node_has_is_a_problem_before_any_write():
    with pytest.raises(wiring.WiringError, match='port group name taken is taken by port group g9 of node other-node'):
        planned({'port_groups': [{'name': 'taken'}]}, NODE)


def test_a_node_being_created_reads_nothing_of_itself():
    change, client = planned({'driver': 'fake-hardware', 'port_groups': [{'name': 'bond0'}],
                              'virtual_media': [{'device_type': 'cdrom', 'image_url': URL}]}, None)
    assert client.sent == [('GET', '/portgroups/bond0')]
    assert change.wiring.media.attach and [group['name'] for group in change.wiring.groups.create] == ['bond0']


def test_virtual_media_waits_up_to_the_tasks_timeout(monkeypatch):
    change, client = planned({'virtual_media': [{'device_type': 'cdrom', 'image_url': URL}]}, NODE)
    waited = []
    monkeypatch.setattr(virtual_media, 'apply_plan',
                        lambda client, plan, uuid, timeout, writes: waited.append(timeout) or [])
    wiring.apply(client, change.wiring, NODE, [], lambda node, ports: {'name': node['name']}, 42, None)
    assert waited == [42]
