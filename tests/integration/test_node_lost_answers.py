# -*- coding: utf-8 -*-
"""baremetal_node when an answer is lost (issue 11, section 2): a fault-injecting proxy on loopback forwards every
request to the real Ironic and, for the requests a test names, drops the answer after Ironic applied the request,
or delivers the request twice. A node or port is never created twice, and the task goes on from what Ironic holds.
"""

import http.client
import http.server
import re
import threading
import uuid

import pytest

from test_node import new_mac, ports_of


class FaultProxy(object):
    """An HTTP proxy on a free loopback port in front of Ironic. faults maps (method, path regex) to a list of
    faults, used up in order by the matching requests: 'drop' forwards the request and closes the connection
    without an answer; 'twice' forwards it twice and answers with the second answer."""

    def __init__(self, target):
        self.target = target
        self.faults = {}
        self.injected = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self, body):
                host, port = proxy.target
                connection = http.client.HTTPConnection(host, port, timeout=60)
                headers = dict((key, value) for key, value in self.headers.items()
                               if key.lower() not in ('host', 'connection'))
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                answer = (response.status, response.getheaders(), response.read())
                connection.close()
                return answer

            def _handle(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                fault = proxy.take(self.command, self.path)
                answer = self._forward(body)
                if fault == 'twice':
                    answer = self._forward(body)
                if fault == 'drop':
                    self.close_connection = True
                    return
                status, headers, content = answer
                self.send_response(status)
                for key, value in headers:
                    if key.lower() not in ('connection', 'transfer-encoding', 'content-length'):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(content)))
                self.send_header('Connection', 'close')
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def take(self, method, path):
        for (fault_method, pattern), faults in self.faults.items():
            if faults and method == fault_method and re.match(pattern, path):
                self.injected.append((method, path, faults[0]))
                return faults.pop(0)
        return None

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def proxy(ironic):
    host, port = ironic.endpoint.split('//')[1].rsplit(':', 1)
    with FaultProxy((host, int(port.rstrip('/')))) as running:
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
    proxy.faults = {('POST', r'/v1/nodes$'): ['drop'], ('POST', r'/v1/ports$'): ['drop']}
    mark = ironic.log_mark()
    result = run_node(run_module, proxy, name=name, driver='fake-hardware', ports=[{'address': mac}],
                      traits=['CUSTOM_LOST'])
    assert not result.get('failed'), result.get('msg')
    assert [fault for _method, _path, fault in proxy.injected] == ['drop', 'drop']
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
    proxy.faults = {('POST', r'/v1/nodes$'): ['twice']}
    result = run_node(run_module, proxy, name=name, driver='fake-hardware', resource_class='lost-small')
    assert not result.get('failed'), result.get('msg')
    assert proxy.injected and result['created'] is True
    assert ironic.api('GET', '/nodes/%s' % name)['resource_class'] == 'lost-small'
    assert len([node for node in ironic.api('GET', '/nodes?fields=name')['nodes'] if node['name'] == name]) == 1


def test_a_patch_whose_answer_was_lost_and_whose_retry_is_refused_is_no_failure(ironic, run_module, proxy, name):
    ironic.api('POST', '/nodes', {'name': name, 'driver': 'fake-hardware', 'extra': {'old': 1, 'keep': 2}})
    # The retried PATCH removes a key the first one already removed: Ironic refuses it (HTTP 400).
    proxy.faults = {('PATCH', r'/v1/nodes/'): ['drop']}
    result = run_node(run_module, proxy, name=name, extra={'old': None, 'new': 3})
    assert not result.get('failed'), result.get('msg')
    assert proxy.injected and result['changed'] is True
    assert ironic.api('GET', '/nodes/%s' % name)['extra'] == {'keep': 2, 'new': 3}
