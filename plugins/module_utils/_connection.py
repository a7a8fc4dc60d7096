# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options -> one HTTP session to Ironic, shared by the modules and the inventory plugin.

The options follow openstacksdk's conventions (clouds.yaml, OS_* variables, auth_type and auth). A standalone
Ironic (auth_type none or http_basic) is reached without importing openstacksdk, whose import alone costs about
0.4 s per module run: its clouds.yaml entry or OS_* variables are read here, the way openstacksdk reads them.
openstacksdk is imported only for keystone, which also re-authenticates when a token expires in a long task.

TLS settings hold for every request (_http.Session), so REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE in the environment
cannot replace the CA bundle or turn verification back on; the module's options win over the cloud's settings.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError, import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils._http import Session
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import IronicClient, IronicError

NO_AUTH_TYPES = ('none', 'noauth')
BASIC_AUTH_TYPE = 'http_basic'

# Where openstacksdk looks for clouds.yaml after OS_CLIENT_CONFIG_FILE, in its order (Linux).
CONFIG_DIRS = (
    os.getcwd(),
    os.path.join(os.environ.get('XDG_CONFIG_HOME') or os.path.expanduser('~/.config'), 'openstack'),
    os.path.expanduser('~/.config/openstack'),
    os.path.join((os.environ.get('XDG_CONFIG_DIRS') or '/etc/xdg').split(':')[0], 'openstack'),
    '/etc/openstack',
)
CONFIG_SUFFIXES = ('.yaml', '.yml', '.json')
# OS_* variables that select a cloud or a file but do not describe a cloud (openstacksdk ignores them too).
ENV_SELECTORS = ('OS_CLOUD', 'OS_REGION_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE', 'OS_CLOUD_NAME')
ENV_IGNORED_PREFIXES = ('OS_TEST', 'OS_STD', 'OS_LOG')
# Settings of a cloud entry that only openstacksdk resolves (vendor profiles, per-region values).
SDK_ONLY_KEYS = ('profile', 'cloud', 'regions')
# What OS_* variables say besides authentication: kept when the task gives its own auth.
ENV_SETTINGS = ('region_name', 'interface', 'endpoint_type', 'cacert', 'cert', 'key', 'insecure', 'verify',
                'baremetal_endpoint_override', 'baremetal_api_version', 'identity_api_version')
# Keys openstacksdk moves into auth for the http_basic plugin when they are given at the top of an entry.
BASIC_AUTH_KEYS = ('username', 'password', 'endpoint')


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'true', 'yes', 'on')
    return bool(value)


def _tls_settings(config):
    """verify and cert (_http.Session) from openstacksdk-style settings (insecure, verify, cacert, cert, key)."""
    verify = _truthy(config.get('verify', True)) and not _truthy(config.get('insecure', False))
    if verify and config.get('cacert'):
        verify = os.path.expanduser(config['cacert'])
    cert = config.get('cert')
    if cert:
        cert = os.path.expanduser(cert)
        if config.get('key'):
            cert = (cert, os.path.expanduser(config['key']))
    return verify, cert or None


def _tls_overrides(params):
    """The TLS settings the module's options give, in clouds.yaml's words; unset options leave the cloud's."""
    overrides = {}
    if params.get('validate_certs') is not None:
        overrides['verify'] = params['validate_certs']
        overrides['insecure'] = not params['validate_certs']
    for option, key in (('ca_cert', 'cacert'), ('client_cert', 'cert'), ('client_key', 'key')):
        if params.get(option):
            overrides[key] = params[option]
    return overrides


def _config_files():
    override = os.environ.get('OS_CLIENT_CONFIG_FILE')
    files = [override] if override else []
    files.extend(os.path.join(directory, 'clouds' + suffix) for directory in CONFIG_DIRS for suffix in CONFIG_SUFFIXES)
    return files


def _secure_file_exists():
    if os.environ.get('OS_CLIENT_SECURE_FILE'):
        return True
    return any(os.path.exists(os.path.join(directory, 'secure' + suffix))
               for directory in CONFIG_DIRS for suffix in CONFIG_SUFFIXES)


def _load_clouds_file():
    """(path, clouds) of the first clouds.yaml openstacksdk would read, (None, None) when none exists.

    Raises LookupError when only openstacksdk can read it (no PyYAML here).
    """
    for path in _config_files():
        if not os.path.exists(path):
            continue
        try:
            with open(path) as stream:
                if path.endswith('.json'):
                    data = json.load(stream)
                else:
                    try:
                        import yaml
                    except ImportError:
                        raise LookupError(path)
                    data = yaml.safe_load(stream)
        except (OSError, IOError):
            continue  # openstacksdk skips a file it cannot read, too
        except ValueError as exc:
            raise BaremetalError('cannot read %s: %s. Fix its syntax.' % (path, exc))
        if hasattr(data, 'get'):
            return path, data.get('clouds') or {}
        raise BaremetalError('%s has no clouds: mapping. See openstacksdk\'s clouds.yaml format.' % path)
    return None, None


def _file_entry(name):
    """The clouds.yaml entry named ``name``, or None when only openstacksdk can resolve it."""
    if _secure_file_exists():
        return None  # secure.yaml is merged into clouds.yaml by openstacksdk
    try:
        path, clouds = _load_clouds_file()
    except LookupError:
        return None
    if path is None:
        raise BaremetalError('cloud %r is not defined: no clouds.yaml found (set OS_CLIENT_CONFIG_FILE, or use '
                             'endpoint instead of cloud).' % name)
    if name not in clouds:
        raise BaremetalError('cloud %r is not in %s, which defines: %s. Fix the name (cloud option or OS_CLOUD).'
                             % (name, path, ', '.join(sorted(clouds)) or 'no cloud'))
    return dict(clouds[name] or {})


def _environment_entry(keep=None):
    """The cloud that OS_* variables describe without OS_CLOUD (openstacksdk's "envvars" cloud), or None.

    ``keep``: only the variables of these settings are read.
    """
    names = [name for name in os.environ if name.startswith('OS_') and not name.startswith(ENV_IGNORED_PREFIXES)
             and (keep is None or name[3:].lower() in keep)]
    if not set(names) - set(ENV_SELECTORS):
        return None
    return dict((name[3:].lower(), os.environ[name]) for name in names)


def _standalone(entry):
    """Whether a cloud entry is one this module resolves itself (no keystone, nothing openstacksdk-only)."""
    return entry.get('auth_type') in NO_AUTH_TYPES + (BASIC_AUTH_TYPE,) and not any(
        key in entry for key in SDK_ONLY_KEYS)


def _standalone_settings(entry, name, tls=None):
    """(endpoint, verify, cert, basic credentials or None) of a standalone Ironic's openstacksdk-style entry.

    As openstacksdk: plugin options given at the top of the entry (OS_ENDPOINT, OS_USERNAME...) move into auth
    unless auth has them, and baremetal_endpoint_override wins over the plugin's endpoint.
    """
    auth = dict(entry.get('auth') or {})
    for key in BASIC_AUTH_KEYS if entry['auth_type'] == BASIC_AUTH_TYPE else ('endpoint',):
        if key not in auth and entry.get(key) is not None:
            auth[key] = entry[key]
    credentials = None
    if entry['auth_type'] == BASIC_AUTH_TYPE:
        if not auth.get('username') or not auth.get('password'):
            raise BaremetalError('%s uses auth_type http_basic but does not give auth.username and auth.password.'
                                 % name)
        credentials = (auth['username'], auth['password'])
    endpoint = entry.get('baremetal_endpoint_override') or auth.get('endpoint')
    if not endpoint:
        raise BaremetalError('%s uses auth_type %s but gives no Ironic endpoint: set endpoint (or '
                             'baremetal_endpoint_override or auth.endpoint in the cloud).' % (name, entry['auth_type']))
    verify, cert = tls or _tls_settings(entry)
    return endpoint, verify, cert, credentials


def _load_sdk_config():
    return import_library('openstack.config', 'openstacksdk', 'keystone authentication',
                          'reach a standalone Ironic (auth_type none or http_basic), which needs no openstacksdk')


def _cloud_region(cloud, overrides, entry):
    """Resolve the settings with openstacksdk's own loader into a CloudRegion (no request is made).

    ``entry`` is the whole cloud when this module built it (a dictionary, or the OS_* variables with the task's
    options): openstacksdk then reads neither clouds.yaml nor the environment.
    """
    os_config = _load_sdk_config()
    try:
        if entry is not None:
            return os_config.OpenStackConfig(load_yaml_config=False, load_envvars=False).get_one(**entry)
        return os_config.OpenStackConfig().get_one(cloud=cloud, **overrides)
    except Exception as exc:  # openstacksdk raises several unrelated types for bad config
        raise BaremetalError('cannot load cloud %r: %s. Check clouds.yaml (OS_CLIENT_CONFIG_FILE), OS_CLOUD and '
                             'the OS_* variables.' % (cloud if isinstance(cloud, str) else '<dict>', exc))


def resolve(params):
    """Where and how the task reaches Ironic, without a request: ('standalone', (endpoint, verify, cert,
    credentials)) or ('keystone', CloudRegion, endpoint or None).

    The same as openstacksdk makes of the same settings, except that the task's ``auth`` replaces the
    authentication the OS_* variables give (OS_TOKEN, OS_USERNAME...) instead of adding to it.
    """
    cloud = params.get('cloud')
    endpoint = params.get('endpoint')
    overrides = _tls_overrides(params)
    for key in ('auth_type', 'region_name', 'interface', 'auth'):
        if params.get(key):
            overrides[key] = params[key]
    if endpoint:
        overrides['baremetal_endpoint_override'] = endpoint
        if not cloud:
            overrides.setdefault('auth_type', 'none')  # a standalone Ironic named by its URL

    if isinstance(cloud, dict):
        entry, name = dict(cloud), 'the cloud dictionary'
    elif cloud:
        entry, name = _file_entry(cloud), 'cloud %r' % cloud
    else:
        # When the task states how it authenticates, the variables give only what is not authentication.
        states_auth = overrides.get('auth') or endpoint and not params.get('auth_type')
        entry, name = _environment_entry(ENV_SETTINGS if states_auth else None), 'the OS_* environment variables'
        if states_auth:
            entry = entry or {}
        elif entry is None:
            raise BaremetalError('no Ironic to talk to: set cloud (a clouds.yaml entry, or OS_CLOUD), endpoint, '
                                 'or OS_* variables such as OS_AUTH_TYPE=none and OS_ENDPOINT.')

    if entry is not None:
        if isinstance(entry.get('auth'), dict) and overrides.get('auth'):
            overrides['auth'] = dict(entry['auth'], **overrides['auth'])  # auth options add to the cloud's auth
        entry = dict(entry, **overrides)
        if _standalone(entry):
            return 'standalone', _standalone_settings(entry, name)
    if cloud and not isinstance(cloud, dict):
        entry = None  # a named cloud: openstacksdk reads clouds.yaml and secure.yaml itself, with profiles
    region = _cloud_region(cloud, overrides, entry)
    if region.config.get('auth_type') in NO_AUTH_TYPES + (BASIC_AUTH_TYPE,):
        return 'standalone', _standalone_settings(region.config, name, region.get_requests_verify_args())
    return 'keystone', region, endpoint


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
        raise IronicError('keystone authentication failed: %s' % exc)
    if not endpoint:
        raise BaremetalError('the service catalog has no baremetal endpoint for this region and interface; set '
                             'endpoint, region_name or interface.')

    def renew_token():
        try:
            keystone.invalidate()
            return keystone.get_token()
        except Exception as exc:  # as above
            raise IronicError('keystone re-authentication failed: %s' % exc)

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
