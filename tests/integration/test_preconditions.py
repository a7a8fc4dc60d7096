# -*- coding: utf-8 -*-
"""What Ironic refuses of a write in a node's state (plugins/module_utils/engine/preconditions.py), refused by the
collection before the task's first write, on a real Ironic: the delete of a node that holds an allocation, and a
fleet file that changes the resource_class of an active node. Check mode reports the same refusal. One rule of each
kind (a deletion blocked, a field Ironic changes only in some states) is in the smoke suite, run on every supported
Ironic release (make test-compat; 24.1 in make test)."""

from __future__ import annotations

import time
import uuid

import pytest

from test_fleet_role import converge

MAC = '52:54:00:%02x:%02x:%02x'


def allocated_node(ironic, raw):
    """An available node with a port, held by an allocation of its own resource class (its instance_uuid)."""
    node = raw.node_in('available')
    tag = uuid.uuid4().hex[:8]
    raw.patch(node['uuid'], resource_class='rc-%s' % tag)
    address = MAC % tuple(uuid.uuid4().bytes[:3])
    ironic.api('POST', '/ports', {'node_uuid': node['uuid'], 'address': address})
    ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power off'})
    deadline = time.monotonic() + 60
    while raw.node(node['uuid'])['power_state'] != 'power off':  # Ironic allocates a node whose power it knows
        assert time.monotonic() < deadline, 'node %s never powered off' % node['name']
        time.sleep(0.1)
    allocation = ironic.api('POST', '/allocations', {'name': 'alloc-%s' % tag, 'resource_class': 'rc-%s' % tag,
                                                     'candidate_nodes': [node['uuid']]})
    while allocation['state'] == 'allocating':
        assert time.monotonic() < deadline, 'allocation %s never settled' % allocation['name']
        time.sleep(0.1)
        allocation = ironic.api('GET', '/allocations/%s' % allocation['uuid'])
    assert allocation['state'] == 'active', allocation
    return raw.node(node['uuid']), address, allocation


@pytest.mark.smoke
def test_deleting_a_node_that_holds_an_allocation_is_refused_before_any_write(ironic, raw, run_module):
    node, address, allocation = allocated_node(ironic, raw)
    try:
        for check in (True, False):
            mark = ironic.log_mark()
            result = run_module('baremetal_node', check=check, name=node['name'], state='absent')
            assert result.get('failed') is True and result.get('changed') is not True, result
            assert ironic.write_requests_since(mark) == []
            assert ('node %s cannot be deleted: Ironic deletes a node that holds an allocation only in maintenance'
                    % node['name']
                    in result['msg']), result['msg']
            assert ('and it holds allocation %s, not in maintenance. Release allocation %s first '
                    '(baremetal.lifecycle.baremetal_allocation name: %s, state: absent), then rerun.'
                    % ((allocation['name'],) * 3) in result['msg']), result['msg']
        after = raw.node(node['uuid'])
        assert after['provision_state'] == 'available' and after['allocation_uuid'] == allocation['uuid']
        ports = ironic.api('GET', '/ports?node_uuid=%s' % node['uuid'])['ports']
        assert [port['address'] for port in ports] == [address]

        # As the message says: once the allocation is released, the node is deleted, its port with it.
        released = run_module('baremetal_allocation', name=allocation['name'], state='absent')
        assert not released.get('failed'), released.get('msg')
        mark = ironic.log_mark()
        deleted = run_module('baremetal_node', name=node['name'], state='absent')
        assert not deleted.get('failed') and deleted['changed'] is True, deleted.get('msg')
        writes = [(request.method, request.path.split('/')[2]) for request in ironic.write_requests_since(mark)]
        assert ('DELETE', 'ports') not in writes and writes[-1] == ('DELETE', 'nodes'), writes
        assert ironic.api('GET', '/ports?address=%s' % address)['ports'] == []
    finally:
        ironic.api('DELETE', '/allocations/%s' % allocation['uuid'], expect=None)
        ironic.api('DELETE', '/nodes/%s' % node['uuid'], expect=None)


def test_a_fleet_file_changing_the_resource_class_of_an_active_node_sends_nothing(ironic, raw, run_playbook):
    tag = uuid.uuid4().hex[:6]
    active = raw.node_in('active')
    raw.patch(active['uuid'], resource_class='rc-old-%s' % tag)
    enrolled = raw.create(prefix='role-enrolled')
    nodes = [{'name': enrolled['name'], 'driver': 'fake-hardware', 'description': 'changed %s' % tag},
             {'name': active['name'], 'driver': 'fake-hardware', 'resource_class': 'rc-new-%s' % tag}]
    try:
        for check in (True, False):
            mark = ironic.log_mark()
            rc, output = converge(run_playbook, nodes, check=check)
            assert rc != 0, output
            assert ironic.write_requests_since(mark) == []
            assert ("resource_class of node %s cannot change to 'rc-new-%s': Ironic changes the resource_class of a "
                    "node that has one only in enroll, inspecting, inspect wait, manageable or available, and it is "
                    "'active'. Undeploy it first (baremetal.lifecycle.baremetal_provision_state state: manageable, "
                    "allow_destructive: true), or leave resource_class out" % (active['name'], tag)) in output, output
        assert raw.node(active['uuid'])['resource_class'] == 'rc-old-%s' % tag
        assert raw.node(enrolled['uuid'])['description'] is None
    finally:
        ironic.api('PUT', '/nodes/%s/maintenance' % active['uuid'], {'reason': 'test cleanup'}, expect=None)
        for node in (active, enrolled):
            ironic.api('DELETE', '/nodes/%s' % node['uuid'], expect=None)


@pytest.mark.smoke
def test_a_field_ironic_changes_only_in_some_states_is_refused_before_any_write(ironic, raw, run_module):
    tag = uuid.uuid4().hex[:6]
    active = raw.node_in('active')
    raw.patch(active['uuid'], resource_class='rc-old-%s' % tag)
    try:
        for check in (True, False):
            mark = ironic.log_mark()
            result = run_module('baremetal_node', check=check, name=active['name'], driver='fake-hardware',
                                resource_class='rc-new-%s' % tag, description='changed %s' % tag)
            assert result.get('failed') is True and result.get('changed') is not True, result
            assert ironic.write_requests_since(mark) == []
            assert "and it is 'active'. Undeploy it first" in result['msg'], result['msg']
        after = raw.node(active['uuid'])
        assert after['resource_class'] == 'rc-old-%s' % tag and after['description'] is None
    finally:
        ironic.api('PUT', '/nodes/%s/maintenance' % active['uuid'], {'reason': 'test cleanup'}, expect=None)
        ironic.api('DELETE', '/nodes/%s' % active['uuid'], expect=None)
