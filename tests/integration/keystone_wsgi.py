# -*- coding: utf-8 -*-
"""Serve Keystone's WSGI application on a loopback address, threaded: ``python keystone_wsgi.py HOST PORT CONFIG``.

Run by Keystone's own virtualenv (tests/integration/keystone_service.py, not named keystone.py: it would shadow
the package here); wsgiref needs no root and no compiler.
"""

import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HOST, PORT, CONFIG = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.argv = [sys.argv[0], '--config-file', CONFIG]  # oslo.config reads the command line of the process

from keystone.server import wsgi  # noqa: E402  pylint: disable=wrong-import-position


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):  # pylint: disable=arguments-differ
        pass


make_server(HOST, PORT, wsgi.initialize_public_application(), server_class=Server,
            handler_class=QuietHandler).serve_forever()
