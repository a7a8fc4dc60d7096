# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node endpoints of Ironic's API (/v1/nodes and below): reading, listing, creating, changing and moving nodes.

Each checks the capability table (ironic/capabilities.py) before it sends what an older API would refuse.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    FEATURE_MIN_VERSION, HISTORY_VERSION, INVENTORY_MIN_VERSION, VERB_MIN_VERSION)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import PAGE_LIMIT
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound

# How many of a node's latest history events failure_reason looks through for its newest error.
HISTORY_SCAN = 10


def readable_fields(client, fields):
    """The fields this Ironic can return: a field newer than its API version is left out (get_node and list_nodes
    never ask for one)."""
    return tuple(field for field in fields
                 if field not in FEATURE_MIN_VERSION or client.supports(FEATURE_MIN_VERSION[field]))


def failure_reason(client, node):
    """Ironic's own words for why it failed the node (client: an IronicClient): its ``last_error``, else the newest
    error of its history, with when Ironic recorded it, else None (also when the history cannot be read).

    Ironic may have cleared ``last_error`` by the time a task reads a failed node: from Ironic 31.0 on, its
    power-state sync clears it from a node whose power state it confirms, in a failure state too, once node history
    (``[conductor]node_history``, on by default) keeps the error. The history is read only then. A node that is
    not in a failure state may have an old error in its history, unrelated to what the caller asks about: ask only
    of a node Ironic failed."""
    if node.get('last_error'):
        return node['last_error']
    if not node.get('uuid'):
        return None
    try:
        history = client.node_history(node['uuid'], HISTORY_SCAN)
    except IronicError:
        return None
    errors = [event for event in history
              if (event.get('severity') or '').upper() == 'ERROR' and event.get('event')]
    if not errors:
        return None
    return '%s (recorded in its history at %s; Ironic has since cleared its last_error)' % (
        errors[-1]['event'].strip().rstrip('.'), errors[-1].get('created_at') or 'an unknown time')


class NodeEndpoints(object):
    """The node calls of IronicClient (on its Transport: request, require, supports, pages)."""

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

        first=N reads only the first N nodes: returns (nodes, whether that was all of them). A list records nothing of
        how many nodes Ironic holds: a caller that read every node says so (IronicClient.count_nodes).
        """
        params = dict((key, value) for key, value in filters.items() if value is not None)
        if params.get('conductor_group'):
            # Ironic stores groups in lower case, and its filter matches the spelling sent (exactly, on SQLite).
            params['conductor_group'] = params['conductor_group'].lower()
        if first:
            params['limit'] = min(first, PAGE_LIMIT)
        if fields:
            params['fields'] = ','.join(readable_fields(self, fields))
        nodes = []
        for page, last in self.pages('/nodes', params, 'nodes'):
            nodes.extend(page)
            if first and (last or len(nodes) >= first):
                return nodes, last
        return nodes

    def node_history(self, ident, limit):
        """The node's latest history events, newest last; [] when the API has no history."""
        if not self.supports(HISTORY_VERSION):
            return []
        events = self.request('GET', '/nodes/%s/history' % ident,
                              params={'detail': 'true', 'limit': limit, 'sort_dir': 'desc'}).get('history', [])
        return list(reversed(events))

    def whole_node_history(self, ident):
        """Every history event of the node, oldest first, following Ironic's pagination (needs HISTORY_VERSION)."""
        return [event for page, _last in self.pages('/nodes/%s/history' % ident, {'detail': 'true'}, 'history')
                for event in page]

    def create_node(self, body):
        return self.request('POST', '/nodes', body=body)

    def update_node(self, ident, patch, reset_interfaces=False, retry_busy=True):
        """Apply a JSON patch; reset_interfaces gives interfaces the patch does not set their new driver's defaults.

        retry_busy, here and in the other writes for a node: False answers Locked and Busy at once, for a caller that
        waits for them itself (transport.resent_while_held)."""
        params = None
        if reset_interfaces:
            self.require('reset_interfaces', FEATURE_MIN_VERSION['reset_interfaces'])
            params = {'reset_interfaces': 'true'}
        return self.request('PATCH', '/nodes/%s' % ident, body=patch, params=params, retry_busy=retry_busy)

    def delete_node(self, ident, retry_busy=True):
        self.request('DELETE', '/nodes/%s' % ident, retry_busy=retry_busy)

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

        Busy when Ironic takes no more such work now: the scheduler sends it again later, polling meanwhile.
        """
        self.require_provision_request(verb, arguments)
        body = dict((name, value) for name, value in arguments.items() if value is not None)
        body['target'] = verb
        self.request('PUT', '/nodes/%s/states/provision' % ident, body=body, replay=False, retry_busy=False)

    def set_power_state(self, ident, target, timeout=None, retry_busy=True):
        body = {'target': target}
        if timeout is not None:
            self.require('power_timeout', FEATURE_MIN_VERSION['power_timeout'])
            body['timeout'] = timeout
        self.request('PUT', '/nodes/%s/states/power' % ident, body=body, retry_busy=retry_busy)

    def set_maintenance(self, ident, reason=None, retry_busy=True):
        self.request('PUT', '/nodes/%s/maintenance' % ident, body={'reason': reason} if reason else {},
                     retry_busy=retry_busy)

    def unset_maintenance(self, ident, retry_busy=True):
        self.request('DELETE', '/nodes/%s/maintenance' % ident, retry_busy=retry_busy)

    def validate_node(self, ident):
        return self.request('GET', '/nodes/%s/validate' % ident)

    def get_boot_device(self, ident):
        """The boot device the node's management interface reads from the BMC at this moment (never a cached value).

        Ironic answers once the BMC has, holding the node's lock meanwhile: an answer lost (api_timeout passed) is not
        asked again, as the second read would only meet that lock (HTTP 409); AnswerLost is raised instead."""
        return self.request('GET', '/nodes/%s/management/boot_device' % ident, replay=False)

    def set_traits(self, ident, traits, retry_busy=True):
        self.require('traits', FEATURE_MIN_VERSION['traits'])
        self.request('PUT', '/nodes/%s/traits' % ident, body={'traits': list(traits)}, retry_busy=retry_busy)
