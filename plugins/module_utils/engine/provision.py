# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plans to declared provision states, and the module results of nodes brought there.

A node's Goal (its declared state and the Options that say how), the steps from where it rests (plan_node, checked
against the server by NodePlans, which the scheduler calls as each node rests: engine/scheduler.py converge), and
each Goal's result once converged (provision_results). Shared by baremetal_provision_state (one node or a fleet),
baremetal_node and baremetal_hardware. What a step sends is in engine/requests.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import SET_INSTANCE_INFO, SET_RETIRED
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.requests import (
    check_node_interfaces, check_requests, check_runbook, instance_info_patch, retired_patch)

# Verbs that read instance_info: deploying writes the image it names; adoption validates it.
INSTANCE_INFO_VERBS = ('active', 'rebuild', 'adopt')


# One node's goal: its name or UUID, the declared state, and the Options that say how to get there.
Goal = collections.namedtuple('Goal', 'ident state options')


def node_flags(node):
    """The node's set NODE_FLAGS, each with its reason."""
    return dict((flag, node.get(flag + '_reason')) for flag in states.NODE_FLAGS if node.get(flag))


def plan_node(node, target, options, release=None):
    """The steps for one node at rest on a server of ``release`` (None: the newest); PlanError when there is no
    acceptable path.

    Call it once per node and task: asked-for in-place actions (service_steps, rebuild, inspection: always,
    clean_steps) are in every plan made, so planning again after they ran would run them again. A plan that
    deploys, rebuilds or adopts first sets the instance_info keys that differ from node's (SET_INSTANCE_INFO).
    """
    required, optional = options.actions(node, target)
    flags = node_flags(node)
    retiring = retired_patch(node, options.retired, options.retired_reason)
    if retiring:
        # The plan is made for the node as it will be once retired or not: the flag changes the path (a retired
        # node's teardown ends in manageable), so it is set before the steps it changes (see retired_step_index).
        if options.retired is False:
            flags.pop('retired', None)
        elif options.retired:
            flags['retired'] = options.retired_reason
            if target in states.UNRETIRABLE_STATES:
                raise graph.PlanError("retired: true and state: %s: Ironic never makes a retired node %s. Declare "
                                      "state: manageable to retire it." % (target, target))
    steps = planner.plan(node['provision_state'], target, allow_destructive=options.allow_destructive,
                         adopt=options.adopt, actions=required, optional_actions=optional, unhold=options.unhold,
                         held_target=node.get('target_provision_state'), flags=flags,
                         fault=node.get('fault'), clear_fault=options.clear_fault, release=release)
    rescue = next((step for step in steps if step.verb == 'rescue'), None)
    if options.rescue_password is None and rescue is not None:
        raise graph.PlanError("The plan rescues the node (%s); set rescue_password (the password of the rescue "
                              "user).%s" % (', '.join('%s to %s' % (step.verb, step.landing) for step in steps),
                                            planner.missing_ways_out(rescue.source, release)))
    reader = next((index for index, step in enumerate(steps) if step.verb in INSTANCE_INFO_VERBS), None)
    if reader is not None and instance_info_patch(node, options.instance_info):
        source = steps[reader].source
        steps.insert(reader, graph.Step(SET_INSTANCE_INFO, source, source))
    if retiring:
        index = retired_step_index(graph.normalize_state(node['provision_state']), steps, options.retired)
        current = graph.normalize_state(node['provision_state'])
        state = steps[index].source if index < len(steps) else (steps[-1].landing if steps else current)
        steps.insert(index, graph.Step(SET_RETIRED, state, state))
    return steps


def retired_step_index(current, steps, retired):
    """Where SET_RETIRED goes in steps: first, unless it retires a node that is in a state Ironic retires no node
    in (available): then at the first step that starts elsewhere, or at the end."""
    if not retired:
        return 0
    sources = [step.source for step in steps] + [steps[-1].landing if steps else current]
    return next(index for index, source in enumerate(sources) if source not in states.UNRETIRABLE_STATES)


def learned_by_inspection(client, uuid, transitions):
    """What an inspection this task ran learned: the node's properties and its inventory; None without one.

    The inventory is null where Ironic keeps none (an inspect interface that stores no data, an API before 1.81).
    """
    if not any(transition['verb'] == 'inspect' and transition['to'] == 'manageable' for transition in transitions):
        return None
    properties = client.get_node(uuid, ('properties',)).get('properties') or {}
    inventory = client.get_inventory(uuid)
    return {'properties': secrets.masked(properties), 'inventory': secrets.masked(inventory)}


def provision_diff(result, check_mode):
    """Diff mode: one node's provision state before the task and after it (planned, in check mode)."""
    node = result['node']
    start = result['plan'][0]['from'] if result['plan'] else node['provision_state']
    end = (result['plan'][-1]['to'] if result['plan'] else start) if check_mode else node['provision_state']
    return DifferenceTracker().add('provision_state', start, end).diff()


class NodePlans(object):
    """The plans of the nodes of one converge, checked against the server before the first step is sent."""

    def __init__(self, client, found):
        self.client = client
        self.found = dict((node['uuid'], node) for node in found.values())  # as looked up, with instance_info

    def steps(self, job, node):
        """The steps for the job's node at rest (node: as polled); PlanError or IronicError when there is no way."""
        # Polls do not read instance_info: the node as looked up has it.
        looked_up = dict(node, instance_info=self.found[job.uuid].get('instance_info'))
        steps = plan_node(looked_up, job.target, job.options, self.client.release)
        check_requests(self.client, steps, job.options)
        check_runbook(self.client, job.uuid, steps, job.options)
        check_node_interfaces(self.client, looked_up, steps, job.options)
        return steps


def provision_results(client, goals, converged, check_mode=False):
    """What converge made of the goals (converged: its jobs and errors), as one module result per Goal in the order
    of the goals: the node, its plan, its transitions, what an inspection learned, a diff, changed and error (a name
    or UUID that matches no node has only its error)."""
    jobs, missing = converged
    jobs, missing = list(jobs), iter(missing)
    results = []
    for goal in goals:
        if jobs and goal.ident in (jobs[0].uuid, jobs[0].node.get('name')):
            result = jobs.pop(0).result()
        else:
            results.append(node_result(None, error=next(missing), plan=[], transitions=[]))
            continue
        learned = learned_by_inspection(client, result['node']['uuid'], result['transitions'])
        if learned is not None:
            result['inspection'] = learned
        # In check mode a node changes when it has a plan: the task reports what it would do.
        result['changed'] = result['changed'] or bool(check_mode and result['plan'])
        result['diff'] = provision_diff(result, check_mode)
        results.append(result)
    return results
