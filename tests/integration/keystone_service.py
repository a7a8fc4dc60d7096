# -*- coding: utf-8 -*-
"""A real Keystone for the tests: PyPI's ``keystone`` on SQLite, bootstrapped with ``keystone-manage`` and served on
loopback by wsgiref (tests/integration/keystone_wsgi.py), from its own virtualenv .work/keystone-venv, created on
first use (its dependencies conflict with nothing of the test virtualenv that way).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, '.work', 'keystone-venv')
SERVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'keystone_wsgi.py')
MAKE_TLS = os.path.join(ROOT, 'roles', 'ironic_standalone', 'files', 'make_tls.py')
ADMIN = 'admin'
DOMAIN = {'name': 'Default'}


def ensure_venv():
    """Create .work/keystone-venv with keystone from PyPI, unless it is there already (idempotent)."""
    manage = os.path.join(VENV, 'bin', 'keystone-manage')
    if os.path.exists(manage):
        return
    subprocess.run([sys.executable, '-m', 'venv', VENV], check=True)
    subprocess.run([os.path.join(VENV, 'bin', 'pip'), 'install', '--quiet', 'keystone'], check=True, timeout=1800)


class Keystone:
    """One Keystone on a free port of 127.0.0.1, in ``base_dir``: ``auth_url`` (``.../v3``), the bootstrap user
    ``admin`` with ``password`` (admin on the system and on the project ``admin``), ``token(**scope)``, ``api()``.
    ``stop()`` ends it by its PID."""

    def __init__(self, base_dir, tls=False):
        self.base_dir = str(base_dir)
        self.port = _free_loopback_port()
        # tls: HTTPS with a certificate for 127.0.0.1 signed by a CA of its own (``ca_file``).
        self.ca_file, self.tls_files = (_certificates(self.base_dir) if tls else (None, ()))
        self.url = '%s://127.0.0.1:%d' % ('https' if tls else 'http', self.port)
        self.auth_url = self.url + '/v3'
        self.password = 'ks-' + uuid.uuid4().hex
        self.config = os.path.join(self.base_dir, 'keystone.conf')
        self.log_path = os.path.join(self.base_dir, 'keystone.log')
        self.process = None

    def _manage(self, *args):
        subprocess.run([os.path.join(VENV, 'bin', 'keystone-manage'), '--config-file', self.config] + list(args),
                       check=True, capture_output=True, timeout=300)

    def start(self, timeout=120):
        ensure_venv()
        os.makedirs(self.base_dir, exist_ok=True)
        with open(self.config, 'w', encoding='utf-8') as stream:
            stream.write('[DEFAULT]\nlog_file = %s\n[database]\nconnection = sqlite:///%s\n'
                         '[fernet_tokens]\nkey_repository = %s\n[fernet_receipts]\nkey_repository = %s\n'
                         '[credential]\nkey_repository = %s\n'
                         % tuple([self.log_path] + [os.path.join(self.base_dir, name) for name in (
                             'keystone.db', 'fernet-keys', 'fernet-receipts', 'credential-keys')]))
        self._manage('db_sync')
        for command in ('fernet_setup', 'credential_setup'):
            self._manage(command, '--keystone-user', str(os.getuid()), '--keystone-group', str(os.getgid()))
        self._manage('bootstrap', '--bootstrap-password', self.password, '--bootstrap-region-id', 'RegionOne',
                     '--bootstrap-public-url', self.auth_url)
        with open(os.path.join(self.base_dir, 'wsgi.out'), 'ab') as out:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                [os.path.join(VENV, 'bin', 'python'), SERVE, '127.0.0.1', str(self.port), self.config]
                + list(self.tls_files),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=self.base_dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('keystone exited with %s; see %s' % (self.process.returncode, self.base_dir))
            try:
                if requests.get(self.auth_url, timeout=2, verify=self.ca_file or True).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError('keystone did not answer on %s within %d s' % (self.auth_url, timeout))

    def stop(self):
        """Kill Keystone by its PID and reap it (idempotent)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def token(self, user=ADMIN, password=None, **scope):
        """A token of ``user`` (the admin by default) with ``scope`` ({'system': {'all': True}} or a project)."""
        body = {'auth': {'identity': {'methods': ['password'], 'password': {'user': {
            'name': user, 'domain': DOMAIN, 'password': password or self.password}}}}}
        if scope:
            body['auth']['scope'] = scope
        answer = requests.post(self.auth_url + '/auth/tokens', json=body, timeout=30, verify=self.ca_file or True)
        answer.raise_for_status()
        return answer.headers['X-Subject-Token'], answer.json()['token']

    def api(self, method, path, token, json=None):  # pylint: disable=redefined-outer-name
        answer = requests.request(method, self.auth_url + path, json=json, headers={'X-Auth-Token': token},
                                  timeout=30, verify=self.ca_file or True)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def password_auth(self, **scope):
        """The ``auth`` of openstacksdk's password plugin for the admin."""
        return dict({'auth_url': self.auth_url, 'username': ADMIN, 'password': self.password,
                     'user_domain_name': 'Default'}, **scope)


def _free_loopback_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _certificates(directory):
    """(CA file, (certificate file, key file)) of a CA and a server certificate for 127.0.0.1 it signed, made by the
    script the ironic_standalone role makes its own with."""
    os.makedirs(directory, exist_ok=True)
    subprocess.run([sys.executable, MAKE_TLS, directory, '127.0.0.1'], check=True, timeout=60)
    files = [os.path.join(directory, name) for name in ('ca.pem', 'server.pem', 'server.key')]
    return files[0], tuple(files[1:])
