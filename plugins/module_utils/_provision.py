# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Converge nodes to declared provision states: look up, then each node rests, is planned and moves.

Shared by baremetal_provision_state (one node or a fleet) and baremetal_node (state: absent).
Planning (plan_node) and issuing a step (issue_step) live here; the executor only calls them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _planner as planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils._executor import Executor, Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import AnswerLost, PAGE_LIMIT

# Verbs that read instance_info: deploying writes the image it names; adoption validates it.
INSTANCE_INFO_VERBS = ('active', 'rebuild', 'adopt')


# One node to converge: its name or UUID, the declared state, and the Options that say how to get there.
Target = collections.namedtuple('Target', 'ident state options')


class Options(object):
    """How to get there: the task's options, or one node's own where a nodes: element overrides them."""

    def __init__(self, allow_destructive=False, adopt=False, rebuild=False, clean_steps=None, deploy_steps=None,
                 config_drive=None, instance_info=None, rescue_password=None):
        self.allow_destructive = allow_destructive
        self.adopt = adopt
        self.rebuild = rebuild
        self.clean_steps = clean_steps
        self.deploy_steps = deploy_steps
        self.config_drive = config_drive
        self.instance_info = instance_info
        self.rescue_password = rescue_password

    def arguments(self):
        """Extra fields of the provision request, by verb."""
        deploy = {'deploy_steps': self.deploy_steps, 'configdrive': self.config_drive}
        return {
            'active': deploy,
            'rebuild': deploy,
            'clean': {'clean_steps': self.clean_steps},
            'rescue': {'rescue_password': self.rescue_password},
        }


def plan_node(node, target, options):
    """The steps for one node at rest; PlanError when there is no acceptable path."""
    steps = planner.plan(node['provision_state'], target, allow_destructive=options.allow_destructive,
                         adopt=options.adopt, clean=bool(options.clean_steps), rebuild=options.rebuild)
    if steps and node.get('maintenance'):
        raise planner.PlanError(
            "Node %s is in maintenance (reason: %s), so Ironic will not move it. Clear it with "
            "baremetal.lifecycle.baremetal_maintenance state: disabled once the reason is dealt with."
            % (node.get('name') or node['uuid'], node.get('maintenance_reason') or 'none given'))
    if options.rescue_password is None and any(step.verb == 'rescue' for step in steps):
        raise planner.PlanError("The plan rescues the node; set rescue_password (the password of the rescue user).")
    return steps


def issue_step(client, uuid, step, options):
    """Send the request that starts one step of a plan."""
    client.set_provision_state(uuid, step.verb, **options.arguments().get(step.verb, {}))


def instance_info_patch(node, instance_info):
    """JSON patch operations that make node.instance_info agree with the given keys (null removes)."""
    current = node.get('instance_info') or {}
    operations = []
    for key, value in sorted((instance_info or {}).items()):
        path = '/instance_info/%s' % key
        if value is None:
            if key in current:
                operations.append({'op': 'remove', 'path': path})
        elif current.get(key) != value:
            operations.append({'op': 'add', 'path': path, 'value': value})
    return operations


def find_nodes(client, idents, fields):
    """Nodes by name or UUID, and the idents that match no node.

    Reads in proportion to the idents, not to the size of Ironic: one list of twice as many nodes as
    asked for; when Ironic holds more than that, a GET for each ident that list did not hold.
    """
    if len(idents) == 1:
        node = client.find_node(idents[0], fields)
        return ({idents[0]: node}, []) if node else ({}, list(idents))
    probe = 2 * len(idents)
    if probe >= PAGE_LIMIT:
        nodes, complete = client.list_nodes(fields=fields), True
    else:
        nodes, complete = client.list_nodes(fields=fields, first=probe)
    by_ident = {}
    for node in nodes:
        by_ident[node['uuid']] = node
        if node.get('name'):
            by_ident[node['name']] = node
    if not complete:
        for ident in idents:
            if ident not in by_ident:
                node = client.find_node(ident, fields)
                if node is not None:
                    by_ident[ident] = node
    found = dict((ident, by_ident[ident]) for ident in idents if ident in by_ident)
    return found, [ident for ident in idents if ident not in by_ident]


def converge(client, targets, check_mode=False, wait=True, timeout=3600, concurrency=1, abort_on_timeout=False):
    """Bring each Target to its declared state. Returns (jobs, errors for idents that match no node).

    Each node is planned as soon as it is at rest and moves on its own; failures of one node are
    recorded on its job and never stop the others.
    """
    with_instance_info = any(target.options.instance_info for target in targets)
    fields = client.poll_fields + (('instance_info',) if with_instance_info else ())
    found, missing = find_nodes(client, [target.ident for target in targets], fields)

    def plan(job, node):
        steps = plan_node(node, job.target, job.options)
        if not check_mode and any(step.verb in INSTANCE_INFO_VERBS for step in steps):
            _apply_instance_info(client, job.uuid, found_by_uuid[job.uuid], job.options.instance_info)
        return steps

    found_by_uuid = dict((node['uuid'], node) for node in found.values())
    executor = Executor(client, timeout, concurrency=concurrency, plan=plan, issue_step=issue_step,
                        abort_on_timeout=abort_on_timeout)
    jobs = [(Job(found[target.ident], target.state, target.options), found[target.ident])
            for target in targets if target.ident in found]
    executor.run(jobs, wait=wait, check_mode=check_mode)
    errors = ["No node is named or has the UUID '%s'. List nodes with baremetal.lifecycle.baremetal_node_info."
              % ident for ident in missing]
    return [job for job, _node in jobs], errors


def _apply_instance_info(client, uuid, node, instance_info):
    """PATCH instance_info before a deploy; a lost answer is checked against what Ironic now holds."""
    patch = instance_info_patch(node, instance_info)
    if not patch:
        return
    try:
        client.update_node(uuid, patch)
    except AnswerLost:
        patch = instance_info_patch(client.get_node(uuid, ('instance_info',)), instance_info)
        if patch:
            client.update_node(uuid, patch)
