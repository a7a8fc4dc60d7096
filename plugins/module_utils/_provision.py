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
from ansible_collections.baremetal.lifecycle.plugins.module_utils import _secrets as secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils import _states as states
from ansible_collections.baremetal.lifecycle.plugins.module_utils._bulk import find_nodes, no_node_message
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._executor import Executor, Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import AnswerLost
from ansible_collections.baremetal.lifecycle.plugins.module_utils._validate import check_distinct_nodes

# Verbs that read instance_info: deploying writes the image it names; adoption validates it.
INSTANCE_INFO_VERBS = ('active', 'rebuild', 'adopt')


# One node to converge: its name or UUID, the declared state, and the Options that say how to get there.
Target = collections.namedtuple('Target', 'ident state options')


INSPECTION_CHOICES = ('skip', 'once', 'always')

# Options a nodes: element may set for its own node, and what each must be. Options that may carry a
# secret (config_drive, instance_info, rescue_password) are task-wide only: Ansible hides them there.
NODE_OPTION_TYPES = {
    'inspection': INSPECTION_CHOICES,
    'clean_steps': list,
    'deploy_steps': list,
    'service_steps': list,
    'rebuild': bool,
    'adopt': bool,
    'allow_destructive': bool,
    'unhold': bool,
    'clear_fault': bool,
}

# How issue_step sends the steps that are not provision verbs.
NODE_STEP_METHODS = {states.CLEAR_FAULT: 'unset_maintenance'}


class Options(object):
    """How to get there: the task's options, or one node's own where a nodes: element overrides them."""

    def __init__(self, allow_destructive=False, adopt=False, rebuild=False, clean_steps=None, deploy_steps=None,
                 config_drive=None, instance_info=None, rescue_password=None, service_steps=None, inspection='skip',
                 unhold=False, clear_fault=False):
        self.allow_destructive = allow_destructive
        self.adopt = adopt
        self.rebuild = rebuild
        self.clean_steps = clean_steps
        self.deploy_steps = deploy_steps
        self.config_drive = config_drive
        self.instance_info = instance_info
        self.rescue_password = rescue_password
        self.service_steps = service_steps
        self.inspection = inspection
        self.unhold = unhold
        self.clear_fault = clear_fault

    def overridden(self, **fields):
        """A copy with some options replaced."""
        options = Options()
        options.__dict__.update(self.__dict__)
        options.__dict__.update(fields)
        return options

    def arguments(self, verb):
        """Extra fields of the provision request of verb."""
        deploy = {'deploy_steps': self.deploy_steps, 'configdrive': self.config_drive}
        return {
            'active': deploy,
            'rebuild': deploy,
            'clean': {'clean_steps': self.clean_steps},
            'service': {'service_steps': self.service_steps},
            'rescue': {'rescue_password': self.rescue_password},
        }.get(verb, {})

    def actions(self, node):
        """The in-place actions (_states.ACTIONS names) asked for this node: (every time, only if harmless).

        inspection: once inspects a node that was never inspected, unless that needs a destructive step.
        """
        required = []
        optional = []
        if self.inspection == 'always':
            required.append('inspect')
        elif self.inspection == 'once' and not node.get('inspection_finished_at'):
            optional.append('inspect')
        if self.clean_steps:
            required.append('clean')
        if self.rebuild:
            required.append('rebuild')
        if self.service_steps:
            required.append('service')
        return required, optional


def target_from_element(entry, index, state, options):
    """The Target of one nodes: element: a name or UUID, or a dictionary with node, state and own options."""
    if not isinstance(entry, dict):
        return Target(str(entry), state, options)
    where = 'nodes[%d]' % index
    unknown = sorted(set(entry) - set(('node', 'state')) - set(NODE_OPTION_TYPES))
    if 'node' not in entry or unknown:
        raise BaremetalError('%s must be a name, a UUID, or a dictionary with node and optionally state and %s; got '
                             'keys %s.' % (where, ', '.join(sorted(NODE_OPTION_TYPES)), ', '.join(sorted(entry))))
    declared = entry.get('state', state)
    if declared not in states.DECLARABLE_STATES:
        raise BaremetalError("%s.state must be one of %s, not '%s'." % (where, ', '.join(states.DECLARABLE_STATES),
                                                                        declared))
    overrides = dict((key, value) for key, value in entry.items() if key in NODE_OPTION_TYPES)
    for key, value in overrides.items():
        expected = NODE_OPTION_TYPES[key]
        if isinstance(expected, tuple):
            if value not in expected:
                raise BaremetalError("%s.%s must be one of %s, not %r." % (where, key, ', '.join(expected), value))
        elif expected is list:
            if not isinstance(value, list) or not all(isinstance(step, dict) for step in value):
                raise BaremetalError('%s.%s must be a list of steps, each a dictionary.' % (where, key))
        elif not isinstance(value, expected):
            raise BaremetalError('%s.%s must be true or false, not %r.' % (where, key, value))
    return Target(str(entry['node']), declared, options.overridden(**overrides))


def node_flags(node):
    """The node's set NODE_FLAGS, each with its reason."""
    return dict((flag, node.get(flag + '_reason')) for flag in states.NODE_FLAGS if node.get(flag))


def plan_node(node, target, options):
    """The steps for one node at rest; PlanError when there is no acceptable path.

    Call it once per node and task: asked-for in-place actions (service_steps, rebuild, inspection: always,
    clean_steps) are in every plan made, so planning again after they ran would run them again.
    """
    required, optional = options.actions(node)
    steps = planner.plan(node['provision_state'], target, allow_destructive=options.allow_destructive,
                         adopt=options.adopt, actions=required, optional_actions=optional, unhold=options.unhold,
                         held_target=node.get('target_provision_state'), flags=node_flags(node),
                         fault=node.get('fault'), clear_fault=options.clear_fault)
    if options.rescue_password is None and any(step.verb == 'rescue' for step in steps):
        raise planner.PlanError("The plan rescues the node; set rescue_password (the password of the rescue user).")
    return steps


def issue_step(client, uuid, step, options):
    """Send the request that starts one step of a plan."""
    if step.verb in NODE_STEP_METHODS:
        getattr(client, NODE_STEP_METHODS[step.verb])(uuid)
        return
    client.set_provision_state(uuid, step.verb, **options.arguments(step.verb))


def check_requests(client, steps, options):
    """IronicError, before the first step is sent, when the server's API is too old for a later one."""
    for step in steps:
        if step.verb not in NODE_STEP_METHODS:
            client.require_provision_request(step.verb, options.arguments(step.verb))


def learned_by_inspection(client, uuid, transitions):
    """What an inspection this task ran learned: the node's properties and its inventory; None without one.

    The inventory is null where Ironic keeps none (an inspect interface that stores no data, an API before 1.81).
    """
    if not any(transition['verb'] == 'inspect' and transition['to'] == 'manageable' for transition in transitions):
        return None
    properties = client.get_node(uuid, ('properties',)).get('properties') or {}
    inventory = client.get_inventory(uuid)
    return {'properties': secrets.masked(properties), 'inventory': secrets.masked(inventory)}


def provision_diff(results, single, check_mode):
    """Diff mode: each node's provision state before the task and after it (planned, in check mode)."""
    before, after = {}, {}
    for result in results:
        node = result['node']
        start = result['plan'][0]['from'] if result['plan'] else node['provision_state']
        end = (result['plan'][-1]['to'] if result['plan'] else start) if check_mode else node['provision_state']
        label = node.get('name') or node['uuid']
        before[label], after[label] = start, end
    if single:
        return {'before': {'provision_state': before.popitem()[1]}, 'after': {'provision_state': after.popitem()[1]}}
    return {'before': before, 'after': after}


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


def converge(client, targets, check_mode=False, wait=True, timeout=3600, concurrency=1, abort_on_timeout=False):
    """Bring each Target to its declared state. Returns (jobs, errors for idents that match no node).

    Each node is planned as soon as it is at rest and moves on its own; failures of one node are
    recorded on its job and never stop the others.
    """
    with_instance_info = any(target.options.instance_info for target in targets)
    fields = client.poll_fields + (('instance_info',) if with_instance_info else ())
    found, missing = find_nodes(client, [target.ident for target in targets], fields)
    check_distinct_nodes(found)

    def plan(job, node):
        steps = plan_node(node, job.target, job.options)
        check_requests(client, steps, job.options)
        if not check_mode and any(step.verb in INSTANCE_INFO_VERBS for step in steps):
            _apply_instance_info(client, job.uuid, found_by_uuid[job.uuid], job.options.instance_info)
        return steps

    found_by_uuid = dict((node['uuid'], node) for node in found.values())
    executor = Executor(client, timeout, concurrency=concurrency, plan=plan, issue_step=issue_step,
                        abort_on_timeout=abort_on_timeout)
    jobs = [(Job(found[target.ident], target.state, target.options), found[target.ident])
            for target in targets if target.ident in found]
    executor.run(jobs, wait=wait, check_mode=check_mode)
    errors = [no_node_message([ident]) for ident in missing]
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
