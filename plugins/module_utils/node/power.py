# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bring a node to a declared power state and wait until Ironic reports it there.

Ironic answers a power request at once (HTTP 202) and acts in the background: the action is done
when target_power_state is null again, and it failed when power_state is not the one asked for,
with Ironic's reason in last_error (cleared when the request is accepted, and by Ironic's power-state sync later:
then its node history keeps it, ironic/nodes.failure_reason).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.nodes import failure_reason
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked, resent_while_held
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import held_off, held_state
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import NODE_FLAGS, POWER_ACTIONS, POWER_OFF_ACTIONS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait

# Reboots are actions, not states: doing one is always a change.
REBOOTS = ('rebooted', 'soft_rebooted')

# Soft actions ask the operating system to shut down; Ironic gives up after the timeout we send.
SOFT_ACTIONS = ('soft_powered_off', 'soft_rebooted')

# After a soft action's timeout, how long to wait for Ironic to record its own verdict.
SOFT_VERDICT_GRACE = 5

# What a failure says Ironic could not do, where Ironic's target is no verb ('rebooting'); else "'<target>' it".
FAILED_ACTIONS = {'rebooted': "reboot it ('rebooting')", 'soft_rebooted': "soft reboot it ('soft rebooting')"}


class PowerError(BaremetalError):
    """The power action failed or did not finish; result holds the node as last seen."""


def _settle(client, node, waiting, progress, step):
    """The node once target_power_state is null, or as last seen when the wait's deadline passes; progress hears of
    the node in each power state while the action (step) runs, and once at rest."""
    waiting.reset()
    while True:
        moving = bool(node.get('target_power_state'))
        progress.node(node_label(node), node.get('power_state') or 'unknown', step if moving else None)
        if not (moving and waiting.pause()):
            return node
        node = client.get_node(node['uuid'], NODE_SUMMARY_FIELDS)


def _request(client, node, target, soft, timeout, waiting, progress, result):
    """Ask Ironic for the power action. A node a conductor keeps locked (at work on it, often waiting for a slow BMC),
    or an Ironic that takes no more work for now (HTTP 503), is asked again until the task's timeout, as Ironic itself
    would take the request later: the transport answers at once, so that this is the only wait (its words:
    engine/writes.py)."""
    def held(answer):
        progress.node(node_label(node), node.get('power_state') or 'unknown', held_state(answer))

    try:
        resent_while_held(functools.partial(client.set_power_state, node['uuid'], target, timeout=timeout if soft else None),
                          waiting, held)
    except (Locked, Busy) as exc:
        raise PowerError(held_off(node_label(node), "'%s' was never started" % target, exc, timeout),
                         dict(result, changed=False))


def declared_power(declared):
    """What a declared power state sets, which a wave's health gate then expects (waves.HEALTH_CHECKS)."""
    return {'power_state': POWER_ACTIONS[declared][1]}


def ensure_power(client, node, declared, timeout, check_mode, progress=None, clock=time.monotonic, sleep=time.sleep):
    """Apply the declared power state (a key of POWER_ACTIONS) to the node. Returns the module result.

    progress (a progress.Progress, shared by the nodes of a task) is told where the node is while it waits.

    Raises PowerError when Ironic cannot act or the action does not finish within timeout seconds.
    """
    target, reached = POWER_ACTIONS[declared]
    if declared in POWER_OFF_ACTIONS and node.get('disable_power_off'):
        raise PowerError("node %s has disable_power_off set: it must never be powered off, and Ironic refuses '%s'. "
                         "Reboot it instead, or clear the flag with %s." % (node_label(node), target, NODE_FLAGS['disable_power_off'].clear),
                         node_result(summarize_node(node)))
    progress = progress or task_progress()
    waiting = Wait(timeout, clock=clock, sleep=sleep)
    # A power action already under way decides the state we start from.
    node = _settle(client, node, waiting, progress, 'earlier %s' % node.get('target_power_state'))
    if node.get('target_power_state'):
        raise PowerError("node %s: an earlier power action to '%s' is still running after %d s. Raise timeout or "
                         "look at the conductor log." % (node_label(node), node['target_power_state'], timeout),
                         node_result(summarize_node(node)))
    before = node.get('power_state')
    result = node_result(summarize_node(node), declared in REBOOTS or before != reached,
                         diff=DifferenceTracker().add('power_state', before, reached).diff())
    if not result['changed'] or check_mode:
        return result
    soft = declared in SOFT_ACTIONS
    _request(client, node, target, soft, timeout, waiting, progress, result)
    if soft:
        waiting.extend(SOFT_VERDICT_GRACE)
    node = _settle(client, client.get_node(node['uuid'], NODE_SUMMARY_FIELDS), waiting, progress, target)
    result['node'] = summarize_node(node)
    if node.get('target_power_state'):
        if soft:
            advice = ("The operating system may be ignoring the request to shut down: raise timeout, or use "
                      "state: %s to cut the power." % ('powered_off' if declared == 'soft_powered_off' else 'rebooted'))
        else:
            advice = 'The BMC may be slow or unreachable: raise timeout or look at the conductor log.'
        raise PowerError("node %s: '%s' did not finish within %d s; Ironic is still moving it to '%s'. %s"
                         % (node_label(node), target, timeout, node['target_power_state'], advice), result)
    if node.get('power_state') != reached:
        reason = masked_text(failure_reason(client, node) or 'nothing').rstrip('.')
        raise PowerError("node %s: Ironic could not %s; power state is '%s'. Ironic says: %s. Check the "
                         "BMC address and credentials in driver_info (baremetal.lifecycle.baremetal_node) and that "
                         "the conductor can reach the BMC." % (node_label(node), FAILED_ACTIONS.get(declared, "'%s' it" % target),
                                                               node.get('power_state') or 'unknown', reason),
                         dict(result, changed=node.get('power_state') != before))
    return result
