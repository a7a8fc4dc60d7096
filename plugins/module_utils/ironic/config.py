# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the task's Ironic is, read the way openstacksdk reads it: the OS_* variables, the TLS settings (a named
cloud's clouds.yaml is read in ironic/clouds_file.py).

A standalone Ironic (auth_type none or http_basic) is resolved here without openstacksdk, whose import alone costs
about 0.4 s per module run; ironic/connection.py turns the settings into a client, and asks openstacksdk and
keystoneauth for everything else.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
from urllib.parse import urlsplit

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text

NO_AUTH_TYPES = ('none', 'noauth')
BASIC_AUTH_TYPE = 'http_basic'

# OS_* variables that select a cloud or a file but do not describe a cloud (openstacksdk ignores them too).
ENV_SELECTORS = ('OS_CLOUD', 'OS_REGION_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE', 'OS_CLOUD_NAME')
# Of those, the ones that choose where a cloud is defined, and are no setting of the cloud itself.
ENV_NOT_SETTINGS = ('OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE', 'OS_CLOUD_NAME')
ENV_IGNORED_PREFIXES = ('OS_TEST', 'OS_STD', 'OS_LOG')
# Settings of a cloud entry that only openstacksdk resolves (vendor profiles, per-region values).
SDK_ONLY_KEYS = ('profile', 'cloud', 'regions')
# What OS_* variables say besides authentication: kept when the task gives its own auth.
ENV_SETTINGS = ('region_name', 'interface', 'endpoint_type', 'cacert', 'cert', 'key', 'insecure', 'verify',
                'baremetal_endpoint_override', 'baremetal_api_version', 'identity_api_version')
# Keys openstacksdk moves into auth for the http_basic plugin when they are given at the top of an entry.
BASIC_AUTH_KEYS = ('username', 'password', 'endpoint')
# openstacksdk's plugin when neither the cloud nor OS_AUTH_TYPE names one.
DEFAULT_AUTH_TYPE = 'password'
ENDPOINT_SCHEMES = ('http', 'https')


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ('1', 'true', 'yes', 'on')
    return bool(value)


def _tls_settings(config):
    """verify and cert (http.Session) from openstacksdk-style settings (insecure, verify, cacert, cert, key)."""
    verify = _truthy(config.get('verify', True)) and not _truthy(config.get('insecure', False))
    if verify and config.get('cacert'):
        verify = os.path.expanduser(config['cacert'])
    cert = config.get('cert')
    if cert:
        cert = os.path.expanduser(cert)
        if config.get('key'):
            cert = (cert, os.path.expanduser(config['key']))
    return verify, cert or None


def tls_overrides(params):
    """The TLS settings the module's options give, in clouds.yaml's words; unset options leave the cloud's."""
    overrides = {}
    if params.get('validate_certs') is not None:
        overrides['verify'] = params['validate_certs']
        overrides['insecure'] = not params['validate_certs']
    for option, key in (('ca_cert', 'cacert'), ('client_cert', 'cert'), ('client_key', 'key')):
        if params.get(option):
            overrides[key] = params[option]
    return overrides


def _masked_url(text):
    """``text`` with the password of a URL's user information masked, with or without a scheme."""
    if '://' in text:
        return masked_text(text)
    return masked_text('http://' + text)[len('http://'):]


def check_endpoint(value, setting):
    """Refuse an Ironic endpoint that is not an http or https URL with a host, before any request.

    ``setting`` names where the value was written (``endpoint``, ``OS_ENDPOINT``...), for the message.
    """
    text = str(value).strip()
    shown = _masked_url(str(value))  # a URL may carry a password
    example = 'http://127.0.0.1:6385'
    if not text or any(character.isspace() for character in text):
        raise BaremetalError('%s %r is not a URL: write the URL of the Ironic API, for example %s.'
                             % (setting, shown, example))
    scheme, separator, rest = text.partition('://')
    if not separator:
        bare = _masked_url(text.lstrip('/'))
        raise BaremetalError('%s %r has no scheme: write http://%s (or https://%s for TLS).'
                             % (setting, shown, bare, bare))
    if scheme.lower() not in ENDPOINT_SCHEMES:
        rest = _masked_url(rest)
        raise BaremetalError('%s %r has the scheme %r, and Ironic is reached over http or https: write http://%s '
                             '(or https://%s for TLS).' % (setting, shown, scheme, rest, rest))
    try:
        parts = urlsplit(text)
        valid_port = parts.port != 0  # .port raises ValueError for a port that is no number up to 65535
    except ValueError:
        valid_port = False
    if not valid_port:
        raise BaremetalError('%s %r is not a URL with a host and a port from 1 to 65535: write it as %s://HOST:PORT, '
                             'for example %s.' % (setting, shown, scheme.lower(), example))
    if not parts.hostname:
        raise BaremetalError('%s %r names no host: write it as %s://HOST:PORT, for example %s.'
                             % (setting, shown, scheme.lower(), example))


class Source(object):
    """Where the settings under the task's options come from (the OS_* variables, a clouds.yaml entry or the
    cloud dictionary), to name those settings in messages as the user wrote them."""

    def __init__(self, cloud):
        self.cloud = cloud

    def __str__(self):
        if isinstance(self.cloud, dict):
            return 'the cloud dictionary'
        if self.cloud:
            return 'cloud %r' % self.cloud
        return 'the OS_* variables'

    def settings(self, keys, in_auth=False):
        """The settings ``keys`` of this source, as the user writes them: OS_TOKEN, auth.token of cloud 'x'..."""
        prefix = 'auth.' if in_auth else ''
        if isinstance(self.cloud, dict):
            return ', '.join('cloud.%s%s' % (prefix, key) for key in keys)
        if self.cloud:
            return '%s of cloud %r' % (', '.join(prefix + key for key in keys), self.cloud)
        return ', '.join('OS_' + key.upper() for key in keys)

    def auth_type(self, entry):
        """The auth_type of this source's settings ``entry``, in the user's terms."""
        if entry.get('auth_type'):
            return 'OS_AUTH_TYPE=%s' % entry['auth_type'] if not self.cloud else 'the auth_type %s of %s' % (
                entry['auth_type'], self)
        return 'auth_type %s (openstacksdk\'s default when %s)' % (
            DEFAULT_AUTH_TYPE, 'OS_AUTH_TYPE is not set' if not self.cloud else '%s sets no auth_type' % self)


def environment_entry(keep=None):
    """The cloud that OS_* variables describe without OS_CLOUD (openstacksdk's "envvars" cloud), or None.

    ``keep``: only the variables of these settings are read.
    """
    names = [name for name in os.environ if name.startswith('OS_') and not name.startswith(ENV_IGNORED_PREFIXES)
             and (keep is None or name[3:].lower() in keep)]
    if not set(names) - set(ENV_SELECTORS):
        return None
    return dict((name[3:].lower(), os.environ[name]) for name in names if name not in ENV_NOT_SETTINGS)


def standalone(entry):
    """Whether a cloud entry is one this module resolves itself (no keystone, nothing openstacksdk-only)."""
    return entry.get('auth_type') in NO_AUTH_TYPES + (BASIC_AUTH_TYPE,) and not any(
        key in entry for key in SDK_ONLY_KEYS)


def standalone_settings(entry, source, tls=None):
    """(endpoint, verify, cert, basic credentials or None) of a standalone Ironic's openstacksdk-style entry.

    As openstacksdk: plugin options given at the top of the entry (OS_ENDPOINT, OS_USERNAME...) move into auth
    unless auth has them, and baremetal_endpoint_override wins over the plugin's endpoint.
    """
    auth = dict(entry.get('auth') or {})
    moved = []
    for key in BASIC_AUTH_KEYS if entry['auth_type'] == BASIC_AUTH_TYPE else ('endpoint',):
        if key not in auth and entry.get(key) is not None:
            auth[key] = entry[key]
            moved.append(key)
    credentials = None
    if entry['auth_type'] == BASIC_AUTH_TYPE:
        if not auth.get('username') or not auth.get('password'):
            raise BaremetalError('auth_type http_basic needs auth.username and auth.password, and neither the '
                                 'task\'s auth nor %s gives both.' % source)
        credentials = (auth['username'], auth['password'])
    if entry.get('baremetal_endpoint_override'):
        endpoint, setting = entry['baremetal_endpoint_override'], 'baremetal_endpoint_override'
    else:
        endpoint, setting = auth.get('endpoint'), 'endpoint'
    if not endpoint:
        raise BaremetalError('auth_type %s needs the URL of Ironic, and neither the task nor %s gives one: set '
                             'endpoint (or baremetal_endpoint_override or auth.endpoint in the cloud).'
                             % (entry['auth_type'], source))
    check_endpoint(endpoint, source.settings([setting], in_auth=setting == 'endpoint' and 'endpoint' not in moved))
    verify, cert = tls or _tls_settings(entry)
    return endpoint, verify, cert, credentials
