# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options -> one client of Ironic, shared by the modules and the inventory plugin: which auth plugin takes
which settings, openstacksdk's loader for what only it resolves, and keystone's token, renewed when it expires.

The options follow openstacksdk's conventions (clouds.yaml, OS_* variables, auth_type and auth), read in
ironic/config.py. openstacksdk is imported only for keystone, which also re-authenticates when a token expires in a
long task. TLS settings hold for every request (http.Session), so REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE in the
environment cannot replace the CA bundle or turn verification back on; the module's options win over the cloud's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError, import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.config import (
    BASIC_AUTH_KEYS, BASIC_AUTH_TYPE, DEFAULT_AUTH_TYPE, ENV_SETTINGS, NO_AUTH_TYPES, Source, check_endpoint,
    environment_entry, file_entry, standalone, standalone_settings, tls_overrides)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import Session
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

# Authentication settings, in a cloud's auth or at its top level (where openstacksdk moves them into auth):
# the options of keystoneauth's plugins, and the older names openstacksdk still reads.
AUTH_SETTINGS = frozenset((
    'auth_url', 'endpoint', 'username', 'user_id', 'password', 'token', 'auth_token', 'passcode', 'system_scope',
    'domain_id', 'domain_name', 'project_id', 'project_name', 'tenant_id', 'tenant_name', 'project_domain_id',
    'project_domain_name', 'user_domain_id', 'user_domain_name', 'default_domain_id', 'default_domain_name',
    'trust_id', 'application_credential_id', 'application_credential_name', 'application_credential_secret'))


def _unknown_plugin(auth_type):
    return ('auth_type %r is not an authentication plugin: use none or http_basic for a standalone Ironic, or a '
            'keystone plugin such as password, token or v3applicationcredential.' % auth_type)


def _plugin_settings(auth_type):
    """The authentication settings that ``auth_type``'s plugin takes, under every name openstacksdk reads."""
    if auth_type in NO_AUTH_TYPES:
        return frozenset(('endpoint',))
    if auth_type == BASIC_AUTH_TYPE:
        return frozenset(BASIC_AUTH_KEYS)
    _load_sdk_config()  # keystoneauth comes with openstacksdk: the same message when it is missing
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


def _for_plugin(entry, task, source):
    """The source's settings without the authentication settings that the task's auth_type cannot take.

    An auth_type of the task other than the source's chooses another plugin: the source's credentials were written
    for its own plugin, so those the task's plugin does not take are left out (a token for auth_type none). When
    the task gives no auth to log in with instead, that is a conflict only the user can settle, unless the task's
    plugin needs no credentials (none).
    """
    task_type = task.get('auth_type')
    if not task_type or task_type == (entry.get('auth_type') or DEFAULT_AUTH_TYPE):
        return entry
    taken = _plugin_settings(task_type)
    auth = dict(entry.get('auth') or {})
    dropped_top = sorted(key for key in entry if key.replace('-', '_') in AUTH_SETTINGS - taken)
    dropped_auth = sorted(key for key in auth if key.replace('-', '_') not in taken)
    if (dropped_top or dropped_auth) and not task.get('auth') and task_type not in NO_AUTH_TYPES:
        dropped = [source.settings(dropped_top)] if dropped_top else []
        dropped += [source.settings(dropped_auth, in_auth=True)] if dropped_auth else []
        raise BaremetalError(
            'auth_type %s (the task\'s) does not take %s, written for %s. Give the task auth with the settings of '
            '%s, or leave auth_type out to authenticate with %s%s.'
            % (task_type, ' and '.join(dropped), source.auth_type(entry), task_type, source,
               '' if source.cloud else ', or unset them'))
    kept = dict((key, value) for key, value in entry.items() if key not in dropped_top)
    kept['auth'] = dict((key, value) for key, value in auth.items() if key not in dropped_auth)
    return kept


def _task_over(entry, task, source):
    """The entry the task reaches Ironic with: the task's options over the source's settings (its auth adds to
    the source's auth), without the source's credentials that the task's auth_type does not take."""
    entry = _for_plugin(entry, task, source)
    task = dict(task)
    if isinstance(entry.get('auth'), dict) and task.get('auth'):
        task['auth'] = dict(entry['auth'], **task['auth'])
    return dict(entry, **task)


def _load_sdk_config():
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


def _sdk_failure(exc, task, source, entry):
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


def _cloud_region(cloud, task, entry, source):
    """Resolve the settings with openstacksdk's own loader into a CloudRegion (no request is made).

    A named cloud is read by openstacksdk (clouds.yaml, secure.yaml, profiles, regions), with the task's options
    over it; otherwise ``entry`` is the whole cloud (a dictionary, or the OS_* variables with the task's options),
    and openstacksdk reads neither clouds.yaml nor the environment.
    """
    os_config = _load_sdk_config()
    raw = entry
    try:
        if isinstance(cloud, dict) or not cloud:
            return os_config.OpenStackConfig(load_yaml_config=False, load_envvars=False).get_one(**entry)
        config = os_config.OpenStackConfig()
        clouds = config.cloud_config.get('clouds') or {}
        raw = clouds.get(cloud)
        if isinstance(raw, dict):
            clouds[cloud] = _for_plugin(raw, task, source)
        return config.get_one(cloud=cloud, **task)
    except BaremetalError:
        raise
    except Exception as exc:  # openstacksdk raises several unrelated types for bad config
        raise BaremetalError(_sdk_failure(exc, task, source, raw if isinstance(raw, dict) else None))


def resolve(params):
    """Where and how the task reaches Ironic, without a request: ('standalone', (endpoint, verify, cert,
    credentials)) or ('keystone', CloudRegion, endpoint or None).

    The same as openstacksdk makes of the same settings, except that the task's options always win: its ``auth``
    replaces the authentication the OS_* variables give (OS_TOKEN, OS_USERNAME...) instead of adding to it, and
    its ``auth_type`` leaves out the credentials of the cloud (or the variables) that its plugin does not take.
    """
    cloud = params.get('cloud') or None  # an empty OS_CLOUD names no cloud
    endpoint = params.get('endpoint')
    if endpoint:
        check_endpoint(endpoint, 'endpoint')
    task = tls_overrides(params)
    for key in ('auth_type', 'region_name', 'interface', 'auth'):
        if params.get(key):
            task[key] = params[key]
    if endpoint:
        task['baremetal_endpoint_override'] = endpoint
        if not cloud:
            task.setdefault('auth_type', 'none')  # a standalone Ironic named by its URL
    source = Source(cloud)

    if isinstance(cloud, dict):
        entry = dict(cloud)
    elif cloud:
        entry = file_entry(cloud)  # None: only openstacksdk reads it
    else:
        # The task's own auth replaces the variables' authentication: they give only what is not authentication.
        entry = environment_entry(ENV_SETTINGS if task.get('auth') else None)
        if entry is None:
            if not task.get('auth_type') and not task.get('auth'):
                raise BaremetalError('no Ironic to talk to: set cloud (a clouds.yaml entry, or OS_CLOUD), endpoint, '
                                     'or OS_* variables such as OS_AUTH_TYPE=none and OS_ENDPOINT.')
            entry = {}

    if entry is not None:
        entry = _task_over(entry, task, source)
        if standalone(entry):
            return 'standalone', standalone_settings(entry, source)
    region = _cloud_region(cloud, task, entry, source)
    if region.config.get('auth_type') in NO_AUTH_TYPES + (BASIC_AUTH_TYPE,):
        return 'standalone', standalone_settings(region.config, source, region.get_requests_verify_args())
    return 'keystone', region, endpoint


def _keystone_failure(exc, region):
    """What keystoneauth's exception means, in the user's terms."""
    from keystoneauth1 import exceptions as ks_exceptions
    auth_url = (region.config.get('auth') or {}).get('auth_url')
    keystone = 'keystone at %s' % masked_text(auth_url) if auth_url else 'keystone'
    if isinstance(exc, ks_exceptions.SSLError):
        return ('the TLS certificate of %s could not be verified: give the CA bundle that signed it with ca_cert (or '
                'the cloud\'s cacert), or set validate_certs to false.' % keystone)
    if isinstance(exc, ks_exceptions.ConnectTimeout):
        return ('%s did not answer in time: check auth_url (auth.auth_url, or OS_AUTH_URL) and that keystone is '
                'running.' % keystone)
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


def _keystone_client(region, endpoint, timeout):
    """A client that authenticates with keystone, and again when Ironic says its token expired."""
    try:
        keystone = region.get_session()
        token = keystone.get_token()
        access = keystone.auth.get_access(keystone)
        endpoint = endpoint or region.get_endpoint('baremetal') or keystone.get_endpoint(
            service_type='baremetal', interface=region.get_interface('baremetal'),
            region_name=region.get_region_name('baremetal'))
    except Exception as exc:  # keystoneauth raises many types; all mean the same to the user
        raise IronicError('keystone authentication failed: %s' % _keystone_failure(exc, region))
    if not endpoint:
        raise BaremetalError('the service catalog has no baremetal endpoint for this region and interface; set '
                             'endpoint, region_name or interface.')
    check_endpoint(endpoint, 'the baremetal endpoint of the cloud or of keystone\'s service catalog')

    def renew_token():
        try:
            keystone.invalidate()
            return keystone.get_token()
        except Exception as exc:  # as above
            raise IronicError('keystone re-authentication failed: %s' % _keystone_failure(exc, region))

    verify, cert = region.get_requests_verify_args()
    client = IronicClient(endpoint, session=Session(verify, cert), token=token, renew_token=renew_token, timeout=timeout)
    if access.project_scoped:  # Ironic's default policy shows a project only the nodes it owns or leases
        # The project's id: its name, given in auth, is masked in the task's output.
        client.scope_note = ('The token is scoped to the project with id %s, which sees only the nodes it owns or '
                             'leases: to see every node, authenticate with system_scope: all in auth.' % access.project_id)
    return client


def client_from_params(params):
    """An IronicClient from the shared connection options of every module (see doc_fragments/connection.py).

    Precedence, highest first: the module's options, the cloud (``cloud``, else OS_* variables), defaults.
    """
    resolved = resolve(params)
    if resolved[0] == 'keystone':
        return _keystone_client(resolved[1], resolved[2], params['api_timeout'])
    endpoint, verify, cert, credentials = resolved[1]
    return IronicClient(endpoint, session=Session(verify, cert, credentials), timeout=params['api_timeout'])
