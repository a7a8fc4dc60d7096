# -*- coding: utf-8 -*-
"""Connection options -> session, over real HTTP(S) on loopback: clouds.yaml and OS_* read the way openstacksdk
reads them (a differential corpus against openstacksdk itself), TLS settings that the environment cannot
override, client certificates, http_basic refusals, and missing libraries. Keystone is tested against a real
Keystone in tests/integration/test_keystone.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import ipaddress
import json
import os
import re
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import (
    connection as _connection, transport as _transport)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.connection import client_from_params
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError

from connection_params import params
from loopback_http import SilentServer

from .task_options import write_clouds

ROOT_ANSWER = {'default_version': {'version': '1.115', 'min_version': '1.1'}}
NODES_ANSWER = {'nodes': [{'uuid': 'u1', 'name': 'n1'}]}

pytestmark = pytest.mark.usefixtures('clean_environment')


# --- certificates ---------------------------------------------------------------------------------------------

def _name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _certificate(subject, issuer, public_key, signing_key, ca, server=False):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(public_key).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                                        critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    else:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
            signing_key.public_key()), critical=False)
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(
            ipaddress.ip_address('127.0.0.1'))]), critical=False)
    return builder.sign(signing_key, hashes.SHA256())


class Authority(object):
    """A CA on disk with a server certificate for 127.0.0.1 and a client certificate, all PEM files."""

    def __init__(self, directory, name):
        directory.mkdir()
        key = ec.generate_private_key(ec.SECP256R1())
        self.ca = self._write(directory / 'ca.pem', _certificate(name, name, key.public_key(), key, ca=True))
        for role in ('server', 'client'):
            leaf_key = ec.generate_private_key(ec.SECP256R1())
            cert = _certificate('%s %s' % (name, role), name, leaf_key.public_key(), key, ca=False,
                                server=role == 'server')
            setattr(self, role + '_cert', self._write(directory / (role + '.pem'), cert))
            setattr(self, role + '_key', self._write(directory / (role + '.key'), leaf_key))

    @staticmethod
    def _write(path, item):
        if isinstance(item, x509.Certificate):
            data = item.public_bytes(serialization.Encoding.PEM)
        else:
            data = item.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption())
        path.write_bytes(data)
        return str(path)


@pytest.fixture(scope='module')
def authorities(tmp_path_factory):
    base = tmp_path_factory.mktemp('pki')
    return Authority(base / 'right', 'right CA'), Authority(base / 'other', 'other CA')


# --- servers --------------------------------------------------------------------------------------------------

class Server(object):
    """A loopback HTTP(S) server answering (method, path) from handler(request) -> (status, body, headers).

    Records every request as dict(method, path, headers, body, client_cert).
    """

    def __init__(self, handler, tls=None):
        self.requests = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get('Content-Length') or 0)
                raw = self.rfile.read(length) if length else b''
                peer = self.connection.getpeercert() if hasattr(self.connection, 'getpeercert') else None
                request = dict(method=self.command, path=self.path, headers=dict(self.headers),
                               body=json.loads(raw) if raw else None, client_cert=peer)
                requests.append(request)
                status, body, headers = handler(request)
                data = json.dumps(body).encode() if body is not None else b''
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = HTTPServer(('127.0.0.1', 0), Handler)
        scheme = 'http'
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
            scheme = 'https'
        self.endpoint = '%s://127.0.0.1:%d' % (scheme, self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def ironic_answers(request):
    if request['path'] == '/':
        return 200, ROOT_ANSWER, None
    if request['path'].startswith('/v1/nodes'):
        return 200, NODES_ANSWER, None
    return 404, {'error_message': 'no route'}, None


@pytest.fixture
def serve():
    servers = []

    def start(handler=ironic_answers, tls=None):
        servers.append(Server(handler, tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def tls_context(authority, client_ca=None):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(authority.server_cert, authority.server_key)
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    return context


# --- clouds.yaml and OS_* without openstacksdk, read as openstacksdk reads them ----------------------------------

STANDALONE_CLOUDS = {
    'plain': {'auth_type': 'none', 'baremetal_endpoint_override': 'http://127.0.0.1:6385'},
    'versioned': {'auth_type': 'none', 'baremetal_endpoint_override': 'http://127.0.0.1:6385/v1/'},
    'basic': {'auth_type': 'http_basic', 'auth': {'username': 'admin', 'password': 's3cret'},
              'baremetal_endpoint_override': 'https://127.0.0.1:6385', 'cacert': '/etc/ca.pem'},
    'basic-auth-endpoint': {'auth_type': 'http_basic',
                            'auth': {'username': 'a', 'password': 'b', 'endpoint': 'https://127.0.0.1:1'}},
    'unverified': {'auth_type': 'none', 'baremetal_endpoint_override': 'https://127.0.0.1:6385', 'verify': False,
                   'cacert': '/etc/ca.pem'},
    'insecure': {'auth_type': 'none', 'baremetal_endpoint_override': 'https://127.0.0.1:6385', 'insecure': True},
    'client-cert': {'auth_type': 'none', 'baremetal_endpoint_override': 'https://127.0.0.1:6385',
                    'cert': '/etc/client.pem', 'key': '/etc/client.key'},
}


def _sdk_view(name):
    """What openstacksdk makes of a cloud: (endpoint, verify, cert, basic credentials)."""
    from openstack import config as os_config
    region = os_config.OpenStackConfig().get_one(cloud=name)
    verify, cert = region.get_requests_verify_args()
    auth = region.config.get('auth') or {}
    credentials = (auth['username'], auth['password']) if region.config['auth_type'] == 'http_basic' else None
    endpoint = region.get_endpoint('baremetal') or auth.get('endpoint')
    return endpoint.rstrip('/').rsplit('/v1', 1)[0], verify, cert, credentials


def _our_view(client):
    return client.endpoint, client._session.verify, client._session.cert, client._session.auth


@pytest.mark.parametrize('name', sorted(STANDALONE_CLOUDS))
def test_standalone_clouds_are_read_as_openstacksdk_reads_them(name, tmp_path, monkeypatch):
    write_clouds(tmp_path, monkeypatch, STANDALONE_CLOUDS)
    assert _our_view(client_from_params(params(cloud=name))) == _sdk_view(name)


def test_os_variables_alone_describe_a_standalone_ironic_as_for_openstacksdk(monkeypatch):
    monkeypatch.setenv('OS_AUTH_TYPE', 'none')
    monkeypatch.setenv('OS_BAREMETAL_ENDPOINT_OVERRIDE', 'http://127.0.0.1:6385')
    monkeypatch.setenv('OS_CACERT', '/etc/ca.pem')
    assert _our_view(client_from_params(params())) == _sdk_view(None)


def test_os_variables_for_http_basic(monkeypatch):
    for name, value in (('OS_AUTH_TYPE', 'http_basic'), ('OS_USERNAME', 'admin'), ('OS_PASSWORD', 'pw'),
                        ('OS_BAREMETAL_ENDPOINT_OVERRIDE', 'http://127.0.0.1:6385'), ('OS_INSECURE', 'true')):
        monkeypatch.setenv(name, value)
    assert _our_view(client_from_params(params())) == ('http://127.0.0.1:6385', False, None, ('admin', 'pw'))


def test_a_standalone_cloud_does_not_import_openstacksdk(tmp_path):
    """openstacksdk's import is most of a module's start-up: a standalone cloud must not pay for it."""
    clouds = tmp_path / 'clouds.yaml'
    clouds.write_text(yaml.safe_dump({'clouds': STANDALONE_CLOUDS}), encoding='utf-8')
    script = ('import sys\n'
              'from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import connection\n'
              'connection.client_from_params(dict(cloud="basic", api_timeout=1))\n'
              'print(sorted(name for name in sys.modules if name.split(".")[0] in ("openstack", "keystoneauth1")))\n')
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env.update(OS_CLIENT_CONFIG_FILE=str(clouds), PYTHONPATH=os.pathsep.join(sys.path))
    output = subprocess.run([sys.executable, '-c', script], env=env, cwd=str(tmp_path), capture_output=True,
                            text=True, check=True, timeout=60).stdout
    assert output.strip() == '[]'


def test_module_options_win_over_the_cloud(tmp_path, monkeypatch):
    write_clouds(tmp_path, monkeypatch, STANDALONE_CLOUDS)
    client = client_from_params(params(cloud='basic', validate_certs=False, endpoint='https://127.0.0.1:9',
                                       auth={'password': 'other'}))
    assert _our_view(client) == ('https://127.0.0.1:9', False, None, ('admin', 'other'))
    client = client_from_params(params(cloud='insecure', validate_certs=True, ca_cert='/mine.pem',
                                       client_cert='/c.pem', client_key='/c.key'))
    assert _our_view(client)[1:3] == ('/mine.pem', ('/c.pem', '/c.key'))


@pytest.mark.parametrize('options, message', [
    (dict(), 'no Ironic to talk to: set cloud'),
    (dict(cloud='absent'), "cloud 'absent' is not in"),
    (dict(cloud='basic', auth={'password': ''}), "auth_type http_basic needs auth.username and auth.password, and "
                                                 "neither the task's auth nor cloud 'basic' gives both."),
    (dict(cloud={'auth_type': 'none'}), 'auth_type none needs the URL of Ironic, and neither the task nor the cloud '
                                        'dictionary gives one: set endpoint'),
])
def test_wrong_connection_settings_name_the_fix(options, message, tmp_path, monkeypatch):
    write_clouds(tmp_path, monkeypatch, STANDALONE_CLOUDS)
    with pytest.raises(BaremetalError, match=message):
        client_from_params(params(**options))


def test_keystone_without_openstacksdk_names_the_missing_library_and_the_interpreter(monkeypatch):
    monkeypatch.setitem(sys.modules, 'openstack', None)
    monkeypatch.setitem(sys.modules, 'openstack.config', None)  # imported by an earlier test
    with pytest.raises(BaremetalError, match=r'^Keystone authentication needs the Python library openstacksdk.* -m pip '
                       r'install -r \S+/requirements\.txt\. Or reach a standalone Ironic') as caught:
        client_from_params(params(endpoint='http://127.0.0.1:6385', auth_type='password',
                                  auth={'auth_url': 'http://127.0.0.1:5000/v3'}))
    assert sys.executable in str(caught.value)


def test_a_module_reaches_a_standalone_ironic_without_requests(tmp_path):
    """requests is not imported on the way to a standalone Ironic (start-up time, issue 20): a module where it is
    not installed gets as far as the connection."""
    args = tmp_path / 'args.json'
    args.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': {'endpoint': 'http://127.0.0.1:9'}}), encoding='utf-8')
    script = ('import runpy, sys\n'
              'sys.modules["requests"] = None  # as if it were not installed\n'
              'sys.argv = ["baremetal_node_info", sys.argv[1]]\n'
              'runpy.run_module("ansible_collections.baremetal.lifecycle.plugins.modules.baremetal_node_info", '
              'run_name="__main__")\n')
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env['PYTHONPATH'] = os.pathsep.join(sys.path)
    process = subprocess.run([sys.executable, '-c', script, str(args)], env=env, cwd=str(tmp_path),
                             capture_output=True, text=True, timeout=60, check=False)
    result = json.loads(process.stdout)
    assert result['failed']
    assert result['msg'].startswith('cannot reach Ironic at http://127.0.0.1:9: nothing listens there'), result['msg']


# --- TLS, per request -----------------------------------------------------------------------------------------

def test_ca_cert_decides_whatever_the_environment_says(serve, authorities, monkeypatch):
    right, other = authorities
    server = serve(tls=tls_context(right))
    monkeypatch.setenv('REQUESTS_CA_BUNDLE', other.ca)
    monkeypatch.setenv('CURL_CA_BUNDLE', other.ca)
    client = client_from_params(params(endpoint=server.endpoint, ca_cert=right.ca))
    assert client.list_nodes() == NODES_ANSWER['nodes']


def test_validate_certs_false_decides_whatever_the_environment_says(serve, authorities, monkeypatch):
    right, other = authorities
    server = serve(tls=tls_context(right))
    monkeypatch.setenv('REQUESTS_CA_BUNDLE', other.ca)
    client = client_from_params(params(endpoint=server.endpoint, validate_certs=False))
    assert client.list_nodes() == NODES_ANSWER['nodes']


def test_an_unknown_certificate_is_refused_with_a_clear_message(serve, authorities):
    right, other = authorities
    server = serve(tls=tls_context(right))
    client = client_from_params(params(endpoint=server.endpoint, ca_cert=other.ca))
    with pytest.raises(BaremetalError) as caught:
        client.list_nodes()
    assert re.search(r'the TLS certificate of %s could not be verified \(.*certificate.*\)\. Give the CA bundle that '
                     r'signed it with ca_cert' % re.escape(server.endpoint.split('//')[1]), str(caught.value))
    assert client.api_calls == 1  # a certificate never becomes valid: no retry


def test_the_clouds_cacert_and_client_certificate_are_used(serve, authorities, tmp_path, monkeypatch):
    right = authorities[0]
    server = serve(tls=tls_context(right, client_ca=right.ca))
    write_clouds(tmp_path, monkeypatch, {'tls': {
        'auth_type': 'none', 'baremetal_endpoint_override': server.endpoint, 'cacert': right.ca,
        'cert': right.client_cert, 'key': right.client_key}})
    assert client_from_params(params(cloud='tls')).list_nodes() == NODES_ANSWER['nodes']
    subject = dict(item[0] for item in server.requests[-1]['client_cert']['subject'])
    assert subject['commonName'] == 'right CA client'


def test_without_the_client_certificate_the_server_refuses(serve, authorities, monkeypatch):
    monkeypatch.setattr(_transport, 'RETRY_BASE_DELAY', 0.001)  # the refusal looks like a dropped connection
    right = authorities[0]
    server = serve(tls=tls_context(right, client_ca=right.ca))
    with pytest.raises(BaremetalError, match='refused the TLS client certificate, or wanted one|cannot reach Ironic'):
        client_from_params(params(endpoint=server.endpoint, ca_cert=right.ca)).list_nodes()


# --- http_basic -----------------------------------------------------------------------------------------------

def basic_ironic(request):
    if request['path'] != '/' and request['headers'].get('Authorization') != 'Basic YWRtaW46czNjcmV0':
        # The body of Ironic's http_basic middleware (ironic.common.auth_basic).
        return 401, {'error': {'message': 'Incorrect username or password', 'code': 401}}, {
            'WWW-Authenticate': 'Basic realm="Baremetal API"'}
    return ironic_answers(request)


def test_http_basic_sends_the_credentials(serve):
    server = serve(basic_ironic)
    client = client_from_params(params(endpoint=server.endpoint, auth_type='http_basic',
                                       auth={'username': 'admin', 'password': 's3cret'}))
    assert client.list_nodes() == NODES_ANSWER['nodes']


def test_wrong_http_basic_credentials_fail_at_once_and_clearly(serve):
    server = serve(basic_ironic)
    client = client_from_params(params(endpoint=server.endpoint, auth_type='http_basic',
                                       auth={'username': 'admin', 'password': 'wrong'}))
    with pytest.raises(BaremetalError) as caught:
        client.list_nodes()
    assert str(caught.value) == (
        'Ironic refused GET /v1/nodes (HTTP 401): Incorrect username or password. The '
        'credentials were refused: check auth_type and auth (username and password for http_basic), or the cloud '
        'they come from.')
    assert [request['path'] for request in server.requests] == ['/', '/v1/nodes?limit=1000']


# --- the same resolution as openstacksdk: a differential corpus -------------------------------------------------

KEYSTONE_AUTH = {'auth_url': 'http://127.0.0.1:5000/v3', 'username': 'admin', 'password': 'pw',
                 'user_domain_name': 'Default'}
PROJECT_AUTH = dict(KEYSTONE_AUTH, project_name='admin', project_domain_name='Default')
CORPUS_CLOUDS = dict(STANDALONE_CLOUDS, **{
    'none-auth-endpoint': {'auth_type': 'none', 'auth': {'endpoint': 'http://127.0.0.1:6385'}},
    'none-top-endpoint': {'auth_type': 'none', 'endpoint': 'http://127.0.0.1:6386'},
    'none-both': {'auth_type': 'none', 'auth': {'endpoint': 'http://127.0.0.1:1'},
                  'baremetal_endpoint_override': 'http://127.0.0.1:2'},
    'basic-top-level': {'auth_type': 'http_basic', 'username': 'u', 'password': 'p',
                        'baremetal_endpoint_override': 'http://127.0.0.1:6385'},
    'password': {'auth_type': 'password', 'auth': PROJECT_AUTH, 'region_name': 'RegionTwo', 'interface': 'internal'},
    'system': {'auth_type': 'password', 'auth': dict(KEYSTONE_AUTH, system_scope='all'), 'cacert': '/etc/k.pem'},
    'token': {'auth_type': 'token', 'auth': {'auth_url': 'http://127.0.0.1:5000/v3', 'token': 'tok',
                                             'project_name': 'admin', 'project_domain_name': 'Default'}},
    'appcred': {'auth_type': 'v3applicationcredential', 'auth': {
        'auth_url': 'http://127.0.0.1:5000/v3', 'application_credential_id': 'ac1',
        'application_credential_secret': 'acs'}},
    'keystone-override': {'auth_type': 'password', 'auth': PROJECT_AUTH,
                          'baremetal_endpoint_override': 'http://127.0.0.1:6385'},
    'regions': {'auth_type': 'none', 'regions': [
        {'name': 'r1', 'values': {'baremetal_endpoint_override': 'http://127.0.0.1:1'}},
        {'name': 'r2', 'values': {'baremetal_endpoint_override': 'http://127.0.0.1:2'}}]},
    'keystone-regions': {'auth_type': 'password', 'auth': PROJECT_AUTH, 'regions': ['RegionOne', 'RegionTwo']},
    'profile': {'profile': 'auro', 'auth': {'username': 'u', 'password': 'p', 'project_name': 'x'}},
    'split-basic': {'auth_type': 'http_basic', 'auth': {'username': 'u'},
                    'baremetal_endpoint_override': 'http://127.0.0.1:6385'},
    'split-keystone': {'auth_type': 'password', 'auth': dict(KEYSTONE_AUTH, password=None, project_name='admin')},
})
SECURE_CLOUDS = {'split-basic': {'auth': {'password': 'from-secure'}},
                 'split-keystone': {'auth': {'password': 'from-secure'}}}
ENV_PASSWORD = dict(('OS_' + key.upper(), value) for key, value in PROJECT_AUTH.items())

# (clouds.yaml? secure.yaml? OS_* variables, the task's options): at least 30 configurations.
CORPUS = {
    'cloud none': (True, False, {}, dict(cloud='plain')),
    'cloud none versioned': (True, False, {}, dict(cloud='versioned')),
    'cloud none auth.endpoint': (True, False, {}, dict(cloud='none-auth-endpoint')),
    'cloud none top-level endpoint': (True, False, {}, dict(cloud='none-top-endpoint')),
    'cloud none override beats auth.endpoint': (True, False, {}, dict(cloud='none-both')),
    'cloud http_basic with cacert': (True, False, {}, dict(cloud='basic')),
    'cloud http_basic auth.endpoint': (True, False, {}, dict(cloud='basic-auth-endpoint')),
    'cloud http_basic top-level credentials': (True, False, {}, dict(cloud='basic-top-level')),
    'cloud verify false with cacert': (True, False, {}, dict(cloud='unverified')),
    'cloud insecure': (True, False, {}, dict(cloud='insecure')),
    'cloud client certificate': (True, False, {}, dict(cloud='client-cert')),
    'cloud password region interface': (True, False, {}, dict(cloud='password')),
    'cloud password system scope and CA': (True, False, {}, dict(cloud='system')),
    'cloud token': (True, False, {}, dict(cloud='token')),
    'cloud v3applicationcredential': (True, False, {}, dict(cloud='appcred')),
    'cloud keystone with baremetal_endpoint_override': (True, False, {}, dict(cloud='keystone-override')),
    'cloud per-region override, first region': (True, False, {}, dict(cloud='regions')),
    'cloud per-region override, task region': (True, False, {}, dict(cloud='regions', region_name='r2')),
    'cloud keystone regions, OS_REGION_NAME': (True, False, {'OS_REGION_NAME': 'RegionTwo'},
                                               dict(cloud='keystone-regions')),
    'cloud vendor profile': (True, False, {}, dict(cloud='profile')),
    'secure.yaml http_basic password': (True, True, {}, dict(cloud='split-basic')),
    'secure.yaml keystone password': (True, True, {}, dict(cloud='split-keystone')),
    'OS_CLOUD': (True, False, {'OS_CLOUD': 'basic'}, dict()),
    'OS_AUTH_TYPE none with OS_ENDPOINT': (False, False, {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': 'http://127.0.0.1:6385'},
                                           dict()),
    'OS_* none with override and CA': (False, False, {'OS_AUTH_TYPE': 'none', 'OS_CACERT': '/etc/ca.pem',
                                                      'OS_BAREMETAL_ENDPOINT_OVERRIDE': 'https://127.0.0.1:6385'}, dict()),
    'OS_* http_basic insecure': (False, False, {'OS_AUTH_TYPE': 'http_basic', 'OS_USERNAME': 'u', 'OS_PASSWORD': 'p',
                                                'OS_ENDPOINT': 'https://127.0.0.1:6385', 'OS_INSECURE': 'true'}, dict()),
    'OS_* password region interface': (False, False, dict(ENV_PASSWORD, OS_REGION_NAME='RegionTwo',
                                                          OS_INTERFACE='internal'), dict()),
    'OS_* token': (False, False, {'OS_AUTH_TYPE': 'token', 'OS_TOKEN': 'tok', 'OS_AUTH_URL': 'http://127.0.0.1:5000/v3',
                                  'OS_PROJECT_NAME': 'admin', 'OS_PROJECT_DOMAIN_NAME': 'Default'}, dict()),
    'OS_* v3applicationcredential': (False, False, {
        'OS_AUTH_TYPE': 'v3applicationcredential', 'OS_AUTH_URL': 'http://127.0.0.1:5000/v3',
        'OS_APPLICATION_CREDENTIAL_ID': 'ac1', 'OS_APPLICATION_CREDENTIAL_SECRET': 'acs'}, dict()),
    'OS_* password, task region and interface': (False, False, ENV_PASSWORD,
                                                 dict(region_name='RegionThree', interface='admin')),
    'task endpoint, OS_CACERT and OS_CERT': (False, False, {'OS_CACERT': '/etc/ca.pem', 'OS_CERT': '/c.pem', 'OS_KEY': '/c.key'},
                                             dict(endpoint='https://127.0.0.1:9')),
    'task endpoint beats OS_ENDPOINT, OS_TOKEN ignored': (False, False, {
        'OS_AUTH_TYPE': 'token', 'OS_TOKEN': 'tok', 'OS_ENDPOINT': 'http://127.0.0.1:1'},
        dict(endpoint='http://127.0.0.1:2')),
    'task password auth beats OS_TOKEN': (False, False, {'OS_TOKEN': 'tok', 'OS_AUTH_URL': 'http://127.0.0.1:1/v3',
                                                         'OS_REGION_NAME': 'RegionTwo'},
                                          dict(auth_type='password', auth=PROJECT_AUTH)),
    'task http_basic beats OS_USERNAME': (False, False, {'OS_USERNAME': 'env', 'OS_PASSWORD': 'env'}, dict(
        endpoint='http://127.0.0.1:9', auth_type='http_basic', auth={'username': 'u', 'password': 'p'})),
    'task auth_type with OS_* credentials': (False, False, ENV_PASSWORD, dict(auth_type='password')),
    'task endpoint with keystone from OS_*': (False, False, ENV_PASSWORD,
                                              dict(endpoint='http://127.0.0.1:9', auth_type='password')),
    'task options over the cloud TLS': (True, False, {}, dict(cloud='insecure', validate_certs=True,
                                                              ca_cert='/mine.pem', client_cert='/c.pem',
                                                              client_key='/c.key')),
    'task validate_certs false over cacert': (True, False, {}, dict(cloud='basic', validate_certs=False)),
    'task endpoint and password over the cloud': (True, False, {}, dict(
        cloud='basic', endpoint='https://127.0.0.1:9', auth={'password': 'other'})),
    'task region and interface over the cloud': (True, False, {}, dict(cloud='keystone-regions', region_name='RegionTwo',
                                                                       interface='admin')),
    'task endpoint over a keystone cloud': (True, False, {}, dict(cloud='system', endpoint='http://127.0.0.1:9')),
    'task cloud over OS_* variables': (True, False, ENV_PASSWORD, dict(cloud='plain')),
    'cloud dictionary none': (False, False, {}, dict(cloud={'auth_type': 'none',
                                                            'auth': {'endpoint': 'http://127.0.0.1:6385'}})),
    'cloud dictionary keystone': (False, False, {}, dict(cloud={'auth_type': 'v3applicationcredential', 'auth': {
        'auth_url': 'http://127.0.0.1:5000/v3', 'application_credential_id': 'ac1',
        'application_credential_secret': 'acs'}, 'interface': 'internal'})),
}
# OS_* variables that say something besides authentication: what a task's own auth leaves of the environment.
NOT_AUTHENTICATION = ('OS_REGION_NAME', 'OS_INTERFACE', 'OS_CACERT', 'OS_CERT', 'OS_KEY', 'OS_INSECURE',
                      'OS_BAREMETAL_ENDPOINT_OVERRIDE', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE')


def _sdk_kwargs(options):
    """The task's options in openstacksdk's words; an endpoint without auth_type nor cloud means auth_type none."""
    kwargs = dict((key, options[key]) for key in ('auth_type', 'auth', 'region_name', 'interface') if options.get(key))
    if options.get('endpoint'):
        kwargs['baremetal_endpoint_override'] = options['endpoint']
        if not options.get('cloud'):
            kwargs.setdefault('auth_type', 'none')
    if options.get('validate_certs') is not None:  # it decides over the cloud's verify and insecure alike
        kwargs['verify'], kwargs['insecure'] = options['validate_certs'], not options['validate_certs']
    for option, key in (('ca_cert', 'cacert'), ('client_cert', 'cert'), ('client_key', 'key')):
        if options.get(option):
            kwargs[key] = options[option]
    return kwargs


def _sdk_resolution(options):
    """What openstacksdk makes of the task's options in the current environment, in the terms of ``_our_resolution``.

    One documented difference: a task's own auth (or endpoint without auth_type) is not mixed with the
    authentication the OS_* variables give (openstacksdk would hand OS_TOKEN to a password plugin and fail).
    """
    from openstack import config as os_config
    cloud = options.get('cloud') or os.environ.get('OS_CLOUD')  # the modules' fallback for cloud
    if not cloud and (options.get('auth') or options.get('endpoint') and not options.get('auth_type')):
        for name in [name for name in os.environ if name.startswith('OS_') and name not in NOT_AUTHENTICATION]:
            os.environ.pop(name)  # monkeypatch restores the variables
    kwargs = _sdk_kwargs(options)
    if isinstance(cloud, dict):
        region = os_config.OpenStackConfig(load_yaml_config=False, load_envvars=False).get_one(**dict(cloud, **kwargs))
    else:
        region = os_config.OpenStackConfig().get_one(cloud=cloud, **kwargs)
    config = region.config
    verify, cert = region.get_requests_verify_args()
    auth = dict(config['auth'])
    if config['auth_type'] in ('none', 'http_basic'):
        credentials = (auth['username'], auth['password']) if config['auth_type'] == 'http_basic' else None
        return dict(kind='standalone', endpoint=region.get_endpoint('baremetal') or auth['endpoint'], verify=verify,
                    cert=cert, credentials=credentials)
    return dict(kind='keystone', auth_type=config['auth_type'], auth=auth, endpoint=region.get_endpoint('baremetal'),
                verify=verify, cert=cert, region=region.get_region_name('baremetal'),
                interface=region.get_interface('baremetal'))


def _our_resolution(options):
    options = dict(options)
    options.setdefault('cloud', os.environ.get('OS_CLOUD'))  # as the argument spec's fallback does
    resolved = _connection.resolve(params(**options))
    if resolved[0] == 'standalone':
        endpoint, verify, cert, credentials = resolved[1]
        return dict(kind='standalone', endpoint=endpoint, verify=verify, cert=cert, credentials=credentials)
    region, endpoint = resolved[1], resolved[2]
    verify, cert = region.get_requests_verify_args()
    return dict(kind='keystone', auth_type=region.config['auth_type'], auth=dict(region.config['auth']),
                endpoint=endpoint or region.get_endpoint('baremetal'), verify=verify, cert=cert,
                region=region.get_region_name('baremetal'), interface=region.get_interface('baremetal'))


@pytest.mark.parametrize('case', sorted(CORPUS))
def test_the_collection_resolves_every_configuration_as_openstacksdk(case, tmp_path, monkeypatch):
    with_clouds, with_secure, environment, options = CORPUS[case]
    if with_clouds:
        write_clouds(tmp_path, monkeypatch, CORPUS_CLOUDS)
    else:
        monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(tmp_path / 'absent.yaml'))
    if with_secure:
        secure = tmp_path / 'secure.yaml'
        secure.write_text(yaml.safe_dump({'clouds': SECURE_CLOUDS}), encoding='utf-8')
        monkeypatch.setenv('OS_CLIENT_SECURE_FILE', str(secure))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    ours = _our_resolution(options)
    assert ours == _sdk_resolution(options)


def test_the_corpus_covers_what_users_configure():
    """At least 30 configurations, each auth type, from each source: the corpus cannot quietly shrink."""
    assert len(CORPUS) >= 30
    text = repr((CORPUS, CORPUS_CLOUDS))
    for needle in ('none', 'http_basic', "'password'", "'token'", 'v3applicationcredential', 'OS_ENDPOINT',
                   'baremetal_endpoint_override', 'region_name', 'interface', 'profile', 'cacert', 'OS_CACERT'):
        assert needle in text
    assert any(case[1] for case in CORPUS.values()) and any(not case[0] for case in CORPUS.values())


def test_os_token_does_not_override_the_tasks_auth(monkeypatch):
    """openstacksdk itself fails here ("Password.__init__() got an unexpected keyword argument 'token'")."""
    monkeypatch.setenv('OS_TOKEN', 'left-over')
    monkeypatch.setenv('OS_AUTH_URL', 'http://127.0.0.1:1/v3')
    kind, region, _endpoint = _connection.resolve(params(auth_type='password', auth=PROJECT_AUTH))
    assert kind == 'keystone' and region.config['auth'] == PROJECT_AUTH
    assert type(region.get_auth()).__name__ == 'Password'


# --- the task's options crossed with the environment: the task always wins ------------------------------------

ENDPOINT = 'http://127.0.0.1:6385'
TLS_ENDPOINT = 'https://127.0.0.1:6385'
ENV_AUTH_URL = 'http://127.0.0.1:5/v3'
# What a shell may hold when a task runs.
ENVIRONMENTS = {
    'no OS_*': {},
    'OS_TOKEN': {'OS_AUTH_TYPE': 'token', 'OS_TOKEN': 'env-token', 'OS_AUTH_URL': ENV_AUTH_URL,
                 'OS_PROJECT_NAME': 'env-project'},
    'password login': {'OS_AUTH_URL': ENV_AUTH_URL, 'OS_USERNAME': 'env-user', 'OS_PASSWORD': 'env-pw',
                       'OS_PROJECT_NAME': 'env-project', 'OS_USER_DOMAIN_NAME': 'Default',
                       'OS_PROJECT_DOMAIN_NAME': 'Default'},
    'OS_CLOUD': {'OS_CLOUD': 'basic'},
    'OS_ENDPOINT': {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': 'http://127.0.0.1:7'},
    'empty OS_CLOUD beside OS_TOKEN': {'OS_CLOUD': '', 'OS_AUTH_TYPE': 'token', 'OS_TOKEN': 'env-token'},
}
TLS_OPTIONS = dict(ca_cert='/mine.pem', client_cert='/c.pem', client_key='/c.key')
CLOUD_DICT = {'auth_type': 'none', 'baremetal_endpoint_override': 'http://127.0.0.1:8', 'insecure': True}
ENV_PASSWORD_AUTH = {'auth_url': ENV_AUTH_URL, 'username': 'env-user', 'password': 'env-pw',
                     'project_name': 'env-project', 'user_domain_name': 'Default', 'project_domain_name': 'Default'}
BASIC_CLOUD = ('https://127.0.0.1:6385', '/etc/ca.pem', None, ('admin', 's3cret'))  # cloud 'basic', OS_CLOUD's


def standalone(endpoint=ENDPOINT, verify=True, cert=None, credentials=None):
    return ('standalone', endpoint, verify, cert, credentials)


def refused(*parts):
    return ('refused',) + parts


# task -> (the outcome in every environment, {environment: another outcome}). The rules of
# doc_fragments/connection.py: the task's options win over the cloud's and the variables'; with endpoint and no
# cloud, auth_type none; OS_CLOUD is the cloud when the task names none; auth replaces the variables'
# authentication; an auth_type other than the source's does not take the source's credentials of another plugin,
# and without auth of its own that is a conflict the message names.
TASK_OVER_ENVIRONMENT = {
    'endpoint': (dict(endpoint=ENDPOINT), standalone(), {
        'OS_CLOUD': standalone(ENDPOINT, *BASIC_CLOUD[1:])}),
    'endpoint, auth_type none': (dict(endpoint=ENDPOINT, auth_type='none'), standalone(), {
        'OS_CLOUD': standalone(ENDPOINT, '/etc/ca.pem')}),
    'endpoint, http_basic with auth': (dict(endpoint=ENDPOINT, auth_type='http_basic',
                                            auth={'username': 'u', 'password': 'p'}),
                                       standalone(credentials=('u', 'p')), {
        'OS_CLOUD': standalone(ENDPOINT, '/etc/ca.pem', None, ('u', 'p'))}),
    'endpoint, http_basic without auth': (dict(endpoint=ENDPOINT, auth_type='http_basic'), refused(
        'auth_type http_basic needs auth.username and auth.password'), {
        'OS_TOKEN': refused('auth_type http_basic (the task\'s) does not take OS_AUTH_URL, OS_PROJECT_NAME, OS_TOKEN, '
                            'written for OS_AUTH_TYPE=token'),
        'password login': refused('auth_type http_basic (the task\'s) does not take OS_AUTH_URL', 'written for auth_type '
                                  'password (openstacksdk\'s default when OS_AUTH_TYPE is not set)'),
        'empty OS_CLOUD beside OS_TOKEN': refused('does not take OS_TOKEN, written for OS_AUTH_TYPE=token'),
        'OS_CLOUD': standalone(ENDPOINT, *BASIC_CLOUD[1:])}),
    'endpoint, auth_type none, TLS options': (dict(endpoint=TLS_ENDPOINT, auth_type='none', **TLS_OPTIONS),
                                              standalone(TLS_ENDPOINT, '/mine.pem', ('/c.pem', '/c.key')), {}),
    'endpoint, validate_certs false': (dict(endpoint=TLS_ENDPOINT, validate_certs=False),
                                       standalone(TLS_ENDPOINT, False), {
        'OS_CLOUD': standalone(TLS_ENDPOINT, False, None, BASIC_CLOUD[3])}),
    'auth_type none without endpoint': (dict(auth_type='none'), refused(
        'auth_type none needs the URL of Ironic, and neither the task nor the OS_* variables gives one'), {
        'OS_CLOUD': standalone(*BASIC_CLOUD[:2]),
        'OS_ENDPOINT': standalone('http://127.0.0.1:7')}),
    'password with auth': (dict(auth_type='password', auth=PROJECT_AUTH), ('keystone', 'password', PROJECT_AUTH), {}),
    'password without auth': (dict(auth_type='password'), refused(
        "auth_type password (the task's) needs auth.auth_url: give auth.auth_url in the task's auth, or as "
        "OS_AUTH_URL."), {
        'password login': ('keystone', 'password', ENV_PASSWORD_AUTH),
        'OS_TOKEN': refused("auth_type password (the task's) does not take OS_TOKEN, written for OS_AUTH_TYPE=token. "
                            "Give the task auth with the settings of password, or leave auth_type out to authenticate "
                            "with the OS_* variables, or unset them."),
        'empty OS_CLOUD beside OS_TOKEN': refused("does not take OS_TOKEN, written for OS_AUTH_TYPE=token"),
        'OS_ENDPOINT': refused("auth_type password (the task's) does not take OS_ENDPOINT, written for "
                               "OS_AUTH_TYPE=none"),
        'OS_CLOUD': refused("auth_type password (the task's) needs auth.auth_url: give auth.auth_url in the task's "
                            "auth, or as auth.auth_url of cloud 'basic'.")}),
    'token with auth, endpoint': (dict(endpoint=ENDPOINT, auth_type='token', auth={'auth_url': ENV_AUTH_URL,
                                                                                   'token': 'task-token'}),
                                  ('keystone', 'token', {'auth_url': ENV_AUTH_URL, 'token': 'task-token'}), {}),
    'cloud by name': (dict(cloud='plain'), standalone(), {}),
    'cloud dictionary': (dict(cloud=CLOUD_DICT), standalone('http://127.0.0.1:8', False), {}),
    'cloud dictionary, endpoint, TLS options': (dict(cloud=CLOUD_DICT, endpoint=TLS_ENDPOINT, validate_certs=True,
                                                     **TLS_OPTIONS),
                                                standalone(TLS_ENDPOINT, '/mine.pem', ('/c.pem', '/c.key')), {}),
    'keystone cloud, endpoint, auth_type none': (dict(cloud='token', endpoint=ENDPOINT, auth_type='none'),
                                                 standalone(), {}),
    'keystone cloud, auth_type http_basic with auth': (
        dict(cloud='password', endpoint=ENDPOINT, auth_type='http_basic', auth={'username': 'u', 'password': 'p'}),
        standalone(credentials=('u', 'p')), {}),
    'keystone cloud, another keystone auth_type with auth': (
        dict(cloud='token', auth_type='password', auth={'username': 'u', 'password': 'p', 'user_domain_name': 'D'}),
        ('keystone', 'password', {'auth_url': 'http://127.0.0.1:5000/v3', 'project_name': 'admin',
                                  'project_domain_name': 'Default', 'username': 'u', 'password': 'p',
                                  'user_domain_name': 'D'}), {}),
    'keystone cloud, another keystone auth_type without auth': (
        dict(cloud='password', auth_type='token'),
        refused("auth_type token (the task's) does not take auth.password, auth.user_domain_name, auth.username of "
                "cloud 'password', written for the auth_type password of cloud 'password'. Give the task auth with "
                "the settings of token, or leave auth_type out to authenticate with cloud 'password'."), {}),
    'standalone cloud, keystone auth_type without auth': (
        dict(cloud='plain', auth_type='token'),
        refused("auth_type token (the task's) needs auth.auth_url: give auth.auth_url in the task's auth, or as "
                "auth.auth_url of cloud 'plain'."), {}),
    'unknown auth_type': (dict(endpoint=ENDPOINT, auth_type='pasword'), refused(
        "auth_type 'pasword' is not an authentication plugin: use none or http_basic for a standalone Ironic, or a "
        "keystone plugin such as password, token or v3applicationcredential."), {}),
}
# What Python writes, and a message never does.
PYTHON_TEXT = ('__init__()', 'NoneType', 'Traceback', 'object has no attribute', 'unexpected keyword', 'object at 0x',
               'Errno', 'Error(')


def _outcome(options):
    """('standalone', endpoint, verify, cert, credentials), ('keystone', auth_type, auth) or ('refused', message)."""
    try:
        resolution = _our_resolution(options)
    except BaremetalError as exc:
        message = str(exc)
        assert not [text for text in PYTHON_TEXT if text in message], message
        return ('refused', message)
    if resolution['kind'] == 'standalone':
        return ('standalone', resolution['endpoint'], resolution['verify'], resolution['cert'],
                resolution['credentials'])
    return ('keystone', resolution['auth_type'], resolution['auth'])


@pytest.mark.parametrize('environment', sorted(ENVIRONMENTS))
@pytest.mark.parametrize('task', sorted(TASK_OVER_ENVIRONMENT))
def test_the_tasks_options_win_over_the_environment(task, environment, tmp_path, monkeypatch):
    """Each of the collection's options crossed with the OS_* variables of a shell: it resolves as the connection
    documentation says, or is refused with a message that names the settings in conflict (never Python's text)."""
    write_clouds(tmp_path, monkeypatch, CORPUS_CLOUDS)
    for name, value in ENVIRONMENTS[environment].items():
        monkeypatch.setenv(name, value)
    options, everywhere, elsewhere = TASK_OVER_ENVIRONMENT[task]
    expected = elsewhere.get(environment, everywhere)
    outcome = _outcome(options)
    if expected[0] == 'refused':
        assert outcome[0] == 'refused', outcome
        for part in expected[1:]:
            assert part in outcome[1]
    else:
        assert outcome == expected


def test_the_cross_covers_every_option_and_environment():
    """The collection's own options, each crossed with a token, a password login, OS_CLOUD and OS_ENDPOINT."""
    options = set()
    for task, _everywhere, _elsewhere in TASK_OVER_ENVIRONMENT.values():
        options.update(task)
        if isinstance(task.get('cloud'), dict):
            options.add('cloud dictionary')
    assert options >= {'endpoint', 'auth_type', 'auth', 'cloud', 'cloud dictionary', 'validate_certs', 'ca_cert',
                       'client_cert', 'client_key'}
    variables = set(name for environment in ENVIRONMENTS.values() for name in environment)
    assert variables >= {'OS_TOKEN', 'OS_AUTH_TYPE', 'OS_AUTH_URL', 'OS_USERNAME', 'OS_PASSWORD', 'OS_PROJECT_NAME',
                         'OS_CLOUD', 'OS_ENDPOINT'}


@pytest.mark.parametrize('environment', ['no OS_*', 'OS_TOKEN', 'empty OS_CLOUD beside OS_TOKEN'])
def test_endpoint_and_auth_type_none_reach_ironic_whatever_the_shell_holds(environment, serve, monkeypatch):
    """The issue's two failures: "no Ironic to talk to" for the options given, and OS_TOKEN handed to auth_type
    none ("FixedEndpointPlugin.__init__() got an unexpected keyword argument 'token'")."""
    server = serve()
    for name, value in ENVIRONMENTS[environment].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', '/nonexistent/clouds.yaml')
    options = dict(endpoint=server.endpoint, auth_type='none', cloud=os.environ.get('OS_CLOUD'))
    client = client_from_params(params(**options))
    assert client.list_nodes() == NODES_ANSWER['nodes']
    assert 'X-Auth-Token' not in server.requests[-1]['headers'] and 'Authorization' not in server.requests[-1]['headers']


def keystone_answers(status):
    """A keystone that answers version discovery and refuses every token with ``status``."""
    def answer(request):
        if request['method'] == 'GET':
            return 200, {'version': {'id': 'v3.14', 'status': 'stable', 'links': [
                {'rel': 'self', 'href': 'http://%s/v3/' % request['headers']['Host']}]}}, None
        return status, {'error': {'code': status, 'title': 'Unauthorized',
                                  'message': 'The request you have made requires authentication.'}}, None
    return answer


def test_keystone_failures_are_told_in_the_users_terms(serve):
    """keystoneauth's own texts carry urllib3 reprs ("<urllib3.connection.HTTPConnection object at 0x...>: Failed to
    establish a new connection: [Errno 111]"): the message says what happened and what to check instead."""
    closed = serve()
    closed_url = closed.endpoint + '/v3'
    closed.close()
    refusing = serve(keystone_answers(401))
    nowhere = serve(lambda request: (404, {'error_message': 'no route'}, None))
    cases = [
        (closed_url, 'keystone authentication failed: cannot reach keystone at %s: check auth_url' % closed_url),
        (refusing.endpoint + '/v3', 'keystone authentication failed: keystone at %s/v3 refused the credentials (HTTP 401)'
         % refusing.endpoint),
        (nowhere.endpoint + '/v3', 'keystone authentication failed: no identity service answers at %s/v3: check '
         'auth_url' % nowhere.endpoint),
    ]
    for auth_url, message in cases:
        with pytest.raises(BaremetalError) as caught:
            client_from_params(params(endpoint='http://127.0.0.1:9', auth_type='password',
                                      auth=dict(PROJECT_AUTH, auth_url=auth_url, password='kept-secret')))
        text = str(caught.value)
        assert text.startswith(message), text
        assert not [part for part in PYTHON_TEXT if part in text], text
        assert 'kept-secret' not in text


def test_a_keystone_that_never_answers_fails_within_a_few_api_timeouts_saying_so():
    """keystone accepts the connection and never answers: each request to it is bounded by the task's api_timeout
    (before, keystoneauth waited without limit), and keystoneauth sends each once: version discovery, the token."""
    with SilentServer() as keystone:
        auth_url = keystone.url + '/v3'
        started = time.monotonic()
        with pytest.raises(BaremetalError) as caught:
            client_from_params(params(endpoint='http://127.0.0.1:9', auth_type='password', api_timeout=1,
                                      auth=dict(PROJECT_AUTH, auth_url=auth_url, password='kept-secret')))
        seconds = time.monotonic() - started
        connections = keystone.connections
    text = str(caught.value)
    assert connections == 2 and seconds < 10, (connections, seconds)
    assert re.match(r'keystone authentication failed: keystone at %s did not answer within api_timeout \(1 s\), '
                    r'[23] s in all: check auth_url \(auth.auth_url, or OS_AUTH_URL\) and that keystone is running '
                    r'and healthy, or set api_timeout to give up sooner' % re.escape(auth_url), text), text
    assert 'kept-secret' not in text


@pytest.mark.parametrize('options, message', [
    (dict(cloud='odd-none'), "auth_type none does not take the setting token of cloud 'odd-none': remove it there, or "
                             "choose another auth_type."),
    (dict(cloud='regions', region_name='r9'), "cannot load cloud 'regions': Region r9 is not a valid region name for "
                                              "cloud regions"),
    (dict(cloud='absent', secure=True), "cannot load cloud 'absent': Cloud absent was not found."),
])
def test_what_only_openstacksdk_reads_fails_in_the_users_terms(options, message, tmp_path, monkeypatch):
    """Clouds with regions, a profile or a secure.yaml are read by openstacksdk, whose own messages are kept, but
    never Python's ("FixedEndpointPlugin.__init__() got an unexpected keyword argument 'token'")."""
    write_clouds(tmp_path, monkeypatch, dict(CORPUS_CLOUDS, **{'odd-none': {
        'auth_type': 'none', 'regions': ['r1'], 'auth': {'token': 't', 'endpoint': ENDPOINT}}}))
    if options.pop('secure', False):
        secure = tmp_path / 'secure.yaml'
        secure.write_text(yaml.safe_dump({'clouds': {}}), encoding='utf-8')
        monkeypatch.setenv('OS_CLIENT_SECURE_FILE', str(secure))
    outcome = _outcome(options)
    assert outcome[0] == 'refused' and message in outcome[1], outcome
