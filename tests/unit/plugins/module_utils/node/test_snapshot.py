# -*- coding: utf-8 -*-
"""What Ironic holds for the declared nodes (node/snapshot.py): read by read_snapshot, never by building a Snapshot.
How much it reads is in tests/unit/plugins/module_utils/fleet/test_runner.py (LOOKUPS)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import Snapshot


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
