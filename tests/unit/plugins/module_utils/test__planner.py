# -*- coding: utf-8 -*-
"""The planner over every (state, target, policy): plans are valid in Ironic's machine and safe."""

import pytest
from hypothesis import given, strategies as st

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _planner as planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils import _states as states

AT_REST = sorted(state for state, (kind, _target) in states.STATES.items() if kind in (states.STABLE, states.FAILED))
EVENTS = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)
# Events the conductor fires by itself on the way to success.
SUCCESS_EVENTS = ('done', 'wait', 'resume', 'clean', 'manage')


def lands_in(source, verb):
    """Every state reachable after issuing verb from source, following only conductor success events."""
    entered = EVENTS[(source, states.VERBS[verb])]
    seen, frontier = {entered}, [entered]
    while frontier:
        state = frontier.pop()
        if states.STATES[state][0] != states.TRANSIENT:
            continue
        for event in SUCCESS_EVENTS:
            following = EVENTS.get((state, event))
            if following and following not in seen:
                seen.add(following)
                frontier.append(following)
    return seen


def assert_valid(steps, current, target, allow_destructive, adopt):
    state = planner.normalize_state(current)
    for step in steps:
        assert step.source == state
        assert (step.source, states.VERBS[step.verb]) in EVENTS, step
        assert step.landing in lands_in(step.source, step.verb), step
        assert states.STATES[step.landing][0] == states.STABLE
        assert allow_destructive or not step.destructive
        if adopt:
            assert step.verb not in ('active', 'rebuild')
        state = step.landing
    assert state == target


policies = st.fixed_dictionaries({'allow_destructive': st.booleans(), 'adopt': st.booleans(),
                                  'clean': st.booleans()})


@given(current=st.sampled_from(AT_REST + [None]), target=st.sampled_from(states.DECLARABLE_STATES), policy=policies)
def test_every_plan_is_valid_in_ironics_machine_and_safe(current, target, policy):
    try:
        steps = planner.plan(current, target, **policy)
    except planner.PlanError as exc:
        assert str(exc)
        return
    assert_valid(steps, current, target, policy['allow_destructive'], policy['adopt'])
    if policy['clean'] and planner.normalize_state(current) != target:
        assert [step.verb for step in steps].count('clean') == 1


@pytest.mark.parametrize('current', AT_REST)
@pytest.mark.parametrize('target', ['manageable', 'available', 'active', 'rescue'])
def test_every_target_is_reachable_from_every_state_at_rest_with_opt_in(current, target):
    steps = planner.plan(current, target, allow_destructive=True)
    assert_valid(steps, current, target, True, False)


@pytest.mark.parametrize('current', AT_REST)
@pytest.mark.parametrize('target', ['manageable', 'available', 'active', 'rescue'])
def test_refusal_names_the_destructive_step_and_the_option(current, target):
    try:
        steps = planner.plan(current, target)
    except planner.PlanError as exc:
        message = str(exc)
        assert 'allow_destructive: true' in message
        assert 'deleted' in message or 'rebuild' in message
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
    ('manageable', 'available', {'clean': True}, ['clean', 'provide']),
    ('available', 'available', {'clean': True}, ['manage', 'clean', 'provide']),
    ('manageable', 'manageable', {'clean': True}, ['clean']),
    ('available', 'manageable', {'clean': True}, ['manage', 'clean']),
    ('active', 'active', {'rebuild': True, 'allow_destructive': True}, ['rebuild']),
    ('active', 'active', {}, []),
])
def test_known_paths(current, target, options, verbs):
    assert [step.verb for step in planner.plan(current, target, **options)] == verbs


def test_disk_cleaning_is_flagged():
    steps = planner.plan('enroll', 'available')
    assert [step.as_dict()['cleans_disks'] for step in steps] == [False, True]


@pytest.mark.parametrize('current, target, options, words', [
    ('manageable', 'enroll', {}, ["no transition back to 'enroll'", 'Delete the node']),
    ('clean hold', 'available', {}, ['unhold', 'abort']),
    ('deploying', 'active', {}, ['still moving']),
    ('available', 'rescue', {'adopt': True}, ['adopt: true only applies to state: active']),
    ('active', 'active', {'rebuild': True}, ['allow_destructive: true']),
    ('available', 'available', {'rebuild': True}, ['needs state: active']),
    ('active', 'available', {}, ["destructive step deleted (active -> available)", 'allow_destructive: true']),
    ('no such state', 'available', {}, ['does not know']),
])
def test_refusals_say_why_and_what_to_do(current, target, options, words):
    with pytest.raises(planner.PlanError) as caught:
        planner.plan(current, target, **options)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize('provision_state, target_provision_state, at_rest', [
    ('available', None, True),
    ('available', 'active', False),  # accepted, not yet moved
    ('deploying', 'active', False),
    ('clean failed', 'available', True),
    ('clean hold', 'available', True),
    (None, None, True),
])
def test_at_rest(provision_state, target_provision_state, at_rest):
    assert planner.is_at_rest(provision_state, target_provision_state) is at_rest
