# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver layer's client: the only code that knows Ironic's URLs, headers and microversions.

Connection options become a session and credentials in ironic/connection.py; every request is ours, with an
explicit microversion.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    CLIENT_MAX_VERSION, CONDUCTORS_VERSION, FEATURE_MIN_VERSION, HARDWARE_MIN_VERSION, HISTORY_VERSION,
    INVENTORY_MIN_VERSION, POLL_PROGRESS_FIELDS, RUNBOOK_MIN_VERSION, RUNBOOK_TRAITS_VERSION, VERB_MIN_VERSION,
    INSPECTION_RULE_MIN_VERSION, DEPLOY_TEMPLATE_MIN_VERSION,
    parse_version, too_old, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import ConductorWatch
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import ConnectionFailed, Session, TLSRefused
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import public_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait

# What a node looks like in results: never driver_info or instance_info (they hold secrets).
# fault, retired and protected say why Ironic may refuse a verb (see states.NODE_FLAGS);
# inspection_finished_at whether the node was ever inspected; disable_power_off whether it may be powered off.
# NEWER_VIEW_FIELDS are absent from a view where the server predates them (see view_fields).
NEWER_VIEW_FIELDS = ('disable_power_off', 'health')
NODE_SUMMARY_FIELDS = ('uuid', 'name', 'provision_state', 'target_provision_state', 'power_state',
                       'target_power_state', 'maintenance', 'maintenance_reason', 'fault', 'retired',
                       'retired_reason', 'protected', 'protected_reason', 'inspection_finished_at',
                       'last_error') + NEWER_VIEW_FIELDS

PAGE_LIMIT = 1000
RETRY_ATTEMPTS = 8
RETRY_BASE_DELAY = 0.1
RETRY_MAX_DELAY = 5.0
# What SQLite says when a write waited for another past its timeout; Ironic answers HTTP 500 with it.
SQLITE_LOCKED = 'database is locked'
# Requests sent again when their answer is lost: reading, PUTs that set a value, DELETE. A provision
# verb is a transition, not a value: sent twice, Ironic refuses the second. A POST could create twice and
# a JSON patch may not apply twice. For those, AnswerLost: the caller re-reads and goes on from there.
REPLAYED_METHODS = ('GET', 'HEAD', 'PUT', 'DELETE')

# A poll of nodes in one transient state lists them with a filter when this many of ours are in it.
POLL_LIST_MIN_NODES = 2

# A poll reads every node of Ironic in one list when Ironic holds at most this many nodes per node polled. Listing
# a node costs Ironic a fraction of reading it alone (Ironic 39 on SQLite: 100 nodes listed in 31 ms, one GET 7 ms),
# and a node that just came to rest is in no list of a transient state, so the other way reads it alone.
POLL_LIST_ALL_RATIO = 10


class IronicError(BaremetalError):
    """An error answer from Ironic, or no answer at all."""

    def __init__(self, message, status=None, reason=None):
        super(IronicError, self).__init__(message)
        self.status = status
        self.reason = reason  # Ironic's own words, without the request they answer


class NotFound(IronicError):
    pass


class Unreachable(IronicError):
    """No connection to Ironic could be made: nothing was sent, so trying again later is safe."""


class Busy(IronicError):
    """Ironic takes no more of this work for now (HTTP 503): its concurrent action limit
    ([conductor]max_concurrent_clean, max_concurrent_deploy) is reached, or no conductor worker is free. Nothing was
    done; the same request may be sent again once some of that work is over."""


class AnswerLost(IronicError):
    """A write was sent but its answer never came: Ironic may or may not have applied it.

    Callers re-read what the write was meant to change and go on from what Ironic reports.
    """


def _error_message(response):
    """Ironic wraps its message as JSON inside JSON: {"error_message": "{\"faultstring\": ...}"}."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip() or response.reason
    message = body.get('error_message', body) if isinstance(body, dict) else body
    if isinstance(message, dict) and isinstance(message.get('error'), dict):
        message = message['error']  # the auth middlewares' shape: {"error": {"message": ..., "code": 401}}
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
    return (status == 409 and 'locked' in message.lower()) or _is_database_locked(status, message)


def _is_database_locked(status, message):
    # SQLite refused a write made at the same time as another: the statement failed, so its transaction was
    # rolled back and wrote nothing. Ironic waits out most such locks itself; this is one it let through.
    return status == 500 and SQLITE_LOCKED in message


def _first_line(message):
    # A database error goes on with its SQL and parameters, which may quote driver_info.
    return message.split('\n', 1)[0]


def readable_fields(client, fields):
    """The fields this Ironic can return: a field newer than its API version is left out (get_node and list_nodes
    never ask for one)."""
    return tuple(field for field in fields
                 if field not in FEATURE_MIN_VERSION or client.supports(FEATURE_MIN_VERSION[field]))


def view_fields(node, fields):
    """The fields of a node's view: one this Ironic is too old to return is absent, not null."""
    return tuple(field for field in fields if field in node or field not in NEWER_VIEW_FIELDS)


def summarize_node(node):
    return public_node(node, view_fields(node, NODE_SUMMARY_FIELDS))


class IronicClient(object):
    """A session to one Ironic endpoint with a negotiated microversion."""

    def __init__(self, endpoint, session=None, token=None, renew_token=None, timeout=60):
        """session: an http.Session carrying TLS settings and basic auth (see ironic/connection.py);
        token: a keystone token; renew_token(): a fresh token, asked for once when Ironic answers 401."""
        self.endpoint = endpoint.rstrip('/')
        if self.endpoint.endswith('/v1'):
            self.endpoint = self.endpoint[:-3]
        self.timeout = timeout
        self.api_calls = 0
        self._session = session if session is not None else Session()
        self._session.headers['Accept'] = 'application/json'
        if token:
            self._session.headers['X-Auth-Token'] = token
        self._renew_token = renew_token
        self.scope_note = None  # why these credentials may not see a node (see ironic/connection.py)
        self._server_version = None
        # Until Ironic has answered once, a refused connection means nothing listens at the endpoint; after, that
        # Ironic is restarting, which is worth waiting for.
        self._answered = False
        self.node_count = None  # how many nodes Ironic holds, once a list read them all
        self._conductor_watch = ConductorWatch()  # what the task's reads of the conductors tell of their liveness

    # -- transport ---------------------------------------------------------------------------

    def _send(self, method, url, body=None, params=None, headers=None, replay=True, retry_busy=True):
        """One HTTP exchange with bounded, jittered retries for locks, 503 and dropped connections.

        replay=False: a lost answer raises AnswerLost even for a PUT. retry_busy=False: a 503 raises Busy at once,
        for a caller that has other work to do meanwhile (the scheduler sends the step again later).
        """
        waiting = Wait(initial=RETRY_BASE_DELAY, factor=2, cap=RETRY_MAX_DELAY, jitter=1.0, sleep=time.sleep)
        for attempt in range(1, RETRY_ATTEMPTS + 1):
            self.api_calls += 1
            try:
                response = self._session.request(method, url, body=body, params=params, headers=headers,
                                                 timeout=self.timeout)
            except TLSRefused as exc:
                raise IronicError('request to Ironic at %s failed: %s' % (self.endpoint, exc))
            except ConnectionFailed as exc:
                if not self._answered and exc.refused:
                    raise Unreachable('cannot reach Ironic at %s: nothing listens there (connection refused). Check the '
                                      'endpoint option, or the cloud chosen with cloud or OS_CLOUD, and that Ironic is '
                                      'running.' % self.endpoint)
                # A write that may have reached the server is not sent again (it could apply twice):
                # the caller re-reads and goes on from what Ironic reports.
                if exc.sent and not (replay and method in REPLAYED_METHODS):
                    raise AnswerLost('the answer to %s %s was lost: %s' % (method, url[len(self.endpoint):], exc))
                if attempt == RETRY_ATTEMPTS:
                    raise Unreachable('cannot reach Ironic at %s: %s. Check that the endpoint is right and '
                                      'the service is running.' % (self.endpoint, exc))
            else:
                self._answered = True
                if response.status_code < 400:
                    return response
                message = _error_message(response)
                retryable = (response.status_code == 503 and retry_busy) or _is_locked(response.status_code, message)
                if not retryable or attempt == RETRY_ATTEMPTS:
                    if _is_database_locked(response.status_code, message):
                        message = ("%s, %d times in a row: Ironic's SQLite database cannot take this many writes at "
                                   "once. Lower concurrency, or run Ironic on MySQL or PostgreSQL."
                                   % (_first_line(message), RETRY_ATTEMPTS))
                    error = {404: NotFound, 503: Busy}.get(response.status_code, IronicError)
                    raise error('Ironic refused %s %s (HTTP %d): %s' % (
                        method, url[len(self.endpoint):], response.status_code, message), response.status_code,
                        message)
            waiting.pause()
        raise AssertionError('unreachable')

    def _send_authenticated(self, method, url, **kwargs):
        """_send, with a fresh token and one more try when Ironic says the token expired (HTTP 401)."""
        for renew in (True, False):
            try:
                return self._send(method, url, **kwargs)
            except IronicError as exc:
                if exc.status != 401:
                    raise
                if not (renew and self._renew_token):
                    raise IronicError('%s. The credentials were refused: check auth_type and auth (username and '
                                      'password for http_basic), or the cloud they come from.'
                                      % str(exc).rstrip('.'), 401)
            self._session.headers['X-Auth-Token'] = self._renew_token()
        raise AssertionError('unreachable')

    @property
    def server_version(self):
        """The newest microversion the server supports (its root document's default_version)."""
        if self._server_version is None:
            root = self._send_authenticated('GET', self.endpoint + '/').json()
            advertised = root.get('default_version') or {}
            self._server_version = parse_version(advertised.get('version') or '1.1')
        return self._server_version

    @property
    def version(self):
        """The highest microversion both this client and the server support."""
        return min(self.server_version, CLIENT_MAX_VERSION)

    @property
    def release(self):
        """The Ironic release the server is at least (capabilities.release_for_api): which state machine edges it has."""
        return capabilities.release_for_api(self.server_version)

    def describe_server(self):
        return capabilities.describe_server(self.server_version)

    def require(self, feature, version):
        if self.version < version:
            raise IronicError(too_old(feature, version, self.version))

    def supports(self, version):
        return self.version >= version

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True):
        headers = {'X-OpenStack-Ironic-API-Version': version_string(self.version)}
        response = self._send_authenticated(method, self.endpoint + '/v1' + path, body=body, params=params,
                                            headers=headers, replay=replay, retry_busy=retry_busy)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    # -- nodes -------------------------------------------------------------------------------

    def get_node(self, ident, fields=None):
        params = {'fields': ','.join(readable_fields(self, fields))} if fields else None
        return self.request('GET', '/nodes/%s' % ident, params=params)

    def find_node(self, ident, fields=None):
        """The node, or None when no node has that name or UUID."""
        try:
            return self.get_node(ident, fields)
        except NotFound:
            return None

    def get_inventory(self, ident):
        """The hardware inventory inspection stored for the node; None where Ironic has none or the API predates it."""
        if not self.supports(INVENTORY_MIN_VERSION):
            return None
        return self.stored_inventory(ident)['inventory']

    def stored_inventory(self, ident):
        """What inspection stored for the node: {'inventory', 'plugin_data', 'inventory_note'}, as Ironic returns it.

        Where Ironic keeps none (no inspection stored one, or its [inventory]data_backend is none: HTTP 404 about the
        inventory), inventory and plugin_data are None and inventory_note is Ironic's reason; else the note is None.
        """
        self.require('inventory', INVENTORY_MIN_VERSION)
        try:
            stored = self.request('GET', '/nodes/%s/inventory' % ident)
        except NotFound as exc:
            if 'inventory' not in (exc.reason or '').lower():
                raise  # the node itself is gone
            return {'inventory': None, 'plugin_data': None, 'inventory_note': exc.reason}
        return {'inventory': stored.get('inventory'), 'plugin_data': stored.get('plugin_data'), 'inventory_note': None}

    def list_nodes(self, fields=None, first=None, **filters):
        """All nodes matching the filters, following Ironic's pagination.

        first=N reads only the first N nodes: returns (nodes, whether that was all of them).
        """
        params = dict((key, value) for key, value in filters.items() if value is not None)
        if params.get('conductor_group'):
            # Ironic stores groups in lower case, and its filter matches the spelling sent (exactly, on SQLite).
            params['conductor_group'] = params['conductor_group'].lower()
        params['limit'] = min(first, PAGE_LIMIT) if first else PAGE_LIMIT
        if fields:
            params['fields'] = ','.join(readable_fields(self, fields))
        nodes = []
        while True:
            page = self.request('GET', '/nodes', params=params)
            nodes.extend(page.get('nodes', []))
            complete = not page.get('next') or not page.get('nodes')
            if complete or (first and len(nodes) >= first):
                if complete and not filters:
                    self.node_count = len(nodes)
                return (nodes, complete) if first else nodes
            params['marker'] = page['nodes'][-1]['uuid']

    @property
    def poll_fields(self):
        """The summary, and what tells a node a conductor works on from a stranded one."""
        return NODE_SUMMARY_FIELDS + tuple(field for field, version in POLL_PROGRESS_FIELDS if self.supports(version))

    def node_history(self, ident, limit):
        """The node's latest history events, newest last; [] when the API has no history."""
        if not self.supports(HISTORY_VERSION):
            return []
        events = self.request('GET', '/nodes/%s/history' % ident,
                              params={'detail': 'true', 'limit': limit, 'sort_dir': 'desc'}).get('history', [])
        return list(reversed(events))

    def whole_node_history(self, ident):
        """Every history event of the node, oldest first, following Ironic's pagination (needs HISTORY_VERSION)."""
        params = {'detail': 'true', 'limit': PAGE_LIMIT}
        events = []
        while True:
            page = self.request('GET', '/nodes/%s/history' % ident, params=params)
            events.extend(page.get('history', []))
            if not page.get('next') or not page.get('history'):
                return events
            params['marker'] = page['history'][-1]['uuid']

    def conductors(self):
        """Every conductor Ironic knows, by each name a node's reservation gives it: {name: {'hostname',
        'conductor_group', 'alive' (Ironic's reading), 'dead' (on evidence), 'updated_at' (its last heartbeat),
        'taken_over'}} (see conductors.ConductorWatch.read); {} before CONDUCTORS_VERSION."""
        if not self.supports(CONDUCTORS_VERSION):
            return {}
        params = {'fields': 'hostname,conductor_group,alive,updated_at', 'limit': PAGE_LIMIT}
        return self._conductor_watch.read(self.request('GET', '/conductors', params=params).get('conductors', []))

    def poll_nodes(self, last_seen, transient_states):
        """The latest view of the given nodes ({uuid: node as last seen}); a node that is gone is left out.

        Reads in proportion to the nodes in play, not to the size of Ironic. When Ironic holds at most
        POLL_LIST_ALL_RATIO nodes per node in play, one list reads them all. Otherwise nodes last seen in the same
        one of ``transient_states`` (where the conductor moves a node on by itself: a resting state may hold most of
        Ironic) are listed with a provision_state filter (one request for all of them); a node not in that list any
        more, or alone in its state, is read with its own GET.
        """
        if len(last_seen) > 1 and self.node_count is not None and self.node_count <= POLL_LIST_ALL_RATIO * len(last_seen):
            return dict((node['uuid'], node) for node in self.list_nodes(fields=self.poll_fields)
                        if node['uuid'] in last_seen)
        by_state = {}
        for uuid, node in last_seen.items():
            by_state.setdefault(node.get('provision_state'), []).append(uuid)
        latest = {}
        alone = []
        for state, uuids in by_state.items():
            if len(uuids) < POLL_LIST_MIN_NODES or state not in transient_states:
                alone.extend(uuids)
                continue
            wanted = set(uuids)
            in_state = self.list_nodes(fields=self.poll_fields, provision_state=state)
            listed = dict((node['uuid'], node) for node in in_state if node['uuid'] in wanted)
            latest.update(listed)
            alone.extend(uuid for uuid in uuids if uuid not in listed)
        for uuid in alone:
            node = self.find_node(uuid, self.poll_fields)
            if node is not None:
                latest[uuid] = node
        return latest

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

    def require_provision_request(self, verb, arguments):
        """IronicError when this server's API is too old for the verb or one of its arguments."""
        self.require("the '%s' verb" % verb, VERB_MIN_VERSION[verb])
        for name, value in arguments.items():
            # A config drive given as a dictionary is built by Ironic; older versions only take an image.
            feature = 'a config_drive dictionary' if name == 'configdrive' and isinstance(value, dict) else name
            if value is not None and feature in FEATURE_MIN_VERSION:
                self.require(feature, FEATURE_MIN_VERSION[feature])

    def set_provision_state(self, ident, verb, **arguments):
        """PUT a verb; arguments are clean_steps, deploy_steps, service_steps, configdrive, rescue_password.

        Busy when Ironic takes no more such work now: the executor sends it again later, polling meanwhile.
        """
        self.require_provision_request(verb, arguments)
        body = dict((name, value) for name, value in arguments.items() if value is not None)
        body['target'] = verb
        self.request('PUT', '/nodes/%s/states/provision' % ident, body=body, replay=False, retry_busy=False)

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

    def get_boot_device(self, ident):
        """The boot device the node's management interface reads from the BMC at this moment (never a cached value)."""
        return self.request('GET', '/nodes/%s/management/boot_device' % ident)

    def set_traits(self, ident, traits):
        self.require('traits', FEATURE_MIN_VERSION['traits'])
        self.request('PUT', '/nodes/%s/traits' % ident, body={'traits': list(traits)})

    # -- runbooks ----------------------------------------------------------------------------

    def find_runbook(self, ident):
        """The runbook with that name or UUID (steps, traits from 1.112, ...), or None."""
        self.require('runbooks', RUNBOOK_MIN_VERSION)
        try:
            return self.request('GET', '/runbooks/%s' % ident)
        except NotFound:
            return None

    def create_runbook(self, body):
        self.require('runbooks', RUNBOOK_MIN_VERSION)
        return self.request('POST', '/runbooks', body=body)

    def update_runbook(self, ident, patch):
        self.require('runbooks', RUNBOOK_MIN_VERSION)
        return self.request('PATCH', '/runbooks/%s' % ident, body=patch)

    def set_runbook_traits(self, ident, traits):
        """Replace the runbook's traits: a node carrying one of them may run it."""
        self.require('runbook traits', RUNBOOK_TRAITS_VERSION)
        self.request('PUT', '/runbooks/%s/traits' % ident, body={'traits': list(traits)})

    def delete_runbook(self, ident):
        self.require('runbooks', RUNBOOK_MIN_VERSION)
        self.request('DELETE', '/runbooks/%s' % ident)

    # -- inspection rules --------------------------------------------------------------------

    def list_inspection_rules(self):
        """Every inspection rule Ironic's API holds, with its conditions and actions (None for a sensitive rule's),
        following Ironic's pagination. Built-in rules (Ironic's [inspection_rules]built_in_rules file) are not in it."""
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        params = {'detail': 'true', 'limit': PAGE_LIMIT}
        rules = []
        while True:
            page = self.request('GET', '/inspection_rules', params=params)
            rules.extend(page.get('inspection_rules', []))
            if not page.get('next') or not page.get('inspection_rules'):
                return rules
            params['marker'] = page['inspection_rules'][-1]['uuid']

    def create_inspection_rule(self, body):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        return self.request('POST', '/inspection_rules', body=body)

    def update_inspection_rule(self, uuid, patch):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        return self.request('PATCH', '/inspection_rules/%s' % uuid, body=patch)

    def delete_inspection_rule(self, uuid):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        self.request('DELETE', '/inspection_rules/%s' % uuid)
    # -- deploy templates --------------------------------------------------------------------

    def find_deploy_template(self, ident):
        """The deploy template with that name or UUID (name, steps, extra), or None."""
        self.require('deploy templates', DEPLOY_TEMPLATE_MIN_VERSION)
        try:
            return self.request('GET', '/deploy_templates/%s' % ident)
        except NotFound:
            return None

    def create_deploy_template(self, body):
        self.require('deploy templates', DEPLOY_TEMPLATE_MIN_VERSION)
        return self.request('POST', '/deploy_templates', body=body)

    def update_deploy_template(self, ident, patch):
        self.require('deploy templates', DEPLOY_TEMPLATE_MIN_VERSION)
        return self.request('PATCH', '/deploy_templates/%s' % ident, body=patch)

    def delete_deploy_template(self, ident):
        self.require('deploy templates', DEPLOY_TEMPLATE_MIN_VERSION)
        self.request('DELETE', '/deploy_templates/%s' % ident)

    # -- hardware configuration --------------------------------------------------------------

    def get_bios(self, ident):
        """The node's BIOS settings; with the registry (type, allowed values, bounds, read-only) where the API has it."""
        self.require('BIOS settings', HARDWARE_MIN_VERSION['BIOS settings'])
        params = {'detail': 'true'} if self.supports(HARDWARE_MIN_VERSION['the BIOS registry']) else None
        return self.request('GET', '/nodes/%s/bios' % ident, params=params).get('bios', [])

    def get_firmware(self, ident):
        """The firmware components Ironic has recorded for the node, with their current versions."""
        self.require('firmware components', HARDWARE_MIN_VERSION['firmware components'])
        return self.request('GET', '/nodes/%s/firmware' % ident).get('firmware', [])

    def set_target_raid_config(self, ident, target_raid_config):
        """Record the RAID layout raid.create_configuration builds; {} clears it."""
        self.require('target_raid_config', HARDWARE_MIN_VERSION['target_raid_config'])
        self.request('PUT', '/nodes/%s/states/raid' % ident, body=target_raid_config)

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

    def find_node_by_mac(self, address, fields=None):
        """The node one of whose ports has this MAC address, or None when no port has it: GET /v1/ports?address=
        (the address as Ironic stores it, in lower case), then the port's node."""
        ports = self.list_ports(address=address, fields=('node_uuid',))
        if not ports:
            return None
        return self.find_node(ports[0]['node_uuid'], fields)

    def create_port(self, body):
        return self.request('POST', '/ports', body=body)

    def update_port(self, uuid, patch):
        return self.request('PATCH', '/ports/%s' % uuid, body=patch)

    def delete_port(self, uuid):
        self.request('DELETE', '/ports/%s' % uuid)
