# -*- coding: utf-8 -*-
"""Clients for the tests of node lookup and of the many-node runner.

FakeClient has only what selection and lookup ask; InMemoryIronic is the real client over an Ironic held in memory.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound


class FakeClient(object):
    """Only what selection and lookup ask of a client."""

    def __init__(self, version, nodes=()):
        self.version = version
        self.nodes = list(nodes)
        self.requests = []
        self.scope_note = None

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d' % ((feature,) + version))

    def list_nodes(self, fields=None, first=None, **filters):
        self.requests.append(('list', filters))
        return (self.nodes[:first], len(self.nodes) <= first) if first else self.nodes

    def count_nodes(self, nodes):
        return nodes

    def find_node(self, ident, fields=None):
        self.requests.append(('get', ident))
        return next((node for node in self.nodes if ident in (node['name'], node['uuid'])), None)


class InMemoryIronic(IronicClient):
    """The real client over an Ironic held in memory: size manageable nodes with one port each, listed in pages of
    the limit asked for. sent records every request; only GETs are answered."""

    def __init__(self, size):
        super(InMemoryIronic, self).__init__('http://ironic.invalid')
        self._server_version = (1, 115)
        self.nodes = [{'uuid': '00000000-0000-4000-8000-%012d' % index, 'name': 'node-%d' % index,
                       'driver': 'fake-hardware', 'provision_state': 'manageable', 'target_provision_state': None,
                       'maintenance': False} for index in range(size)]
        self.ports = [{'uuid': 'port-%d' % index, 'node_uuid': node['uuid'],
                       'address': '52:54:00:%02x:%02x:%02x' % (index >> 16, (index >> 8) & 255, index & 255)}
                      for index, node in enumerate(self.nodes)]
        self.sent = []

    def request(self, method, path, body=None, params=None, replay=True):
        params = dict(params or {})
        self.sent.append((method, path, params))
        assert method == 'GET', 'a lookup writes nothing'
        if path == '/nodes':
            return self._page('nodes', self.nodes, params)
        if path == '/drivers':
            return {'drivers': [{'name': 'fake-hardware'}]}
        if path == '/ports':
            ports = [port for port in self.ports
                     if all(port[key] == params[key] for key in ('node_uuid', 'address') if key in params)]
            return self._page('ports', ports, params)
        ident, _slash, below = path[len('/nodes/'):].partition('/')
        node = next((node for node in self.nodes if ident in (node['uuid'], node['name'])), None)
        if node is None:
            raise NotFound('Ironic refused GET /v1%s (HTTP 404): node %s could not be found' % (path, ident), 404)
        return {'bios': {'bios': []}, 'firmware': {'firmware': []}}.get(below, dict(node))

    @staticmethod
    def _page(key, items, params):
        start = next(index + 1 for index, item in enumerate(items) if item['uuid'] == params['marker']) \
            if 'marker' in params else 0
        page = items[start:start + params['limit']]
        # Ironic links a next page whenever a page is full.
        return {key: page, 'next': 'more' if len(page) == params['limit'] else None}

    def reads(self, path):
        return [params for _method, sent_path, params in self.sent if sent_path == path]

    def gets(self):
        return [path for _method, path, _params in self.sent if path.startswith('/nodes/')]
