# -*- coding: utf-8 -*-
"""A scripted Ironic on loopback for the ironic layer's tests (and node/test_info.py): it answers each request from a queue
of answers, and records what it was sent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import threading
from http.server import HTTPServer

from loopback_http import LoopbackHandler


def ironic_error(message):
    return {'error_message': json.dumps({'faultcode': 'Client', 'faultstring': message, 'debuginfo': None})}


class ScriptedIronic(object):
    """Answers each (method, path) from a queue of (status, body); the last answer repeats."""

    def __init__(self, max_version='1.115', port=0):
        self.script = {('GET', '/'): [(200, {'default_version': {'version': max_version, 'min_version': '1.1'}})]}
        self.requests = []
        script, requests = self.script, self.requests

        class Handler(LoopbackHandler):
            def answer(self):
                body = self.request_body()
                body = json.loads(body) if body else None
                requests.append((self.command, self.path, self.headers.get('X-OpenStack-Ironic-API-Version'), body))
                answers = script.get((self.command, self.path.split('?')[0]), [(404, ironic_error('no route'))])
                status, payload = answers.pop(0) if len(answers) > 1 else answers[0]
                if status is None:  # the request arrived; its answer is lost
                    self.lose_answer()
                else:
                    self.send_answer(status, [('Content-Type', 'application/json')],
                                     json.dumps(payload).encode() if payload is not None else b'')

        self.server = HTTPServer(('127.0.0.1', port), Handler)
        self.port = self.server.server_address[1]
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def on(self, method, path, *answers):
        self.script[(method, path)] = list(answers)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
