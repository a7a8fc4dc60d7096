# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What keystone authentication needs: what its plugins take, openstacksdk's loader and its failures in the user's
terms, and a client that authenticates with keystone and again when its token expires.

This file, and the optional keystoneauth1 and openstacksdk it imports, are loaded only by a task that does not
reach a standalone Ironic (auth_type none or http_basic, resolved in ironic/connection.py and ironic/config.py
without them).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError, import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.config import DEFAULT_AUTH_TYPE, check_endpoint
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import Session
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError


def _unknown_plugin(auth_type):
    return ('auth_type %r is not an authentication plugin: use none or http_basic for a standalone Ironic, or a '
            'keystone plugin such as password, token or v3applicationcredential.' % auth_type)


def plugin_settings(auth_type):
    """The authentication settings that the keystone plugin ``auth_type`` takes, under every name openstacksdk
    reads (ironic/connection.py answers for the standalone plugins)."""
    load_sdk_config()  # keystoneauth comes with openstacksdk: the same message when it is missing
    from keystoneauth1 import exceptions, loading
    try:
        options = loading.get_plugin_loader(auth_type).get_options()
    except exceptions.NoMatchingPlugin:
        raise BaremetalError(_unknown_plugin(auth_type))
    names = set()
    for option in options:
        names.update(name.replace('-', '_') for name in [option.dest, option.name] + [
            deprecated.name for deprecated in option.deprecated])
    for key, older in (('token', 'auth_token'), ('project_name', 'tenant_name'), ('project_id', 'tenant_id')):
        if key in names:
            names.add(older)
    return frozenset(names)


def load_sdk_config():
    return import_library('openstack.config', 'openstacksdk', 'keystone authentication',
                          'reach a standalone Ironic (auth_type none or http_basic), which needs no openstacksdk')


# What Python itself writes in an exception's text: never shown in a message.
PYTHON_TEXT = re.compile(r'Traceback|__\w+__|\w\(\)|NoneType|object has no attribute|unexpected keyword|object at 0x|'
                         r'\[Errno|<\w+[.\w]* object|\w+Error\(|\w+Pool\(')


def _own_words(exc):
    """The message openstacksdk or keystoneauth wrote for a user, or None when it is Python's text, or none."""
    text = getattr(exc, 'message', None) or str(exc)
    if text and not PYTHON_TEXT.search(text):
        return text.rstrip('.')
    return None


def _missing_options(exc, task, source, entry):
    """The settings an auth plugin needs and was not given, and where to give them."""
    names = sorted(set(option.dest for option in exc.options))
    needed = ', '.join('auth.' + name for name in names)
    if task.get('auth_type'):
        where = 'the task\'s auth' if task.get('auth') else 'the task\'s auth, or as %s' % source.settings(
            names, in_auth=True)
        return 'auth_type %s (the task\'s) needs %s: give %s in %s.' % (task['auth_type'], needed, needed, where)
    return ('%s needs %s, which neither the task nor %s gives: give %s in the task\'s auth, or as %s; or set '
            'endpoint for a standalone Ironic.' % (source.auth_type(entry or {}), needed, source, needed,
                                                   source.settings(names, in_auth=True)))


def sdk_failure(exc, task, source, entry):
    """What an exception of openstacksdk's loader means, in the user's terms (it reads the settings, sends nothing)."""
    from keystoneauth1 import exceptions as ks_exceptions
    from openstack import exceptions as sdk_exceptions
    if isinstance(exc, ks_exceptions.NoMatchingPlugin):
        return _unknown_plugin(exc.name)
    if isinstance(exc, ks_exceptions.MissingRequiredOptions):
        return _missing_options(exc, task, source, entry)
    words = _own_words(exc) if isinstance(exc, (sdk_exceptions.SDKException, ks_exceptions.ClientException)) else None
    if words:
        return 'cannot load %s: %s. Check clouds.yaml (OS_CLIENT_CONFIG_FILE), OS_CLOUD and the OS_* variables.' % (
            source, words)
    keyword = re.search(r"unexpected keyword argument '(\w+)'", str(exc)) if isinstance(exc, TypeError) else None
    if keyword:
        return ('auth_type %s does not take the setting %s of %s: remove it there, or choose another auth_type.'
                % (task.get('auth_type') or (entry or {}).get('auth_type') or DEFAULT_AUTH_TYPE, keyword.group(1),
                   source))
    return ('openstacksdk cannot read the settings of %s with the task\'s options: check auth_type and auth, '
            'clouds.yaml (OS_CLIENT_CONFIG_FILE), OS_CLOUD and the OS_* variables.' % source)


def _keystone_failure(exc, region, timeout, seconds):
    """What keystoneauth's exception means, in the user's terms; timeout: api_timeout, which bounds each request to
    keystone; seconds: how long the authentication took before it failed."""
    from keystoneauth1 import exceptions as ks_exceptions
    auth_url = (region.config.get('auth') or {}).get('auth_url')
    keystone = 'keystone at %s' % masked_text(auth_url) if auth_url else 'keystone'
    if isinstance(exc, ks_exceptions.SSLError):
        return ('the TLS certificate of %s could not be verified: give the CA bundle that signed it with ca_cert (or '
                'the cloud\'s cacert), or set validate_certs to false.' % keystone)
    if isinstance(exc, ks_exceptions.ConnectTimeout):
        return ('%s did not answer within api_timeout (%d s), %d s in all: check auth_url (auth.auth_url, or '
                'OS_AUTH_URL) and that keystone is running and healthy, or set api_timeout to give up sooner (or to '
                'wait longer for a slow keystone).' % (keystone, timeout, round(seconds)))
    if isinstance(exc, ks_exceptions.ConnectionError):
        return ('cannot reach %s: check auth_url (auth.auth_url, or OS_AUTH_URL) and that keystone is running.'
                % keystone)
    if isinstance(exc, ks_exceptions.Unauthorized):
        return ('%s refused the credentials (HTTP 401): check auth (the user and its password or secret, the '
                'project or system_scope), or the cloud or OS_* variables they come from.' % keystone)
    if isinstance(exc, (ks_exceptions.DiscoveryFailure, ks_exceptions.NotFound)):
        return ('no identity service answers at %s: check auth_url (auth.auth_url, or OS_AUTH_URL; it usually ends '
                'in /v3).' % (masked_text(auth_url) if auth_url else 'the auth_url'))
    if isinstance(exc, ks_exceptions.HttpError):
        return '%s answered HTTP %s: check auth_url and auth.' % (keystone, exc.http_status)
    if isinstance(exc, ks_exceptions.MissingRequiredOptions):
        return 'auth_type %s needs %s: give them in auth.' % (region.config.get('auth_type'), ', '.join(
            'auth.' + option.dest for option in exc.options))
    words = _own_words(exc) if isinstance(exc, ks_exceptions.ClientException) else None
    return '%s. Check auth_type and auth (or the cloud, or the OS_* variables).' % (
        words or 'keystone did not give a token for auth_type %s' % region.config.get('auth_type'))


def keystone_client(region, endpoint, timeout):
    """A client that authenticates with keystone, and again when Ironic says its token expired.

    timeout (api_timeout) bounds each request to keystone as it bounds each request to Ironic, whatever the cloud's
    own api_timeout says (the task's options win): keystoneauth sends a request that got no answer only once, so a
    keystone that never answers fails the authentication in a few times api_timeout (its version discovery, then the
    token's request), not never."""
    started = time.monotonic()
    try:
        keystone = region.get_session()
        keystone.timeout = float(timeout)
        token = keystone.get_token()
        access = keystone.auth.get_access(keystone)
        endpoint = endpoint or region.get_endpoint('baremetal') or keystone.get_endpoint(
            service_type='baremetal', interface=region.get_interface('baremetal'),
            region_name=region.get_region_name('baremetal'))
    except Exception as exc:  # keystoneauth raises many types; all mean the same to the user
        raise IronicError('keystone authentication failed: %s' % _keystone_failure(
            exc, region, timeout, time.monotonic() - started))
    if not endpoint:
        raise BaremetalError('the service catalog has no baremetal endpoint for this region and interface; set '
                             'endpoint, region_name or interface.')
    check_endpoint(endpoint, 'the baremetal endpoint of the cloud or of keystone\'s service catalog')

    def renew_token():
        renewing = time.monotonic()
        try:
            keystone.invalidate()
            return keystone.get_token()
        except Exception as exc:  # as above
            raise IronicError('keystone re-authentication failed: %s' % _keystone_failure(
                exc, region, timeout, time.monotonic() - renewing))

    verify, cert = region.get_requests_verify_args()
    client = IronicClient(endpoint, session=Session(verify, cert), token=token, renew_token=renew_token, timeout=timeout)
    if access.project_scoped:  # Ironic's default policy shows a project only the nodes it owns or leases
        # The project's id: its name, given in auth, is masked in the task's output.
        client.scope_note = ('The token is scoped to the project with id %s, which sees only the nodes it owns or '
                             'leases: to see every node, authenticate with system_scope: all in auth.' % access.project_id)
    return client
