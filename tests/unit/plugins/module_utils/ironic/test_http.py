# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HTTP transport against small HTTP/1.1 servers on loopback: keep-alive, proxies, failures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import ConnectionFailed, Session


class Server(object):
    """An HTTP/1.1 server that answers every request with what it saw, and counts the connections it accepted."""

    def __init__(self, close_after_answer=False):
        self.connections = 0
        self.seen = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def setup(self):
                owner.connections += 1
                BaseHTTPRequestHandler.setup(self)

            def _answer(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                seen = {'method': self.command, 'path': self.path, 'body': body,
                        'authorization': self.headers.get('Authorization'),
                        'proxy_authorization': self.headers.get('Proxy-Authorization')}
                owner.seen.append(seen)
                data = json.dumps(seen).encode()
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                if close_after_answer:  # as a server whose keep-alive timeout ran out while the client was idle
                    self.close_connection = True

            do_GET = do_PUT = do_POST = do_PATCH = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server():
    started = Server()
    yield started
    started.close()


@pytest.fixture(autouse=True)
def no_proxy_variables(monkeypatch):
    for name in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_requests_share_one_keep_alive_connection(server):
    session = Session()
    for index in range(3):
        answer = session.request('PUT', server.url + '/v1/nodes/n1', body={'index': index}, params={'a': 'b c'})
        assert answer.status_code == 200 and answer.json()['body'] == {'index': index}
    assert server.seen[0]['path'] == '/v1/nodes/n1?a=b+c'
    assert server.connections == 1


def test_a_connection_the_server_closed_while_idle_is_opened_again():
    closing = Server(close_after_answer=True)
    try:
        session = Session()
        for _index in range(3):
            assert session.request('GET', closing.url + '/').status_code == 200
            kept = [connection.sock for connection, _proxy in session._local.connections.values()]
            # idle until the server's close reaches the client (its socket reads as ready: EOF), a bounded wait
            assert len(kept) == 1 and select.select(kept, [], [], 10)[0], 'the server never closed the connection'
        assert closing.connections == 3
    finally:
        closing.close()


def test_each_thread_has_its_own_connection(server):
    session = Session()
    threads = [threading.Thread(target=session.request, args=('GET', server.url + '/')) for _index in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(server.seen) == 3 and server.connections == 3


def test_basic_auth_and_session_headers_go_with_every_request(server):
    session = Session(auth=('admin', 'pa:ss'))
    session.headers['X-Auth-Token'] = 'token'
    session.request('GET', server.url + '/')
    assert base64.b64decode(server.seen[0]['authorization'].split()[1]) == b'admin:pa:ss'


def test_a_refused_connection_was_never_sent():
    with socket.socket() as unused:
        unused.bind(('127.0.0.1', 0))
        port = unused.getsockname()[1]
    with pytest.raises(ConnectionFailed) as caught:
        Session().request('PUT', 'http://127.0.0.1:%d/' % port, body={})
    assert caught.value.refused and not caught.value.sent and not caught.value.timed_out
    assert 'refused' in caught.value.reason.lower()


def test_a_request_whose_answer_never_came_may_have_been_applied():
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)

    def read_then_hang_up():
        connection, _address = listener.accept()
        select.select([connection], [], [], 5)
        connection.recv(65536)
        connection.close()

    thread = threading.Thread(target=read_then_hang_up, daemon=True)
    thread.start()
    try:
        with pytest.raises(ConnectionFailed) as caught:
            Session().request('PUT', 'http://127.0.0.1:%d/v1/nodes/n1' % listener.getsockname()[1], body={})
        assert caught.value.sent and not caught.value.refused and not caught.value.timed_out
    finally:
        thread.join(5)
        listener.close()


def test_a_request_that_gets_no_answer_within_the_timeout_was_sent_and_timed_out(monkeypatch):
    """A server that accepts the connection (the kernel does, into the listen backlog) and never answers: the
    request waits on a socket whose timeout is the one given, not the default, and reports that it timed out."""
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)
    opened, create_connection = [], socket.create_connection

    def recorded_connection(*args, **kwargs):
        opened.append(create_connection(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(socket, 'create_connection', recorded_connection)  # what http.client connects with
    try:
        with pytest.raises(ConnectionFailed) as caught:
            Session().request('GET', 'http://127.0.0.1:%d/v1/nodes' % listener.getsockname()[1], timeout=0.2)
        assert caught.value.timed_out and caught.value.sent and not caught.value.refused
        assert [connection.gettimeout() for connection in opened] == [0.2]
    finally:
        listener.close()


def test_an_http_proxy_from_the_environment_gets_the_absolute_url(server, monkeypatch):
    proxy = Server()
    try:
        monkeypatch.setenv('http_proxy', 'http://user:secret@%s' % proxy.url.split('://')[1])
        Session().request('GET', server.url + '/v1/nodes?limit=1')
        assert server.seen == []
        assert proxy.seen[0]['path'] == server.url + '/v1/nodes?limit=1'
        assert base64.b64decode(proxy.seen[0]['proxy_authorization'].split()[1]) == b'user:secret'
        monkeypatch.setenv('no_proxy', '127.0.0.1')
        Session().request('GET', server.url + '/')
        assert len(server.seen) == 1 and len(proxy.seen) == 1
    finally:
        proxy.close()
