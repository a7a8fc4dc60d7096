# -*- coding: utf-8 -*-
"""Declaring deploy templates: what Ironic would refuse, comparing with its templates, and the writes that follow."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import deploy_template as template
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .fake_collections import FakeCollection
from . import step_sets

STEP = {'interface': 'deploy', 'step': 'deploy', 'priority': 150}


def params(**fields):
    declared = dict(name='CUSTOM_FAST', state='present', steps=[STEP], extra=None, templates=None)
    declared.update(fields)
    return declared


def element(**fields):
    return dict(dict(name='CUSTOM_FAST', steps=[STEP], extra=None, state=None), **fields)


def stored(**fields):
    """A deploy template as Ironic returns it."""
    return dict({'uuid': 't1', 'name': 'CUSTOM_FAST', 'extra': {}, 'links': [], 'created_at': '2026-11-26T04:00:00',
                 'steps': [{'interface': 'deploy', 'step': 'deploy', 'args': {}, 'priority': 150}]}, **fields)


def fake_ironic(templates=(), version=(1, 115)):
    """Deploy templates in memory, recording every write."""
    return FakeCollection(version, templates, lambda n: stored(uuid='t%d' % n, extra=None))


TEMPLATES = step_sets.StepSet(template, template.ensure_deploy_templates, 'deploy_template', params, stored, fake_ironic)


@pytest.mark.parametrize('declared, words', [
    (params(name='fast'), "name 'fast' must be a trait: CUSTOM_ followed by capitals"),
    (params(name='CUSTOM_fast'), "name 'CUSTOM_fast' must be a trait"),
    (params(steps=[{'interface': 'deploy', 'step': 'deploy'}]), "steps[0] lacks 'priority'"),
    (params(steps=[dict(STEP, interface='network')]), "steps[0].interface 'network' is not an interface"),
    (params(steps=[dict(STEP, order=1)]), "steps[0] has the unknown key 'order'"),
    (params(steps=[dict(STEP, priority=-1)]), 'steps[0].priority must be a whole number, 0 or more'),
    (params(steps=[dict(STEP, priority='high')]), 'steps[0].priority must be a whole number, 0 or more'),
    (params(steps=[dict(STEP, args=['x'])]), 'steps[0].args must be a dictionary'),
    (params(steps=[STEP, dict(STEP, priority=2)]), 'steps has deploy.deploy 2 times'),
    (params(steps=[]), 'steps is an empty list'),
    (params(name=None, templates=[element(), element(name='bad name', state='absent')]),
     "templates[1].name 'bad name' must be a trait"),
    (params(name=None, templates=[element(), element(steps=[dict(STEP, priority=None)])]),
     'templates[1].steps[0].priority must be a whole number'),
    (params(name=None, templates=[element(), element(state='absent')]), 'templates names CUSTOM_FAST 2 times'),
])
def test_a_declaration_ironic_would_refuse_is_refused_before_any_write(declared, words):
    step_sets.refused_before_any_write(TEMPLATES, declared, words)


def test_every_problem_of_every_template_is_named_at_once():
    declared = params(name=None, templates=[element(name='x', steps=[{'interface': 'bogus'}]), element()])
    errors = template.all_errors(declared, template.declarations(declared))
    assert len(errors) == 4, errors  # the name, the interface, and the two keys the step lacks


def test_an_api_before_1_55_has_no_deploy_templates_and_nothing_is_read_or_written():
    client = fake_ironic(version=(1, 54), templates=[stored()])
    with pytest.raises(IronicError, match=r'deploy templates needs Ironic API 1\.55'):
        template.ensure_deploy_templates(client, params(), check_mode=False)
    assert client.writes == []


def test_steps_compare_as_ironic_stores_them_whatever_their_order():
    declared = template.declared_fields(params(steps=[dict(STEP, priority='150', args=None),
                                                      {'interface': 'bios', 'step': 'apply', 'priority': 0}]))
    assert declared['steps'] == [{'interface': 'bios', 'step': 'apply', 'args': {}, 'priority': 0},
                                 {'interface': 'deploy', 'step': 'deploy', 'args': {}, 'priority': 150}]
    current = stored(steps=list(reversed(declared['steps'])))
    assert template.changed_fields(current, declared) == []
    assert template.changed_fields(stored(), template.declared_fields(params(extra={'a': 1}))) == ['extra']
    assert template.changed_fields(stored(extra=None), template.declared_fields(params(extra={}))) == []


def test_step_argument_secrets_compare_as_ironic_shows_them_and_never_show():
    step_sets.step_argument_secrets_compare_as_ironic_shows_them_and_never_show(TEMPLATES, dict(STEP, args={'bios_password': 'hunter2'}))


def test_a_new_template_is_created_a_rerun_writes_nothing_and_check_mode_only_shows_it():
    client = fake_ironic()
    declared = params(extra={'ticket': '4711'})
    preview = template.ensure_deploy_templates(client, declared, check_mode=True)
    assert preview['changed'] is True and client.writes == []
    assert preview['diff']['before'] == {} and preview['diff']['after']['name'] == 'CUSTOM_FAST'
    result = template.ensure_deploy_templates(client, declared, check_mode=False)
    assert result['changed'] is True
    assert client.writes == [('create', {'name': 'CUSTOM_FAST', 'extra': {'ticket': '4711'}, 'steps': [
        {'interface': 'deploy', 'step': 'deploy', 'args': {}, 'priority': 150}]})]
    assert result['deploy_template']['uuid'] == 't1' and result['deploy_template']['extra'] == {'ticket': '4711'}
    client.writes = []
    again = template.ensure_deploy_templates(client, declared, check_mode=False)
    assert again['changed'] is False and client.writes == []
    assert again['diff']['before'] == again['diff']['after']


def test_a_changed_template_is_patched_where_it_differs():
    client = fake_ironic(templates=[stored(extra={'ticket': '1'})])
    declared = params(steps=[dict(STEP, priority=90)])  # extra left unset keeps Ironic's value
    preview = template.ensure_deploy_templates(client, declared, check_mode=True)
    assert preview['changed'] is True and client.writes == []
    assert preview['diff']['before']['steps'][0]['priority'] == 150
    assert preview['diff']['after']['steps'][0]['priority'] == 90
    result = template.ensure_deploy_templates(client, declared, check_mode=False)
    assert client.writes == [('update', 't1', [{'op': 'replace', 'path': '/steps', 'value': [
        {'interface': 'deploy', 'step': 'deploy', 'args': {}, 'priority': 90}]}])]
    assert result['deploy_template']['extra'] == {'ticket': '1'}


def test_a_missing_template_needs_its_steps():
    client = fake_ironic()
    with pytest.raises(BaremetalError, match='CUSTOM_FAST does not exist yet: give its steps'):
        template.ensure_deploy_templates(client, params(steps=None), check_mode=False)
    assert client.writes == []


def test_absent_deletes_the_template_once():
    step_sets.absent_deletes_once(TEMPLATES)


def test_several_templates_in_one_task_each_converged_with_one_diff_entry_each():
    client = fake_ironic(templates=[stored(), stored(uuid='t9', name='CUSTOM_OLD')])
    declared = params(name=None, steps=None, state='present', templates=[
        element(), element(name='CUSTOM_NEW'), element(name='CUSTOM_OLD', steps=None, state='absent')])
    preview = template.ensure_deploy_templates(client, declared, check_mode=True)
    assert preview['changed'] is True and client.writes == []
    assert sorted(preview['diff']['before']) == ['CUSTOM_FAST', 'CUSTOM_OLD']
    assert sorted(preview['diff']['after']) == ['CUSTOM_FAST', 'CUSTOM_NEW']
    result = template.ensure_deploy_templates(client, declared, check_mode=False)
    assert [write[0] for write in client.writes] == ['create', 'delete']
    assert [item and item['name'] for item in result['deploy_templates']] == ['CUSTOM_FAST', 'CUSTOM_NEW', None]
    client.writes = []
    assert template.ensure_deploy_templates(client, declared, check_mode=False)['changed'] is False
    assert client.writes == []
