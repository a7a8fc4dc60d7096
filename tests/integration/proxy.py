# -*- coding: utf-8 -*-
"""A fault-injecting HTTP proxy on loopback, in front of the test Ironic."""

from __future__ import annotations

import http.client
import http.server
import socket
import threading


class DroppingProxy(object):
    """Forwards every request to Ironic; drops the answer of the first ``drops`` requests matching ``rule``.

    ``before(method, path)``, when given, runs before each request is forwarded (to change the node under
    the client's feet, as another operator would).
    """

    def __init__(self, upstream_port, rule, drops=1, before=None):
        self.rule = rule
        self.drops = drops
        self.before = before
        self.dropped = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def _forward(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                if proxy.before:
                    proxy.before(self.command, self.path)
                upstream = http.client.HTTPConnection('127.0.0.1', upstream_port, timeout=60)
                headers = dict((key, value) for key, value in self.headers.items() if key.lower() != 'host')
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                payload = response.read()
                upstream.close()
                if proxy.drops and proxy.rule(self.command, self.path):
                    proxy.drops -= 1
                    proxy.dropped.append((self.command, self.path, response.status))
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)  # Ironic applied it; the client hears nothing
                    return
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ('connection', 'transfer-encoding', 'content-length'):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
