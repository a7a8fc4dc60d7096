# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One report on the whole fleet (baremetal_fleet_report): every node, capacity per resource class, firmware
versions by vendor and model with the nodes that differ from the rest of their model, drift from a declared fleet,
and compliance with a firmware baseline (fleet/firmware_baseline.py).

read_fleet does the reads, in proportion: one paginated list for every node, then per node only the firmware
(when asked, where the API has it, when the fleet declares firmware for that node, or for every node when a firmware
baseline is given) and the BIOS settings (when the fleet declares some for that node). build_report is pure: it
turns what was read into the report.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet import drift
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_baseline import (
    EVERY_NIC, compliance_section, is_nic, node_compliance)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_difference import version_key
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    HARDWARE_MIN_VERSION, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, view_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.nodes import failure_reason
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import public_node

# The version of the report's shape (fleet-report.schema.json); a change that breaks a reader raises it.
REPORT_FORMAT = 1

# What each node's entry shows; health (API 1.109) is absent where Ironic predates it.
REPORT_NODE_FIELDS = ('uuid', 'name', 'provision_state', 'power_state', 'maintenance', 'maintenance_reason', 'fault',
                      'health', 'resource_class', 'owner', 'last_error')
# firmware_interface: why a node has no firmware components (fake records none); absent before API 1.86.
LIST_FIELDS = NODE_SUMMARY_FIELDS + ('resource_class', 'owner', 'firmware_interface') + drift.DRIFT_NODE_FIELDS

# Per-node reads beside the list, this many at once.
READ_CONCURRENCY = 8

FIRMWARE_VERSION = HARDWARE_MIN_VERSION['firmware components']

CAPACITY_COUNTS = ('available', 'active', 'in_maintenance', 'failed', 'total')


def is_failed(state):
    """A failure state (deploy failed, clean failed...) or error (a deletion that failed): someone has to look."""
    return state == 'error' or states.STATES.get(state, (None,))[0] == states.FAILED


# -- reading --------------------------------------------------------------------------------------------------

def read_fleet(client, fleet=None, firmware=True, baseline=None):
    """What the report is built from: {'nodes', 'firmware' ({uuid: components}), 'bios' ({uuid: {name: setting}}),
    'firmware_read' (whether every node's firmware was read), 'firmware_note' (why not, or None)}.

    fleet: the declared nodes (or None); firmware: read every node's firmware components; baseline: a firmware
    baseline (checked already), which reads every node's firmware components whatever firmware says. A fleet that
    declares firmware or BIOS settings, and a baseline, need the API that has them: refused before any node is read,
    naming the version. A node in a failure state whose last_error Ironic cleared gets the error its history keeps
    (nodes.failure_reason), read beside the firmware.
    """
    fleet = fleet or []
    if baseline:
        client.require('firmware components', FIRMWARE_VERSION)
        firmware = True
    declared = dict((node['name'], drift.reads_for(node)) for node in fleet)
    if any('firmware' in reads for reads in declared.values()):
        client.require('firmware components', FIRMWARE_VERSION)
    if any('bios' in reads for reads in declared.values()):
        client.require('BIOS settings', HARDWARE_MIN_VERSION['BIOS settings'])
    note = None
    if firmware and not client.supports(FIRMWARE_VERSION):
        firmware = False
        note = ('Ironic records firmware components from API %s on; this one serves up to %s.'
                % (version_string(FIRMWARE_VERSION), version_string(client.version)))
    nodes = client.list_nodes(fields=LIST_FIELDS)
    pairs, _undeclared, _missing = drift.match(fleet, nodes)
    wanted = dict((node['uuid'], set(declared[entry['name']])) for entry, node in pairs)
    if firmware:
        for node in nodes:
            wanted.setdefault(node['uuid'], set()).add('firmware')
    by_uuid = dict((node['uuid'], node) for node in nodes)
    for node in nodes:
        if is_failed(node['provision_state']) and not node.get('last_error'):
            wanted.setdefault(node['uuid'], set()).add('reason')  # Ironic cleared it: its history keeps it

    def read(item):
        uuid, reads = item
        return (uuid, _gone_is_none(client.get_firmware, uuid) if 'firmware' in reads else None,
                _gone_is_none(client.get_bios, uuid) if 'bios' in reads else None,
                failure_reason(client, by_uuid[uuid]) if 'reason' in reads else None)

    results = run_each(sorted((uuid, reads) for uuid, reads in wanted.items() if reads), read,
                       concurrency=READ_CONCURRENCY)
    errors = sorted(set(result['error'] for result in results if isinstance(result, dict)))
    if errors:
        raise BaremetalError('Reading the nodes\' firmware or BIOS settings failed: %s' % '; '.join(errors))
    for uuid, _firmware, _bios, reason in results:
        by_uuid[uuid]['last_error'] = reason or by_uuid[uuid].get('last_error')
    return {'nodes': nodes, 'firmware_note': note, 'firmware_read': bool(firmware),
            'firmware': dict((uuid, components) for uuid, components, _bios, _reason in results
                             if components is not None),
            'bios': dict((uuid, dict((entry['name'], entry) for entry in bios))
                         for uuid, _firmware, bios, _reason in results if bios is not None)}


def _gone_is_none(read, uuid):
    """What read(uuid) returns, or None when the node was deleted since the list read it."""
    try:
        return read(uuid)
    except NotFound:
        return None


# -- building the report (pure) -------------------------------------------------------------------------------

def node_entry(node):
    """A node as the report shows it: REPORT_NODE_FIELDS (health only where Ironic has it), free text masked."""
    return public_node(node, view_fields(node, REPORT_NODE_FIELDS))


def capacity(nodes):
    """Per resource class (null: nodes without one): available (and not in maintenance: what can be scheduled),
    active (deployed), in_maintenance, failed (a failure state), total, and free_percent (available of total).
    A node in maintenance counts there and in its state's count too, when that is active or a failure."""
    classes = collections.OrderedDict()
    for node in sorted(nodes, key=lambda node: node.get('resource_class') or ''):
        counts = classes.setdefault(node.get('resource_class'), dict((name, 0) for name in CAPACITY_COUNTS))
        state = node.get('provision_state')
        counts['total'] += 1
        counts['available'] += state == 'available' and not node.get('maintenance')
        counts['active'] += state == 'active'
        counts['in_maintenance'] += bool(node.get('maintenance'))
        counts['failed'] += is_failed(state)
    return [dict(counts, resource_class=name, free_percent=round(100.0 * counts['available'] / counts['total'], 1))
            for name, counts in classes.items()]


def _common_version(counts):
    """The version most nodes of a group run; of versions as common, the highest."""
    return max(counts, key=lambda version: (counts[version], version_key(version or '')))


def firmware_groups(nodes, firmware):
    """Firmware versions by vendor, model and component, with the nodes that run another version than most of
    their group (outliers). vendor and model are the component's (API 1.114); a component without a vendor takes
    the node's (properties.vendor, which Ironic caches from the BMC).

    NICs are grouped by vendor and model under nic:*, as a baseline names them: Ironic names a NIC after its serial
    number (nic:<serial>), a name of its own on every node. Their versions and outliers count NICs; nodes counts
    the nodes that have one."""
    groups = {}
    for node in nodes:
        for component in firmware.get(node['uuid']) or []:
            vendor = component.get('vendor') or (node.get('properties') or {}).get('vendor')
            name = component['component']
            key = (vendor or '', component.get('model') or '', EVERY_NIC if is_nic(name) else name)
            groups.setdefault(key, []).append((node_label(node), component.get('current_version')))
    result = []
    for (vendor, model, name), members in sorted(groups.items()):
        counts = collections.Counter(version for _node, version in members)
        common = _common_version(counts)
        result.append({
            'vendor': vendor or None, 'model': model or None, 'component': name,
            'nodes': len(set(node for node, _version in members)),
            'common_version': common,
            'versions': [{'version': version, 'nodes': counts[version]}
                         for version in sorted(counts, key=lambda version: version_key(version or ''), reverse=True)],
            'outliers': sorted(({'node': node, 'version': version} for node, version in members if version != common),
                               key=lambda outlier: outlier['node'])})
    return result


def _drift_section(fleet, nodes, read, entries):
    """Fills each declared node's entry with its drift; the section lists the drifted, undeclared and missing."""
    pairs, undeclared, missing = drift.match(fleet, nodes)
    drifted = []
    for declared, node in pairs:
        components = dict((entry['component'], entry) for entry in read['firmware'].get(node['uuid']) or [])
        items = drift.node_drift(declared, node, read['bios'].get(node['uuid']), components)
        entries[node['uuid']].update(declared=True, drift=items)
        if items:
            drifted.append(node_label(node))
    for node in undeclared:
        entries[node['uuid']]['declared'] = False
    return {'declared_nodes': len(fleet), 'drifted': sorted(drifted), 'undeclared': sorted(node_label(node) for node in undeclared),
            'missing': missing}


def _baseline_section(baseline, nodes, read, entries):
    """Fills each node's entry with its compliance with the baseline; the section counts per model and component."""
    labelled = []
    for node in nodes:
        compliance = node_compliance(baseline, node, read['firmware'].get(node['uuid']))
        entries[node['uuid']]['firmware_compliance'] = compliance
        labelled.append((node_label(node), compliance))
    return compliance_section(baseline, labelled)


def build_report(read, fleet=None, generated_at=None, api_version=None, baseline=None):
    """The report of what read_fleet read; with fleet (the declared nodes), the drift of each node from it; with
    baseline (a firmware baseline), each node's compliance with it and its plan.

    Nodes are sorted by name then UUID. Each entry has declared (null without a fleet; else whether the fleet names
    the node), drift (its drift items; [] when as declared or not declared) and firmware_compliance (null without a
    baseline).
    """
    nodes = sorted(read['nodes'], key=lambda node: (node.get('name') or '', node['uuid']))
    entries = collections.OrderedDict((node['uuid'], dict(node_entry(node), declared=None, drift=[],
                                                          firmware_compliance=None)) for node in nodes)
    drift_section = _drift_section(fleet, nodes, read, entries) if fleet is not None else None
    baseline_section = _baseline_section(baseline, nodes, read, entries) if baseline else None
    # Groups of every node's firmware only: the components read for a fleet's declared firmware are a part of it.
    firmware = firmware_groups(nodes, read['firmware']) if read['firmware_read'] else []
    outliers = sorted(set(outlier['node'] for group in firmware for outlier in group['outliers']))
    by_state = collections.Counter(node.get('provision_state') for node in nodes)
    summary = {
        'nodes': len(nodes),
        'provision_states': dict(sorted((str(state), count) for state, count in by_state.items())),
        'in_maintenance': sum(1 for node in nodes if node.get('maintenance')),
        'failed': sum(1 for node in nodes if is_failed(node.get('provision_state'))),
        'with_fault': sum(1 for node in nodes if node.get('fault')),
        'with_last_error': sum(1 for node in nodes if node.get('last_error')),
        'unhealthy': sum(1 for node in nodes if node.get('health') not in (None, 'OK')),
        'firmware_outliers': len(outliers),
        'drifted': len(drift_section['drifted']) if drift_section else None,
        'undeclared': len(drift_section['undeclared']) if drift_section else None,
        'missing': len(drift_section['missing']) if drift_section else None,
        'firmware_to_update': len(baseline_section['to_update']) if baseline_section else None,
    }
    return {
        'format': REPORT_FORMAT,
        'generated_at': generated_at,
        'api_version': api_version,
        'summary': summary,
        'capacity': capacity(nodes),
        'firmware': {'read': read['firmware_read'], 'note': read['firmware_note'], 'groups': firmware,
                     'outliers': outliers},
        'drift': drift_section,
        'firmware_baseline': baseline_section,
        'nodes': list(entries.values()),
    }
