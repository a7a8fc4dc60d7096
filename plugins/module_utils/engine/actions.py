# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The work a plan does besides moving a node between states, as data: in-place actions (one row each, ACTIONS),
the steps that are not provision verbs (node writes), what each request sends, and what each step risks.

The moves themselves and Ironic's machine are in engine/states.py; the planner composes both.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

# The fields of the provision request of a move verb that sends any (an action's are in its ACTIONS row).
MOVE_REQUEST_FIELDS = {
    'active': ('deploy_steps', 'configdrive'),
    'rescue': ('rescue_password',),
}

# In-place actions: work a task asks for that leaves the node resting where it ran (or, from a failure
# of the same work, where it should have rested). The planner composes: the path to one of the states
# the action runs from, the action, the path on to the declared state. Actions of one plan run in this
# order. option: what asks for it; targets: the declared states it goes with (None: any);
# request_fields: the fields of its provision request; done_by: verbs that do its work on the way (a
# fresh deploy is as good as a rebuild), so that a path ending in one needs no action step.
Action = collections.namedtuple('Action', 'name verb option runs_from targets request_fields done_by '
                                          'destructive cleans_disks reboots')
ACTIONS = (
    Action(name='inspect', verb='inspect', option='inspection', runs_from=('manageable', 'inspect failed'),
           targets=None, request_fields=(), done_by=(), destructive=False, cleans_disks=False, reboots=True),
    Action(name='clean', verb='clean', option='clean_steps', runs_from=('manageable',),
           targets=None, request_fields=('clean_steps',), done_by=(), destructive=False, cleans_disks=True,
           reboots=True),
    Action(name='rebuild', verb='rebuild', option='rebuild', runs_from=('active', 'deploy failed', 'error'),
           targets=('active',), request_fields=('deploy_steps', 'configdrive'), done_by=('active',),
           destructive=True, cleans_disks=False, reboots=True),
    Action(name='service', verb='service', option='service_steps', runs_from=('active', 'service failed'),
           targets=('active',), request_fields=('service_steps',), done_by=(), destructive=False,
           cleans_disks=False, reboots=True),
    # A runbook (API 1.92) runs as a manual clean on the way to manageable or available, as servicing on an
    # active node: one option, two rows, the declared state chooses.
    Action(name='clean runbook', verb='clean', option='runbook', runs_from=('manageable',),
           targets=('manageable', 'available'), request_fields=('runbook',), done_by=(), destructive=False,
           cleans_disks=True, reboots=True),
    Action(name='service runbook', verb='service', option='runbook', runs_from=('active', 'service failed'),
           targets=('active',), request_fields=('runbook',), done_by=(), destructive=False, cleans_disks=False,
           reboots=True),
    # Wiping the disks for good (decommissioning): a manual clean with the deploy interface's erase step
    # (ERASE_STEPS). Data cannot come back, so it is destructive.
    Action(name='erase', verb='clean', option='erase', runs_from=('manageable',), targets=('manageable',),
           request_fields=('clean_steps',), done_by=(), destructive=True, cleans_disks=True, reboots=True),
)
ACTIONS_BY_NAME = dict((action.name, action) for action in ACTIONS)

# erase -> the clean step of the deploy interface that wipes the disks that way (ironic-python-agent's).
ERASE_STEPS = {
    'metadata': {'interface': 'deploy', 'step': 'erase_devices_metadata'},
    'full': {'interface': 'deploy', 'step': 'erase_devices'},
}

# Ironic's own interfaces that offer no step of their kind (drivers/modules/noop.py; fake.py: FakeDeploy has none, and
# FakeRAID's create/delete_configuration are not clean steps), read from the node's <interface>_interface field: Ironic
# has no API that lists a node's steps. An interface not named here (a vendor's) is trusted.
STEPLESS_INTERFACES = {'bios': ('no-bios',), 'raid': ('no-raid', 'fake'), 'firmware': ('no-firmware',),
                       'deploy': ('fake',)}

# Verbs Ironic refuses for a node whose interface for them is its no-op one (drivers/modules/noop.py: "Driver ... does
# not support inspect"), as a field of the node and that interface's name. Ironic's default for inspection on a
# hardware type without an inspector is no-inspect.
VERB_INTERFACES = {'inspect': ('inspect_interface', 'no-inspect'), 'rescue': ('rescue_interface', 'no-rescue')}


def interface_field(interface):
    """The node field that selects the node's interface of a kind (bios -> bios_interface)."""
    return interface + '_interface'


def steps_not_offered(node, steps):
    """[(interface, the node's field for it, the field's value, ['interface.step' of each step it does not offer])],
    one per interface of steps (dicts with interface and step) that is one of STEPLESS_INTERFACES on the node."""
    missing = []
    for interface in sorted(set(step['interface'] for step in steps)):
        field = interface_field(interface)
        if node.get(field) in STEPLESS_INTERFACES.get(interface, ()):
            missing.append((interface, field, node[field], ['%s.%s' % (interface, step['step'])
                                                            for step in steps if step['interface'] == interface]))
    return missing


# verb -> the fields of its provision request; an action named otherwise than its verb sends its own row's.
REQUEST_FIELDS = dict(MOVE_REQUEST_FIELDS, **dict((action.verb, action.request_fields) for action in ACTIONS
                                                  if action.name == action.verb))

# Verbs that tear down or re-image a workload; actions that do are destructive by their row (Step.destructive).
DESTRUCTIVE_VERBS = frozenset(('deleted',) + tuple(action.verb for action in ACTIONS
                                                   if action.destructive and action.name == action.verb))

# Verbs whose path runs cleaning, which wipes disks (automated cleaning on provide and teardown;
# manual cleaning runs the steps it is given).
DISK_CLEANING_VERBS = frozenset(('provide', 'deleted') + tuple(action.verb for action in ACTIONS if action.cleans_disks))

# Verbs that may power-cycle the node (to boot a ramdisk, deploy or tear down).
REBOOTING_VERBS = frozenset(('provide', 'active', 'deleted', 'rescue', 'unrescue')
                            + tuple(action.verb for action in ACTIONS if action.reboots))

# A step that is not a provision verb: take the node out of the maintenance Ironic put it in because of
# a fault (DELETE /v1/nodes/{node}/maintenance clears the fault with it). The node rests where it was.
CLEAR_FAULT = 'clear_fault'

# A step that is not a provision verb: make the node's instance_info hold the keys the task gives
# (PATCH /v1/nodes/{node}) before the first verb that reads them. The node rests where it was.
SET_INSTANCE_INFO = 'set_instance_info'

# A step that is not a provision verb: set the node's retired flag and reason as declared (PATCH
# /v1/nodes/{node}). Ironic refuses to retire an available node; a retired one is never made available again,
# and its teardown ends in manageable (NODE_FLAGS). The node rests where it was.
SET_RETIRED = 'set_retired'

# What a person calls a step where the API's word is a target: progress lines, plans and summaries say deploy, not
# 'active' (step_word). Every other step is shown as it is named.
STEP_WORDS = {
    'active': 'deploy',
    'deleted': 'undeploy',
    CLEAR_FAULT: 'clear fault',
    SET_INSTANCE_INFO: 'set instance_info',
    SET_RETIRED: 'set retired',
}


def step_word(verb):
    """A step as a person names it, in progress lines, plans and summaries alike: deploy for the verb 'active'."""
    return STEP_WORDS.get(verb, verb)


# Steps done once Ironic answers their request: nothing moves, so there is nothing to wait for.
DONE_WHEN_ANSWERED = frozenset((SET_INSTANCE_INFO, SET_RETIRED))
