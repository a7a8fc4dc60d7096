# -*- coding: utf-8 -*-
"""Honest fleets and honest timeouts, against the real Ironic: wait: false starts every node, a node deleted
while the task waits is reported at once, a refusal in the middle of a plan says where the node rests and why, a
plan the API is too old for is refused before its first step, and a timeout says where the node stopped, with its
history, and aborts it on request.

A node waits for a ramdisk that never calls back ('clean wait') when it is cleaned with the direct deploy
interface: Ironic boots the (fake) ramdisk and waits for the agent. That needs an Ironic that knows its own API
URL, so those tests run on a dedicated Ironic.
"""

from __future__ import annotations

import json
import time

from dedicated import result_of, spawn_with, start_module
from proxy import FaultProxy

PROVISION = '/states/provision'
POLLS_TO_NOTICE = 4  # the node reads between a deletion and its report (2 seen): the timeout would take 60 polls
STEPS = [{'interface': 'deploy', 'step': 'erase_devices_metadata'}]


def node_in_clean_wait(ironic, name):
    node = ironic.api('POST', '/v1/nodes', {'name': name, 'driver': 'fake-hardware', 'deploy_interface': 'direct'})
    ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
    wait_for(ironic, node['uuid'], 'manageable')
    ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'clean', 'clean_steps': STEPS})
    wait_for(ironic, node['uuid'], 'clean wait')
    return node


def polled_after(path):
    """A condition of ironic.wait_for_requests: the nodes were read (a poll) after a request to path."""
    def condition(requests):
        paths = [request.path for request in requests]
        return path in paths and any(request.method == 'GET' and request.path.startswith('/v1/nodes')
                                     for request in requests[paths.index(path) + 1:])
    return condition


def wait_for(ironic, uuid, state, seconds=60):
    deadline = time.monotonic() + seconds
    while ironic.api('GET', '/v1/nodes/%s' % uuid)['provision_state'] != state:
        assert time.monotonic() < deadline, 'node %s never reached %s' % (uuid, state)
        time.sleep(0.1)


def test_wait_false_issues_the_first_step_of_every_node_whatever_the_concurrency(ironic, fresh_node, run_module):
    nodes = [fresh_node() for _index in range(5)]
    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', nodes=[node['name'] for node in nodes], state='available',
                        wait=False, concurrency=2)
    assert not result.get('failed'), result
    assert all(entry['transitions'] == [{'verb': 'manage', 'from': 'enroll', 'to': None, 'seconds': 0.0}] and
               entry['changed'] for entry in result['nodes'])
    writes = ironic.write_requests_since(mark)
    assert sorted(request.path for request in writes) == sorted(
        '/v1/nodes/%s%s' % (node['uuid'], PROVISION) for node in nodes)


def test_a_refusal_in_the_middle_of_a_plan_names_the_step_the_state_and_the_maintenance_reason(
        ironic, fresh_node, run_module):
    node = fresh_node()

    def maintenance_before_deploy(method, path):
        # Another operator sets maintenance between 'provide' and 'deploy'.
        if method == 'PUT' and path.endswith(PROVISION) and \
                ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['provision_state'] == 'available':
            ironic.api('PUT', '/v1/nodes/%s/maintenance' % node['uuid'], {'reason': 'disk replaced by ops'})

    with FaultProxy(ironic.port, before=maintenance_before_deploy) as proxy:
        result = run_module('baremetal_provision_state', node=node['uuid'], state='active', endpoint=proxy.endpoint)
    assert result['failed']
    assert "Ironic refused 'active' (step 3 of 3) from 'available'" in result['msg']
    assert "rests in 'available'" in result['msg'] and 'disk replaced by ops' in result['msg']
    assert 'baremetal_maintenance' in result['msg']
    assert [step['verb'] for step in result['transitions']] == ['manage', 'provide']
    assert result['node']['maintenance'] is True


def test_a_plan_the_api_is_too_old_for_is_refused_before_its_first_step(ironic, fresh_node, run_module):
    node = fresh_node()

    def before_service_steps(method, path, payload):
        # Ironic as it was before API 1.87: no service steps.
        if method == 'GET' and path == '/':
            root = json.loads(payload)
            root['default_version']['version'] = '1.86'
            return json.dumps(root).encode()
        return payload

    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=before_service_steps) as proxy:
        result = run_module('baremetal_provision_state', node=node['uuid'], state='active', endpoint=proxy.endpoint,
                            service_steps=[{'interface': 'vendor', 'step': 'log_passthrough'}])
    assert result['failed']
    assert "the 'service' verb needs Ironic API 1.87 or newer; this server supports up to 1.86" in result['msg']
    assert result['transitions'] == []
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['provision_state'] == 'enroll'


def test_wait_states_deleted_nodes_and_honest_timeouts(make_ironic, tmp_path):
    ironic = make_ironic()
    spawn_with(ironic, '[service_catalog]\nendpoint_override = %s\n' % ironic.endpoint)

    # Someone else's clean waits for its ramdisk; the node is deleted while the task waits for it to rest.
    waiting = node_in_clean_wait(ironic, 'waiting')
    other = ironic.api('POST', '/v1/nodes', {'name': 'other', 'driver': 'fake-hardware'})
    mark = ironic.log_mark()
    task = start_module(ironic, tmp_path, nodes=['waiting', 'other'], state='manageable', timeout=300,
                        max_fail_percentage=50)
    # The task waits on the nodes once it has sent 'other' on its way: a read of the nodes after that PUT is a poll.
    ironic.wait_for_requests(mark, polled_after('/v1/nodes/%s%s' % (other['uuid'], PROVISION)),
                             'a poll of the task after it moved node other')
    assert task.poll() is None, task.communicate()
    ironic.api('PUT', '/v1/nodes/%s/maintenance' % waiting['uuid'], {'reason': 'decommissioned'})
    deleted = ironic.log_mark()
    ironic.api('DELETE', '/v1/nodes/%s' % waiting['uuid'])
    result = result_of(task)
    assert not result.get('failed'), result
    gone, fine = result['nodes']
    assert "deleted while the task waited on it (last seen in 'clean wait'" in gone['error'] and not gone['changed']
    assert fine['error'] is None and fine['node']['provision_state'] == 'manageable'
    # Reported at once, not at the timeout (300 s, 60 polls at most 5 s apart): within a couple of polls.
    polls = [request for request in ironic.requests_since(deleted)
             if request.method == 'GET' and request.path.startswith('/v1/nodes')]
    assert len(polls) <= POLLS_TO_NOTICE, polls

    # A timeout says where the node stopped, with its history; the node returned is the live one.
    # (A manual clean runs on the way to available: clean, then provide.)
    for name in ('kept', 'aborted'):
        node = ironic.api('POST', '/v1/nodes', {'name': name, 'driver': 'fake-hardware'})
        ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
        wait_for(ironic, node['uuid'], 'manageable')
    # A failed clean earlier leaves an event in the node's history.
    ironic.api('PUT', '/v1/nodes/kept/states/provision',
               {'target': 'clean', 'clean_steps': [{'interface': 'deploy', 'step': 'no_such_step'}]})
    wait_for(ironic, 'kept', 'clean failed')
    ironic.api('PUT', '/v1/nodes/kept/states/provision', {'target': 'manage'})
    wait_for(ironic, 'kept', 'manageable')
    for name in ('kept', 'aborted'):
        ironic.api('PATCH', '/v1/nodes/%s' % name, [{'op': 'replace', 'path': '/deploy_interface', 'value': 'direct'}])
    result = result_of(start_module(ironic, tmp_path, node='kept', state='available', clean_steps=STEPS, timeout=3))
    assert result['failed']
    assert "timed out after 3 s during 'clean' from 'manageable'" in result['msg']
    assert "stopped in 'clean wait' (target 'manageable')" in result['msg']
    assert 'Latest events:' in result['msg'] and 'no_such_step' in result['msg']
    assert 'abort_on_timeout' in result['msg']
    assert result['node']['provision_state'] == 'clean wait'
    assert ironic.api('GET', '/v1/nodes/kept')['provision_state'] == 'clean wait'

    # abort_on_timeout aborts a node the task left waiting, and says so.
    result = result_of(start_module(ironic, tmp_path, node='aborted', state='available', clean_steps=STEPS,
                                    timeout=3, abort_on_timeout=True))
    assert result['failed'] and "It was aborted (abort_on_timeout), out of 'clean wait'" in result['msg']
    assert result['transitions'][-1]['verb'] == 'abort' and result['changed']
    wait_for(ironic, 'aborted', 'clean failed')
