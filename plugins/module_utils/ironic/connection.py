# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options -> one client of Ironic, shared by the modules and the inventory plugin: which settings the
task's auth plugin takes, and openstacksdk's loader for what only it resolves.

The options follow openstacksdk's conventions (clouds.yaml, OS_* variables, auth_type and auth), read in
ironic/config.py (a named cloud's clouds.yaml in ironic/clouds_file.py). openstacksdk, keystone's plugins and its
token (renewed when it expires in a long task) are ironic/keystone.py, loaded only for a task that needs them.
TLS settings hold for every request (http.Session), so REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE in the environment
cannot replace the CA bundle or turn verification back on; the module's options win over the cloud's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.clouds_file import file_entry
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.config import (
    BASIC_AUTH_KEYS, BASIC_AUTH_TYPE, DEFAULT_AUTH_TYPE, ENV_SETTINGS, NO_AUTH_TYPES, Source, check_endpoint,
    environment_entry, standalone, standalone_settings, tls_overrides)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import Session

# Authentication settings, in a cloud's auth or at its top level (where openstacksdk moves them into auth):
# the options of keystoneauth's plugins, and the older names openstacksdk still reads.
AUTH_SETTINGS = frozenset((
    'auth_url', 'endpoint', 'username', 'user_id', 'password', 'token', 'auth_token', 'passcode', 'system_scope',
    'domain_id', 'domain_name', 'project_id', 'project_name', 'tenant_id', 'tenant_name', 'project_domain_id',
    'project_domain_name', 'user_domain_id', 'user_domain_name', 'default_domain_id', 'default_domain_name',
    'trust_id', 'application_credential_id', 'application_credential_name', 'application_credential_secret'))


def _keystone():
    """ironic/keystone.py, loaded only for a task that authenticates with keystone or needs openstacksdk: it costs
    a module's start-up about 0.03x of Ansible's basics (bench/README.md)."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import keystone
    return keystone


def _plugin_settings(auth_type):
    """The authentication settings that ``auth_type``'s plugin takes, under every name openstacksdk reads."""
    if auth_type in NO_AUTH_TYPES:
        return frozenset(('endpoint',))
    if auth_type == BASIC_AUTH_TYPE:
        return frozenset(BASIC_AUTH_KEYS)
    # A keystone plugin: its options are keystoneauth's, which are loaded only for it.
    return _keystone().plugin_settings(auth_type)


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


def _cloud_region(cloud, task, entry, source):
    """Resolve the settings with openstacksdk's own loader into a CloudRegion (no request is made).

    A named cloud is read by openstacksdk (clouds.yaml, secure.yaml, profiles, regions), with the task's options
    over it; otherwise ``entry`` is the whole cloud (a dictionary, or the OS_* variables with the task's options),
    and openstacksdk reads neither clouds.yaml nor the environment.
    """
    os_config = _keystone().load_sdk_config()
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
        raise BaremetalError(_keystone().sdk_failure(exc, task, source, raw if isinstance(raw, dict) else None))


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
        # clouds.yaml is read only for a task that names a cloud.
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


def client_from_params(params):
    """An IronicClient from the shared connection options of every module (see doc_fragments/connection.py).

    Precedence, highest first: the module's options, the cloud (``cloud``, else OS_* variables), defaults.
    """
    resolved = resolve(params)
    if resolved[0] == 'keystone':
        return _keystone().keystone_client(resolved[1], resolved[2], params['api_timeout'])
    endpoint, verify, cert, credentials = resolved[1]
    return IronicClient(endpoint, session=Session(verify, cert, credentials), timeout=params['api_timeout'])
