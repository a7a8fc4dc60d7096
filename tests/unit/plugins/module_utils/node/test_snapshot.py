# -*- coding: utf-8 -*-
"""What Ironic holds for the declared nodes (node/snapshot.py): read by read_snapshot, never by building a Snapshot.
How much it reads is in tests/unit/plugins/module_utils/fleet/test_runner.py (LOOKUPS)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.preconditions import (
    UPDATE_NODE, UPDATE_PORT, Write)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import Change, declared_record
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import Snapshot, planned_writes

from .record_params import params, port


class Untouchable(object):
    """A client that fails the test on any use."""

    def __getattr__(self, name):
        raise AssertionError('a Snapshot built from what was read asked the client for %s' % name)


def test_a_snapshot_is_built_from_what_was_read_without_asking_ironic():
    ports = [{'uuid': 'p1', 'address': '52:54:00:00:00:01', 'node_uuid': 'u1'},
             {'uuid': 'p2', 'address': '52:54:00:00:00:02', 'node_uuid': 'u1'}]
    snapshot = Snapshot(Untouchable(), ('uuid',), {'a': {'uuid': 'u1', 'name': 'a'}}, ports,
                        dict((port['address'], port) for port in ports))
    assert snapshot.ports == {'u1': ports} and snapshot.nodes['a']['uuid'] == 'u1'
    assert snapshot.port_owner('52:54:00:00:00:02')['uuid'] == 'p2'
    assert snapshot.port_owner('52:54:00:00:00:09') is None


def test_the_writes_judged_are_the_record_patch_then_the_port_updates_and_a_new_node_its_post():
    current = [{'uuid': 'p1', 'address': '52:54:00:00:00:01', 'node_uuid': 'u1', 'pxe_enabled': True}]
    node = {'uuid': 'u1', 'name': 'a', 'provision_state': 'available', 'resource_class': 'old'}
    declared = declared_record(params(resource_class='new', ports=[port('52:54:00:00:00:01', pxe_enabled=False)]))
    change = Change(Declaration('a', declared=declared), node, current, send_secrets=False)
    assert planned_writes(change) == [Write(UPDATE_NODE, 'resource_class', 'new'),
                                      Write(UPDATE_PORT, 'pxe_enabled', False)]
    created = Change(Declaration('b', declared=declared_record(params(driver='fake-hardware'))), None, [], False)
    assert planned_writes(created) == [Write(UPDATE_NODE, 'driver', 'fake-hardware'), Write(UPDATE_NODE, 'name', 'b')]
