# -*- coding: utf-8 -*-
"""A lost answer is not a failure: a fault-injecting proxy on loopback forwards requests to the real Ironic
and drops the answers of chosen ones, so Ironic applied the request but the client never hears it.

After a lost answer to a provision verb the task re-reads the node and goes on from what Ironic reports; it
never sends the verb again once Ironic applied it (a replayed verb gets HTTP 400 "can not be performed").
"""

from __future__ import annotations

import socket
import time

import pytest
from proxy import FaultProxy

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, Unreachable

PROVISION = '/states/provision'


def is_provision_put(method, path):
    return method == 'PUT' and path.endswith(PROVISION)


def provision_puts(requests, uuid):
    return [request for request in requests if request.method == 'PUT' and request.path.endswith(uuid + PROVISION)]


def test_a_lost_answer_to_a_provision_verb_raises_answer_lost_and_is_not_replayed(ironic, fresh_node):
    node = fresh_node()
    with FaultProxy(ironic.port) as proxy:
        proxy.inject(is_provision_put, 'drop')
        client = IronicClient(proxy.endpoint)
        mark = ironic.log_mark()
        with pytest.raises(AnswerLost):
            client.set_provision_state(node['uuid'], 'manage')
    assert proxy.injected and proxy.injected[0][2] == 202
    assert len(provision_puts(ironic.requests_since(mark), node['uuid'])) == 1


def test_a_refused_connect_is_unreachable_not_a_lost_answer():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]  # nothing listens on it once the socket is closed
    client = IronicClient('http://127.0.0.1:%d' % port)
    client._server_version = (1, 115)
    with pytest.raises(Unreachable, match='nothing listens there'):
        client.set_provision_state('some-node', 'manage')
    assert client.api_calls == 1  # nothing ever answered there: no Ironic to wait for


def nth_provision_put(number):
    """A rule matching only the number-th provision PUT the proxy sees."""
    seen = []

    def rule(method, path):
        if method == 'PUT' and path.endswith(PROVISION):
            seen.append(path)
            return len(seen) == number
        return False
    return rule


@pytest.mark.parametrize('lost', ['manage', 'provide'])
def test_the_task_goes_on_from_what_ironic_reports_after_a_lost_answer(ironic, fresh_node, run_module, lost):
    node = fresh_node()
    with FaultProxy(ironic.port) as proxy:
        proxy.inject(nth_provision_put(1 if lost == 'manage' else 2), 'drop')
        mark = ironic.log_mark()
        result = run_module('baremetal_provision_state', node=node['uuid'], state='available',
                            endpoint=proxy.endpoint)
    assert not result.get('failed'), result
    assert result['node']['provision_state'] == 'available'
    assert [step['verb'] for step in result['transitions']] == ['manage', 'provide']
    assert [step.get('answer_lost', False) for step in result['transitions']] == [lost == 'manage', lost == 'provide']
    assert len(proxy.injected) == 1
    assert len(provision_puts(ironic.requests_since(mark), node['uuid'])) == 2  # each verb sent once


def test_calls_and_time_with_and_without_lost_answers(ironic, fresh_node, run_module):
    """The figures for the closing note: converging 5 nodes enroll -> available through the proxy."""
    figures = {}
    for faults in (False, True):
        names = [fresh_node()['name'] for _index in range(5)]
        mark = ironic.log_mark()
        with FaultProxy(ironic.port) as proxy:
            if faults:
                proxy.inject(is_provision_put, 'drop', times=10)
            started = time.monotonic()
            result = run_module('baremetal_provision_state', nodes=names, state='available', concurrency=5,
                                endpoint=proxy.endpoint)
            seconds = time.monotonic() - started
        assert not result.get('failed'), result
        assert all(entry['node']['provision_state'] == 'available' for entry in result['nodes'])
        assert len(proxy.injected) == (10 if faults else 0)
        # Each verb reached Ironic exactly once, lost answer or not.
        assert len([request for request in ironic.write_requests_since(mark) if request.path.endswith(PROVISION)]) == 10
        figures[faults] = (result['api_calls'], round(seconds, 2))
    print('5 nodes enroll -> available: without faults %d calls in %.2f s; every provision answer lost: '
          '%d calls in %.2f s' % (figures[False] + figures[True]))


def test_a_lost_answer_to_the_instance_info_patch_is_checked_not_replayed(ironic, fresh_node, run_module):
    node = fresh_node()
    info = {'image_source': 'http://127.0.0.1:9/blank.img'}
    with FaultProxy(ironic.port) as proxy:
        proxy.inject(lambda method, path: method == 'PATCH', 'drop')
        mark = ironic.log_mark()
        result = run_module('baremetal_provision_state', node=node['uuid'], state='active', adopt=True,
                            instance_info=info, endpoint=proxy.endpoint)
    assert not result.get('failed'), result
    assert [(step['verb'], step.get('answer_lost', False)) for step in result['transitions']] == [
        ('manage', False), ('set_instance_info', True), ('adopt', False)]
    assert len(proxy.injected) == 1
    assert [request.method for request in ironic.requests_since(mark)].count('PATCH') == 1
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['instance_info']['image_source'] == info['image_source']
