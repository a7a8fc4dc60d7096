# -*- coding: utf-8 -*-
"""baremetal_node when an answer is lost (issue 11, section 2): a fault-injecting proxy on loopback forwards every
request to the real Ironic and, for the requests a test names, drops the answer after Ironic applied the request,
or delivers the request twice. A node or port is never created twice, and the task goes on from what Ironic holds.
"""

import uuid

import pytest
from proxy import FaultProxy, matching

from test_node import new_mac, ports_of


@pytest.fixture
def proxy(ironic):
    with FaultProxy(ironic.port) as running:
        yield running


@pytest.fixture
def name(ironic):
    made = 'lost-%s' % uuid.uuid4().hex[:10]
    yield made
    ironic.api('DELETE', '/nodes/%s' % made, expect=None)


def run_node(run_module, proxy, **args):
    return run_module('baremetal_node', cloud=None, endpoint=proxy.endpoint, **args)


def writes(ironic, mark):
    return [(request.method, request.path) for request in ironic.write_requests_since(mark)]


def test_a_node_and_a_port_whose_answers_were_lost_are_created_once(ironic, run_module, proxy, name):
    mac = new_mac()
    proxy.inject(matching('POST', r'/v1/nodes$'), 'drop')
    proxy.inject(matching('POST', r'/v1/ports$'), 'drop')
    mark = ironic.log_mark()
    result = run_node(run_module, proxy, name=name, driver='fake-hardware', ports=[{'address': mac}],
                      traits=['CUSTOM_LOST'])
    assert not result.get('failed'), result.get('msg')
    assert [fault for _method, _path, _status, fault in proxy.injected] == ['drop', 'drop']
    assert result['changed'] is True and result['created'] is True
    node = ironic.api('GET', '/nodes/%s' % name)
    assert [request for request in writes(ironic, mark) if request[0] == 'POST'] == [
        ('POST', '/v1/nodes'), ('POST', '/v1/ports')]
    assert [port['address'] for port in ports_of(ironic, node['uuid'])] == [mac]
    assert node['traits'] == ['CUSTOM_LOST']

    mark = ironic.log_mark()
    again = run_node(run_module, proxy, name=name, driver='fake-hardware', ports=[{'address': mac}],
                     traits=['CUSTOM_LOST'])
    assert again['changed'] is False and writes(ironic, mark) == []


def test_a_second_post_of_the_record_we_sent_is_no_failure(ironic, run_module, proxy, name):
    # The POST reaches Ironic twice (a replay on the way): the second answer is 409, the name exists.
    proxy.inject(matching('POST', r'/v1/nodes$'), 'twice')
    result = run_node(run_module, proxy, name=name, driver='fake-hardware', resource_class='lost-small')
    assert not result.get('failed'), result.get('msg')
    assert proxy.injected and result['created'] is True
    assert ironic.api('GET', '/nodes/%s' % name)['resource_class'] == 'lost-small'
    assert len([node for node in ironic.api('GET', '/nodes?fields=name')['nodes'] if node['name'] == name]) == 1


def test_a_patch_whose_answer_was_lost_is_read_back_not_sent_again(ironic, run_module, proxy, name):
    ironic.api('POST', '/nodes', {'name': name, 'driver': 'fake-hardware', 'extra': {'old': 1, 'keep': 2}})
    # Sent again, the PATCH would remove a key the first one already removed: Ironic would refuse it (HTTP 400).
    proxy.inject(matching('PATCH', r'/v1/nodes/'), 'drop')
    mark = ironic.log_mark()
    result = run_node(run_module, proxy, name=name, extra={'old': None, 'new': 3})
    assert not result.get('failed'), result.get('msg')
    assert proxy.injected and result['changed'] is True
    assert [method for method, _path in writes(ironic, mark)] == ['PATCH']
    assert ironic.api('GET', '/nodes/%s' % name)['extra'] == {'keep': 2, 'new': 3}
