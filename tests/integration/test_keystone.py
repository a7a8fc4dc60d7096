# -*- coding: utf-8 -*-
"""Ironic behind a real Keystone (PyPI ``keystone`` on SQLite, tests/integration/keystone_service.py), started by the
ironic_standalone role with ``ironic_standalone_auth: keystone``: system scope sees every node, a project scope
only its own (and says so), application credentials, a revoked token renewed once (and a token refused again
after renewal fails without a retry storm), the OS_* variables alone, an OS_TOKEN left in the environment that
does not override the task's auth; and, against Keystone alone, the catalog endpoint chosen by region and
interface, the task's TLS settings used for Keystone, wrong credentials."""

from __future__ import annotations

import json

import pytest
import requests

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.connection import client_from_params
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError

from connection_params import params as connection_params
from dedicated import module_result as run


def params(**options):
    """The connection options, with the time a real Keystone and Ironic may take to answer."""
    return connection_params(api_timeout=30, **options)


SYSTEM = {'system': {'all': True}}


@pytest.fixture(scope='module')
def start_keystone(tmp_path_factory):
    """Factory ``start_keystone(tls=False)``: a started Keystone; every one is stopped by its PID at the end."""
    from keystone_service import Keystone  # pylint: disable=import-outside-toplevel
    instances = []

    def start(tls=False):
        instances.append(Keystone(tmp_path_factory.mktemp('keystone'), tls=tls))
        return instances[-1].start()

    yield start
    for instance in instances:
        instance.stop()


@pytest.fixture(scope='module')
def keystone(start_keystone):
    return start_keystone()


@pytest.fixture(scope='module')
def tls_keystone(start_keystone):
    """A second Keystone, over HTTPS with a CA of its own (``ca_file``): the Keystone of other tokens, and the one
    reached with the task's TLS settings."""
    return start_keystone(tls=True)


def add_endpoint(keystone, region, interface, url, service_type='baremetal'):
    """Add an endpoint of ``service_type`` to Keystone's catalog (its region and service made when missing)."""
    token = keystone.token(**SYSTEM)[0]
    if region not in [item['id'] for item in keystone.api('GET', '/regions', token)['regions']]:
        keystone.api('POST', '/regions', token, {'region': {'id': region}})
    services = [item for item in keystone.api('GET', '/services', token)['services'] if item['type'] == service_type]
    service = services[0] if services else keystone.api('POST', '/services', token, {'service': {
        'type': service_type, 'name': service_type}})['service']
    keystone.api('POST', '/endpoints', token, {'endpoint': {'service_id': service['id'], 'region_id': region,
                                                            'interface': interface, 'url': url}})


@pytest.fixture(scope='module')
def keystone_ironic(keystone, shared_ironic):
    """An Ironic whose API takes only Keystone tokens, with one node nobody owns and one the admin project owns; one
    for the module (the tests read its nodes and change neither them nor its configuration)."""
    ironic = shared_ironic(ironic_standalone_auth='keystone', ironic_standalone_keystone_auth_url=keystone.auth_url,
                           ironic_standalone_keystone_password=keystone.password)
    token, body = keystone.token(project={'name': 'admin', 'domain': {'name': 'Default'}})
    ironic.project_id = body['project']['id']
    system_token = keystone.token(**SYSTEM)[0]
    for name, owner in (('ks-unowned', None), ('ks-owned', ironic.project_id)):
        fields = {'name': name, 'driver': 'fake-hardware'}
        if owner:
            fields['owner'] = owner
        answer = requests.post(ironic.endpoint + '/v1/nodes', json=fields, timeout=30,
                               headers={'X-Auth-Token': system_token, 'X-OpenStack-Ironic-API-Version': '1.50'})
        assert answer.status_code == 201, answer.text
    del token
    return ironic


def names(result):
    assert not result.get('failed'), result.get('msg')
    return sorted(node['name'] for node in result['nodes'])


def test_scopes_and_application_credentials_against_a_real_keystone(keystone, keystone_ironic, tmp_path):
    # The role's clouds.yaml entry: the admin scoped to the system sees every node.
    assert names(run('baremetal_node_info', {'cloud': keystone_ironic.cloud_name}, tmp_path,
                     OS_CLIENT_CONFIG_FILE=keystone_ironic.clouds_yaml)) == ['ks-owned', 'ks-unowned']
    connection = {'endpoint': keystone_ironic.endpoint, 'auth_type': 'password'}
    system = run('baremetal_node_info', dict(connection, auth=keystone.password_auth(system_scope='all')), tmp_path)
    assert names(system) == ['ks-owned', 'ks-unowned']

    # Scoped to a project, the same user sees only the project's node, and is told why the other is missing.
    project = keystone.password_auth(project_name='admin', project_domain_name='Default')
    assert names(run('baremetal_node_info', dict(connection, auth=project), tmp_path)) == ['ks-owned']
    missing = run('baremetal_node_info', dict(connection, auth=project, node='ks-unowned'), tmp_path)
    assert missing['failed']
    assert missing['msg'].endswith(
        "No node is named or has the UUID 'ks-unowned'. List the nodes Ironic knows with "
        "baremetal.lifecycle.baremetal_node_info, or enroll it with baremetal.lifecycle.baremetal_node. The token is "
        "scoped to the project with id %s, which sees only the nodes it owns or leases: to see every node, "
        "authenticate with system_scope: all in auth." % keystone_ironic.project_id)

    # An application credential (of the project) logs in with its id and secret.
    token, body = keystone.token(project={'name': 'admin', 'domain': {'name': 'Default'}})
    credential = keystone.api('POST', '/users/%s/application_credentials' % body['user']['id'], token,
                              {'application_credential': {'name': 'ks-test'}})['application_credential']
    result = run('baremetal_node_info', {'endpoint': keystone_ironic.endpoint, 'auth_type': 'v3applicationcredential',
                                         'auth': {'auth_url': keystone.auth_url,
                                                  'application_credential_id': credential['id'],
                                                  'application_credential_secret': credential['secret']}}, tmp_path)
    assert names(result) == ['ks-owned']
    assert credential['secret'] not in json.dumps(result) and keystone.password not in json.dumps(system)


def test_a_revoked_token_is_renewed_once(keystone, keystone_ironic, tls_keystone):
    client = client_from_params(params(endpoint=keystone_ironic.endpoint, auth_type='password',
                                       auth=keystone.password_auth(system_scope='all')))
    first = client._session.headers['X-Auth-Token']
    assert len(client.list_nodes()) == 2
    admin_token = keystone.token(**SYSTEM)[0]
    answer = requests.delete(keystone.auth_url + '/auth/tokens', timeout=30,
                             headers={'X-Auth-Token': admin_token, 'X-Subject-Token': first})
    assert answer.status_code == 204
    calls = client.api_calls
    assert len(client.list_nodes()) == 2
    assert client._session.headers['X-Auth-Token'] != first
    assert client.api_calls == calls + 2  # the refused request, then the same with the new token

    # Tokens of another Keystone are refused every time: one renewal, then a clear failure.
    stranger = client_from_params(params(endpoint=keystone_ironic.endpoint, auth_type='password',
                                         auth=tls_keystone.password_auth(system_scope='all'),
                                         ca_cert=tls_keystone.ca_file))
    with pytest.raises(BaremetalError, match=r'HTTP 401.*The credentials were refused'):
        stranger.list_nodes()
    assert stranger.api_calls == 3  # GET /, the request, the request with the renewed token


def test_the_os_variables_alone_and_an_os_token_left_over(keystone, keystone_ironic, tmp_path):
    # OS_* alone: Keystone's catalog gives Ironic's endpoint for the region.
    add_endpoint(keystone, 'RegionThree', 'public', keystone_ironic.endpoint)
    environment = dict(('OS_' + key.upper(), value) for key, value in keystone.password_auth(
        system_scope='all').items())
    assert names(run('baremetal_node_info', {}, tmp_path, OS_REGION_NAME='RegionThree', **environment)) == [
        'ks-owned', 'ks-unowned']

    # An OS_TOKEN (revoked) left in the shell beside other OS_* settings: the task's auth wins.
    left_over = keystone.token(**SYSTEM)[0]
    requests.delete(keystone.auth_url + '/auth/tokens', timeout=30,
                    headers={'X-Auth-Token': keystone.token(**SYSTEM)[0], 'X-Subject-Token': left_over})
    args = {'endpoint': keystone_ironic.endpoint, 'auth_type': 'password',
            'auth': keystone.password_auth(system_scope='all')}
    result = run('baremetal_node_info', args, tmp_path, OS_TOKEN=left_over, OS_AUTH_URL='http://127.0.0.1:9/v3',
                 OS_AUTH_TYPE='token', OS_USERNAME='nobody')
    assert names(result) == ['ks-owned', 'ks-unowned']


def test_region_and_interface_choose_the_catalog_endpoint(keystone):
    for region, interface, port in (('RegionOne', 'public', 1), ('RegionOne', 'internal', 2),
                                    ('RegionTwo', 'public', 3), ('RegionTwo', 'internal', 4)):
        add_endpoint(keystone, region, interface, 'http://127.0.0.1:%d' % port)
    chosen = dict(((region, interface), client_from_params(params(
        auth_type='password', auth=keystone.password_auth(system_scope='all'), region_name=region,
        interface=interface)).endpoint) for region in ('RegionOne', 'RegionTwo') for interface in ('public', 'internal'))
    assert chosen == {('RegionOne', 'public'): 'http://127.0.0.1:1', ('RegionOne', 'internal'): 'http://127.0.0.1:2',
                      ('RegionTwo', 'public'): 'http://127.0.0.1:3', ('RegionTwo', 'internal'): 'http://127.0.0.1:4'}


def test_keystone_gets_the_tasks_tls_settings(tls_keystone):
    add_endpoint(tls_keystone, 'RegionOne', 'public', 'http://127.0.0.1:5')
    auth = tls_keystone.password_auth(system_scope='all')
    with pytest.raises(BaremetalError, match='keystone authentication failed'):
        client_from_params(params(auth_type='password', auth=auth))
    assert client_from_params(params(auth_type='password', auth=auth, ca_cert=tls_keystone.ca_file)).endpoint == \
        'http://127.0.0.1:5'


def test_wrong_keystone_credentials_are_reported_without_the_password(keystone):
    auth = dict(keystone.password_auth(system_scope='all'), password='wrong-secret-pw')
    with pytest.raises(BaremetalError, match='keystone authentication failed') as caught:
        client_from_params(params(auth_type='password', auth=auth))
    assert 'wrong-secret-pw' not in str(caught.value)
