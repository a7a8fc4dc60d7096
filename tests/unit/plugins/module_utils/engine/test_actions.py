# -*- coding: utf-8 -*-
"""The table of actions (engine/actions.py): each action is a verb of Ironic's machine, and what is derived from it agrees."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import (
    ACTIONS, DESTRUCTIVE_VERBS, DISK_CLEANING_VERBS, DONE_WHEN_ANSWERED, ERASE_STEPS, MOVE_REQUEST_FIELDS, REBOOTING_VERBS, REQUEST_FIELDS)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import action_step
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.requests import NODE_STEP_METHODS


EVENTS = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)
AT_REST = set(state for state, (kind, _target) in states.STATES.items() if kind in (states.STABLE, states.FAILED))


@pytest.mark.parametrize('action', ACTIONS, ids=lambda action: action.name)
def test_every_action_is_a_verb_ironic_accepts_in_every_state_it_runs_from(action):
    assert action.verb in states.VERBS
    for source in action.runs_from:
        assert source in AT_REST
        assert (source, states.VERBS[action.verb]) in EVENTS, (source, action.verb)
    # the first state it runs from is where it runs in place: it comes back there
    entered = EVENTS[(action.runs_from[0], states.VERBS[action.verb])]
    assert states.LANDING_OVERRIDES.get((action.runs_from[0], action.verb), states.STATES[entered][1]) == \
        action.runs_from[0]
    assert all(verb in states.MOVE_VERBS for verb in action.done_by)
    assert action.targets is None or set(action.targets) <= set(states.DECLARABLE_STATES)


@pytest.mark.parametrize('action', ACTIONS, ids=lambda action: action.name)
def test_every_request_field_of_an_action_is_sent_with_its_verb(action):
    step = action_step(action, action.runs_from[0], action.runs_from[0])
    arguments = Options(erase='metadata').arguments(step.verb, step.action)
    assert set(action.request_fields) == set(arguments)


def test_verb_sets_are_derived_from_the_actions_named_after_their_verb_and_the_others_say_it_on_their_steps():
    for action in ACTIONS:
        step = action_step(action, action.runs_from[0], action.runs_from[0])
        flags = (action.destructive, action.cleans_disks, action.reboots)
        assert (step.destructive, step.cleans_disks, step.reboots) == flags
        if action.name == action.verb:
            assert step.action is None
            assert (action.verb in DESTRUCTIVE_VERBS) is action.destructive
            assert (action.verb in DISK_CLEANING_VERBS) is action.cleans_disks
            assert (action.verb in REBOOTING_VERBS) is action.reboots
        else:
            assert step.action is action and step.as_dict()['action'] == action.name
    assert set(states.MOVE_VERBS) <= set(states.VERBS)


def test_the_steps_that_are_not_verbs_do_not_collide_with_one():
    assert not set(NODE_STEP_METHODS) & set(states.VERBS)
    assert DONE_WHEN_ANSWERED <= set(NODE_STEP_METHODS)


def test_request_fields_are_those_of_the_moves_and_of_the_actions():
    assert set(MOVE_REQUEST_FIELDS) <= set(states.MOVE_VERBS)
    for action in ACTIONS:
        if action.name == action.verb:
            assert REQUEST_FIELDS[action.verb] == action.request_fields


def test_an_option_answered_by_several_actions_has_one_for_each_declared_state():
    for option in set(action.option for action in ACTIONS):
        rows = [action for action in ACTIONS if action.option == option]
        if len(rows) > 1:
            targets = [state for row in rows for state in row.targets]
            assert len(targets) == len(set(targets)), option


def test_every_erase_is_a_step_of_the_deploy_interface():
    assert sorted(ERASE_STEPS) == ['full', 'metadata']
    assert all(step['interface'] == 'deploy' for step in ERASE_STEPS.values())
