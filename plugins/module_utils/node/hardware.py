# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared hardware configuration (BIOS settings, RAID layout, firmware versions): read, validate, diff, steps.

One node's declaration becomes one set of clean (or service) steps, applied in a single cycle by the
state engine: baremetal_hardware hands them to provision.converge as Options(clean_steps=...) or
Options(service_steps=...), so the provision path around them comes from the planner like any other.
Everything is validated before anything is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes, no_node_message
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Options, Target, converge, plan_node

APPLY_MODES = ('cleaning', 'servicing', 'never')

# Where each apply mode may start, and the action verb that carries the steps.
CLEANING_STATES = ('manageable', 'available')
SERVICING_STATE = 'active'

# Ironic's raid_config_schema.json, as checks that name the offending key.
RAID_LEVELS = ('JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0')
RAID_DISK_TYPES = ('hdd', 'ssd')
RAID_INTERFACE_TYPES = ('sata', 'scsi', 'sas')
RAID_DISK_KEYS = ('raid_level', 'size_gb', 'volume_name', 'is_root_volume', 'share_physical_disks', 'disk_type',
                  'interface_type', 'number_of_physical_disks', 'controller', 'physical_disks')
# Keys a built logical disk in raid_config reports and a declared one is compared on.
RAID_COMPARED_KEYS = ('raid_level', 'is_root_volume', 'volume_name', 'controller')

FIRMWARE_KEYS = ('component', 'version', 'url', 'wait')

# Node fields read for the plan; interfaces say which hardware interface would offer a missing step.
HARDWARE_NODE_FIELDS = NODE_SUMMARY_FIELDS + ('raid_config', 'target_raid_config', 'bios_interface',
                                              'raid_interface', 'firmware_interface')


class HardwareError(BaremetalError):
    """A declaration that cannot be applied; nothing has been written."""


class Declaration(object):
    """What one node's hardware should be. None means "not managed"; raid {} means "no RAID"."""

    def __init__(self, bios_settings=None, raid=None, firmware=None, apply='cleaning', allow_destructive=False,
                 allow_reboot=False):
        self.bios_settings = bios_settings
        self.raid = raid
        self.firmware = firmware
        self.apply = apply
        self.allow_destructive = allow_destructive
        self.allow_reboot = allow_reboot


def _label(node):
    return node.get('name') or node['uuid']


def as_text(value):
    """Ironic stores BIOS values as strings: 4 and '4' are the same setting value."""
    return None if value is None else str(value)


# -- shape of the declaration (no I/O) ---------------------------------------------------------------------

def check_shape(declaration):
    """Problems with the declaration itself, each naming its key. Empty when it is well formed."""
    problems = []
    if declaration.apply not in APPLY_MODES:
        problems.append("apply must be one of %s, not '%s'." % (', '.join(APPLY_MODES), declaration.apply))
    for name, value in sorted((declaration.bios_settings or {}).items()):
        if isinstance(value, (dict, list)) or value is None:
            problems.append("bios_settings.%s must be a single value (string, number or boolean)." % name)
    if declaration.raid is not None:
        problems.extend(_raid_problems(declaration.raid))
    if declaration.firmware is not None:
        problems.extend(_firmware_problems(declaration.firmware))
    return problems


def _raid_problems(raid):
    if not isinstance(raid, dict):
        return ['raid must be a dictionary with logical_disks, or {} for no RAID.']
    if not raid:
        return []
    unknown = sorted(set(raid) - set(('logical_disks',)))
    if unknown:
        return ['raid has unknown keys %s; only logical_disks is allowed (or {} for no RAID).' % ', '.join(unknown)]
    disks = raid.get('logical_disks')
    if not isinstance(disks, list) or not disks:
        return ['raid.logical_disks must be a non-empty list of logical disks (or declare raid: {} for no RAID).']
    problems = []
    for index, disk in enumerate(disks):
        problems.extend(_logical_disk_problems('raid.logical_disks[%d]' % index, disk))
    if sum(1 for disk in disks if isinstance(disk, dict) and disk.get('is_root_volume')) > 1:
        problems.append('raid.logical_disks: only one logical disk may have is_root_volume: true.')
    return problems


def _logical_disk_problems(where, disk):
    if not isinstance(disk, dict):
        return ['%s must be a dictionary with raid_level and size_gb.' % where]
    problems = []
    for key in sorted(set(disk) - set(RAID_DISK_KEYS)):
        close = difflib.get_close_matches(key, RAID_DISK_KEYS, n=1)
        problems.append('%s.%s is not a logical disk property%s; allowed: %s.' % (
            where, key, (" (did you mean '%s'?)" % close[0]) if close else '', ', '.join(RAID_DISK_KEYS)))
    if 'raid_level' not in disk:
        problems.append('%s.raid_level is required (one of %s).' % (where, ', '.join(RAID_LEVELS)))
    elif disk['raid_level'] not in RAID_LEVELS:
        problems.append("%s.raid_level must be one of %s, as a string (quote it in YAML), not %r."
                        % (where, ', '.join(RAID_LEVELS), disk['raid_level']))
    if 'size_gb' not in disk:
        problems.append("%s.size_gb is required: a whole number of GiB, or 'MAX' for the rest of the space." % where)
    elif not (disk['size_gb'] == 'MAX' or _is_int(disk['size_gb']) and disk['size_gb'] >= 0):
        problems.append("%s.size_gb must be a whole number of GiB (0 or more) or 'MAX', not %r." % (where, disk['size_gb']))
    for key in ('is_root_volume', 'share_physical_disks'):
        if key in disk and not isinstance(disk[key], bool):
            problems.append('%s.%s must be true or false.' % (where, key))
    for key, allowed in (('disk_type', RAID_DISK_TYPES), ('interface_type', RAID_INTERFACE_TYPES)):
        if key in disk and disk[key] not in allowed:
            problems.append("%s.%s must be one of %s, not '%s'." % (where, key, ', '.join(allowed), disk[key]))
    if 'number_of_physical_disks' in disk and not (_is_int(disk['number_of_physical_disks'])
                                                   and disk['number_of_physical_disks'] >= 1):
        problems.append('%s.number_of_physical_disks must be a whole number of at least 1.' % where)
    for key in ('volume_name', 'controller'):
        if key in disk and not isinstance(disk[key], str):
            problems.append('%s.%s must be a string.' % (where, key))
    if 'physical_disks' in disk:
        if not isinstance(disk['physical_disks'], list):
            problems.append('%s.physical_disks must be a list.' % where)
        if 'controller' not in disk:
            problems.append('%s.physical_disks needs controller: the controller those disks are on.' % where)
    return problems


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _firmware_problems(firmware):
    if not isinstance(firmware, list):
        return ['firmware must be a list of components, each with component, version and url.']
    problems = []
    seen = set()
    for index, entry in enumerate(firmware):
        where = 'firmware[%d]' % index
        if not isinstance(entry, dict):
            problems.append('%s must be a dictionary with component, version and url.' % where)
            continue
        for key in sorted(set(entry) - set(FIRMWARE_KEYS)):
            problems.append('%s.%s is not a firmware key; allowed: %s.' % (where, key, ', '.join(FIRMWARE_KEYS)))
        for key in ('component', 'version', 'url'):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                problems.append('%s.%s is required and must be a non-empty string.' % (where, key))
        if 'wait' in entry and not (_is_int(entry['wait']) and entry['wait'] >= 1):
            problems.append('%s.wait must be a whole number of seconds, at least 1.' % where)
        component = entry.get('component')
        if isinstance(component, str):
            if component in seen:
                problems.append("%s.component '%s' is declared twice." % (where, component))
            seen.add(component)
    return problems


# -- reading the hardware ------------------------------------------------------------------------------------

def read(client, node, declaration):
    """The hardware state of a node the declaration is compared with: only what it names is read."""
    bios = {}
    if declaration.bios_settings:
        bios = dict((entry['name'], entry) for entry in client.get_bios(node['uuid']))
    firmware = {}
    if declaration.firmware:
        firmware = dict((entry['component'], entry) for entry in client.get_firmware(node['uuid']))
    return {'node': node, 'bios': bios, 'firmware': firmware}


# -- validation against what Ironic reports ------------------------------------------------------------------

def check_bios(bios_settings, registry):
    """Problems with declared BIOS settings against the node's registry, each naming the setting.

    An empty registry (Ironic has cached no settings yet) cannot tell names apart: names are then not checked.
    """
    problems = []
    for name, value in sorted((bios_settings or {}).items()):
        entry = registry.get(name)
        if entry is None:
            if registry:
                close = difflib.get_close_matches(name, list(registry), n=3)
                hint = (' Did you mean %s?' % ' or '.join("'%s'" % match for match in close)) if close else ''
                problems.append("bios_settings.%s: the node's BIOS has no such setting.%s" % (name, hint))
            continue
        problems.extend('bios_settings.%s: %s' % (name, problem) for problem in _bios_value_problems(value, entry))
    return problems


def _bios_value_problems(value, entry):
    if entry.get('read_only'):
        return ['the setting is read-only; remove it from bios_settings.']
    shown = secrets.quoted_value(entry['name'], value, entry)
    allowed = entry.get('allowable_values')
    if allowed and as_text(value) not in [as_text(choice) for choice in allowed]:
        return ['%s is not allowed; choose one of %s.' % (shown, ', '.join(str(choice) for choice in allowed))]
    kind = entry.get('attribute_type')
    if kind == 'Integer':
        try:
            number = int(str(value))
        except ValueError:
            return ['%s is not a whole number.' % shown]
        lower, upper = entry.get('lower_bound'), entry.get('upper_bound')
        if (lower is not None and number < lower) or (upper is not None and number > upper):
            return ['%s is outside the range %s..%s.' % (shown, '' if lower is None else lower,
                                                         '' if upper is None else upper)]
    if kind in ('String', 'Password'):
        length = len(as_text(value))
        shortest, longest = entry.get('min_length'), entry.get('max_length')
        if (shortest is not None and length < shortest) or (longest is not None and length > longest):
            return ['%s has %d characters; it must have %s to %s.' % (
                shown, length, 0 if shortest is None else shortest, 'any' if longest is None else longest)]
    if kind == 'Boolean' and as_text(value) not in ('True', 'False', 'true', 'false'):
        return ['%s is not a boolean.' % shown]
    return []


# -- the difference ------------------------------------------------------------------------------------------

def version_key(version):
    """Order firmware versions by their numeric and text parts: 1.10 is above 1.9, U30 v2.76 above U30 v2.8."""
    return tuple((0, int(part), '') if part.isdigit() else (1, 0, part.lower())
                 for part in re.findall(r'\d+|[A-Za-z]+', version))


def _disk_matches(declared, built):
    """Whether a logical disk Ironic reports as built (raid_config) is the one declared."""
    for key in RAID_COMPARED_KEYS:
        wanted = declared.get(key, False if key == 'is_root_volume' else None)
        if wanted is not None and key in built and built[key] != wanted:
            return False
    if _is_int(declared['size_gb']) and _is_int(built.get('size_gb')) and built['size_gb'] != declared['size_gb']:
        return False
    return True


def _layout_built(declared_disks, built_disks):
    """Whether raid_config's logical disks are the declared ones, in any order."""
    if len(declared_disks) != len(built_disks):
        return False
    unused = list(built_disks)
    for declared in declared_disks:
        match = next((built for built in unused if _disk_matches(declared, built)), None)
        if match is None:
            return False
        unused.remove(match)
    return True


def difference(declaration, current):
    """Per setting, per logical disk and per firmware component: what differs, as {'before': ..., 'after': ...}."""
    node = current['node']
    changes = {'bios_settings': {}, 'raid': {}, 'firmware': {}}
    for name, value in sorted((declaration.bios_settings or {}).items()):
        entry = current['bios'].get(name, {})
        before = entry.get('value')
        if as_text(before) != as_text(value):
            changes['bios_settings'][name] = {'before': secrets.shown_value(name, before, entry),
                                              'after': secrets.shown_value(name, value, entry)}
    if declaration.raid is not None:
        declared_disks = declaration.raid.get('logical_disks', [])
        target = node.get('target_raid_config') or {}
        built = (node.get('raid_config') or {}).get('logical_disks') or []
        if target != declaration.raid:
            changes['raid']['target_raid_config'] = {'before': target, 'after': declaration.raid}
        if not _layout_built(declared_disks, built):
            for index in range(max(len(declared_disks), len(built))):
                changes['raid']['logical_disks[%d]' % index] = {
                    'before': built[index] if index < len(built) else None,
                    'after': declared_disks[index] if index < len(declared_disks) else None}
    for entry in declaration.firmware or []:
        reported = current['firmware'].get(entry['component'], {})
        before = reported.get('current_version')
        if before is None or version_key(before) < version_key(entry['version']):
            changes['firmware'][entry['component']] = {'before': before, 'after': entry['version']}
    return changes


def hardware_steps(declaration, changes, node):
    """The steps that make the node match, in one cycle.

    Firmware first (an update may reset BIOS settings), then RAID, then the BIOS settings that differ.
    """
    steps = []
    if changes['firmware']:
        settings = []
        for entry in declaration.firmware:
            if entry['component'] in changes['firmware']:
                settings.append(dict((key, entry[key]) for key in ('component', 'url', 'wait') if key in entry))
        steps.append({'interface': 'firmware', 'step': 'update', 'args': {'settings': settings}})
    layout_changes = [key for key in changes['raid'] if key != 'target_raid_config']
    if layout_changes:
        if declaration.raid or (node.get('raid_config') or {}).get('logical_disks'):
            steps.append({'interface': 'raid', 'step': 'delete_configuration'})
        if declaration.raid:
            steps.append({'interface': 'raid', 'step': 'create_configuration'})
    if changes['bios_settings']:
        settings = [{'name': name, 'value': declaration.bios_settings[name]} for name in sorted(changes['bios_settings'])]
        steps.append({'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': settings}})
    return steps


def shown_steps(steps, declaration, registry):
    """The steps as results may show them: values of password settings masked."""
    shown = []
    for step in steps:
        if step['interface'] == 'bios':
            settings = [{'name': setting['name'],
                         'value': secrets.shown_value(setting['name'], setting['value'], registry.get(setting['name']))}
                        for setting in step['args']['settings']]
            step = dict(step, args={'settings': settings})
        shown.append(step)
    return shown


# -- the provision path around the steps ---------------------------------------------------------------------

def target_for(node, declaration, steps):
    """The engine Target that runs ``steps`` in one clean or service cycle and brings the node back.

    Raises HardwareError, naming the option or the state to change, when this node cannot take them.
    """
    label = _label(node)
    state = graph.normalize_state(node['provision_state'])
    if declaration.apply == 'servicing':
        if state != SERVICING_STATE:
            raise HardwareError("node %s: apply: servicing changes an active node, but this node is '%s'. "
                                "Use apply: cleaning (from manageable or available) instead." % (label, state))
        raid_steps = [step['step'] for step in steps if step['interface'] == 'raid']
        if raid_steps and not declaration.allow_destructive:
            raise HardwareError("node %s: the RAID change needs raid.%s on the active node, which destroys the data "
                                "of its workload. Set allow_destructive: true to allow it."
                                % (label, ' and raid.'.join(raid_steps)))
        if not declaration.allow_reboot:
            raise HardwareError("node %s: servicing runs %s on the active node and reboots its workload. Set "
                                "allow_reboot: true to allow it." % (label, describe_steps(steps)))
        options = Options(service_steps=steps)
    else:
        if state not in CLEANING_STATES:
            hint = ("use apply: servicing with allow_reboot: true" if state == SERVICING_STATE
                    else "bring it to manageable first (baremetal.lifecycle.baremetal_provision_state)")
            raise HardwareError("node %s: apply: cleaning runs from manageable or available, but this node is '%s'; "
                                "%s." % (label, state, hint))
        options = Options(clean_steps=steps)
    action = 'service' if declaration.apply == 'servicing' else 'clean'
    # Maintenance and unreachable paths fail here, before any write.
    if action not in [step.verb for step in plan_node(node, state, options)]:
        raise HardwareError("node %s: the state engine plans no '%s' action from '%s', so the steps cannot run; "
                            "this collection's engine does not support apply: %s here."
                            % (label, action, state, declaration.apply))
    return Target(node['uuid'], state, options)


def describe_steps(steps):
    return ', '.join('%s.%s' % (step['interface'], step['step']) for step in steps)


# Which interface a hardware step runs on, and the node field that selects it.
STEP_INTERFACE_FIELDS = {'bios': 'bios_interface', 'raid': 'raid_interface', 'firmware': 'firmware_interface'}


# The failed states a cycle may leave a node in, and where baremetal_provision_state brings it back.
CYCLE_FAILURES = (('clean failed', 'manageable'), ('service failed', 'active'))


def recovery(release):
    """How baremetal_provision_state takes a node out of each CYCLE_FAILURES state on a server of ``release``."""
    ways = []
    notes = ''
    for failed, back in CYCLE_FAILURES:
        verbs = [step.verb for step in planner.plan(failed, back, release=release)]
        ways.append('from %s: %s to %s%s' % (failed, ', '.join(verbs), back,
                                             ' (with rescue_password)' if 'rescue' in verbs else ''))
        notes += planner.missing_ways_out(failed, release)
    return '(%s).%s' % ('; '.join(ways), notes)


def explain_failure(error, node, interfaces, release):
    """Ironic's message for a failed write or cycle; which hardware interface a refused step needs; how to recover
    on a server of ``release``."""
    needs = ''
    if 'not support' in error:  # Ironic: "node does not support this clean step", "... RAID configuration"
        needs = ' %s. Set the interface with baremetal.lifecycle.baremetal_node (for example redfish on a Redfish BMC).' % (
            '; '.join("%s steps need a %s that offers them (this node's is '%s')" % (
                interface, STEP_INTERFACE_FIELDS[interface], node.get(STEP_INTERFACE_FIELDS[interface]))
                for interface in sorted(interfaces)))
    return ('%s%s The node is left where Ironic put it; baremetal.lifecycle.baremetal_provision_state recovers it %s'
            % (error, needs, recovery(release)))


# -- one task: many nodes, validated together, applied in one cycle each -----------------------------------

def _diff(label, changes):
    diff = DifferenceTracker()
    for section, items in changes.items():
        if items:
            diff.add(section, dict((key, change['before']) for key, change in items.items()),
                     dict((key, change['after']) for key, change in items.items()))
    return diff.diff(label)


def prepare(client, node, declaration):
    """Read one node's hardware and work out its changes and steps; raises HardwareError, writing nothing."""
    current = read(client, node, declaration)
    label = _label(node)
    if not graph.is_at_rest(node['provision_state'], node.get('target_provision_state')):
        raise HardwareError("node %s is still moving ('%s'); run again once it rests." % (label, node['provision_state']))
    problems = check_bios(declaration.bios_settings, current['bios'])
    if problems:
        raise HardwareError('node %s: %s' % (label, ' '.join(problems)))
    changes = difference(declaration, current)
    steps = hardware_steps(declaration, changes, node)
    target = None
    if steps and declaration.apply != 'never':
        try:
            target = target_for(node, declaration, steps)
        except graph.PlanError as exc:
            raise HardwareError('node %s: %s' % (label, exc))
    return {'label': label, 'node': node, 'declaration': declaration, 'changes': changes, 'steps': steps,
            'shown_steps': shown_steps(steps, declaration, current['bios']), 'target': target,
            'record_raid': declaration.apply != 'never' and 'target_raid_config' in changes['raid']}


def configure(client, requests, check_mode=False, timeout=3600, concurrency=1):
    """Bring each (ident, Declaration) to its hardware configuration. Returns one result per node.

    Every declaration is checked and every node read and validated first: any problem raises HardwareError
    before a single write. A node whose cycle fails carries its error; the others go on.
    """
    problems = []
    for ident, declaration in requests:
        problems.extend(('node %s: %s' % (ident, problem)) if len(requests) > 1 else problem
                        for problem in check_shape(declaration))
    if problems:
        raise HardwareError(' '.join(problems))
    found, _missing = find_nodes(client, [ident for ident, _declaration in requests], HARDWARE_NODE_FIELDS)
    prepared = []
    for ident, declaration in requests:
        if ident not in found:
            problems.append(no_node_message([ident], client))
            continue
        try:
            item = prepare(client, found[ident], declaration)
        except HardwareError as exc:
            problems.append(str(exc))
            continue
        if any(other['node']['uuid'] == item['node']['uuid'] for other in prepared):
            problems.append('node %s is listed more than once; declare each node once.' % ident)
        prepared.append(item)
    if problems:
        raise HardwareError(' '.join(problems))
    results = {}
    by_uuid = dict((item['node']['uuid'], item) for item in prepared)
    for item in prepared:
        results[item['node']['uuid']] = {
            'node': summarize_node(item['node']),
            'changes': item['changes'], 'steps': item['shown_steps'], 'plan': [], 'transitions': [],
            'changed': bool(item['target'] or item['record_raid']), 'error': None,
            'diff': _diff(item['label'], item['changes'])}
    targets = []
    recorded = set()
    for item in prepared:
        if not check_mode and item['record_raid']:
            try:
                client.set_target_raid_config(item['node']['uuid'], item['declaration'].raid)
                recorded.add(item['node']['uuid'])
            except BaremetalError as exc:
                # Ironic checks the layout against the node's RAID interface; nothing else was written.
                results[item['node']['uuid']].update(changed=False, error=explain_failure(
                    'node %s: %s' % (item['label'], exc), item['node'], ['raid'], client.release))
                continue
        if item['target'] is not None:
            targets.append(item['target'])
    if targets:
        jobs, _missing = converge(client, targets, check_mode=check_mode, timeout=timeout, concurrency=concurrency)
        planned = set()
        for job in jobs:
            planned.add(job.uuid)
            outcome = job.result()
            item = by_uuid[job.uuid]
            results[job.uuid].update(node=outcome['node'], plan=outcome['plan'], transitions=outcome['transitions'])
            if not check_mode:
                results[job.uuid]['changed'] = outcome['changed'] or job.uuid in recorded
            if outcome['error']:
                results[job.uuid]['error'] = explain_failure(
                    outcome['error'], item['node'], set(step['interface'] for step in item['steps']), client.release)
        for target in targets:
            if target.ident not in planned:
                results[target.ident]['error'] = 'node %s was deleted while the task ran.' % by_uuid[target.ident]['label']
    return [results[item['node']['uuid']] for item in prepared]
