# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared hardware configuration (node/hardware_declaration.py): read, difference, steps, and the results.

One node's declaration becomes one set of clean (or service) steps, applied in a single cycle by the state engine
(node/hardware_cycle.py, loaded only for a node whose hardware must change: a rerun that finds every node as
declared reads and compares here, and runs no engine). Everything is validated before anything is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import steps_not_offered
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import HardwareError, check_bios
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_difference import difference

# Node fields read for the plan; interfaces say which hardware interface would offer a missing step.
HARDWARE_NODE_FIELDS = NODE_SUMMARY_FIELDS + ('raid_config', 'target_raid_config', 'bios_interface',
                                              'raid_interface', 'firmware_interface')


# -- reading the hardware ------------------------------------------------------------------------------------

def read(client, node, declaration):
    """The hardware state of a node the declaration is compared with: only what it names is read."""
    bios = {}
    if declaration.bios_settings:
        bios = dict((entry['name'], entry) for entry in client.get_bios(node['uuid']))
        for name, value in declaration.bios_settings.items():
            if secrets.is_secret_setting(name, bios.get(name)):
                secrets.found_secret(value)  # a Password by its registry only: Ansible must scrub it from the echo too
    firmware = {}
    if declaration.firmware:
        firmware = dict((entry['component'], entry) for entry in client.get_firmware(node['uuid']))
    return {'node': node, 'bios': bios, 'firmware': firmware}


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


# -- whether the node can take the steps ---------------------------------------------------------------------

# The option of baremetal_hardware that asks for the steps of each interface.
INTERFACE_OPTIONS = {'bios': 'bios_settings', 'raid': 'raid', 'firmware': 'firmware'}


def check_interfaces(label, node, steps):
    """Raises HardwareError, naming the interface and the fix, when the node's interface offers none of the steps
    (actions.STEPLESS_INTERFACES: no request; an interface not named there fails in Ironic, and explain_failure names
    it)."""
    problems = [
        "node %s: %s needs %s, which its %s '%s' does not offer. Set %s to one that does with "
        "baremetal.lifecycle.baremetal_node (for example redfish on a Redfish BMC), or remove %s from this "
        "node's declaration." % (label, INTERFACE_OPTIONS[interface], ' and '.join(names), field, value, field,
                                 INTERFACE_OPTIONS[interface])
        for interface, field, value, names in steps_not_offered(node, steps)]
    if problems:
        raise HardwareError(' '.join(problems))


def cycle_goal(label, node, declaration, steps):
    """The engine Goal of the cycle that runs ``steps`` on the node (hardware_cycle.goal_for), once its interfaces
    offer them; raises HardwareError naming what to change, writing nothing."""
    check_interfaces(label, node, steps)
    # Imported here, as in apply_prepared: only a node whose hardware must change plans a cycle.
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_cycle
    try:
        return hardware_cycle.goal_for(node, declaration, steps)
    except graph.PlanError as exc:
        raise HardwareError('node %s: %s' % (label, exc))


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
    label = node_label(node)
    if not graph.is_at_rest(node['provision_state'], node.get('target_provision_state')):
        raise HardwareError("node %s is still moving ('%s'); run again once it rests." % (label, node['provision_state']))
    problems = check_bios(declaration.bios_settings, current['bios'])
    if problems:
        raise HardwareError('node %s: %s' % (label, ' '.join(problems)))
    changes = difference(declaration, current)
    steps = hardware_steps(declaration, changes, node)
    goal = None
    if steps and declaration.apply != 'never':
        goal = cycle_goal(label, node, declaration, steps)
    return {'label': label, 'node': node, 'declaration': declaration, 'changes': changes, 'steps': steps,
            'shown_steps': shown_steps(steps, declaration, current['bios']), 'goal': goal,
            'record_raid': declaration.apply != 'never' and 'target_raid_config' in changes['raid']}


def wait_for_moving(client, nodes, fields, timeout, check_mode=False):
    """hardware_cycle.wait_for_cycles: (the nodes, each at rest; {uuid: why one did not come to rest}; the seconds
    left of timeout). A node still moving is most often in the cycle of a run that was interrupted."""
    if all(graph.is_at_rest(node['provision_state'], node.get('target_provision_state')) for node in nodes):
        return nodes, {}, timeout
    # Imported here, as in apply_prepared: only a node still moving waits, with the engine.
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_cycle
    return hardware_cycle.wait_for_cycles(client, nodes, fields, timeout, check_mode)


def configure(client, requests, check_mode=False, timeout=3600, concurrency=1):
    """Bring each (node, HardwareDeclaration) to its hardware configuration: the nodes as read with HARDWARE_NODE_FIELDS,
    each once, their declarations through check_shapes. Returns one result per node.

    A node still moving (the cycle of an interrupted run) is waited for first, within timeout, and planned from
    where it rests (hardware_cycle.wait_for_cycles). Every node's hardware is read and validated before a single
    write: any problem raises HardwareError. A node whose cycle fails carries its error; the others go on.
    """
    nodes, waited, timeout = wait_for_moving(client, [node for node, _declaration in requests], HARDWARE_NODE_FIELDS,
                                             timeout, check_mode)
    if waited:
        raise HardwareError(' '.join(waited[node['uuid']] for node in nodes if node['uuid'] in waited))
    requests = [(node, declaration) for node, (_node, declaration) in zip(nodes, requests)]
    problems, prepared = [], []
    for node, declaration in requests:
        try:
            prepared.append(prepare(client, node, declaration))
        except HardwareError as exc:
            problems.append(str(exc))
    if problems:
        raise HardwareError(' '.join(problems))
    return apply_prepared(client, prepared, check_mode, timeout, concurrency)


def apply_prepared(client, prepared, check_mode=False, timeout=3600, concurrency=1):
    """Run the cycles of prepared nodes (prepare's dictionaries: label, node, declaration, changes, steps,
    shown_steps, goal, record_raid), each node's steps in one clean or service cycle, all through one converge
    (writing nothing in check mode; node/hardware_cycle.py). Returns one result per node, in order; a node whose
    cycle fails carries its error (hardware_cycle.explain_failure), and the others go on. baremetal_firmware_campaign
    prepares its own steps and runs them here."""
    results = {}
    for item in prepared:
        results[item['node']['uuid']] = node_result(
            summarize_node(item['node']), bool(item['goal'] or item['record_raid']), changes=item['changes'],
            steps=item['shown_steps'], plan=[], transitions=[], diff=_diff(item['label'], item['changes']))
    if any(item['goal'] is not None or (item['record_raid'] and not check_mode) for item in prepared):
        # Imported here: the cycle brings the engine (scheduler, planner, sender, waiter, diagnosis), which costs a
        # module's start-up more than 10 ms (bench/README.md), and only a node whose hardware must change runs it.
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_cycle
        hardware_cycle.run_cycles(client, prepared, results, check_mode, timeout, concurrency)
    return [results[item['node']['uuid']] for item in prepared]
