# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A firmware campaign: the nodes of a baseline (fleet/firmware_baseline.py) brought to it, each through its plan.

A node's plan is firmware_baseline.node_compliance's: the components of its model in order, each through its
stepping stones above the running version, then its target. Each version is one ``firmware.update`` step (Ironic's
Redfish interface reads the components back after each, so a rerun after an interruption plans from where the
node is and never repeats a done step), all of a node's steps in one cycle: manual cleaning for a node in
manageable or available, servicing (API 1.87) for a deployed one, which reboots its workload and needs
allow_disruptive. The cycles run through node/hardware.py's code path (cycle_goal, apply_prepared), the waves through
fleet/waves.py; stop_after is the end of a maintenance window, after which no new wave starts.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import (
    CLEANING_STATES, SERVICING_STATE, HardwareDeclaration, HardwareError)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_baseline import node_compliance

# The node fields a wave may be grouped by (group_by): fields every node has, that name where it runs or whose it is.
GROUP_FIELDS = ('conductor_group', 'resource_class', 'shard', 'owner', 'lessee', 'chassis_uuid', 'parent_node')

# What a campaign reads of each node: the hardware path's fields, and the properties a model may match on.
CAMPAIGN_NODE_FIELDS = hardware.HARDWARE_NODE_FIELDS + ('properties',)

_DURATION = re.compile(r'^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$')
_TIME_OF_DAY = re.compile(r'^([01]?\d|2[0-3]):([0-5]\d)$')
DAY = 86400


# -- pure: the end of the window, the steps ---------------------------------------------------------------------

def stop_deadline(stop_after, now):
    """The time (seconds since the epoch) after which no new wave starts, None without stop_after.

    stop_after is a duration from now (``2h``, ``30m``, ``1h30m``, ``90s``) or a time of day in UTC (``HH:MM``): the
    next one to come (``06:00`` at 22:00 is tomorrow's). Raises BaremetalError naming the fix for anything else.
    """
    if stop_after is None:
        return None
    text = str(stop_after).strip().lower()
    clock = _TIME_OF_DAY.match(text)
    if clock:
        deadline = now - now % DAY + int(clock.group(1)) * 3600 + int(clock.group(2)) * 60
        return deadline if deadline > now else deadline + DAY
    duration = _DURATION.match(text)
    if text and duration and any(duration.groups()):
        hours, minutes, seconds = (int(part or 0) for part in duration.groups())
        if hours * 3600 + minutes * 60 + seconds > 0:
            return now + hours * 3600 + minutes * 60 + seconds
    raise BaremetalError("stop_after '%s' is neither a duration (such as 2h, 30m or 1h30m, more than zero) nor a time "
                         "of day in UTC (HH:MM, such as 06:00); give one of them. Nothing was read." % stop_after)


def stopper(stop_after, deadline, clock):
    """stop() for waves.run_in_waves: why no further wave starts once clock() reaches deadline, else None."""

    def stop():
        if deadline is not None and clock() >= deadline:
            return ('stop_after %s was reached: no new wave starts after it. Run the campaign again to continue from '
                    'the versions Ironic reports.' % stop_after)
        return None
    return stop


def update_steps(plan):
    """Ironic's steps for a plan: one firmware.update step per version, in the order of the plan."""
    return [{'interface': 'firmware', 'step': 'update',
             'args': {'settings': [{'component': step['component'], 'url': step['url']}]}} for step in plan]


def describe_plan(plan):
    return ', '.join('%s %s' % (step['component'], step['version']) for step in plan)


def done_steps(plan, left):
    """The steps of plan no longer in left (the plan read again after the cycle): what ran."""
    remaining = set((step['component'], step['version']) for step in left)
    return [step for step in plan if (step['component'], step['version']) not in remaining]


def _changes(compliance):
    return {'firmware': dict((item['component'], {'before': item['current'], 'after': item['target']})
                             for item in compliance['components'] if item['status'] != 'at_target'
                             and any(step['component'] == item['component'] for step in compliance['plan']))}


# -- one batch of nodes --------------------------------------------------------------------------------------

def _mode(node, plan, allow_disruptive):
    """('cleaning' | 'servicing', None), or (None, why the node cannot take its plan now, a node's failure).
    Raises HardwareError for a deployed node without allow_disruptive: the task is refused before any write."""
    label = node_label(node)
    state = graph.normalize_state(node['provision_state'])
    if not graph.is_at_rest(node['provision_state'], node.get('target_provision_state')):
        return None, "node %s is still moving ('%s'); run the campaign again once it rests." % (label, state)
    if state == SERVICING_STATE:
        if not allow_disruptive:
            raise HardwareError("node %s is deployed (active): the campaign would service it (%s), which reboots its "
                                "workload. Set allow_disruptive: true to allow it, or leave the node out of the "
                                "campaign." % (label, describe_plan(plan)))
        return 'servicing', None
    if state in CLEANING_STATES:
        return 'cleaning', None
    reason = masked_text(node.get('last_error')) if graph.kind(state) == states.FAILED else None
    return None, ("node %s is '%s'%s: a campaign updates a node in manageable or available (by manual cleaning) or "
                  "active (by servicing). Bring it to one of them (baremetal.lifecycle.baremetal_provision_state) and "
                  "run the campaign again; its plan: %s." % (
                      label, state, " (Ironic's reason: %s)" % reason if reason else '', describe_plan(plan)))


def plan_node(client, baseline, node, allow_disruptive, unrested=None):
    """One node's campaign, read and planned, nothing written: a dictionary with the node, its compliance, its
    steps and mode, the goal of its cycle (or None) and its error (a node's failure, or None: unrested, why it did
    not come to rest, is one). Raises HardwareError for a refusal of the whole task (a deployed node without
    allow_disruptive, an interface without the step)."""
    components = client.get_firmware(node['uuid'])
    compliance = node_compliance(baseline, node, components)
    entry = {'node': node, 'label': node_label(node), 'compliance': compliance, 'steps': [], 'mode': None,
             'goal': None, 'error': unrested}
    if not compliance['plan'] or unrested:
        return entry
    mode, error = _mode(node, compliance['plan'], allow_disruptive)
    entry.update(mode=mode, error=error)
    if error:
        return entry
    entry['steps'] = update_steps(compliance['plan'])
    declaration = HardwareDeclaration(firmware=compliance['plan'], apply=mode, allow_reboot=True)
    entry['goal'] = hardware.cycle_goal(entry['label'], node, declaration, entry['steps'])
    return entry


def _result(entry, applied):
    compliance = entry['compliance']
    result = applied or node_result(summarize_node(entry['node']), False, steps=[], plan=[], transitions=[],
                                    changes={'firmware': {}})
    if entry['error']:
        fail(result, entry['error'])
    result.update(model=compliance['model'], status=compliance['status'], reason=compliance['reason'],
                  components=compliance['components'], campaign=compliance['plan'], mode=entry['mode'], done=[],
                  left=list(compliance['plan']))
    return result


def run_campaign(client, baseline, nodes, allow_disruptive=False, check_mode=False, timeout=3600, concurrency=100):
    """Every node (as read with CAMPAIGN_NODE_FIELDS) brought to the baseline (checked by check_baseline), one
    cycle each: one result per node, in order, with its model, status, components, campaign (the plan), mode, done
    and left (read back from Ironic after its cycle).

    A node still moving (the cycle of an interrupted run) is waited for first, within timeout, and planned from the
    versions Ironic reports once it rests (hardware.wait_for_moving). Every node is read and planned before a
    single write: a refusal raises HardwareError. A node that cannot take its plan (one that did not come to rest),
    or whose cycle fails (left where Ironic put it, with Ironic's reason), carries its error; the others go on.
    """
    nodes, waited, timeout = hardware.wait_for_moving(client, nodes, CAMPAIGN_NODE_FIELDS, timeout, check_mode)
    entries, problems = [], []
    for node in nodes:
        try:
            entries.append(plan_node(client, baseline, node, allow_disruptive, waited.get(node['uuid'])))
        except HardwareError as exc:
            problems.append(str(exc))
    if problems:
        raise HardwareError(' '.join(problems))
    prepared = []
    for entry in entries:
        if entry['goal'] is not None:
            changes = _changes(entry['compliance'])
            prepared.append({'label': entry['label'], 'node': entry['node'], 'declaration': None, 'changes': changes,
                             'steps': entry['steps'], 'shown_steps': entry['steps'], 'goal': entry['goal'],
                             'record_raid': False})
    applied = hardware.apply_prepared(client, prepared, check_mode, timeout, concurrency) if prepared else []
    by_uuid = dict((item['node']['uuid'], result) for item, result in zip(prepared, applied))
    results = []
    for entry in entries:
        applied_result = by_uuid.get(entry['node']['uuid'])
        result = _result(entry, applied_result)
        if applied_result is not None and not check_mode:
            after = node_compliance(baseline, entry['node'], client.get_firmware(entry['node']['uuid']))
            result.update(status=after['status'], components=after['components'], left=after['plan'],
                          done=done_steps(entry['compliance']['plan'], after['plan']))
            if after['plan'] and not result.get('error'):
                # The health gate of a campaign: the versions read back as planned.
                fail(result, 'node %s: its cycle ended, but Ironic reports %s still to run (%s). Run the campaign '
                     'again to see whether the BMC applies it; check the image otherwise.'
                     % (entry['label'], describe_plan(after['plan']), ', '.join(
                         '%s at %s' % (item['component'], item['current']) for item in after['components'])))
        results.append(result)
    return results
