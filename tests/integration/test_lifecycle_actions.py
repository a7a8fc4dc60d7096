# -*- coding: utf-8 -*-
"""In-place actions and the nodes Ironic will not move, against a real Ironic (fake-hardware).

Inspection on the way, servicing an active node, recovering a failed service, holds, and retired and
protected nodes, all through baremetal_provision_state.
"""

import json
import os
import re
import sqlite3

import pytest

from nodes import RawIronic

LOG_PASSTHROUGH = {'interface': 'vendor', 'step': 'log_passthrough'}


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def converge(run_module, node, state, **options):
    return run_module('baremetal_provision_state', node=node, state=state, **options)


def conductor_moves(ironic, mark, uuid):
    """The provision state changes the conductor logged for a node since ``mark`` (from ``ironic.log_mark()``)."""
    with open(ironic.log_path, 'rb') as handle:
        handle.seek(mark)
        lines = handle.read().decode('utf-8', 'replace').splitlines()
    moved = re.compile(r'Node %s moved to provision state "([^"]+)" from state "([^"]+)"' % uuid)
    return [(match.group(2), match.group(1)) for match in map(moved.search, lines) if match]


def steps_of(result):
    return [(step['verb'], step['from'], step['to']) for step in result['plan']]


@pytest.mark.smoke
def test_inspection_once_inspects_a_new_node_on_its_way_and_a_rerun_changes_nothing(raw, ironic, run_module):
    node = raw.node_in('enroll')
    mark = ironic.log_mark()
    preview = converge(run_module, node['name'], 'available', inspection='once', check=True, diff=True)
    assert ironic.write_requests_since(mark) == []
    assert steps_of(preview) == [('manage', 'enroll', 'manageable'), ('inspect', 'manageable', 'manageable'),
                                 ('provide', 'manageable', 'available')]
    assert preview['diff'] == {'before': {'provision_state': 'enroll'}, 'after': {'provision_state': 'available'}}

    result = converge(run_module, node['name'], 'available', inspection='once', diff=True)
    assert not result.get('failed'), result.get('msg')
    assert [(t['verb'], t['from'], t['to']) for t in result['transitions']] == steps_of(preview)
    assert result['node']['provision_state'] == 'available' and result['node']['inspection_finished_at']
    assert result['diff'] == preview['diff']
    # fake inspection learns nothing and stores no inventory; the result says so instead of inventing data
    assert result['inspection'] == {'properties': raw.node(node['uuid'])['properties'], 'inventory': None}

    mark = ironic.log_mark()
    again = converge(run_module, node['name'], 'available', inspection='once')
    assert again['changed'] is False and again['plan'] == [] and 'inspection' not in again
    assert ironic.write_requests_since(mark) == []


def test_inspection_always_never_tears_an_active_node_down_without_allow_destructive(raw, ironic, run_module):
    node = raw.node_in('active')
    mark = ironic.log_mark()
    result = converge(run_module, node['name'], 'active', inspection='always')
    assert result['failed']
    assert "inspect runs in 'manageable'" in result['msg'] and 'allow_destructive: true' in result['msg']
    assert ironic.write_requests_since(mark) == []
    assert converge(run_module, node['name'], 'active', inspection='once')['changed'] is False


def test_each_element_of_nodes_may_ask_for_its_own_inspection(raw, run_module):
    plain, inspected = raw.node_in('manageable'), raw.node_in('manageable')
    result = run_module('baremetal_provision_state', state='manageable',
                        nodes=[plain['name'], {'node': inspected['name'], 'inspection': 'always'}])
    assert not result.get('failed'), result.get('msg')
    by_name = dict((entry['node']['name'], entry) for entry in result['nodes'])
    assert by_name[plain['name']]['plan'] == [] and 'inspection' not in by_name[plain['name']]
    assert [step['verb'] for step in by_name[inspected['name']]['plan']] == ['inspect']
    assert 'inspection' in by_name[inspected['name']]
    assert raw.node(inspected['uuid'])['inspection_finished_at'] and not raw.node(plain['uuid'])['inspection_finished_at']


@pytest.mark.smoke
def test_service_steps_take_an_active_node_through_servicing_back_to_active_on_every_run(raw, ironic, run_module):
    node = raw.node_in('active')
    # Ironic 39 drops reserved steps such as power/reboot from a request's steps (conductor/steps.py
    # _validate_user_steps); the vendor step really runs.
    service_steps = [LOG_PASSTHROUGH, {'interface': 'power', 'step': 'reboot'}]
    mark = ironic.log_mark()
    preview = converge(run_module, node['name'], 'active', service_steps=service_steps, check=True)
    assert steps_of(preview) == [('service', 'active', 'active')] and preview['changed'] is True
    assert ironic.write_requests_since(mark) == []
    for _run in range(2):
        mark = ironic.log_mark()
        result = converge(run_module, node['name'], 'active', service_steps=service_steps)
        assert not result.get('failed'), result.get('msg')
        assert result['changed'] is True
        assert [(t['verb'], t['to']) for t in result['transitions']] == [('service', 'active')]
        assert [request.path for request in ironic.write_requests_since(mark)] == [
            '/v1/nodes/%s/states/provision' % node['uuid']]
        assert conductor_moves(ironic, mark, node['uuid']) == [('active', 'servicing'), ('servicing', 'active')]


def test_a_failed_service_is_recovered_by_clearing_the_fault_then_aborting_or_servicing_again(raw, ironic, run_module):
    node = raw.node_in('active')
    failed = converge(run_module, node['name'], 'active', service_steps=[{'interface': 'vendor', 'step': 'no_such_step'}])
    assert failed['failed'] and failed['node']['provision_state'] == 'service failed'
    assert failed['node']['maintenance'] is True and failed['node']['fault'] == 'service failure'

    # Ironic refuses abort in maintenance: without clear_fault the task names the fault, the option and the fix
    mark = ironic.log_mark()
    refused = converge(run_module, node['name'], 'active')
    assert refused['failed']
    for words in ("fault 'service failure'", 'clear_fault: true', 'baremetal_maintenance maintenance: false'):
        assert words in refused['msg']
    assert ironic.write_requests_since(mark) == []

    aborted = converge(run_module, node['name'], 'active', clear_fault=True)
    assert not aborted.get('failed'), aborted.get('msg')
    assert steps_of(aborted) == [('clear_fault', 'service failed', 'service failed'), ('abort', 'service failed', 'active')]
    assert aborted['node']['provision_state'] == 'active' and aborted['node']['maintenance'] is False

    converge(run_module, node['name'], 'active', service_steps=[{'interface': 'vendor', 'step': 'no_such_step'}])
    serviced = converge(run_module, node['name'], 'active', clear_fault=True, service_steps=[LOG_PASSTHROUGH])
    assert not serviced.get('failed'), serviced.get('msg')
    assert steps_of(serviced) == [('clear_fault', 'service failed', 'service failed'), ('service', 'service failed', 'active')]
    assert serviced['node']['provision_state'] == 'active' and serviced['node']['fault'] is None


def hold_in_servicing(ironic, uuid, service_steps):
    """Leave an active node where a service step 'hold' leaves it: in 'service hold', its steps recorded.

    Ironic 39 drops reserved steps such as 'hold' from the steps a request gives (conductor/steps.py,
    _validate_user_steps), so no API request reaches a hold; the state is written in Ironic's database,
    and everything after it (unhold, the remaining steps) is Ironic's own work.
    """
    database = sqlite3.connect(os.path.join(ironic.base_dir, 'ironic.sqlite'))
    try:
        info = json.loads(database.execute('SELECT driver_internal_info FROM nodes WHERE uuid = ?',
                                           (uuid,)).fetchone()[0] or '{}')
        info.update(service_steps=service_steps, service_step_index=0)
        database.execute("UPDATE nodes SET provision_state = 'service hold', target_provision_state = 'active', "
                         'driver_internal_info = ?, service_step = ? WHERE uuid = ?',
                         (json.dumps(info), json.dumps(service_steps[0]), uuid))
        database.commit()
    finally:
        database.close()


def test_a_held_node_is_resumed_only_with_unhold(raw, ironic, run_module):
    node = raw.node_in('active')
    hold_in_servicing(ironic, node['uuid'], [{'interface': 'deploy', 'step': 'hold', 'priority': 0, 'args': {}},
                                             dict(LOG_PASSTHROUGH, priority=0, args={})])
    mark = ironic.log_mark()
    refused = converge(run_module, node['name'], 'active', service_steps=[LOG_PASSTHROUGH])
    assert refused['failed'] and "'service hold'" in refused['msg'] and 'unhold: true' in refused['msg']
    assert ironic.write_requests_since(mark) == []
    assert raw.node(node['uuid'])['provision_state'] == 'service hold'

    # the servicing the hold interrupted is resumed, not started again
    mark = ironic.log_mark()
    resumed = converge(run_module, node['name'], 'active', service_steps=[LOG_PASSTHROUGH], unhold=True)
    assert steps_of(resumed) == [('unhold', 'service hold', 'active')]
    assert [(request.method, request.path) for request in ironic.write_requests_since(mark)] == [
        ('PUT', '/v1/nodes/%s/states/provision' % node['uuid'])]
    assert conductor_moves(ironic, mark, node['uuid'])[0] == ('service hold', 'service wait')
    if resumed.get('failed'):
        # Ironic 39 resumes the remaining steps from 'service wait' without its 'resume' event and then fails
        # on 'done' (conductor/servicing.py continue_node_service): the module passes Ironic's own words on,
        # and the node is recovered like any failed service.
        assert "'unhold' from 'service hold' ended in 'service failed'" in resumed['msg']
        assert "from state 'service wait' on event 'done'" in resumed['msg']
        recovered = converge(run_module, node['name'], 'active', clear_fault=True)
        assert not recovered.get('failed'), recovered.get('msg')
        assert [step['verb'] for step in recovered['plan']][-1] == 'abort'
    assert raw.node(node['uuid'])['provision_state'] == 'active'


def test_retired_and_protected_nodes_declared_available_fail_before_any_write(raw, ironic, run_module):
    retired = raw.node_in('manageable')
    raw.patch(retired['uuid'], retired=True, retired_reason='end of life')
    protected = raw.node_in('active')
    raw.patch(protected['uuid'], protected=True, protected_reason='database primary')
    mark = ironic.log_mark()
    result = converge(run_module, retired['name'], 'available')
    assert result['failed'] and result['node']['retired'] is True
    for words in ('provide (manageable -> available)', 'retired node', 'end of life',
                  'baremetal.lifecycle.baremetal_node retired: false'):
        assert words in result['msg']
    result = converge(run_module, protected['name'], 'available', allow_destructive=True)
    assert result['failed'] and result['node']['protected'] is True
    for words in ('undeploy (active -> available)', 'protected node', 'database primary',
                  'baremetal.lifecycle.baremetal_node protected: false'):
        assert words in result['msg']
    assert ironic.write_requests_since(mark) == []
    assert raw.node(retired['uuid'])['provision_state'] == 'manageable'
    assert raw.node(protected['uuid'])['provision_state'] == 'active'
    # what the flags still allow: a retired node is cleaned back to manageable, a protected one serviced
    cleaned = converge(run_module, retired['name'], 'manageable', clean_steps=[LOG_PASSTHROUGH])
    assert steps_of(cleaned) == [('clean', 'manageable', 'manageable')] and not cleaned.get('failed')
    serviced = converge(run_module, protected['name'], 'active', service_steps=[LOG_PASSTHROUGH])
    assert steps_of(serviced) == [('service', 'active', 'active')] and not serviced.get('failed')
