# -*- coding: utf-8 -*-
"""HTTP servers on loopback for the tests: a fault-injecting proxy in front of a real Ironic (tests and
bench/bench_poll.py), and a server of images for Ironic to boot."""

from __future__ import annotations

import functools
import http.client
import json
import http.server
import re
import threading

from loopback_http import LoopbackHandler


def matching(method, pattern):
    """A rule for FaultProxy.inject: requests with this method whose path matches the regular expression."""
    return lambda request_method, path: request_method == method and re.match(pattern, path) is not None


def playing_ironic_api(version):
    """A FaultProxy answer rewriting Ironic's root so that the client sees an Ironic whose newest API is version."""
    def answer(method, path, payload):
        if method == 'GET' and path == '/':
            root = json.loads(payload)
            root['default_version']['version'] = version
            return json.dumps(root).encode()
        return payload
    return answer


class ServedInThread(object):
    """An HTTP server on loopback (self.server), served by a thread of the test process from the with block's start,
    and shut down at its end."""

    def serve(self, server):
        self.server = server
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


class ImageServer(ServedInThread):
    """Serves ``directory`` (a pathlib.Path) on loopback, with an ISO image ``boot.iso`` in it (``url()``), and
    Ironic's copies of the images it attaches when the directory is its ``[deploy]http_root`` and ``root_url`` its
    ``[deploy]http_url``."""

    class _Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    def __init__(self, directory):
        self.directory = directory
        (directory / 'boot.iso').write_bytes(b'\0' * 2048)
        handler = functools.partial(self._Quiet, directory=str(directory))
        self.serve(http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler))
        self.root_url = 'http://127.0.0.1:%d' % self.server.server_address[1]

    def url(self, credentials=''):
        return 'http://%s127.0.0.1:%d/boot.iso' % (credentials, self.server.server_address[1])

    def start_ironic(self, make_ironic, raid=False):
        """A dedicated Ironic (make_ironic) whose [deploy]http_url and http_root are this server and its directory,
        so it serves its copies of images from here; raid enables the redfish RAID interface as well."""
        ironic = make_ironic()
        overrides = {'deploy': {'http_url': self.root_url, 'http_root': str(self.directory)}}
        if raid:
            overrides['DEFAULT'] = {'enabled_raid_interfaces': 'fake,no-raid,redfish'}
        ironic.role_vars['ironic_standalone_config_overrides'] = overrides
        ironic.start()
        return ironic


class FaultProxy(ServedInThread):
    """Forwards every request to Ironic, counts requests and answer bytes, and injects faults.

    inject(rule, fault, times=1): the next ``times`` requests for which rule(method, path) is true get the fault:
    'drop' forwards the request and closes the connection without an answer (Ironic applied it; the client hears
    nothing), 'twice' forwards it twice and answers with the second answer. ``injected`` lists each as
    (method, path, status Ironic answered, fault). ``before(method, path)``, when given, runs before each request
    is forwarded (to change the node under the client's feet, as another operator would). ``answer(method, path,
    payload)``, when given, returns the answer body the client gets instead of Ironic's (to play an older Ironic).
    """

    def __init__(self, upstream_port, before=None, answer=None):
        self.before = before
        self.answer = answer
        self.injected = []
        self.requests = 0
        self.bytes = 0
        self._faults = []  # [rule, fault, times left]
        self._lock = threading.Lock()
        proxy = self

        class Handler(LoopbackHandler):
            protocol_version = 'HTTP/1.1'

            def _send_upstream(self, body):
                upstream = http.client.HTTPConnection('127.0.0.1', upstream_port, timeout=120)
                headers = dict((key, value) for key, value in self.headers.items() if key.lower() != 'host')
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                answer = response.status, response.getheaders(), response.read()
                upstream.close()
                return answer

            def answer(self):
                body = self.request_body()
                if proxy.before:
                    proxy.before(self.command, self.path)
                fault = proxy._take(self.command, self.path)
                status, headers, payload = self._send_upstream(body)
                if fault == 'twice':
                    status, headers, payload = self._send_upstream(body)
                if proxy.answer:
                    payload = proxy.answer(self.command, self.path, payload)
                with proxy._lock:
                    proxy.requests += 1
                    proxy.bytes += len(payload)
                    if fault:
                        proxy.injected.append((self.command, self.path, status, fault))
                if fault == 'drop':
                    self.lose_answer()
                else:
                    self.send_answer(status, headers, payload)

        self.serve(http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler))
        self.server.daemon_threads = True
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_address[1]

    def inject(self, rule, fault, times=1):
        with self._lock:
            self._faults.append([rule, fault, times])

    def _take(self, method, path):
        with self._lock:
            for entry in self._faults:
                rule, fault, left = entry
                if left and rule(method, path):
                    entry[2] -= 1
                    return fault
        return None

    def count(self):
        """(requests, answer bytes) so far."""
        with self._lock:
            return self.requests, self.bytes
