# -*- coding: utf-8 -*-
"""What the tests' HTTP servers on loopback share, for the unit tests' scripted Ironic
(tests/unit/plugins/module_utils/ironic/scripted.py) and the integration tests' fault-injecting proxy
(tests/integration/proxy.py): a request handler that reads a request's body, sends an answer or loses it; and a
server that accepts connections and never answers (SilentServer), for the tests of a hung endpoint."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import socket
import threading
from http.server import BaseHTTPRequestHandler

# Headers an answer never copies from another: they belong to one connection, or are set by send_answer itself.
NOT_COPIED = ('connection', 'transfer-encoding', 'content-length')


class LoopbackHandler(BaseHTTPRequestHandler):
    """Handles every request method with ``answer()`` (a subclass's), and logs nothing."""

    def answer(self):
        raise NotImplementedError

    def _any_method(self):
        self.answer()

    do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _any_method

    def log_message(self, *args):
        pass

    def request_body(self):
        """The request's body (bytes), or None when it has none."""
        length = int(self.headers.get('Content-Length') or 0)
        return self.rfile.read(length) if length else None

    def send_answer(self, status, headers, payload):
        """Answers with status, the (name, value) headers but NOT_COPIED ones, and payload (bytes)."""
        self.send_response(status)
        for key, value in headers:
            if key.lower() not in NOT_COPIED:
                self.send_header(key, value)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def lose_answer(self):
        """The request arrived (and was acted on); the client hears no answer: the connection closes."""
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


class SilentServer(object):
    """A server on loopback that accepts every connection and never answers (a hung Ironic or keystone): ``url``,
    ``connections`` (how many it accepted). A context manager; closing it closes every connection it holds."""

    def __init__(self):
        self._listener = socket.socket()
        self._listener.bind(('127.0.0.1', 0))
        self._listener.listen(16)
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self._held = []
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def connections(self):
        return len(self._held)

    def _accept(self):
        while not self._closing.is_set():
            try:
                self._held.append(self._listener.accept()[0])
            except socket.timeout:
                continue

    def close(self):
        self._closing.set()
        self._thread.join(5)
        self._listener.close()
        for connection in self._held:
            connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
