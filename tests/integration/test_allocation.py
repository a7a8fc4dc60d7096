# -*- coding: utf-8 -*-
"""baremetal_allocation against a real Ironic (fake-hardware nodes, available with a resource class and traits):
Ironic picks the node, a rerun keeps it without a write, a pick that fails says Ironic's reason, absent releases the
node, a backfill records an allocation for an active node, and an older API refuses options before any write."""

import time
import uuid

import pytest

from nodes import RawIronic
from proxy import FaultProxy
from test_node import playing_ironic_api


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def powered_off(ironic, raw, node):
    """The node with a known power state: Ironic allocates only nodes whose power state it knows."""
    ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power off'})
    deadline = time.monotonic() + 60
    while raw.node(node['uuid'])['power_state'] != 'power off':
        assert time.monotonic() < deadline, 'node %s never powered off' % node['name']
        time.sleep(0.1)
    return raw.node(node['uuid'])


@pytest.fixture
def pool(ironic, raw):
    """Two available nodes of a resource class of their own; the second has the trait CUSTOM_GPU_<tag>."""
    tag = uuid.uuid4().hex[:8].upper()
    nodes = []
    for traits in ([], ['CUSTOM_GPU_%s' % tag]):
        node = raw.node_in('available')
        raw.patch(node['uuid'], resource_class='rc-%s' % tag.lower())
        if traits:
            ironic.api('PUT', '/nodes/%s/traits' % node['uuid'], {'traits': traits})
        nodes.append(powered_off(ironic, raw, node))
    yield tag, nodes
    for allocation in ironic.api('GET', '/allocations?resource_class=rc-%s' % tag.lower())['allocations']:
        ironic.api('DELETE', '/allocations/%s' % allocation['uuid'], expect=None)


def test_ironic_picks_the_node_a_rerun_keeps_it_and_absent_releases_it(ironic, run_module, pool):
    tag, (plain, gpu) = pool
    declaration = dict(name='alloc-%s' % tag.lower(), resource_class=gpu['resource_class'],
                       traits=['CUSTOM_GPU_%s' % tag], extra={'team': 'render'})

    mark = ironic.log_mark()
    preview = run_module('baremetal_allocation', check=True, diff=True, **declaration)
    assert not preview.get('failed'), preview.get('msg')
    assert preview['changed'] is True and preview['node'] is None and preview['diff']['before'] == {}
    assert ironic.write_requests_since(mark) == []

    created = run_module('baremetal_allocation', diff=True, **declaration)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True
    assert created['node'] == {'uuid': gpu['uuid'], 'name': gpu['name']}
    assert created['allocation']['state'] == 'active' and created['diff']['after']['traits'] == declaration['traits']
    assert ironic.api('GET', '/nodes/%s' % gpu['uuid'])['allocation_uuid'] == created['allocation']['uuid']

    mark = ironic.log_mark()
    again = run_module('baremetal_allocation', diff=True, **declaration)
    assert again['changed'] is False and again['node'] == created['node']
    assert again['diff']['before'] == again['diff']['after']
    assert ironic.write_requests_since(mark) == []

    moved = run_module('baremetal_allocation', **dict(declaration, traits=[]))
    assert moved['failed'] and "traits is ['CUSTOM_GPU_%s'], not []" % tag in moved['msg']
    assert ironic.write_requests_since(mark) == []

    mark = ironic.log_mark()
    released = run_module('baremetal_allocation', name=declaration['name'], state='absent', diff=True)
    assert released['changed'] is True and released['allocation'] is None and released['node']['uuid'] == gpu['uuid']
    assert [request.method for request in ironic.write_requests_since(mark)] == ['DELETE']
    node = ironic.api('GET', '/nodes/%s' % gpu['uuid'])
    assert node['allocation_uuid'] is None and node['instance_uuid'] is None
    assert run_module('baremetal_allocation', name=declaration['name'], state='absent')['changed'] is False


def test_two_allocations_in_one_task_check_mode_then_picked_and_a_rerun_writes_nothing(ironic, run_module, pool):
    tag, (plain, gpu) = pool
    allocations = [dict(name='bulk-gpu-%s' % tag.lower(), resource_class=gpu['resource_class'],
                        traits=['CUSTOM_GPU_%s' % tag]),
                   dict(name='bulk-any-%s' % tag.lower(), resource_class=plain['resource_class'])]

    mark = ironic.log_mark()
    preview = run_module('baremetal_allocation', check=True, diff=True, allocations=allocations)
    assert not preview.get('failed'), preview.get('msg')
    assert preview['changed'] is True and [one['node'] for one in preview['allocations']] == [None, None]
    assert ironic.write_requests_since(mark) == []

    created = run_module('baremetal_allocation', diff=True, allocations=allocations)
    assert not created.get('failed'), created.get('msg')
    assert [one['node']['uuid'] for one in created['allocations']] == [gpu['uuid'], plain['uuid']]
    assert [one['allocation']['state'] for one in created['allocations']] == ['active', 'active']
    assert [request.method for request in ironic.write_requests_since(mark)] == ['POST', 'POST']

    mark = ironic.log_mark()
    again = run_module('baremetal_allocation', diff=True, allocations=allocations)
    assert again['changed'] is False and [one['node'] for one in again['allocations']] == [
        one['node'] for one in created['allocations']]
    assert ironic.write_requests_since(mark) == []


def test_a_pick_that_fails_reports_ironics_reason_and_a_rerun_asks_again(ironic, run_module, pool):
    tag, (plain, gpu) = pool
    declaration = dict(name='nomatch-%s' % tag.lower(), resource_class=plain['resource_class'],
                       traits=['CUSTOM_NONE_%s' % tag])
    failed = run_module('baremetal_allocation', **declaration)
    assert failed['failed']
    assert failed['msg'].startswith('allocation %s failed; Ironic says: ' % declaration['name']), failed['msg']
    assert 'no suitable nodes have the requested traits CUSTOM_NONE_%s.' % tag in failed['msg'], failed['msg']
    assert failed['allocation']['state'] == 'error'

    ironic.api('PUT', '/nodes/%s/traits' % plain['uuid'], {'traits': declaration['traits']})
    retried = run_module('baremetal_allocation', **declaration)
    assert not retried.get('failed'), retried.get('msg')
    assert retried['changed'] is True and retried['node']['uuid'] == plain['uuid']


def test_a_backfill_records_the_allocation_of_an_active_node_whose_release_is_refused(ironic, run_module, raw):
    node = raw.node_in('active')
    name = 'backfill-%s' % uuid.uuid4().hex[:8]
    try:
        result = run_module('baremetal_allocation', name=name, node=node['name'])
        assert not result.get('failed'), result.get('msg')
        assert result['changed'] is True and result['node'] == {'uuid': node['uuid'], 'name': node['name']}
        assert ironic.api('GET', '/nodes/%s' % node['uuid'])['allocation_uuid'] == result['allocation']['uuid']

        mark = ironic.log_mark()
        assert run_module('baremetal_allocation', name=name, node=node['name'])['changed'] is False
        refused = run_module('baremetal_allocation', name=name, state='absent')
        assert refused['failed'] and 'Ironic releases the allocation of a node in active only in maintenance' in refused['msg']
        assert ironic.write_requests_since(mark) == []
    finally:
        ironic.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'test cleanup'})
        ironic.api('DELETE', '/allocations/%s' % name, expect=None)


@pytest.mark.parametrize('option, value, needed, older', [
    ('owner', 'project-a', '1.60', '1.59'), ('node', 'any-node', '1.58', '1.57')])
def test_an_older_api_refuses_the_option_naming_the_version_before_any_write(
        ironic, run_module, option, value, needed, older):
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api(older)) as proxy:
        result = run_module('baremetal_allocation', name='old-%s' % uuid.uuid4().hex[:8], resource_class='any',
                            endpoint=proxy.endpoint, **{option: value})
    assert result['failed']
    assert '%s needs Ironic API %s or newer; this server supports up to %s' % (option, needed, older) in result['msg']
    assert ironic.write_requests_since(mark) == []


ROLE = '''
- name: Converge a fleet and its allocations
  hosts: localhost
  gather_facts: false
  roles:
    - role: baremetal.lifecycle.fleet
'''


def test_the_fleet_role_asks_for_its_allocations_and_a_rerun_keeps_them(ironic, run_playbook, pool):
    tag, (plain, gpu) = pool
    fleet = [{'name': node['name'], 'driver': 'fake-hardware', 'resource_class': node['resource_class'],
              'traits': node['traits']} for node in (plain, gpu)]
    allocations = [{'name': 'role-gpu-%s' % tag.lower(), 'resource_class': gpu['resource_class'],
                    'traits': ['CUSTOM_GPU_%s' % tag]},
                   {'name': 'role-any-%s' % tag.lower(), 'resource_class': plain['resource_class']}]
    rc, output = run_playbook(ROLE, {'fleet_nodes': fleet, 'fleet_allocations': allocations})
    assert rc == 0, output
    shown = '"msg": "role-gpu-%s: %s; role-any-%s: %s"' % (tag.lower(), gpu['name'], tag.lower(), plain['name'])
    assert shown in output, output
    assert ironic.api('GET', '/allocations/role-gpu-%s' % tag.lower())['node_uuid'] == gpu['uuid']

    mark = ironic.log_mark()
    rc, output = run_playbook(ROLE, {'fleet_nodes': fleet, 'fleet_allocations': allocations})
    assert rc == 0, output
    assert ironic.write_requests_since(mark) == []


def test_the_fleet_role_allocates_nodes_it_just_converged_on_fake_hardware(ironic, run_playbook, new_name):
    """Fake hardware has no power state until one is set (its power interface returns the node's own), and Ironic
    allocates only nodes whose power state it knows: the fleet declares their power, which the records task sets."""
    tag = uuid.uuid4().hex[:8].lower()
    names = [new_name(), new_name()]
    fleet = [{'name': name, 'driver': 'fake-hardware', 'resource_class': 'fresh-%s' % tag, 'power': 'powered_off'}
             for name in names]
    allocation = 'fresh-%s' % tag
    allocations = [{'name': allocation, 'resource_class': 'fresh-%s' % tag}]
    try:
        rc, output = run_playbook(ROLE, {'fleet_nodes': fleet, 'fleet_allocations': allocations})
        assert rc == 0, output
        assert ironic.api('GET', '/allocations/%s' % allocation)['node_uuid'] in [
            ironic.api('GET', '/nodes/%s' % name)['uuid'] for name in names]
        mark = ironic.log_mark()
        rc, output = run_playbook(ROLE, {'fleet_nodes': fleet, 'fleet_allocations': allocations})
        assert rc == 0, output
        assert ironic.write_requests_since(mark) == []
    finally:
        ironic.api('DELETE', '/allocations/%s' % allocation, expect=None)
