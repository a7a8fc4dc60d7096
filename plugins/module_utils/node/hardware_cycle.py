# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cycle that applies a node's hardware steps (node/hardware.py works them out): the engine Goal that runs them
in one clean or service cycle and brings the node back, the writes and the cycles themselves, and how a failed one
is explained.

baremetal_hardware and baremetal_firmware_campaign hand the steps to scheduler.converge as
Options(clean_steps=...) or Options(service_steps=...), so the provision path around them comes from the planner
like any other. Before planning, a node still moving (the cycle of an interrupted run) is waited for here
(wait_for_cycles). node/hardware.py loads this file only for a node whose hardware must change or that is still
moving (a rerun that finds every node as declared and at rest runs no engine; bench/README.md measures what that
saves at a module's start).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, planner, provision
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import interface_field
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import as_landed, converge, wait_for_rest
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as declared
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import HardwareError


# -- the provision path around the steps ---------------------------------------------------------------------

def goal_for(node, declaration, steps):
    """The engine Goal that runs ``steps`` in one clean or service cycle and brings the node back.

    Raises HardwareError, naming the option or the state to change, when this node cannot take them.
    """
    label = node_label(node)
    state = graph.normalize_state(node['provision_state'])
    if declaration.apply == 'servicing':
        if state != declared.SERVICING_STATE:
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
        if state not in declared.CLEANING_STATES:
            hint = ("use apply: servicing with allow_reboot: true" if state == declared.SERVICING_STATE
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


# -- a cycle an interrupted run left going ---------------------------------------------------------------------

def wait_for_cycles(client, nodes, fields, timeout, check_mode=False, clock=time.monotonic, sleep=time.sleep):
    """(The nodes, each at rest, in order; {uuid: why a node did not come to rest}; the seconds left of timeout).

    A node still moving is most often in the cycle of a run that was interrupted (Ctrl-C ends the task, not Ironic's
    cycle): it is waited for within timeout (scheduler.wait_for_rest: judged as every converge judges a node someone
    else moves, never failed on a guess), then read again with ``fields``, and planned from what Ironic reports then,
    so that a step the cycle completed is not run again. In check mode nothing is waited for: the node is taken where
    it lands (scheduler.as_landed), and the check-mode converge of its cycle says so in its result.
    """
    started = clock()
    moving = [node for node in nodes
              if not graph.is_at_rest(node['provision_state'], node.get('target_provision_state'))]
    if check_mode:
        landed = dict((node['uuid'], as_landed(node)) for node in moving)
        return [landed.get(node['uuid'], node) for node in nodes], {}, timeout
    waited = wait_for_rest(client, moving, timeout, clock, sleep)
    problems = dict((uuid, error) for uuid, error in waited.items() if error)
    rested = dict((node['uuid'], client.get_node(node['uuid'], fields)) for node in moving
                  if node['uuid'] not in problems)
    return [rested.get(node['uuid'], node) for node in nodes], problems, max(1, int(timeout - (clock() - started)))


# -- the cycles ----------------------------------------------------------------------------------------------

def run_cycles(client, prepared, results, check_mode, timeout, concurrency):
    """Record the target RAID layouts and run the cycles of prepared nodes (hardware.prepare's dictionaries), all
    through one converge, writing nothing in check mode; updates results ({uuid: the node's result}) in place. A
    node whose write or cycle fails carries its error (explain_failure), and the others go on."""
    by_uuid = dict((item['node']['uuid'], item) for item in prepared)
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
