# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared hardware configuration (node/hardware_declaration.py): read, difference, steps, and the cycle that applies them.

One node's declaration becomes one set of clean (or service) steps, applied in a single cycle by the
state engine: baremetal_hardware hands them to scheduler.converge as Options(clean_steps=...) or
Options(service_steps=...), so the provision path around them comes from the planner like any other.
Everything is validated before anything is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, planner, provision
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import interface_field, steps_not_offered
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import HardwareError, check_bios
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_difference import difference
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites

# Where each apply mode may start, and the action verb that carries the steps.
CLEANING_STATES = ('manageable', 'available')
SERVICING_STATE = 'active'

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


# -- the provision path around the steps ---------------------------------------------------------------------

def goal_for(node, declaration, steps):
    """The engine Goal that runs ``steps`` in one clean or service cycle and brings the node back.

    Raises HardwareError, naming the option or the state to change, when this node cannot take them.
    """
    label = node_label(node)
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
    if action not in [step.verb for step in provision.plan_node(node, state, options)]:
        raise HardwareError("node %s: the state engine plans no '%s' action from '%s', so the steps cannot run; "
                            "this collection's engine does not support apply: %s here."
                            % (label, action, state, declaration.apply))
    return provision.Goal(node['uuid'], state, options)


def describe_steps(steps):
    return ', '.join('%s.%s' % (step['interface'], step['step']) for step in steps)


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
                interface, interface_field(interface), node.get(interface_field(interface)))
                for interface in sorted(interfaces)))
    error = error.rstrip()
    if not error.endswith(('.', '!', '?')):
        error += '.'  # Ironic's last_error often ends without one: the sentences that follow start on their own
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
        check_interfaces(label, node, steps)
        try:
            goal = goal_for(node, declaration, steps)
        except graph.PlanError as exc:
            raise HardwareError('node %s: %s' % (label, exc))
    return {'label': label, 'node': node, 'declaration': declaration, 'changes': changes, 'steps': steps,
            'shown_steps': shown_steps(steps, declaration, current['bios']), 'goal': goal,
            'record_raid': declaration.apply != 'never' and 'target_raid_config' in changes['raid']}


def configure(client, requests, check_mode=False, timeout=3600, concurrency=1):
    """Bring each (node, HardwareDeclaration) to its hardware configuration: the nodes as read with HARDWARE_NODE_FIELDS,
    each once, their declarations through check_shapes. Returns one result per node.

    Every node's hardware is read and validated first: any problem raises HardwareError before a single write.
    A node whose cycle fails carries its error; the others go on.
    """
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
    (writing nothing in check mode). Returns one result per node, in order; a node whose cycle fails carries its
    error (explain_failure), and the others go on. baremetal_firmware_campaign prepares its own steps and runs
    them here."""
    results = {}
    by_uuid = dict((item['node']['uuid'], item) for item in prepared)
    for item in prepared:
        results[item['node']['uuid']] = node_result(
            summarize_node(item['node']), bool(item['goal'] or item['record_raid']), changes=item['changes'],
            steps=item['shown_steps'], plan=[], transitions=[], diff=_diff(item['label'], item['changes']))
    goals = []
    recorded = set()
    for item in prepared:
        if not check_mode and item['record_raid']:
            writes = NodeWrites(item['label'], item['node']['provision_state'], timeout)
            try:
                writes.send('recording its target RAID configuration', client.set_target_raid_config,
                            item['node']['uuid'], item['declaration'].raid)
                recorded.add(item['node']['uuid'])
            except (Locked, Busy) as exc:
                # Its message names the node and the write, and the lock is no matter of the RAID interface.
                fail(results[item['node']['uuid']], str(exc), changed=False)
                continue
            except BaremetalError as exc:
                # Ironic checks the layout against the node's RAID interface; nothing else was written.
                fail(results[item['node']['uuid']], explain_failure(
                    'node %s: %s' % (item['label'], exc), item['node'], ['raid'], client.release), changed=False)
                continue
        if item['goal'] is not None:
            goals.append(item['goal'])
    if goals:
        jobs, _missing = converge(client, goals, check_mode=check_mode, timeout=timeout, concurrency=concurrency)
        planned = set()
        for job in jobs:
            planned.add(job.uuid)
            outcome = job.result()
            item = by_uuid[job.uuid]
            results[job.uuid].update(node=outcome['node'], plan=outcome['plan'], transitions=outcome['transitions'])
            if outcome.get('warnings'):  # a check-mode plan of a node still moving says so
                results[job.uuid]['warnings'] = outcome['warnings']
            if not check_mode:
                results[job.uuid]['changed'] = outcome['changed'] or job.uuid in recorded
            if outcome['error']:
                fail(results[job.uuid], explain_failure(
                    outcome['error'], item['node'], set(step['interface'] for step in item['steps']), client.release))
        for goal in goals:
            if goal.ident not in planned:
                fail(results[goal.ident], 'node %s was deleted while the task ran.' % by_uuid[goal.ident]['label'])
    return [results[item['node']['uuid']] for item in prepared]
