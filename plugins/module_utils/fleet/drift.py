# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How each node Ironic reports drifts from what a fleet description (the fleet role's format) declares.

Pure functions on data already read. Each field is compared by the rule of the module that would converge it:
resource class, properties and traits as baremetal_node compares a record, BIOS settings, RAID and firmware as
baremetal_hardware does (a firmware component drifts when it runs a version below the declared one). A node drifts
exactly where one of those modules would change it. Those rules (node/record.py, node/hardware_declaration.py)
are imported only by a report given a fleet: a report of Ironic alone never loads them. The hardware difference
(node/hardware_difference.py) is imported at the top: the report loads it anyway (fleet/report.py, for version_key).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_difference import difference

# The fields of a fleet node that drift compares; the others (driver_info, ports, states...) are not reported on.
RECORD_FIELDS = ('resource_class', 'properties')
HARDWARE_FIELDS = ('bios_settings', 'raid', 'firmware')
DRIFT_FIELDS = RECORD_FIELDS + ('traits',) + HARDWARE_FIELDS

# What the node list reads for drift beside the report's own fields.
DRIFT_NODE_FIELDS = ('properties', 'traits', 'raid_config', 'target_raid_config')


def declared_subset(node):
    """The part of a fleet node drift compares: its name, its uuid when given, and the DRIFT_FIELDS it declares."""
    return dict((key, value) for key, value in node.items() if key in ('name', 'uuid') + DRIFT_FIELDS)


def fleet_problems(fleet):
    """What is wrong with a fleet given to the report, each naming the node and the field; [] when it can be
    compared. The fleet role validates its whole format; this checks what drift reads."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import check_shape
    problems = []
    names = set()
    for index, node in enumerate(fleet):
        label = 'fleet[%d]' % index
        if not isinstance(node, dict) or not isinstance(node.get('name'), str) or not node['name']:
            problems.append('%s: each node needs a name (a non-empty string), as in the fleet role\'s fleet file.' % label)
            continue
        label = '%s (%s)' % (label, node['name'])
        if node['name'] in names:
            problems.append('%s: name: the node is declared twice.' % label)
        names.add(node['name'])
        if 'properties' in node and not isinstance(node['properties'], dict):
            problems.append('%s: properties: must be a dictionary.' % label)
        if 'resource_class' in node and not isinstance(node['resource_class'], str):
            problems.append('%s: resource_class: must be a string.' % label)
        if 'traits' in node and not (isinstance(node['traits'], list)
                                     and all(isinstance(trait, str) for trait in node['traits'])):
            problems.append('%s: traits: must be a list of trait names.' % label)
        problems.extend('%s: %s' % (label, problem) for problem in check_shape(hardware_declaration(node)))
    return problems


def check_fleet(fleet):
    """BaremetalError naming every problem of the fleet (fleet_problems), before anything is read."""
    problems = fleet_problems(fleet)
    if problems:
        raise BaremetalError('The fleet is not valid; nothing was read: %s' % ' '.join(problems))


def hardware_declaration(node):
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import HardwareDeclaration
    return HardwareDeclaration(bios_settings=node.get('bios_settings'), raid=node.get('raid'), firmware=node.get('firmware'))


def reads_for(node):
    """What must be read beside the node list to compare this declared node: {'bios', 'firmware'} or a part."""
    return set(facet for facet, field in (('bios', 'bios_settings'), ('firmware', 'firmware')) if node.get(field))


def _item(field, declared, reported):
    return {'field': field, 'declared': declared, 'reported': reported}


def _record_drift(declared, node):
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
        integer_properties, node_changes, traits_change)
    record = dict((field, declared[field]) for field in RECORD_FIELDS if field in declared)
    if isinstance(record.get('properties'), dict):
        # As baremetal_node declares them: "8" for cpus is the integer 8 it writes.
        record['properties'], _warnings = integer_properties(record['properties'])
    _operations, before, after = node_changes(node, record, send_secrets=False)
    items = []
    for field in sorted(set(before) | set(after)):
        if isinstance(record[field], dict):
            current = node.get(field) or {}
            for key in sorted(set(before.get(field, {})) | set(after.get(field, {}))):
                wanted, reported = record[field][key], current.get(key)
                if secrets.is_secret_name(key):
                    wanted, reported = secrets.shown_value(key, wanted), secrets.shown_value(key, reported)
                items.append(_item('%s.%s' % (field, key), wanted, reported))
        else:
            items.append(_item(field, record[field], node.get(field)))
    traits = traits_change(node, declared)
    if traits is not None:
        items.append(_item('traits', traits, sorted(node.get('traits') or [])))
    return items


def _hardware_drift(declared, node, bios, firmware):
    changes = difference(hardware_declaration(declared), {'node': node, 'bios': bios, 'firmware': firmware})
    items = []
    for field in HARDWARE_FIELDS:
        for key, change in sorted(changes[field].items()):
            items.append(_item('%s.%s' % (field, key), change['after'], change['before']))
    return items


def node_drift(declared, node, bios=None, firmware=None):
    """[{'field', 'declared', 'reported'}]: where the node differs from its declaration, in the order of
    DRIFT_FIELDS; [] when it is as declared.

    node is the node as the list read it (DRIFT_NODE_FIELDS included); bios and firmware are the node's BIOS
    settings ({name: setting}) and firmware components ({component: entry}), read only when the declaration names
    them (reads_for). A secret setting or property is compared, and shown masked.
    """
    return _record_drift(declared, node) + _hardware_drift(declared, node, bios or {}, firmware or {})


def match(fleet, nodes):
    """(pairs, undeclared, missing): [(declared node, Ironic node)] for the declared nodes Ironic has (by name, or
    by the uuid the declaration gives), the Ironic nodes the fleet does not name, and the declared names Ironic
    lacks, both sorted."""
    by_name = dict((node.get('name'), node) for node in nodes if node.get('name'))
    by_uuid = dict((node['uuid'].replace('-', '').lower(), node) for node in nodes)
    pairs, missing, seen = [], [], set()
    for declared in fleet:
        node = by_name.get(declared['name'])
        if node is None and declared.get('uuid'):
            node = by_uuid.get(declared['uuid'].replace('-', '').lower())
        if node is None:
            missing.append(declared['name'])
            continue
        seen.add(node['uuid'])
        pairs.append((declared, node))
    undeclared = [node for node in nodes if node['uuid'] not in seen]
    return pairs, undeclared, sorted(missing)
