# -*- coding: utf-8 -*-
"""baremetal_node declaring a node whole against a real Ironic: its record, provision_state, maintenance and power in
one task, in the order Ironic needs (node/converge.py), single and bulk, check and diff mode, waves."""

import pytest

from nodes import CLOSED_LOOPBACK_URL, KERNEL, RAMDISK, RawIronic


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def record(name, **fields):
    return dict(dict(name=name, driver='fake-hardware', driver_info={'deploy_kernel': KERNEL, 'deploy_ramdisk': RAMDISK},
                     properties={'cpu_arch': 'x86_64'}), **fields)


def writes(ironic, mark, node_uuid):
    """The writes to one node since mark, as (method, what) with what the part of the path after the node."""
    prefix = '/v1/nodes/%s' % node_uuid
    return [(request.method, request.path[len(prefix):] or '/') for request in ironic.write_requests_since(mark)
            if request.path.startswith(prefix)]


def test_one_task_enrolls_a_node_and_makes_it_available_and_a_rerun_writes_nothing(ironic, run_module, new_name):
    name = new_name()
    args = record(name, provision_state='available')

    result = run_module('baremetal_node', diff=True, **args)

    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['created'] is True
    # the node did not exist: nothing before it, not the enroll its record started in
    assert result['diff']['before'] == {} and result['diff']['after']['provision_state'] == 'available'
    assert [(step['verb'], step['from'], step['to']) for step in result['provision']['transitions']] == [
        ('manage', 'enroll', 'manageable'), ('provide', 'manageable', 'available')]
    assert result['provision']['changed'] is True
    assert result['node']['provision_state'] == 'available' and result['node']['driver'] == 'fake-hardware'
    assert ironic.api('GET', '/nodes/%s' % name)['provision_state'] == 'available'

    mark = ironic.log_mark()
    for check in (True, False):
        again = run_module('baremetal_node', check=check, diff=True, **args)
        assert not again.get('failed'), again.get('msg')
        assert again['changed'] is False
        assert again['provision'] == {'plan': [], 'transitions': [], 'changed': False}
        assert again['diff']['before'] == again['diff']['after'] == {'provision_state': 'available'}
    assert ironic.write_requests_since(mark) == []


def test_maintenance_declared_on_is_cleared_for_the_move_and_set_again_after_it(raw, ironic, run_module):
    node = raw.node_in('manageable')
    raw.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'replacing DIMM B2'})
    mark = ironic.log_mark()

    result = run_module('baremetal_node', diff=True, name=node['name'], provision_state='available', maintenance=True)

    assert not result.get('failed'), result.get('msg')
    assert result['maintenance'] == {'maintenance': True, 'maintenance_reason': 'replacing DIMM B2', 'changed': True,
                                     'cleared_for_move': True}
    assert [step['verb'] for step in result['provision']['transitions']] == ['provide']
    done = writes(ironic, mark, node['uuid'])
    assert done[0] == ('DELETE', '/maintenance') and done[-1] == ('PUT', '/maintenance')
    assert ('PUT', '/states/provision') in done[1:-1]
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert (current['provision_state'], current['maintenance'], current['maintenance_reason']) == (
        'available', True, 'replacing DIMM B2')
    # One diff: the move shows, maintenance is as it was.
    assert result['diff']['before']['provision_state'] == 'manageable'
    assert result['diff']['after']['provision_state'] == 'available'
    assert result['diff']['before']['maintenance'] is result['diff']['after']['maintenance'] is True

    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=node['name'], provision_state='available', maintenance=True)
    assert again['changed'] is False and again['maintenance']['cleared_for_move'] is False
    assert ironic.write_requests_since(mark) == []


def test_maintenance_declared_off_is_cleared_before_the_move_and_on_is_set_after_it(raw, ironic, run_module):
    held, free = raw.node_in('manageable'), raw.node_in('enroll')
    raw.api('PUT', '/nodes/%s/maintenance' % held['uuid'], {'reason': 'cabling'})
    mark = ironic.log_mark()

    cleared = run_module('baremetal_node', name=held['name'], provision_state='available', maintenance=False)
    assert not cleared.get('failed'), cleared.get('msg')
    assert writes(ironic, mark, held['uuid'])[:2] == [('DELETE', '/maintenance'), ('PUT', '/states/provision')]
    assert cleared['maintenance'] == {'maintenance': False, 'maintenance_reason': None, 'changed': True,
                                      'cleared_for_move': False}
    assert cleared['node']['maintenance'] is False and cleared['node']['provision_state'] == 'available'

    mark = ironic.log_mark()
    kept = run_module('baremetal_node', name=free['name'], provision_state='manageable', maintenance=True,
                      maintenance_reason='burn-in')
    assert not kept.get('failed'), kept.get('msg')
    assert writes(ironic, mark, free['uuid']) == [('PUT', '/states/provision'), ('PUT', '/maintenance')]
    assert kept['node']['maintenance'] is True and kept['node']['maintenance_reason'] == 'burn-in'
    assert kept['node']['provision_state'] == 'manageable'


def test_maintenance_the_task_does_not_declare_stops_the_move_and_is_left_alone(raw, ironic, run_module):
    node = raw.node_in('manageable')
    raw.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'do not touch'})
    mark = ironic.log_mark()
    result = run_module('baremetal_node', name=node['name'], provision_state='available')
    assert result['failed'] and 'do not touch' in result['msg']
    assert ironic.write_requests_since(mark) == []


def test_power_is_set_after_the_move_and_a_rerun_writes_nothing(raw, ironic, run_module):
    node = raw.node_in('manageable')
    mark = ironic.log_mark()
    result = run_module('baremetal_node', diff=True, name=node['name'], provision_state='available', power='powered_off')
    assert not result.get('failed'), result.get('msg')
    assert result['power'] == {'power_state': 'power off', 'changed': True}
    done = writes(ironic, mark, node['uuid'])
    assert done[-1] == ('PUT', '/states/power') and ('PUT', '/states/provision') in done[:-1]
    assert result['diff']['after']['power_state'] == 'power off'
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['power_state'] == 'power off'

    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=node['name'], provision_state='available', power='powered_off')
    assert again['changed'] is False and again['power'] == {'power_state': 'power off', 'changed': False}
    assert ironic.write_requests_since(mark) == []


def test_check_mode_plans_every_stage_in_one_diff_and_writes_nothing(raw, ironic, run_module, new_name):
    node = raw.node_in('manageable')
    raw.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'cabling'})
    created = new_name()
    mark = ironic.log_mark()

    result = run_module('baremetal_node', check=True, diff=True, nodes=[
        {'name': node['name'], 'description': 'rack 4', 'maintenance': False, 'power': 'powered_on'},
        dict(record(created), maintenance=True)], provision_state='available')

    assert not result.get('failed'), result.get('msg')
    assert ironic.write_requests_since(mark) == []
    existing, new = result['nodes']
    assert existing['changed'] is True
    assert [(step['verb'], step['from'], step['to']) for step in existing['provision']['plan']] == [
        ('provide', 'manageable', 'available')]
    assert existing['provision']['transitions'] == []
    assert existing['maintenance'] == {'maintenance': False, 'maintenance_reason': None, 'changed': True,
                                       'cleared_for_move': False}
    assert existing['power'] == {'power_state': 'power on', 'changed': True}
    assert 'not_planned' not in existing
    diff = next(diff for diff in result['diff'] if diff['before_header'] == node['name'])
    assert diff['before'] == {'description': None, 'provision_state': 'manageable', 'maintenance': True,
                              'maintenance_reason': 'cabling', 'power_state': None}
    assert diff['after'] == {'description': 'rack 4', 'provision_state': 'available', 'maintenance': False,
                             'maintenance_reason': None, 'power_state': 'power on'}
    assert new['created'] is True and new['node'] is None
    assert 'provision' not in new and 'maintenance' not in new
    assert new['not_planned'].startswith('node %s does not exist yet' % created)
    assert 'provision_state, maintenance' in new['not_planned']
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert (current['provision_state'], current['maintenance']) == ('manageable', True)


def test_bulk_nodes_take_their_own_values_and_the_tasks_defaults(raw, ironic, run_module, new_name):
    first, second = new_name(), new_name()
    existing = raw.node_in('available')
    result = run_module('baremetal_node', nodes=[
        record(first),
        record(second, provision_state='manageable', maintenance=True, maintenance_reason='spare'),
        {'name': existing['name'], 'power': 'powered_on'}], provision_state='available', power='powered_off',
        concurrency=3)

    assert not result.get('failed'), result.get('msg')
    states = dict((name, ironic.api('GET', '/nodes/%s' % name)) for name in (first, second, existing['name']))
    assert [(node['provision_state'], node['power_state'], node['maintenance'], node['maintenance_reason'])
            for node in states.values()] == [
        ('available', 'power off', False, None), ('manageable', 'power off', True, 'spare'),
        ('available', 'power on', False, None)]
    entries = dict((entry['name'], entry) for entry in result['nodes'])
    assert entries[first]['created'] and entries[first]['provision']['changed'] and 'maintenance' not in entries[first]
    assert entries[second]['maintenance']['maintenance'] is True
    assert entries[existing['name']]['provision'] == {'plan': [], 'transitions': [], 'changed': False}
    assert result['totals']['changed'] == 3 and result['failed_nodes'] == []


def test_a_failing_move_is_reported_for_its_node_and_the_others_go_on(raw, ironic, run_module):
    broken, refused, fine = raw.node_in('available'), raw.node_in('active'), raw.node_in('manageable')
    raw.patch(broken['uuid'], deploy_interface='direct', instance_info={
        'image_source': CLOSED_LOOPBACK_URL, 'image_checksum': '0' * 32, 'image_disk_format': 'raw'})
    mark = ironic.log_mark()

    result = run_module('baremetal_node', nodes=[
        {'name': broken['name'], 'provision_state': 'active', 'power': 'powered_off', 'maintenance': True},
        {'name': refused['name'], 'provision_state': 'available'},
        {'name': fine['name'], 'provision_state': 'available'}])

    assert result['failed']
    assert result['failed_nodes'] == ['nodes[0] (%s)' % broken['name'], 'nodes[1] (%s)' % refused['name']]
    entries = result['nodes']
    assert "'active' from 'available' ended in 'deploy failed'" in entries[0]['error']
    # A node that failed its move goes no further: neither its power nor its maintenance is set.
    assert 'power' not in entries[0] and 'maintenance' not in entries[0]
    assert writes(ironic, mark, broken['uuid']) == [('PUT', '/states/provision')]
    assert 'allow_destructive: true' in entries[1]['error'] and writes(ironic, mark, refused['uuid']) == []
    assert entries[2]['error'] is None and entries[2]['node']['provision_state'] == 'available'
    assert ironic.api('GET', '/nodes/%s' % fine['uuid'])['provision_state'] == 'available'


def test_a_failed_move_sets_the_maintenance_it_cleared_again(raw, ironic, run_module):
    node = raw.node_in('available')
    raw.patch(node['uuid'], deploy_interface='direct', instance_info={
        'image_source': CLOSED_LOOPBACK_URL, 'image_checksum': '0' * 32, 'image_disk_format': 'raw'})
    raw.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'quarantine'})
    result = run_module('baremetal_node', name=node['name'], provision_state='active', maintenance=True)
    assert result['failed'] and "ended in 'deploy failed'" in result['msg']
    assert result['maintenance'] == {'maintenance': True, 'maintenance_reason': 'quarantine', 'changed': True,
                                     'cleared_for_move': True}
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert (current['provision_state'], current['maintenance'], current['maintenance_reason']) == (
        'deploy failed', True, 'quarantine')


def test_absent_with_a_declared_state_is_refused_before_anything_is_read(ironic, run_module, new_name):
    mark = ironic.log_mark()
    result = run_module('baremetal_node', name=new_name(), state='absent', provision_state='manageable')
    assert result['failed'] and 'cannot also declare provision_state' in result['msg']
    assert ironic.write_requests_since(mark) == []


def test_waves_do_not_hold_the_declared_maintenance_and_power_against_a_node(raw, ironic, run_module):
    names = [raw.node_in('manageable')['name'] for _index in range(3)]
    result = run_module('baremetal_node', nodes=[{'name': name} for name in names], provision_state='available',
                        maintenance=True, maintenance_reason='soak', power='powered_off', wave_size='1')
    assert not result.get('failed'), result.get('msg')
    assert result['waves'] == [[name] for name in names]
    assert [(entry['started'], entry['error']) for entry in result['nodes']] == [(True, None)] * 3
    for name in names:
        node = ironic.api('GET', '/nodes/%s' % name)
        assert (node['provision_state'], node['maintenance'], node['power_state']) == ('available', True, 'power off')
