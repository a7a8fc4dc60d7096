# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver layer's client: the only code that knows Ironic's URLs, headers and microversions.

openstacksdk is used for configuration and authentication only (clouds.yaml, OS_* variables,
keystone); every request is ours, with an explicit microversion.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import random
import time
import traceback

try:
    import requests
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError:
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _states as states
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError

# The newest microversion this collection was written and tested against.
CLIENT_MAX_VERSION = (1, 115)

# Lowest microversion for request fields and parameters beyond the verbs themselves.
FEATURE_MIN_VERSION = {
    'clean_steps': (1, 15),
    'pxe_enabled': (1, 19),
    'local_link_connection': (1, 19),
    'resource_class': (1, 21),
    'power_timeout': (1, 27),
    'interfaces': (1, 31),
    'storage_interface': (1, 33),
    'physical_network': (1, 34),
    'traits': (1, 37),
    'rescue_password': (1, 38),
    'rescue_interface': (1, 38),
    'bios_interface': (1, 40),
    'reset_interfaces': (1, 45),
    'conductor_group': (1, 46),
    'automated_clean': (1, 47),
    'protected': (1, 48),
    'protected_reason': (1, 48),
    'owner': (1, 50),
    'description': (1, 51),
    'a config_drive dictionary': (1, 56),
    'retired': (1, 61),
    'retired_reason': (1, 61),
    'lessee': (1, 65),
    'deploy_steps': (1, 69),
    'shard': (1, 82),
    'firmware_interface': (1, 86),
}

# What a node looks like in results: never driver_info or instance_info (they hold secrets).
NODE_SUMMARY_FIELDS = ('uuid', 'name', 'provision_state', 'target_provision_state', 'power_state',
                       'target_power_state', 'maintenance', 'maintenance_reason', 'last_error')

PAGE_LIMIT = 1000
RETRY_STATUSES = (409, 503)
RETRY_ATTEMPTS = 8
RETRY_BASE_DELAY = 0.1
RETRY_MAX_DELAY = 5.0
IDEMPOTENT_METHODS = ('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD')


class IronicError(BaremetalError):
    """An error answer from Ironic, or no answer at all."""

    def __init__(self, message, status=None):
        super(IronicError, self).__init__(message)
        self.status = status


class NotFound(IronicError):
    pass


class AnswerLost(IronicError):
    """A write was sent but its answer never came: Ironic may or may not have applied it.

    Callers re-read what the write was meant to change and go on from what Ironic reports.
    """


def version_string(version):
    return '%d.%d' % version


def parse_version(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def _error_message(response):
    """Ironic wraps its message as JSON inside JSON: {"error_message": "{\"faultstring\": ...}"}."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip() or response.reason
    message = body.get('error_message', body) if isinstance(body, dict) else body
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return message
    if isinstance(message, dict):
        return message.get('faultstring') or message.get('message') or str(message)
    return str(message)


def _is_locked(status, message):
    # 409 also means "name or MAC already taken"; only a lock is worth waiting for.
    return status == 409 and 'locked' in message.lower()


def summarize_node(node):
    return dict((field, node.get(field)) for field in NODE_SUMMARY_FIELDS)


class IronicClient(object):
    """A session to one Ironic endpoint with a negotiated microversion."""

    def __init__(self, endpoint, token=None, basic_auth=None, verify=True, cert=None, timeout=60):
        if not HAS_REQUESTS:
            raise IronicError('the Python library requests is required: pip install requests')
        self.endpoint = endpoint.rstrip('/')
        if self.endpoint.endswith('/v1'):
            self.endpoint = self.endpoint[:-3]
        self.timeout = timeout
        self.api_calls = 0
        self._session = requests.Session()
        self._session.verify = verify
        self._session.cert = cert
        self._session.headers['Accept'] = 'application/json'
        if token:
            self._session.headers['X-Auth-Token'] = token
        if basic_auth:
            self._session.auth = basic_auth
        self._version = None

    # -- transport ---------------------------------------------------------------------------

    def _send(self, method, url, body=None, params=None, headers=None):
        """One HTTP exchange with bounded, jittered retries for locks, 503 and dropped connections."""
        delay = RETRY_BASE_DELAY
        for attempt in range(1, RETRY_ATTEMPTS + 1):
            self.api_calls += 1
            try:
                response = self._session.request(method, url, json=body, params=params, headers=headers,
                                                 timeout=self.timeout)
            except requests.exceptions.ConnectionError as exc:
                # A POST that may have reached the server is not replayed: it would create twice.
                replayable = method in IDEMPOTENT_METHODS or isinstance(exc, requests.exceptions.ConnectTimeout)
                if not replayable:
                    raise AnswerLost('the answer to %s %s was lost: %s' % (method, url[len(self.endpoint):], exc))
                if attempt == RETRY_ATTEMPTS:
                    raise IronicError('cannot reach Ironic at %s: %s. Check that the endpoint is right and '
                                      'the service is running.' % (self.endpoint, exc))
            except requests.exceptions.RequestException as exc:
                raise IronicError('request to Ironic at %s failed: %s' % (self.endpoint, exc))
            else:
                if response.status_code < 400:
                    return response
                message = _error_message(response)
                retryable = response.status_code == 503 or _is_locked(response.status_code, message)
                if not retryable or attempt == RETRY_ATTEMPTS:
                    error = NotFound if response.status_code == 404 else IronicError
                    raise error('Ironic refused %s %s (HTTP %d): %s' % (
                        method, url[len(self.endpoint):], response.status_code, message), response.status_code)
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, RETRY_MAX_DELAY)
        raise AssertionError('unreachable')

    @property
    def version(self):
        """The highest microversion both this client and the server support."""
        if self._version is None:
            root = self._send('GET', self.endpoint + '/').json()
            advertised = root.get('default_version') or {}
            server_max = parse_version(advertised.get('version') or '1.1')
            self._version = min(server_max, CLIENT_MAX_VERSION)
        return self._version

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %s or newer; this server supports up to %s. Upgrade Ironic '
                              'or leave %s out.' % (feature, version_string(version), version_string(self.version),
                                                    feature))

    def supports(self, version):
        return self.version >= version

    def request(self, method, path, body=None, params=None):
        headers = {'X-OpenStack-Ironic-API-Version': version_string(self.version)}
        response = self._send(method, self.endpoint + '/v1' + path, body=body, params=params, headers=headers)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    # -- nodes -------------------------------------------------------------------------------

    def get_node(self, ident, fields=None):
        params = {'fields': ','.join(fields)} if fields else None
        return self.request('GET', '/nodes/%s' % ident, params=params)

    def find_node(self, ident, fields=None):
        """The node, or None when no node has that name or UUID."""
        try:
            return self.get_node(ident, fields)
        except NotFound:
            return None

    def list_nodes(self, fields=None, **filters):
        """All nodes matching the filters, following Ironic's pagination."""
        params = dict((key, value) for key, value in filters.items() if value is not None)
        params['limit'] = PAGE_LIMIT
        if fields:
            params['fields'] = ','.join(fields)
        path = '/nodes'
        nodes = []
        while True:
            page = self.request('GET', path, params=params)
            nodes.extend(page.get('nodes', []))
            marker = page.get('next')
            if not marker or not page.get('nodes'):
                return nodes
            params['marker'] = page['nodes'][-1]['uuid']

    def poll_nodes(self, uuids):
        """Summaries of the given nodes: one GET for one node, one list request per page for many."""
        if len(uuids) == 1:
            uuid = next(iter(uuids))
            return {uuid: self.get_node(uuid, NODE_SUMMARY_FIELDS)}
        wanted = set(uuids)
        return dict((node['uuid'], node) for node in self.list_nodes(fields=NODE_SUMMARY_FIELDS)
                    if node['uuid'] in wanted)

    def create_node(self, body):
        return self.request('POST', '/nodes', body=body)

    def update_node(self, ident, patch, reset_interfaces=False):
        """Apply a JSON patch; reset_interfaces gives interfaces the patch does not set their new driver's defaults."""
        params = None
        if reset_interfaces:
            self.require('reset_interfaces', FEATURE_MIN_VERSION['reset_interfaces'])
            params = {'reset_interfaces': 'true'}
        return self.request('PATCH', '/nodes/%s' % ident, body=patch, params=params)

    def delete_node(self, ident):
        self.request('DELETE', '/nodes/%s' % ident)

    def set_provision_state(self, ident, verb, **arguments):
        """PUT a verb; arguments are clean_steps, deploy_steps, configdrive, rescue_password."""
        minimum = states.VERB_MIN_VERSION.get(verb)
        if minimum:
            self.require("the '%s' verb" % verb, minimum)
        body = {'target': verb}
        for name, value in arguments.items():
            if value is None:
                continue
            # A config drive given as a dictionary is built by Ironic; older versions only take an image.
            feature = 'a config_drive dictionary' if name == 'configdrive' and isinstance(value, dict) else name
            if feature in FEATURE_MIN_VERSION:
                self.require(feature, FEATURE_MIN_VERSION[feature])
            body[name] = value
        self.request('PUT', '/nodes/%s/states/provision' % ident, body=body)

    def set_power_state(self, ident, target, timeout=None):
        body = {'target': target}
        if timeout is not None:
            self.require('power_timeout', FEATURE_MIN_VERSION['power_timeout'])
            body['timeout'] = timeout
        self.request('PUT', '/nodes/%s/states/power' % ident, body=body)

    def set_maintenance(self, ident, reason=None):
        self.request('PUT', '/nodes/%s/maintenance' % ident, body={'reason': reason} if reason else {})

    def unset_maintenance(self, ident):
        self.request('DELETE', '/nodes/%s/maintenance' % ident)

    def validate_node(self, ident):
        return self.request('GET', '/nodes/%s/validate' % ident)

    def set_traits(self, ident, traits):
        self.require('traits', FEATURE_MIN_VERSION['traits'])
        self.request('PUT', '/nodes/%s/traits' % ident, body={'traits': list(traits)})

    def list_drivers(self):
        """The names of the hardware types the conductors enable."""
        return sorted(driver['name'] for driver in self.request('GET', '/drivers').get('drivers', []))

    # -- ports -------------------------------------------------------------------------------

    def list_ports(self, node_uuid=None, address=None, fields=None):
        """Ports matching the filters, following Ironic's pagination; fields restricts what each holds."""
        params = {'limit': PAGE_LIMIT}
        if fields:
            params['fields'] = ','.join(fields)
        else:
            params['detail'] = 'true'
        if node_uuid:
            params['node_uuid'] = node_uuid
        if address:
            params['address'] = address
        ports = []
        while True:
            page = self.request('GET', '/ports', params=params)
            ports.extend(page.get('ports', []))
            if not page.get('next') or not page.get('ports'):
                return ports
            params['marker'] = page['ports'][-1]['uuid']

    def create_port(self, body):
        return self.request('POST', '/ports', body=body)

    def update_port(self, uuid, patch):
        return self.request('PATCH', '/ports/%s' % uuid, body=patch)

    def delete_port(self, uuid):
        self.request('DELETE', '/ports/%s' % uuid)


def _cloud_region(cloud, auth_type, auth):
    """Resolve clouds.yaml / OS_* / explicit auth into an openstacksdk CloudRegion."""
    try:
        from openstack import config as os_config
    except ImportError:
        raise IronicError('openstacksdk is required to use cloud or keystone auth: pip install openstacksdk. '
                          'For a standalone Ironic, set endpoint instead.')
    overrides = {}
    if auth_type:
        overrides['auth_type'] = auth_type
    if auth:
        overrides['auth'] = auth
    try:
        if isinstance(cloud, dict):
            overrides = dict(cloud, **overrides)
            return os_config.OpenStackConfig(load_yaml_config=False).get_one(**overrides)
        return os_config.OpenStackConfig().get_one(cloud=cloud, **overrides)
    except Exception as exc:  # openstacksdk raises several unrelated types for bad config
        raise IronicError('cannot load cloud %r: %s. Check clouds.yaml (OS_CLIENT_CONFIG_FILE) or OS_CLOUD.'
                          % (cloud if not isinstance(cloud, dict) else '<dict>', exc))


def client_from_params(params):
    """Build a client from the shared connection options of every module."""
    verify = params['validate_certs']
    if verify and params.get('ca_cert'):
        verify = params['ca_cert']
    cert = params.get('client_cert')
    if cert and params.get('client_key'):
        cert = (cert, params['client_key'])
    timeout = params['api_timeout']
    auth_type = params.get('auth_type')
    auth = params.get('auth') or {}
    endpoint = params.get('endpoint')
    if endpoint and auth_type in (None, 'none', 'noauth'):
        return IronicClient(endpoint, verify=verify, cert=cert, timeout=timeout)
    if endpoint and auth_type == 'http_basic':
        return IronicClient(endpoint, basic_auth=(auth.get('username'), auth.get('password')), verify=verify,
                            cert=cert, timeout=timeout)
    if not params.get('cloud') and not auth:
        raise IronicError('no Ironic to talk to: set cloud (a clouds.yaml entry or OS_CLOUD) or endpoint.')
    region = _cloud_region(params.get('cloud'), auth_type, auth)
    config = region.config
    if 'verify' in config or 'cacert' in config:
        verify = config.get('cacert') or config.get('verify', verify)
    endpoint = endpoint or region.get_endpoint('baremetal')
    region_auth_type = config.get('auth_type')
    if region_auth_type in ('none', 'noauth'):
        if not endpoint:
            raise IronicError('cloud %r has auth_type none but no baremetal_endpoint_override.' % params['cloud'])
        return IronicClient(endpoint, verify=verify, cert=cert, timeout=timeout)
    if region_auth_type == 'http_basic':
        basic = config.get('auth', {})
        return IronicClient(endpoint, basic_auth=(basic.get('username'), basic.get('password')), verify=verify,
                            cert=cert, timeout=timeout)
    try:
        session = region.get_session()
        token = session.get_token()
        endpoint = endpoint or session.get_endpoint(service_type='baremetal', interface=region.get_interface(),
                                                    region_name=region.get_region_name('baremetal'))
    except Exception as exc:  # keystoneauth raises many types; all mean the same to the user
        raise IronicError('keystone authentication failed: %s' % exc)
    if not endpoint:
        raise IronicError('the service catalog has no baremetal endpoint; set endpoint.')
    return IronicClient(endpoint, token=token, verify=verify, cert=cert, timeout=timeout)
