# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Converge nodes to declared provision states: look up, wait out motion, plan, prepare, execute.

Shared by baremetal_provision_state (one node or a fleet) and baremetal_node (state: absent).
Planning (plan_node) and issuing a step (issue_step) live here; the executor only calls them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _planner as planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils._executor import Executor, Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import IronicError, NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils._validate import check_distinct_nodes

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
    """Nodes by name or UUID, and the idents that match no node. One request per node or per page."""
    if len(idents) == 1:
        node = client.find_node(idents[0], fields)
        return ({idents[0]: node}, []) if node else ({}, list(idents))
    by_ident = {}
    for node in client.list_nodes(fields=fields):
        by_ident[node['uuid']] = node
        if node.get('name'):
            by_ident[node['name']] = node
    found = dict((ident, by_ident[ident]) for ident in idents if ident in by_ident)
    return found, [ident for ident in idents if ident not in by_ident]


def converge(client, targets, check_mode=False, wait=True, timeout=3600, concurrency=1):
    """Bring each Target to its declared state. Returns (jobs, errors for idents that match no node).

    Failures of one node are recorded on its job and never stop the others.
    """
    fields = NODE_SUMMARY_FIELDS + (('instance_info',) if any(target.options.instance_info for target in targets) else ())
    idents = [target.ident for target in targets]
    found, missing = find_nodes(client, idents, fields)
    check_distinct_nodes(found)
    executor = Executor(client, timeout, concurrency=concurrency, issue_step=issue_step)
    rested = executor.settle(found.values())
    jobs = []
    for ident, target, options in targets:
        if ident not in found:
            continue
        node = dict(found[ident], **rested[found[ident]['uuid']])
        job = Job(node, [], options)
        jobs.append(job)
        if not planner.is_at_rest(node['provision_state'], node.get('target_provision_state')):
            job.error = ("node %s: still '%s' after %d s; it must come to rest before it can be planned. "
                         "Raise timeout or look at the conductor log." % (job.label, node['provision_state'], timeout))
            continue
        try:
            job.plan = plan_node(node, target, options)
            if not check_mode and any(step.verb in INSTANCE_INFO_VERBS for step in job.plan):
                patch = instance_info_patch(node, options.instance_info)
                if patch:
                    client.update_node(job.uuid, patch)
        except (planner.PlanError, IronicError) as exc:
            job.error = 'node %s: %s' % (job.label, exc)
    if not check_mode:
        executor.run([job for job in jobs if job.error is None], wait=wait)
    errors = ["No node is named or has the UUID '%s'. List nodes with baremetal.lifecycle.baremetal_node_info."
              % ident for ident in missing]
    return jobs, errors
