# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's provision state machine as data.

This is the single source of the state graph. The planner derives its stable-state
graph from it, the docs draw their picture from it, and a conformance test compares
TRANSITIONS edge for edge with ``ironic.common.state_machine.machine``. TRANSITIONS is the
newest release's machine; ironic/capabilities.py says from which release an edge exists
(TRANSITION_SINCE) and which API version each verb needs (VERB_MIN_VERSION).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities

# Kinds of state.
STABLE = 'stable'  # rests until an API request moves it
TRANSIENT = 'transient'  # the conductor moves it on by itself
HOLD = 'hold'  # a step asked to wait for an operator ('unhold' or 'abort')
FAILED = 'failed'  # rests; recovery needs an API request

# state -> (kind, Ironic's target state while in it). Same order and names as ironic/common/states.py.
STATES = {
    'enroll': (STABLE, None),
    'verifying': (TRANSIENT, 'manageable'),
    'manageable': (STABLE, None),
    'available': (STABLE, None),
    'active': (STABLE, None),
    'error': (STABLE, None),
    'rescue': (STABLE, None),
    'deploying': (TRANSIENT, 'active'),
    'wait call-back': (TRANSIENT, 'active'),
    'deploy failed': (FAILED, 'active'),
    'deploy hold': (HOLD, 'active'),
    'cleaning': (TRANSIENT, 'available'),
    'clean wait': (TRANSIENT, 'available'),
    'clean failed': (FAILED, 'available'),
    'clean hold': (HOLD, 'available'),
    'deleting': (TRANSIENT, 'available'),
    'inspecting': (TRANSIENT, 'manageable'),
    'inspect wait': (TRANSIENT, 'manageable'),
    'inspect failed': (FAILED, 'manageable'),
    'adopting': (TRANSIENT, 'active'),
    'adopt failed': (FAILED, 'active'),
    'rescuing': (TRANSIENT, 'rescue'),
    'rescue wait': (TRANSIENT, 'rescue'),
    'rescue failed': (FAILED, 'rescue'),
    'unrescuing': (TRANSIENT, 'active'),
    'unrescue failed': (FAILED, 'active'),
    'servicing': (TRANSIENT, 'active'),
    'service wait': (TRANSIENT, 'active'),
    'service failed': (FAILED, 'active'),
    'service hold': (HOLD, 'active'),
}

# The states the conductor moves a node on from by itself.
TRANSIENT_STATES = frozenset(state for state, (kind, _target) in STATES.items() if kind == TRANSIENT)

# Before Kilo an available node had no provision state at all.
LEGACY_STATE_ALIASES = {None: 'available', 'none': 'available', 'noop': 'available'}

# API verb (PUT /v1/nodes/{node}/states/provision {"target": verb}) -> machine event.
# 'rebuild' is not in Ironic's VERBS dict but the API accepts it as its own event.
VERBS = {
    'active': 'deploy',
    'deploy': 'deploy',
    'deleted': 'delete',
    'undeploy': 'delete',
    'manage': 'manage',
    'provide': 'provide',
    'inspect': 'inspect',
    'abort': 'abort',
    'clean': 'clean',
    'adopt': 'adopt',
    'rescue': 'rescue',
    'unrescue': 'unrescue',
    'unhold': 'unhold',
    'service': 'service',
    'rebuild': 'rebuild',
}

# Moves: the verbs the planner may choose to carry a node from one resting state to another, in the
# order it prefers among equally short paths. In-place actions (ACTIONS) are only run when a task asks.
MOVE_VERBS = ('manage', 'provide', 'active', 'adopt', 'rescue', 'unrescue', 'abort', 'deleted', 'rebuild')

# Where a verb lands when it does not land on the target of the state it enters:
# a manual clean passes through 'cleaning' (target available) back to manageable.
LANDING_OVERRIDES = {
    ('manageable', 'clean'): 'manageable',
}

# The states in which Ironic refuses to set retired (the conductor's _check_update_retired).
UNRETIRABLE_STATES = ('available',)

# Node flags under which Ironic refuses verbs its machine allows, or lands them elsewhere (the API's
# node.py and the conductor's manager.py/cleaning.py check these, not the state machine).
# flag -> (verbs refused; ALL_VERBS for every one, verb -> landing instead, how to clear the flag)
ALL_VERBS = '*'
NodeFlag = collections.namedtuple('NodeFlag', 'refuses lands clear')
NODE_FLAGS = collections.OrderedDict((
    # Ironic refuses most verbs in maintenance (provide, deploy, clean, service, rescue, abort of a
    # failed service...); the collection moves no node in maintenance at all.
    ('maintenance', NodeFlag(ALL_VERBS, {}, 'baremetal.lifecycle.baremetal_maintenance maintenance: false')),
    # NodeIsRetired on provide; automated cleaning of a retired node ends in manageable (event 'manage').
    ('retired', NodeFlag(('provide',), {'deleted': 'manageable'}, 'baremetal.lifecycle.baremetal_node retired: false')),
    # NodeProtected on undeploy and rebuild.
    ('protected', NodeFlag(('deleted', 'rebuild'), {}, 'baremetal.lifecycle.baremetal_node protected: false')),
    # Hardware that must never be powered off: Ironic runs every verb on it, rebooting it where it would power
    # it off (deploy_utils, agent_base, the inspector), so no verb is refused; its power API refuses
    # POWER_OFF_ACTIONS.
    ('disable_power_off', NodeFlag((), {}, 'baremetal.lifecycle.baremetal_node disable_power_off: false')),
))

# Why Ironic put a node in maintenance by itself (ironic/common/faults.py VALID_FAULTS), in words.
FAULTS = {
    'power failure': 'the power state could not be read or set',
    'clean failure': 'a clean step failed',
    'rescue abort failure': 'cleaning up an aborted rescue failed',
    'service failure': 'a service step failed',
}

# A transient state no conductor works on any more (it died in the middle of the step) -> the verb that
# takes the node out without a conductor, where Ironic's machine has one: 'manage' ends a clean
# (cleaning -> manageable). The clean did not finish, so the node is planned again and cleaned again.
STRANDED_WAY_OUT = {'cleaning': 'manage'}

# Transient states Ironic's takeover ends when a conductor dies (ironic/conductor/manager.py _check_orphan_nodes): once
# the dead conductor missed [conductor]heartbeat_timeout, a live one fails the nodes it reserved (deploying -> deploy
# failed, cleaning -> clean failed). In any other state it only releases the reservation: the node stays where it is
# until the dead conductor starts again and fails it.
TAKEOVER_STATES = frozenset(['deploying', 'cleaning'])

# Ironic's own words on a node whose step its takeover ended (ironic/conductor/utils.py
# abort_on_conductor_take_over, the node's last_error): proof that the conductor that held the node died, whatever
# the task could tell from the conductors' heartbeats.
TAKEOVER_ERROR = 'Operation was aborted due to conductor take over'

# Every edge of Ironic's machine: (from state, event, to state).
TRANSITIONS = (
    ('enroll', 'manage', 'verifying'),
    ('verifying', 'done', 'manageable'),
    ('verifying', 'fail', 'enroll'),
    ('manageable', 'provide', 'cleaning'),
    ('manageable', 'clean', 'cleaning'),
    ('manageable', 'inspect', 'inspecting'),
    ('manageable', 'adopt', 'adopting'),
    ('available', 'deploy', 'deploying'),
    ('available', 'manage', 'manageable'),
    ('deploying', 'fail', 'deploy failed'),
    ('deploying', 'wait', 'wait call-back'),
    ('deploying', 'hold', 'deploy hold'),
    ('deploying', 'done', 'active'),
    ('wait call-back', 'hold', 'deploy hold'),
    ('wait call-back', 'resume', 'deploying'),
    ('wait call-back', 'fail', 'deploy failed'),
    ('wait call-back', 'abort', 'deploy failed'),
    ('wait call-back', 'delete', 'deleting'),
    ('deploy hold', 'unhold', 'wait call-back'),
    ('deploy hold', 'abort', 'deploy failed'),
    ('deploy failed', 'rebuild', 'deploying'),
    ('deploy failed', 'deploy', 'deploying'),
    ('deploy failed', 'delete', 'deleting'),
    ('active', 'rebuild', 'deploying'),
    ('active', 'delete', 'deleting'),
    ('active', 'rescue', 'rescuing'),
    ('active', 'service', 'servicing'),
    ('deleting', 'fail', 'error'),
    ('deleting', 'clean', 'cleaning'),
    ('cleaning', 'done', 'available'),
    ('cleaning', 'fail', 'clean failed'),
    ('cleaning', 'wait', 'clean wait'),
    ('cleaning', 'hold', 'clean hold'),
    ('cleaning', 'manage', 'manageable'),
    ('clean wait', 'fail', 'clean failed'),
    ('clean wait', 'abort', 'clean failed'),
    ('clean wait', 'hold', 'clean hold'),
    ('clean wait', 'resume', 'cleaning'),
    ('clean hold', 'abort', 'clean failed'),
    ('clean hold', 'unhold', 'clean wait'),
    ('clean failed', 'manage', 'manageable'),
    ('error', 'rebuild', 'deploying'),
    ('error', 'delete', 'deleting'),
    ('inspecting', 'done', 'manageable'),
    ('inspecting', 'fail', 'inspect failed'),
    ('inspecting', 'wait', 'inspect wait'),
    ('inspect wait', 'done', 'manageable'),
    ('inspect wait', 'fail', 'inspect failed'),
    ('inspect wait', 'abort', 'inspect failed'),
    ('inspect wait', 'resume', 'inspecting'),
    ('inspect failed', 'manage', 'manageable'),
    ('inspect failed', 'inspect', 'inspecting'),
    ('rescuing', 'done', 'rescue'),
    ('rescuing', 'wait', 'rescue wait'),
    ('rescuing', 'fail', 'rescue failed'),
    ('rescue wait', 'resume', 'rescuing'),
    ('rescue wait', 'fail', 'rescue failed'),
    ('rescue wait', 'abort', 'rescue failed'),
    ('rescue wait', 'delete', 'deleting'),
    ('rescue', 'rescue', 'rescuing'),
    ('rescue', 'delete', 'deleting'),
    ('rescue', 'unrescue', 'unrescuing'),
    ('rescue failed', 'rescue', 'rescuing'),
    ('rescue failed', 'unrescue', 'unrescuing'),
    ('rescue failed', 'delete', 'deleting'),
    ('unrescuing', 'done', 'active'),
    ('unrescuing', 'fail', 'unrescue failed'),
    ('unrescue failed', 'rescue', 'rescuing'),
    ('unrescue failed', 'unrescue', 'unrescuing'),
    ('unrescue failed', 'delete', 'deleting'),
    ('adopting', 'done', 'active'),
    ('adopting', 'fail', 'adopt failed'),
    ('adopt failed', 'adopt', 'adopting'),
    ('adopt failed', 'manage', 'manageable'),
    ('servicing', 'done', 'active'),
    ('servicing', 'fail', 'service failed'),
    ('servicing', 'wait', 'service wait'),
    ('servicing', 'hold', 'service hold'),
    ('service wait', 'hold', 'service hold'),
    ('service wait', 'resume', 'servicing'),
    ('service wait', 'fail', 'service failed'),
    ('service wait', 'abort', 'service failed'),
    ('service wait', 'delete', 'deleting'),
    ('service hold', 'service', 'servicing'),
    ('service hold', 'unhold', 'service wait'),
    ('service hold', 'fail', 'service failed'),
    ('service hold', 'abort', 'service failed'),
    ('service failed', 'service', 'servicing'),
    ('service failed', 'rescue', 'rescuing'),
    ('service failed', 'wait', 'service wait'),
    ('service failed', 'hold', 'service hold'),
    ('service failed', 'delete', 'deleting'),
    ('service failed', 'abort', 'active'),
)


def transitions(release=None):
    """The edges of TRANSITIONS a server of ``release`` (capabilities.release_for_api) has (None: the newest
    release, every edge)."""
    since = capabilities.TRANSITION_SINCE
    return tuple(edge for edge in TRANSITIONS if release is None or edge not in since or since[edge] <= release)


# States in which Ironic deletes a node record without moving it first (ironic/common/states.py).
DELETE_ALLOWED_STATES = ('manageable', 'enroll', 'adopt failed')

# The stable states a playbook may declare.
DECLARABLE_STATES = ('enroll', 'manageable', 'available', 'active', 'rescue')

# Power: declared state -> (PUT /states/power target, power_state once reached).
POWER_ACTIONS = {
    'powered_on': ('power on', 'power on'),
    'powered_off': ('power off', 'power off'),
    'rebooted': ('rebooting', 'power on'),
    'soft_powered_off': ('soft power off', 'power off'),
    'soft_rebooted': ('soft rebooting', 'power on'),
}

# The power a node shows once at rest in a stable state, where the state decides it: a deployed or rescued
# node runs. Elsewhere Ironic leaves power where the last step did, so any is healthy.
RESTING_POWER = {'active': 'power on', 'rescue': 'power on'}

# Values of a node's health (API 1.109; ironic/common/health_states.py: OK, Warning, Critical) that stop a
# rollout: the BMC reports hardware needing immediate attention. Warning is a non-critical issue.
UNHEALTHY = ('Critical',)

# The power actions Ironic refuses for a node with disable_power_off (the API's node.py): a reboot of such a
# node resets it without powering it off, so Ironic allows it.
POWER_OFF_ACTIONS = ('powered_off', 'soft_powered_off')
