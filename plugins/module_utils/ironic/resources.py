# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's endpoints beside the node itself: runbooks, inspection rules, deploy templates, a node's hardware
configuration (BIOS, firmware, RAID), the drivers, and ports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    DEPLOY_TEMPLATE_MIN_VERSION, HARDWARE_MIN_VERSION, INSPECTION_RULE_MIN_VERSION, RUNBOOK_MIN_VERSION,
    RUNBOOK_TRAITS_VERSION)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound


class RunbookEndpoints(object):
    """/v1/runbooks (on IronicClient's AuthSession)."""

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


class InspectionRuleEndpoints(object):
    """/v1/inspection_rules (on IronicClient's AuthSession)."""

    def list_inspection_rules(self):
        """Every inspection rule Ironic's API holds, with its conditions and actions (None for a sensitive rule's),
        following Ironic's pagination. Built-in rules (Ironic's [inspection_rules]built_in_rules file) are not in it."""
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        return [rule for page, _last in self.pages('/inspection_rules', {'detail': 'true'}, 'inspection_rules')
                for rule in page]

    def create_inspection_rule(self, body):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        return self.request('POST', '/inspection_rules', body=body)

    def update_inspection_rule(self, uuid, patch):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        return self.request('PATCH', '/inspection_rules/%s' % uuid, body=patch)

    def delete_inspection_rule(self, uuid):
        self.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
        self.request('DELETE', '/inspection_rules/%s' % uuid)


class DeployTemplateEndpoints(object):
    """/v1/deploy_templates (on IronicClient's AuthSession)."""

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


class HardwareEndpoints(object):
    """A node's BIOS, firmware and RAID configuration, and the drivers (on IronicClient's AuthSession)."""

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


class PortEndpoints(object):
    """/v1/ports (on IronicClient's AuthSession)."""

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

    def create_port(self, body):
        return self.request('POST', '/ports', body=body)

    def update_port(self, uuid, patch):
        return self.request('PATCH', '/ports/%s' % uuid, body=patch)

    def delete_port(self, uuid):
        self.request('DELETE', '/ports/%s' % uuid)
