# -*- coding: utf-8 -*-
"""Serve Keystone's WSGI application on a loopback address, threaded:
``python keystone_wsgi.py HOST PORT CONFIG [CERT KEY]`` (HTTPS with CERT and KEY).

Run by Keystone's own virtualenv (tests/integration/keystone_service.py, not named keystone.py: it would shadow
the package here); wsgiref needs no root and no compiler.
"""

import ssl
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HOST, PORT, CONFIG = sys.argv[1], int(sys.argv[2]), sys.argv[3]
TLS = sys.argv[4:6]
sys.argv = [sys.argv[0], '--config-file', CONFIG]  # oslo.config reads the command line of the process

from keystone.server import wsgi  # noqa: E402  pylint: disable=wrong-import-position


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):  # pylint: disable=arguments-differ
        pass


server = make_server(HOST, PORT, wsgi.initialize_public_application(), server_class=Server, handler_class=QuietHandler)
if TLS:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*TLS)
    server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
