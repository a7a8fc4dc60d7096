# -*- coding: utf-8 -*-
"""Declaring a runbook: what Ironic would refuse, comparing with its runbook, and the writes that follow."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import runbook
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .fake_collections import FakeCollection
from . import step_sets

STEP = {'interface': 'vendor', 'step': 'log_passthrough', 'order': 1}


def params(**fields):
    declared = dict(name='CUSTOM_FIRMWARE', state='present', steps=[STEP], public=None, owner=None, extra=None,
                    traits=None, description=None)
    declared.update(fields)
    return declared


def stored(**fields):
    """A runbook as Ironic returns it."""
    return dict({'uuid': 'r1', 'name': 'CUSTOM_FIRMWARE', 'public': False, 'owner': None, 'extra': {},
                 'disable_ramdisk': False, 'description': None, 'traits': [],
                 'steps': [{'interface': 'vendor', 'step': 'log_passthrough', 'args': {}, 'order': 1}]}, **fields)


def fake_ironic(runbooks=(), version=(1, 115)):
    """Runbooks in memory, recording every write."""
    return FakeCollection(version, runbooks, lambda n: stored(uuid='r%d' % n, steps=[]))


RUNBOOKS = step_sets.StepSet(runbook, runbook.ensure_runbook, 'runbook', params, stored, fake_ironic)


@pytest.mark.parametrize('declared, words', [
    (params(steps=[{'interface': 'vendor', 'step': 'log_passthrough'}]), "steps[0] lacks 'order'"),
    (params(steps=[dict(STEP, interface='network')]), "steps[0].interface 'network' is not an interface"),
    (params(steps=[dict(STEP, priority=1)]), "steps[0] has the unknown key 'priority'"),
    (params(steps=[dict(STEP, order=-1)]), 'steps[0].order must be a whole number'),
    (params(steps=[STEP, dict(STEP, order=2)]), 'steps has vendor.log_passthrough 2 times'),
    (params(steps=[]), 'steps is an empty list'),
    (params(name='fw update'), "name 'fw update' may only hold letters"),
    (params(traits=['custom_lower']), "traits: 'custom_lower' is not a trait"),
    (params(public=True, owner='p1'), 'owner and public: true do not go together'),
])
def test_a_declaration_ironic_would_refuse_is_refused_before_any_write(declared, words):
    step_sets.refused_before_any_write(RUNBOOKS, declared, words)


def test_before_1_112_the_name_is_a_trait_and_traits_and_description_are_refused_naming_the_versions():
    errors = runbook.declaration_errors(params(name='firmware', traits=['CUSTOM_X'], description='d'), (1, 92))
    assert any("name 'firmware' must be a trait before Ironic API 1.112 (this server supports up to 1.92)" in error
               for error in errors)
    assert any(error.startswith('traits needs Ironic API 1.112 or newer; this server supports up to 1.92')
               for error in errors)
    assert any(error.startswith('description needs Ironic API 1.112') for error in errors)
    assert runbook.declaration_errors(params(), (1, 92)) == []
    assert runbook.declaration_errors(params(name='firmware-update'), (1, 112)) == []


def test_an_api_before_1_92_has_no_runbooks():
    client = fake_ironic(version=(1, 91))
    with pytest.raises(IronicError, match=r'runbooks needs Ironic API 1\.92'):
        runbook.ensure_runbook(client, params(), check_mode=False)


def test_steps_compare_as_ironic_stores_them():
    declared = runbook.declared_fields(params(steps=[dict(STEP, order='2', args=None), dict(STEP, step='b', order=1)],
                                              traits=['CUSTOM_B', 'CUSTOM_A', 'CUSTOM_A']))
    assert declared['steps'] == [{'interface': 'vendor', 'step': 'b', 'args': {}, 'order': 1},
                                 {'interface': 'vendor', 'step': 'log_passthrough', 'args': {}, 'order': 2}]
    assert declared['traits'] == ['CUSTOM_A', 'CUSTOM_B']
    assert runbook.changed_fields(stored(), runbook.declared_fields(params())) == []
    assert runbook.changed_fields(stored(), runbook.declared_fields(params(public=True, traits=['CUSTOM_A']))) == [
        'public', 'traits']


def test_step_argument_secrets_compare_as_ironic_shows_them_and_never_show():
    step_sets.step_argument_secrets_compare_as_ironic_shows_them_and_never_show(RUNBOOKS, dict(STEP, args={'admin_password': 'hunter2'}))


def test_a_new_runbook_is_created_with_its_traits_and_a_rerun_writes_nothing():
    client = fake_ironic()
    declared = params(traits=['CUSTOM_FIRMWARE'], extra={'ticket': '4711'})
    preview = runbook.ensure_runbook(client, declared, check_mode=True)
    assert preview['changed'] is True and client.writes == []
    assert preview['diff']['before'] == {} and preview['diff']['after']['traits'] == ['CUSTOM_FIRMWARE']
    result = runbook.ensure_runbook(client, declared, check_mode=False)
    assert result['changed'] is True
    assert [write[0] for write in client.writes] == ['create', 'traits']
    assert 'traits' not in client.writes[0][1]  # Ironic refuses traits in the body (its /traits sub-resource sets them)
    assert result['runbook']['traits'] == ['CUSTOM_FIRMWARE'] and result['runbook']['extra'] == {'ticket': '4711'}
    client.writes = []
    again = runbook.ensure_runbook(client, declared, check_mode=False)
    assert again['changed'] is False and client.writes == []
    assert again['diff']['before'] == again['diff']['after']


def test_a_changed_runbook_is_patched_where_it_differs_and_check_mode_only_shows_it():
    client = fake_ironic(runbooks=[stored(traits=['CUSTOM_FIRMWARE'])])
    declared = params(steps=[dict(STEP, args={'level': 'debug'})], public=True)
    preview = runbook.ensure_runbook(client, declared, check_mode=True)
    assert preview['changed'] is True and client.writes == []
    assert preview['diff']['before']['public'] is False and preview['diff']['after']['public'] is True
    result = runbook.ensure_runbook(client, declared, check_mode=False)
    assert client.writes == [('update', 'r1', [
        {'op': 'replace', 'path': '/public', 'value': True},
        {'op': 'replace', 'path': '/steps', 'value': [{'interface': 'vendor', 'step': 'log_passthrough',
                                                      'args': {'level': 'debug'}, 'order': 1}]}])]
    assert result['runbook']['public'] is True and result['runbook']['traits'] == ['CUSTOM_FIRMWARE']


def test_a_missing_runbook_needs_its_steps():
    with pytest.raises(BaremetalError, match='give its steps to create it'):
        runbook.ensure_runbook(fake_ironic(), params(steps=None), check_mode=False)


def test_absent_deletes_the_runbook_once():
    step_sets.absent_deletes_once(RUNBOOKS)
