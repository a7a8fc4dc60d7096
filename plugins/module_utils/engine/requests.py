# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What each step of a plan sends to Ironic: a provision verb with its arguments, or a node write (clearing a fault,
instance_info, the retired flag), and whether the server takes them all before the first is sent.

A node write reads the node first and sends only what differs, so a step sent again after a lost answer sends only
what is still missing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import (
    CLEAR_FAULT, SET_INSTANCE_INFO, SET_RETIRED, STEPLESS_INTERFACES, VERB_INTERFACES, interface_field, steps_not_offered)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    FEATURE_MIN_VERSION, RUNBOOK_TRAITS_VERSION)

# How step_request sends the steps that are not provision verbs: like the verbs, each takes Locked and Busy at once
# (retry_busy=False), which the sender leaves for the scheduler to send again later.
NODE_STEP_METHODS = {
    CLEAR_FAULT: lambda client, uuid, options: client.unset_maintenance(uuid, retry_busy=False),
    SET_INSTANCE_INFO: lambda client, uuid, options: set_instance_info(client, uuid, options.instance_info),
    SET_RETIRED: lambda client, uuid, options: set_retired(client, uuid, options.retired, options.retired_reason),
}

# The node field a step that is not a provision verb writes, where the API has not always had it.
NODE_STEP_FIELDS = {SET_RETIRED: 'retired'}


def retired_patch(node, retired, retired_reason):
    """JSON patch operations that make the node's retired flag and reason what the task declares (None: as it is).

    Ironic forgets the reason when a node is unretired, and keeps one only on a retired node.
    """
    is_retired = node.get('retired') if retired is None else retired
    if retired_reason and not is_retired:
        raise graph.PlanError('retired_reason is only kept while retired is true, and the node is not retired: set '
                              'retired: true as well.')
    operations = []
    if retired is not None and bool(node.get('retired')) != retired:
        operations.append({'op': 'add', 'path': '/retired', 'value': retired})
    if retired_reason is not None and is_retired and node.get('retired_reason') != retired_reason:
        operations.append({'op': 'add', 'path': '/retired_reason', 'value': retired_reason})
    return operations


def step_request(client, uuid, step, options):
    """The request that starts one step of a plan, to call to send it (engine/sender.py does)."""
    if step.verb in NODE_STEP_METHODS:
        return functools.partial(NODE_STEP_METHODS[step.verb], client, uuid, options)
    return functools.partial(client.set_provision_state, uuid, step.verb, **options.arguments(step.verb, step.action))


def check_requests(client, steps, options):
    """IronicError, before the first step is sent, when the server's API is too old for a later one."""
    for step in steps:
        if step.verb in NODE_STEP_FIELDS:
            client.require(NODE_STEP_FIELDS[step.verb], FEATURE_MIN_VERSION[NODE_STEP_FIELDS[step.verb]])
        elif step.verb not in NODE_STEP_METHODS:
            client.require_provision_request(step.verb, options.arguments(step.verb, step.action))


def check_runbook(client, uuid, steps, options):
    """PlanError, before the first step is sent, when a step runs a runbook Ironic would refuse for the node: one it
    does not hold, or one the node's traits do not allow (from API 1.112 a trait of the runbook's, before it the
    runbook's name). Ironic refuses it only when that step is sent, after the steps before it, an undeploy among
    them, have run. Reads the runbook and the node's traits (a plan that runs no runbook reads nothing)."""
    if not any(step.action is not None and step.action.option == 'runbook' for step in steps):
        return
    runbook = client.collection('runbooks').find(options.runbook)
    if runbook is None:
        raise graph.PlanError('runbook %s does not exist in Ironic. Correct the name, or declare the runbook with '
                              'baremetal.lifecycle.baremetal_runbook.' % options.runbook)
    allowed = set(runbook.get('traits') or ()) if client.supports(RUNBOOK_TRAITS_VERSION) else {runbook['name']}
    if not allowed:
        raise graph.PlanError('runbook %s has no trait, and Ironic runs a runbook only on a node with one of its traits. '
                              'Give it one with baremetal.lifecycle.baremetal_runbook (traits).' % runbook['name'])
    traits = client.get_node(uuid, ('traits',)).get('traits') or []
    if not allowed & set(traits):
        raise graph.PlanError('runbook %s runs only on a node with the trait %s, and this node has %s. Give the node '
                              'one with baremetal.lifecycle.baremetal_node (traits).'
                              % (runbook['name'], ' or '.join(sorted(allowed)), ', '.join(sorted(traits)) or 'none'))


def check_node_interfaces(client, node, steps, options):
    """PlanError, before the first step is sent, when a step needs an interface the node lacks: a verb of
    VERB_INTERFACES on the node's no-op interface for it, or clean or service steps of an interface that offers none
    (STEPLESS_INTERFACES). Ironic refuses them only when that step is sent, after the steps before it have run: an
    erase on a node whose deploy interface is fake undeployed it, then failed; inspection on no-inspect made an
    available node manageable, then failed. Reads the interface fields that node (as looked up) lacks, only for a
    plan that needs one."""
    verbs = [(verb,) + VERB_INTERFACES[verb] for verb in sorted(set(step.verb for step in steps))
             if verb in VERB_INTERFACES]
    sent = _steps_sent(steps, options)
    unread = (set(field for _verb, field, _no_op in verbs)
              | set(interface_field(item['interface']) for _option, item in sent
                    if item.get('interface') in STEPLESS_INTERFACES)) - set(node)
    if unread:
        node = dict(node, **client.get_node(node['uuid'], tuple(sorted(unread))))
    problems = ["'%s' needs an interface that offers it, and this node's %s is '%s'. Set %s to one its driver enables "
                "with baremetal.lifecycle.baremetal_node." % (verb, field, no_op, field)
                for verb, field, no_op in verbs if node.get(field) == no_op]
    for option in sorted(set(option for option, _item in sent)):
        missing = steps_not_offered(node, [item for owner, item in sent if owner == option])
        if missing:
            fields = ' and '.join(field for _interface, field, _value, _names in missing)
            problems.append("%s needs %s. Set %s to %s with baremetal.lifecycle.baremetal_node, or leave %s out." % (
                option, '; and '.join("%s, which this node's %s '%s' does not offer" % (' and '.join(names), field, value)
                                      for _interface, field, value, names in missing),
                fields, 'ones that offer them' if len(missing) > 1 else 'one that offers it', option))
    if problems:
        raise graph.PlanError(' '.join(problems))


def _steps_sent(steps, options):
    """[(the option that asks for it, a clean or service step dict)] of every step list the plan's requests send."""
    sent = []
    for step in steps:
        if step.verb not in NODE_STEP_METHODS:
            arguments = options.arguments(step.verb, step.action)
            for field in ('clean_steps', 'service_steps'):
                option = step.action.option if step.action is not None else field
                sent += [(option, item) for item in arguments.get(field) or ()]
    return sent


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


def set_instance_info(client, uuid, instance_info):
    """PATCH the keys of instance_info that differ from what Ironic holds when the step is sent.

    It reads instance_info first, as the steps before it may have changed it; so it is sent again after a lost
    answer (see Scheduler._took_effect), sending only what is still missing.
    """
    patch = instance_info_patch(client.get_node(uuid, ('instance_info',)), instance_info)
    if patch:
        client.update_node(uuid, patch, retry_busy=False)


def set_retired(client, uuid, retired, retired_reason):
    """PATCH the node's retired flag and reason where they differ from what Ironic holds when the step is sent
    (read first, like set_instance_info, so that a step sent again after a lost answer sends only what is missing)."""
    patch = retired_patch(client.get_node(uuid, ('retired', 'retired_reason')), retired, retired_reason)
    if patch:
        client.update_node(uuid, patch, retry_busy=False)
