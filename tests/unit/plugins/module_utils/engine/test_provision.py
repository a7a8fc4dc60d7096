# -*- coding: utf-8 -*-
"""Planning one node from what Ironic reports, per-node options, and what results show."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import ACTIONS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import provision
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import NODE_OPTION_TYPES, Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError, Step

from .recording import IMAGE, RecordingClient, node, verbs


@pytest.mark.parametrize('fields, options, expected', [
    ({}, {'inspection': 'once'}, ['manage', 'inspect', 'provide']),
    ({'inspection_finished_at': '2026-01-01T00:00:00+00:00'}, {'inspection': 'once'}, ['manage', 'provide']),
    ({'inspection_finished_at': '2026-01-01T00:00:00+00:00'}, {'inspection': 'always'},
     ['manage', 'inspect', 'provide']),
    ({}, {'inspection': 'skip'}, ['manage', 'provide']),
    ({}, {'clean_steps': [{'interface': 'deploy', 'step': 'erase_devices'}]}, ['manage', 'clean', 'provide']),
])
def test_inspection_and_cleaning_from_enroll(fields, options, expected):
    assert verbs(provision.plan_node(node('enroll', **fields), 'available', Options(**options))) == expected


def test_inspection_once_leaves_an_active_node_alone_and_always_needs_allow_destructive():
    active = node('active')
    assert provision.plan_node(active, 'active', Options(inspection='once')) == []
    with pytest.raises(PlanError) as caught:
        provision.plan_node(active, 'active', Options(inspection='always'))
    assert 'allow_destructive: true' in str(caught.value)


def test_node_flags_come_from_the_node_view():
    retired = node('manageable', retired=True, retired_reason='end of life')
    with pytest.raises(PlanError) as caught:
        provision.plan_node(retired, 'available', Options())
    assert 'retired node (reason: end of life)' in str(caught.value)
    assert provision.node_flags(node('active', protected=True, protected_reason='db', maintenance=False)) == {
        'protected': 'db'}


def test_a_node_that_must_never_be_powered_off_is_planned_as_ironic_runs_it():
    # Ironic reboots such a node where it would power it off, and refuses no verb for it.
    keep_on = node('manageable', disable_power_off=True)
    assert provision.node_flags(keep_on) == {'disable_power_off': None}
    assert verbs(provision.plan_node(keep_on, 'available', Options(inspection='always'))) == ['inspect', 'provide']
    assert states.NODE_FLAGS['disable_power_off'].refuses == ()


def test_a_fault_is_cleared_only_when_asked_and_a_hold_resumed_only_when_asked():
    failed = node('service failed', target_provision_state='active', maintenance=True,
                  maintenance_reason='step failed', fault='service failure')
    with pytest.raises(PlanError) as caught:
        provision.plan_node(failed, 'active', Options())
    assert 'clear_fault: true' in str(caught.value)
    assert verbs(provision.plan_node(failed, 'active', Options(clear_fault=True))) == ['clear_fault', 'abort']
    held = node('clean hold', target_provision_state='manageable')
    with pytest.raises(PlanError):
        provision.plan_node(held, 'manageable', Options())
    assert provision.plan_node(held, 'manageable', Options(unhold=True)) == [
        Step('unhold', 'clean hold', 'manageable')]


# A value of each action option that asks for its action.
ASKING = {'clean_steps': [{'interface': 'vendor', 'step': 'x'}], 'service_steps': [{'interface': 'vendor', 'step': 'x'}],
          'rebuild': True, 'inspection': 'always', 'runbook': 'CUSTOM_FIRMWARE', 'erase': 'metadata'}


@pytest.mark.parametrize('action', ACTIONS, ids=lambda action: action.name)
def test_an_action_is_asked_for_by_its_option_and_sends_its_request_fields(action):
    assert action.option in NODE_OPTION_TYPES  # a nodes: element may ask for it too
    options = Options(**{action.option: ASKING[action.option]})
    target = (action.targets or ('manageable',))[0]
    assert options.actions(node('manageable'), target) == ([action.name], [])
    assert Options().actions(node('manageable'), target) == ([], [])
    step = graph.action_step(action, action.runs_from[0], action.runs_from[0])
    assert sorted(options.arguments(step.verb, step.action)) == sorted(action.request_fields)


@pytest.mark.parametrize('target, expected', [('manageable', ['clean runbook']), ('available', ['clean runbook']),
                                              ('active', ['service runbook']),
                                              ('rescue', ['clean runbook', 'service runbook'])])
def test_a_runbook_is_a_manual_clean_on_the_way_to_manageable_or_available_and_servicing_of_an_active_node(target, expected):
    options = Options(runbook='CUSTOM_FIRMWARE')
    assert options.actions(node('manageable'), target) == (expected, [])


def test_a_runbook_step_sends_the_runbook_and_no_steps():
    options = Options(runbook='CUSTOM_FIRMWARE', clean_steps=[{'interface': 'vendor', 'step': 'x'}])
    steps = provision.plan_node(node('manageable'), 'manageable', options)
    shown = [(step.verb, step.action and step.action.name) for step in steps]
    assert shown == [('clean', None), ('clean', 'clean runbook')]
    assert options.arguments(steps[0].verb, steps[0].action) == {'clean_steps': [{'interface': 'vendor', 'step': 'x'}]}
    assert options.arguments(steps[1].verb, steps[1].action) == {'runbook': 'CUSTOM_FIRMWARE'}
    serviced = provision.plan_node(node('active'), 'active', Options(runbook='CUSTOM_FIRMWARE'))
    assert [(step.verb, step.source, step.landing, step.action.name) for step in serviced] == [
        ('service', 'active', 'active', 'service runbook')]
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('manageable'), 'rescue', Options(runbook='CUSTOM_FIRMWARE'))
    assert 'runbook needs state: manageable or available or active' in str(caught.value)


def test_erase_is_a_destructive_manual_clean_with_the_deploy_interfaces_erase_step():
    options = Options(erase='full')
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('manageable'), 'manageable', options)
    assert 'erase (manageable -> manageable)' in str(caught.value) and 'allow_destructive: true' in str(caught.value)
    steps = provision.plan_node(node('manageable'), 'manageable', options.overridden(allow_destructive=True))
    assert [(step.verb, step.action.name, step.destructive, step.cleans_disks) for step in steps] == [
        ('clean', 'erase', True, True)]
    assert options.arguments(steps[0].verb, steps[0].action) == {
        'clean_steps': [{'interface': 'deploy', 'step': 'erase_devices'}]}
    assert Options(erase='metadata').arguments('clean', steps[0].action) == {
        'clean_steps': [{'interface': 'deploy', 'step': 'erase_devices_metadata'}]}


@pytest.mark.parametrize('state, retired, options, expected', [
    # retired before the teardown, which then ends in manageable (no automated clean to available)
    ('active', False, {'retired': True, 'allow_destructive': True}, ['set_retired', 'deleted']),
    ('active', False, {'retired': True, 'retired_reason': 'end of life', 'allow_destructive': True, 'erase': 'metadata'},
     ['set_retired', 'deleted', 'clean']),
    # Ironic never retires an available node: first to manageable
    ('available', False, {'retired': True}, ['manage', 'set_retired']),
    ('manageable', False, {'retired': True}, ['set_retired']),
    ('manageable', True, {'retired': True}, []),
    ('manageable', True, {'retired': True, 'retired_reason': 'new reason'}, ['set_retired']),
    # unretired first, so that it may be made available again
    ('manageable', True, {'retired': False}, []),
])
def test_retiring_is_a_step_of_the_plan_where_ironic_takes_it(state, retired, options, expected):
    target = 'available' if options.get('retired') is False else 'manageable'
    current = node(state, retired=retired, retired_reason='old reason' if retired else None)
    if options.get('retired') is False:
        expected = ['set_retired', 'provide']
    assert verbs(provision.plan_node(current, target, Options(**options))) == expected


def test_retiring_refuses_what_ironic_would():
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('manageable'), 'available', Options(retired=True))
    assert 'Ironic never makes a retired node available' in str(caught.value)
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('manageable'), 'manageable', Options(retired_reason='eol'))
    assert 'set retired: true as well' in str(caught.value)
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('active'), 'manageable', Options(retired=True))
    assert 'allow_destructive: true' in str(caught.value)


@pytest.mark.parametrize('state, stored, options, expected', [
    ('available', {}, {}, ['active']),
    ('available', IMAGE, {}, ['active']),
    ('available', IMAGE, {'instance_info': IMAGE}, ['active']),
    ('available', {}, {'instance_info': IMAGE}, ['set_instance_info', 'active']),
    ('available', {}, {'instance_info': {'image_source': None}}, ['active']),
    ('available', IMAGE, {'instance_info': {'image_source': None}}, ['set_instance_info', 'active']),
    ('enroll', {}, {'instance_info': IMAGE}, ['manage', 'provide', 'set_instance_info', 'active']),
    ('manageable', {}, {'instance_info': IMAGE, 'adopt': True}, ['set_instance_info', 'adopt']),
    ('active', {}, {'instance_info': IMAGE, 'rebuild': True, 'allow_destructive': True},
     ['set_instance_info', 'rebuild']),
])
def test_a_plan_that_deploys_first_sets_the_instance_info_keys_that_differ(state, stored, options, expected):
    steps = provision.plan_node(node(state, instance_info=stored), 'active', Options(**options))
    assert verbs(steps) == expected
    if 'set_instance_info' in expected:
        before = steps[expected.index('set_instance_info') + 1]
        assert steps[expected.index('set_instance_info')] == Step('set_instance_info', before.source, before.source)


def test_instance_info_is_not_set_by_a_plan_that_does_not_deploy():
    assert verbs(provision.plan_node(node('enroll'), 'available', Options(instance_info=IMAGE))) == [
        'manage', 'provide']


def test_rescue_needs_a_password():
    with pytest.raises(PlanError) as caught:
        provision.plan_node(node('active'), 'rescue', Options())
    assert 'rescue_password' in str(caught.value)


def test_what_inspection_learned_is_returned_without_secrets():
    client = RecordingClient(inventory={'bmc_address': '127.0.0.1', 'interfaces': [{'name': 'eth0', 'token': 't0k'}]},
                             properties={'cpus': 8, 'ipmi_password': 'hunter2'})
    learned = provision.learned_by_inspection(client, 'u1', [{'verb': 'inspect', 'from': 'manageable',
                                                              'to': 'manageable'}])
    assert learned['properties']['cpus'] == 8 and learned['inventory']['bmc_address'] == '127.0.0.1'
    assert 'hunter2' not in str(learned) and 't0k' not in str(learned)
    assert provision.learned_by_inspection(client, 'u1', [{'verb': 'manage', 'from': 'enroll', 'to': 'manageable'}]) \
        is None


def test_diff_shows_the_provision_state_before_and_after():
    results = [{'node': {'uuid': 'u1', 'name': 'n1', 'provision_state': 'available'},
                'plan': [{'verb': 'manage', 'from': 'enroll', 'to': 'manageable'},
                         {'verb': 'provide', 'from': 'manageable', 'to': 'available'}]},
               {'node': {'uuid': 'u2', 'name': None, 'provision_state': 'active'}, 'plan': []}]
    assert provision.provision_diff(results[0], False) == {
        'before': {'provision_state': 'enroll'}, 'after': {'provision_state': 'available'}}
    checked = [dict(results[0], node=dict(results[0]['node'], provision_state='enroll')), results[1]]
    assert [provision.provision_diff(result, True) for result in checked] == [
        {'before': {'provision_state': 'enroll'}, 'after': {'provision_state': 'available'}},
        {'before': {'provision_state': 'active'}, 'after': {'provision_state': 'active'}}]
