# -*- coding: utf-8 -*-
"""The planner over every (state, target, policy, actions, node flags): plans are valid in Ironic's machine and safe."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import (
    ACTIONS, ACTIONS_BY_NAME, CLEAR_FAULT)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities

AT_REST = sorted(state for state, (kind, _target) in states.STATES.items() if kind in (states.STABLE, states.FAILED))
HOLDS = sorted(state for state, (kind, _target) in states.STATES.items() if kind == states.HOLD)
EVENTS = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)
# The newest release (None) and each release from which an edge exists, and the oldest supported one.
RELEASES = [None] + sorted(set(capabilities.TRANSITION_SINCE.values()) | {capabilities.SUPPORTED_RELEASE})


def events_of(release):
    return dict(((source, event), destination) for source, event, destination in states.transitions(release))


# Events the conductor fires by itself on the way to success.
SUCCESS_EVENTS = ('done', 'wait', 'resume', 'clean', 'manage')
ACTION_NAMES = [action.name for action in ACTIONS]
# Where a hold resumes to: the node's target_provision_state (a manual clean's hold goes back to manageable).
HELD_TARGETS = {'clean hold': ('available', 'manageable'), 'deploy hold': ('active',), 'service hold': ('active',)}


def lands_in(source, verb, events=None):
    """Every state reachable after issuing verb from source, following only conductor success events."""
    events = events or EVENTS
    entered = events[(source, states.VERBS[verb])]
    seen, frontier = {entered}, [entered]
    while frontier:
        state = frontier.pop()
        if states.STATES[state][0] != states.TRANSIENT:
            continue
        for event in SUCCESS_EVENTS:
            following = events.get((state, event))
            if following and following not in seen:
                seen.add(following)
                frontier.append(following)
    return seen


def assert_valid(steps, current, target, allow_destructive=False, adopt=False, flags=(), clear_fault=False, release=None):
    events = events_of(release)
    state = graph.normalize_state(current)
    refused = set()
    for flag in flags:
        if states.NODE_FLAGS[flag].refuses != states.ALL_VERBS:
            refused.update(states.NODE_FLAGS[flag].refuses)
    for index, step in enumerate(steps):
        assert step.source == state
        if step.verb == CLEAR_FAULT:
            assert index == 0 and clear_fault and 'maintenance' in flags and step.landing == step.source
            continue
        assert (step.source, states.VERBS[step.verb]) in events, (step, release)
        assert step.landing in lands_in(step.source, step.verb, events), step
        assert states.STATES[step.landing][0] == states.STABLE
        assert allow_destructive or not step.destructive
        assert step.verb not in refused, step
        if adopt:
            assert step.verb not in ('active', 'rebuild')
        state = step.landing
    assert state == target
    if 'maintenance' in flags and steps:
        assert steps[0].verb == CLEAR_FAULT


def action_steps(steps, name):
    action = ACTIONS_BY_NAME[name]
    return [step for step in steps if step.verb == action.verb and step.source in action.runs_from
            and (step.action or ACTIONS_BY_NAME[step.verb]) is action]


requests = st.fixed_dictionaries({
    'allow_destructive': st.booleans(),
    'adopt': st.booleans(),
    'actions': st.lists(st.sampled_from(ACTION_NAMES), unique=True),
    'optional_actions': st.lists(st.sampled_from(ACTION_NAMES), unique=True, max_size=1),
    'unhold': st.booleans(),
    'flags': st.dictionaries(st.sampled_from(list(states.NODE_FLAGS)), st.sampled_from([None, 'a reason'])),
    'fault': st.sampled_from([None] + sorted(states.FAULTS)),
    'clear_fault': st.booleans(),
    'release': st.sampled_from(RELEASES),
})


@settings(max_examples=400, deadline=None)
@given(current=st.sampled_from(AT_REST + HOLDS + [None]), target=st.sampled_from(states.DECLARABLE_STATES),
       request=requests, data=st.data())
def test_every_plan_is_valid_in_ironics_machine_safe_and_skips_no_action(current, target, request, data):
    held_target = data.draw(st.sampled_from(HELD_TARGETS[current])) if current in HOLDS else None
    try:
        steps = planner.plan(current, target, held_target=held_target, **request)
    except graph.PlanError as exc:
        assert str(exc)
        return
    assert_valid(steps, current, target, request['allow_destructive'], request['adopt'], request['flags'],
                 request['clear_fault'], request['release'])
    if current in HOLDS:
        assert request['unhold'] and [step.verb for step in steps if step.verb != CLEAR_FAULT][0] == 'unhold'
    resumed = steps and steps[0].verb == 'unhold' or (len(steps) > 1 and steps[1].verb == 'unhold')
    for name in request['actions']:
        action = ACTIONS_BY_NAME[name]
        ran = action_steps(steps, name)
        done_on_the_way = any(step.verb in action.done_by for step in steps)
        # every asked-for action runs once, unless a step on the way does its work or the unhold finishes it
        assert len(ran) == 1 or (not ran and (done_on_the_way or resumed)), (name, steps)
    if request['optional_actions']:
        # an optional action (inspection: once) never adds a destructive step
        without = planner.plan(current, target, held_target=held_target, **dict(request, optional_actions=[]))
        assert sum(step.destructive for step in steps) == sum(step.destructive for step in without)


@pytest.mark.parametrize('release', RELEASES)
@pytest.mark.parametrize('current', AT_REST)
@pytest.mark.parametrize('target', ['manageable', 'available', 'active', 'rescue'])
def test_every_target_is_reachable_from_every_state_at_rest_with_opt_in(current, target, release):
    steps = planner.plan(current, target, allow_destructive=True, release=release)
    assert_valid(steps, current, target, True, False, release=release)


@pytest.mark.parametrize('release, verbs', [
    (None, ['abort']),
    ((32, 0), ['abort']),  # 'abort' out of 'service failed' from Ironic 32.0
    ((29, 1), ['rescue', 'unrescue']),
    ((24, 1), ['rescue', 'unrescue']),
])
def test_a_failed_service_goes_back_to_active_the_way_the_servers_release_allows(release, verbs):
    assert [step.verb for step in planner.plan('service failed', 'active', release=release)] == verbs
    # servicing again runs from 'service failed' on every release
    assert [step.verb for step in planner.plan('service failed', 'active', actions=['service'], release=release)] == [
        'service']


@pytest.mark.parametrize('release, verbs', [
    (None, ['deleted']),
    ((29, 0), ['deleted']),  # 'deleted' out of 'service failed' from Ironic 29.0
    ((26, 1), ['rescue', 'deleted']),
])
def test_a_failed_service_is_torn_down_the_way_the_servers_release_allows(release, verbs):
    steps = planner.plan('service failed', 'available', allow_destructive=True, release=release)
    assert [step.verb for step in steps] == verbs


def test_the_ways_out_a_release_lacks_are_named_with_the_release_that_has_them():
    assert planner.missing_ways_out('service failed', None) == ''
    assert planner.missing_ways_out('service failed', (32, 0)) == ''
    assert planner.missing_ways_out('clean failed', (24, 1)) == ''
    assert planner.missing_ways_out('service failed', capabilities.OLDER_RELEASE) == planner.missing_ways_out(
        'service failed', (24, 1))
    assert planner.missing_ways_out('service failed', (29, 0)) == (
        " 'abort' out of 'service failed' exists from Ironic 32.0, and this server is older."
        " From 'service failed' this server still takes service (service_steps) or service runbook (runbook).")
    assert planner.missing_ways_out('service failed', (24, 1)).startswith(
        " 'deleted' out of 'service failed' exists from Ironic 29.0, and this server is older; 'abort' out of")


@pytest.mark.parametrize('current', AT_REST)
@pytest.mark.parametrize('target', ['manageable', 'available', 'active', 'rescue'])
def test_refusal_names_the_destructive_step_and_the_option(current, target):
    try:
        steps = planner.plan(current, target)
    except graph.PlanError as exc:
        message = str(exc)
        assert 'allow_destructive: true' in message
        assert 'undeploy' in message or 'rebuild' in message
        # the refusal is right: every path needs a destructive step
        assert any(step.destructive for step in planner.plan(current, target, allow_destructive=True))
    else:
        assert not any(step.destructive for step in steps)


@pytest.mark.parametrize('current, target, options, verbs', [
    ('enroll', 'manageable', {}, ['manage']),
    ('enroll', 'available', {}, ['manage', 'provide']),
    ('enroll', 'active', {}, ['manage', 'provide', 'active']),
    ('enroll', 'active', {'adopt': True}, ['manage', 'adopt']),
    ('available', 'active', {'adopt': True}, ['manage', 'adopt']),
    ('enroll', 'rescue', {}, ['manage', 'provide', 'active', 'rescue']),
    ('available', 'manageable', {}, ['manage']),
    ('active', 'available', {'allow_destructive': True}, ['deleted']),
    ('active', 'manageable', {'allow_destructive': True}, ['deleted', 'manage']),
    ('rescue', 'active', {}, ['unrescue']),
    ('rescue', 'available', {'allow_destructive': True}, ['deleted']),
    ('clean failed', 'available', {}, ['manage', 'provide']),
    ('inspect failed', 'manageable', {}, ['manage']),
    ('adopt failed', 'active', {'adopt': True}, ['adopt']),
    ('adopt failed', 'manageable', {}, ['manage']),
    ('deploy failed', 'active', {}, ['active']),
    ('deploy failed', 'available', {'allow_destructive': True}, ['deleted']),
    ('rescue failed', 'active', {}, ['unrescue']),
    ('rescue failed', 'rescue', {}, ['rescue']),
    ('unrescue failed', 'active', {}, ['unrescue']),
    ('service failed', 'active', {}, ['abort']),
    ('error', 'active', {'allow_destructive': True}, ['rebuild']),
    ('error', 'available', {'allow_destructive': True}, ['deleted']),
    (None, 'active', {}, ['active']),
    # in-place actions: the path to where the action runs, the action, the path on
    ('manageable', 'available', {'actions': ['clean']}, ['clean', 'provide']),
    ('available', 'available', {'actions': ['clean']}, ['manage', 'clean', 'provide']),
    ('available', 'manageable', {'actions': ['clean']}, ['manage', 'clean']),
    ('active', 'active', {'actions': ['rebuild'], 'allow_destructive': True}, ['rebuild']),
    ('available', 'active', {'actions': ['rebuild']}, ['active']),  # a fresh deploy is the rebuild
    ('deploy failed', 'active', {'actions': ['rebuild'], 'allow_destructive': True}, ['rebuild']),
    ('active', 'active', {}, []),
    ('enroll', 'available', {'actions': ['inspect']}, ['manage', 'inspect', 'provide']),
    ('inspect failed', 'manageable', {'actions': ['inspect']}, ['inspect']),
    ('active', 'active', {'actions': ['inspect'], 'allow_destructive': True},
     ['deleted', 'manage', 'inspect', 'provide', 'active']),
    ('enroll', 'available', {'optional_actions': ['inspect']}, ['manage', 'inspect', 'provide']),
    ('active', 'active', {'optional_actions': ['inspect'], 'allow_destructive': True}, []),  # once never tears down
    ('enroll', 'enroll', {'optional_actions': ['inspect']}, []),  # ... nor makes a reachable target unreachable
    ('manageable', 'manageable', {'optional_actions': ['inspect']}, ['inspect']),
    ('active', 'active', {'actions': ['service']}, ['service']),
    ('available', 'active', {'actions': ['service']}, ['active', 'service']),
    ('service failed', 'active', {'actions': ['service']}, ['service']),  # runs the steps again from the failure
    ('enroll', 'active', {'actions': ['service', 'clean', 'inspect']},
     ['manage', 'inspect', 'clean', 'provide', 'active', 'service']),
    # holds: resumed only with unhold; the work they interrupted is finished, not started again
    ('service hold', 'active', {'unhold': True, 'held_target': 'active'}, ['unhold']),
    ('service hold', 'active', {'unhold': True, 'held_target': 'active', 'actions': ['service']}, ['unhold']),
    ('clean hold', 'manageable', {'unhold': True, 'held_target': 'manageable'}, ['unhold']),
    ('clean hold', 'available', {'unhold': True, 'held_target': 'available', 'actions': ['clean']},
     ['unhold', 'manage', 'clean', 'provide']),
    ('deploy hold', 'active', {'unhold': True, 'held_target': 'active'}, ['unhold']),
    # node flags
    ('active', 'manageable', {'flags': {'retired': 'old'}, 'allow_destructive': True}, ['deleted']),
    ('manageable', 'manageable', {'flags': {'retired': 'old'}, 'actions': ['clean']}, ['clean']),
    ('active', 'active', {'flags': {'protected': 'db'}, 'actions': ['service']}, ['service']),
    ('rescue', 'active', {'flags': {'protected': 'db'}}, ['unrescue']),
    ('manageable', 'manageable', {'flags': {'maintenance': 'dimm'}}, []),
    ('service failed', 'active', {'flags': {'maintenance': 'step failed'}, 'fault': 'service failure',
                                  'clear_fault': True}, ['clear_fault', 'abort']),
    ('service failed', 'active', {'flags': {'maintenance': 'step failed'}, 'fault': 'service failure',
                                  'clear_fault': True, 'actions': ['service']}, ['clear_fault', 'service']),
    ('clean failed', 'available', {'flags': {'maintenance': 'step failed'}, 'fault': 'clean failure',
                                   'clear_fault': True}, ['clear_fault', 'manage', 'provide']),
])
def test_known_paths(current, target, options, verbs):
    assert [step.verb for step in planner.plan(current, target, **options)] == verbs


def test_each_step_says_whether_it_cleans_disks_is_destructive_and_reboots():
    steps = planner.plan('enroll', 'available', actions=['inspect'])
    assert [(step.verb, step.as_dict()['cleans_disks'], step.as_dict()['reboots']) for step in steps] == [
        ('manage', False, False), ('inspect', False, True), ('provide', True, True)]
    assert planner.plan('active', 'active', actions=['rebuild'], allow_destructive=True)[0].as_dict()['destructive']


def test_each_step_is_named_in_the_words_of_the_progress_lines_beside_its_api_verb():
    shown = [step.as_dict() for step in planner.plan('manageable', 'active')]
    assert [(step['verb'], step['name']) for step in shown] == [('provide', 'provide'), ('active', 'deploy')]
    shown = [step.as_dict() for step in planner.plan('active', 'manageable', allow_destructive=True)]
    assert [(step['verb'], step['name']) for step in shown] == [('deleted', 'undeploy'), ('manage', 'manage')]


@pytest.mark.parametrize('current, target, options, words', [
    ('manageable', 'enroll', {}, ["no transition back to 'enroll'", 'Delete the node']),
    ('clean hold', 'available', {}, ["'clean hold'", 'unhold: true']),
    ('service hold', 'active', {'actions': ['service']}, ["'service hold'", 'unhold: true']),
    ('deploying', 'active', {}, ['still moving']),
    ('available', 'rescue', {'adopt': True}, ['adopt: true only applies to state: active']),
    ('active', 'active', {'actions': ['rebuild']}, ['allow_destructive: true']),
    ('available', 'available', {'actions': ['rebuild']}, ['rebuild needs state: active']),
    ('available', 'available', {'actions': ['service']}, ['service_steps needs state: active']),
    ('active', 'available', {}, ["destructive step undeploy (active -> available)", 'allow_destructive: true']),
    ('active', 'active', {'actions': ['inspect']}, ["inspect runs in 'manageable'", 'allow_destructive: true']),
    ('no such state', 'available', {}, ['does not know']),
    # node flags: the flag, its reason and how to clear it
    ('manageable', 'available', {'flags': {'retired': 'end of life'}},
     ['provide (manageable -> available)', 'retired node', 'end of life', 'baremetal_node retired: false']),
    ('active', 'available', {'flags': {'retired': 'end of life'}, 'allow_destructive': True},
     ['provide (manageable -> available)', 'retired node', 'baremetal_node retired: false']),
    ('active', 'available', {'flags': {'protected': 'db primary'}, 'allow_destructive': True},
     ['undeploy (active -> available)', 'protected node', 'db primary', 'baremetal_node protected: false']),
    ('active', 'available', {'flags': {'protected': None}},
     ['protected node', 'protected: false', 'allow_destructive: true']),
    ('active', 'active', {'flags': {'protected': None}, 'actions': ['rebuild'], 'allow_destructive': True},
     ['rebuild (active -> active)', 'protected node', 'protected: false']),
    ('manageable', 'available', {'flags': {'maintenance': 'replacing DIMM B2'}},
     ['replacing DIMM B2', 'baremetal_maintenance maintenance: false']),
    ('service failed', 'active', {'flags': {'maintenance': 'step failed'}, 'fault': 'service failure'},
     ["fault 'service failure'", 'step failed', 'clear_fault: true', 'baremetal_maintenance maintenance: false']),
])
def test_refusals_say_why_and_what_to_do(current, target, options, words):
    with pytest.raises(graph.PlanError) as caught:
        planner.plan(current, target, **options)
    for word in words:
        assert word in str(caught.value)
