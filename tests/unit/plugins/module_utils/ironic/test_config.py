# -*- coding: utf-8 -*-
"""Reading the configuration (ironic/config.py): clouds.yaml that cannot be read, endpoints that are no http URL."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import connection as _connection
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.connection import client_from_params
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError

from connection_params import params

from .task_options import write_clouds

pytestmark = pytest.mark.usefixtures('clean_environment')


def test_a_clouds_yaml_that_is_no_yaml_names_the_place_without_quoting_the_file(tmp_path, monkeypatch):
    path = tmp_path / 'clouds.yaml'
    path.write_text('clouds:\n  lab:\n    auth: {password: "Zq-in-the-file"\n    auth_type: none\n', encoding='utf-8')
    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(path))
    with pytest.raises(BaremetalError) as raised:
        client_from_params(params(cloud='lab'))
    message = str(raised.value)
    assert message.startswith('cannot read %s: ' % path) and 'at line 4, column' in message, message
    assert message.endswith('Fix its syntax.') and 'Zq-in-the-file' not in message


@pytest.mark.parametrize('override, message', [
    (None, "cloud 'lab' is not defined: no clouds.yaml found (set OS_CLIENT_CONFIG_FILE, or use endpoint instead of "
           "cloud)."),
    ('/nowhere/clouds.yaml', "cloud 'lab' is not defined: OS_CLIENT_CONFIG_FILE names /nowhere/clouds.yaml, which does "
                             "not exist, and no other clouds.yaml was found. Fix the path."),
    # as make demo's clouds.yaml named from the checkout, for a playbook elsewhere: the module runs in another directory
    ('.work/clouds.yaml', "cloud 'lab' is not defined: OS_CLIENT_CONFIG_FILE names .work/clouds.yaml, a relative path, "
                          "which the module reads from its own working directory ("),
])
def test_a_cloud_without_a_clouds_yaml_says_why_none_was_read(override, message, tmp_path, monkeypatch):
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import clouds_file
    monkeypatch.setattr(clouds_file, 'CONFIG_DIRS', (str(tmp_path / 'nothing-here'),))
    monkeypatch.chdir(tmp_path)
    if override:
        monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', override)
    with pytest.raises(BaremetalError) as raised:
        client_from_params(params(cloud='lab'))
    assert str(raised.value).startswith(message)
    if override and not override.startswith('/'):
        assert '(%s), where it does not exist' % tmp_path in str(raised.value)
        assert 'Give its absolute path ($PWD/.work/clouds.yaml' in str(raised.value)


@pytest.mark.parametrize('endpoint, message', [
    ('127.0.0.1:6385', "endpoint '127.0.0.1:6385' has no scheme: write http://127.0.0.1:6385 (or https://127.0.0.1:6385 "
                       "for TLS)."),
    ('localhost:6385', "endpoint 'localhost:6385' has no scheme: write http://localhost:6385"),
    ('htp://127.0.0.1:6385', "endpoint 'htp://127.0.0.1:6385' has the scheme 'htp', and Ironic is reached over http or "
                             "https: write http://127.0.0.1:6385"),
    ('ftp://127.0.0.1/ironic', "has the scheme 'ftp'"),
    ('http://', "endpoint 'http://' names no host: write it as http://HOST:PORT, for example http://127.0.0.1:6385."),
    ('http://127.0.0.1:port', "endpoint 'http://127.0.0.1:port' is not a URL with a host and a port from 1 to 65535"),
    ('http://[::1', "endpoint 'http://[::1' is not a URL with a host"),
    ('the ironic server', "endpoint 'the ironic server' is not a URL: write the URL of the Ironic API, for example "
                          "http://127.0.0.1:6385."),
    ('http://admin:hunter2@127.0.0.1:port', 'is not a URL with a host'),
    ('admin:hunter2@127.0.0.1:6385', "has no scheme: write http://admin:********@127.0.0.1:6385"),
    ('htp://admin:hunter2@127.0.0.1:6385', "write http://admin:********@127.0.0.1:6385"),
    ('http://127.0.0.1:0', 'is not a URL with a host and a port from 1 to 65535'),
])
def test_an_endpoint_that_is_not_an_http_url_is_refused_before_any_request(endpoint, message, monkeypatch):
    sent = []
    monkeypatch.setattr(_connection, 'IronicClient', lambda *args, **kwargs: sent.append(args))
    with pytest.raises(BaremetalError) as caught:
        client_from_params(params(endpoint=endpoint))
    assert message in str(caught.value)
    assert 'hunter2' not in str(caught.value)
    assert not sent


@pytest.mark.parametrize('where, message', [
    (dict(cloud={'auth_type': 'none', 'baremetal_endpoint_override': '127.0.0.1:6385'}),
     "cloud.baremetal_endpoint_override '127.0.0.1:6385' has no scheme: write http://127.0.0.1:6385"),
    (dict(cloud='broken'), "baremetal_endpoint_override of cloud 'broken' 'htp://127.0.0.1:6385' has the scheme 'htp'"),
    ({'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': '127.0.0.1:6385'}, "OS_ENDPOINT '127.0.0.1:6385' has no scheme"),
    ({'OS_AUTH_TYPE': 'none', 'OS_BAREMETAL_ENDPOINT_OVERRIDE': 'localhost'},
     "OS_BAREMETAL_ENDPOINT_OVERRIDE 'localhost' has no scheme"),
])
def test_an_endpoint_from_a_cloud_or_the_environment_is_checked_and_named(where, message, tmp_path, monkeypatch):
    write_clouds(tmp_path, monkeypatch, {'broken': {'auth_type': 'none',
                                                    'baremetal_endpoint_override': 'htp://127.0.0.1:6385'}})
    options = {}
    for name, value in where.items():
        if name == 'cloud':
            options['cloud'] = value
        else:
            monkeypatch.setenv(name, value)
    with pytest.raises(BaremetalError) as caught:
        client_from_params(params(**options))
    assert message in str(caught.value)
