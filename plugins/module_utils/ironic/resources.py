# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's endpoints beside the node itself: the named collections (runbooks, inspection rules, deploy templates,
allocations), a node's hardware configuration (BIOS, firmware, RAID), the drivers, and ports.

An allocation asks Ironic for one available node of a resource class with some traits (API 1.52), picked by the
conductor in the background (state allocating, then active or error); from 1.57 its name and extra can change,
from 1.58 it can be created for a node already deployed (backfill, with node), from 1.60 it has an owner.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    ALLOCATION_FIELD_VERSION, ALLOCATIONS_VERSION, DEPLOY_TEMPLATE_MIN_VERSION, HARDWARE_MIN_VERSION,
    INSPECTION_RULE_MIN_VERSION, RUNBOOK_MIN_VERSION, RUNBOOK_TRAITS_VERSION)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound


class Collection(object):
    """One of Ironic's collections whose members have a name or a UUID (/v1/runbooks, /v1/inspection_rules,
    /v1/deploy_templates, /v1/allocations): the same five calls for each, every one refused, naming the version
    it needs, by an API that lacks the collection."""

    def __init__(self, session, name, feature, version):
        self.session = session
        self.name = name
        self.feature = feature
        self.version = version

    def _path(self, ident=None):
        self.session.require(self.feature, self.version)
        return '/%s/%s' % (self.name, ident) if ident else '/%s' % self.name

    def find(self, ident):
        """The member with that name or UUID, or None."""
        try:
            return self.session.request('GET', self._path(ident))
        except NotFound:
            return None

    def list(self):
        """Every member, in detail, following Ironic's pagination."""
        return [member for page, _last in self.session.pages(self._path(), {'detail': 'true'}, self.name)
                for member in page]

    def create(self, body):
        return self.session.request('POST', self._path(), body=body)

    def update(self, ident, patch):
        return self.session.request('PATCH', self._path(ident), body=patch)

    def delete(self, ident):
        self.session.request('DELETE', self._path(ident))


class Allocations(Collection):
    """/v1/allocations: creating one for a node or an owner, and updating one, came after the collection."""

    def create(self, body):
        """Ask for a node; the answer is the allocation, most often still allocating."""
        for field in ('node', 'owner'):
            if field in body:
                self.session.require(field, ALLOCATION_FIELD_VERSION[field])
        return super(Allocations, self).create(body)

    def update(self, ident, patch):
        self.session.require('updating an allocation', ALLOCATION_FIELD_VERSION['updating an allocation'])
        return super(Allocations, self).update(ident, patch)

    def delete(self, ident, retry_busy=True):
        """Releasing an allocation takes its node's lock: retry_busy as the node's writes (NodeEndpoints.update_node)."""
        self.session.request('DELETE', self._path(ident), retry_busy=retry_busy)


# Each collection: its calls, the words a refusal names it with, and the API version it needs.
COLLECTIONS = {
    'runbooks': (Collection, 'runbooks', RUNBOOK_MIN_VERSION),
    'inspection_rules': (Collection, 'inspection rules', INSPECTION_RULE_MIN_VERSION),
    'deploy_templates': (Collection, 'deploy templates', DEPLOY_TEMPLATE_MIN_VERSION),
    'allocations': (Allocations, 'allocations', ALLOCATIONS_VERSION),
}


class CollectionEndpoints(object):
    """The named collections (on IronicClient's Transport)."""

    def collection(self, name):
        """The calls of /v1/<name>, one of COLLECTIONS."""
        calls, feature, version = COLLECTIONS[name]
        return calls(self, name, feature, version)

    def set_runbook_traits(self, ident, traits):
        """Replace the runbook's traits: a node carrying one of them may run it."""
        self.require('runbook traits', RUNBOOK_TRAITS_VERSION)
        self.request('PUT', '/runbooks/%s/traits' % ident, body={'traits': list(traits)})


class HardwareEndpoints(object):
    """A node's BIOS, firmware and RAID configuration, and the drivers (on IronicClient's Transport)."""

    def get_bios(self, ident):
        """The node's BIOS settings; with the registry (type, allowed values, bounds, read-only) where the API has it."""
        self.require('BIOS settings', HARDWARE_MIN_VERSION['BIOS settings'])
        params = {'detail': 'true'} if self.supports(HARDWARE_MIN_VERSION['the BIOS registry']) else None
        return self.request('GET', '/nodes/%s/bios' % ident, params=params).get('bios', [])

    def get_firmware(self, ident):
        """The firmware components Ironic has recorded for the node, with their current versions."""
        self.require('firmware components', HARDWARE_MIN_VERSION['firmware components'])
        return self.request('GET', '/nodes/%s/firmware' % ident).get('firmware', [])

    def set_target_raid_config(self, ident, target_raid_config, retry_busy=True):
        """Record the RAID layout raid.create_configuration builds; {} clears it."""
        self.require('target_raid_config', HARDWARE_MIN_VERSION['target_raid_config'])
        self.request('PUT', '/nodes/%s/states/raid' % ident, body=target_raid_config, retry_busy=retry_busy)

    def list_drivers(self):
        """The names of the hardware types the conductors enable."""
        return sorted(driver['name'] for driver in self.request('GET', '/drivers').get('drivers', []))


class PortEndpoints(object):
    """/v1/ports (on IronicClient's Transport)."""

    def list_ports(self, node_uuid=None, address=None, fields=None):
        """Ports matching the filters, following Ironic's pagination; fields restricts what each holds."""
        params = {}
        if fields:
            params['fields'] = ','.join(fields)
        else:
            params['detail'] = 'true'
        if node_uuid:
            params['node_uuid'] = node_uuid
        if address:
            params['address'] = address
        return [port for page, _last in self.pages('/ports', params, 'ports') for port in page]

    def find_node_by_mac(self, address, fields=None):
        """The node one of whose ports has this MAC address, or None when no port has it: GET /v1/ports?address=
        (the address as Ironic stores it, in lower case), then the port's node."""
        ports = self.list_ports(address=address, fields=('node_uuid',))
        if not ports:
            return None
        return self.find_node(ports[0]['node_uuid'], fields)

    # retry_busy, as the node's writes (nodes.NodeEndpoints.update_node): a port's node may be locked.
    def create_port(self, body, retry_busy=True):
        return self.request('POST', '/ports', body=body, retry_busy=retry_busy)

    def update_port(self, uuid, patch, retry_busy=True):
        return self.request('PATCH', '/ports/%s' % uuid, body=patch, retry_busy=retry_busy)

    def delete_port(self, uuid, retry_busy=True):
        self.request('DELETE', '/ports/%s' % uuid, retry_busy=retry_busy)
