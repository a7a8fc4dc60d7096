# -*- coding: utf-8 -*-
"""Declaring inspection rules: finding each by its name, the plan (pure), and the writes that follow."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import inspection_rule_writer as writer

from .fake_collections import FakeCollection

TRAIT = {'op': 'add-trait', 'args': {'name': 'CUSTOM_X'}}
X86 = {'op': 'eq', 'args': {'values': ['{inventory[cpu][architecture]}', 'x86_64']}}
SECRET = 'pw-0123456789'


def declared(**fields):
    return dict({'name': 'x86', 'state': 'present', 'priority': None, 'phase': None, 'sensitive': None,
                 'conditions': [X86], 'actions': [TRAIT]}, **fields)


def stored(**fields):
    """A rule as Ironic returns it (a sensitive one with its conditions and actions hidden)."""
    rule = dict({'uuid': 'u1', 'description': 'x86', 'priority': 0, 'phase': 'main', 'sensitive': False,
                 'conditions': [X86], 'actions': [TRAIT]}, **fields)
    if rule['sensitive']:
        rule.update(conditions=None, actions=None)
    return rule


def fake_ironic(version=(1, 115), rules=(), kind=FakeCollection):
    """Inspection rules in memory, recording every write."""
    return kind(version, rules, lambda n: {'uuid': 'u%d' % n}, lambda rule: stored(**rule))


def ensure(client, *declarations, **options):
    return writer.ensure_inspection_rules(client, list(declarations), options.get('update_sensitive', 'on_create'),
                                          options.get('check_mode', False))


def test_a_missing_rule_is_created_with_ironics_defaults_and_its_name_as_description():
    client = fake_ironic()
    (result,) = ensure(client, declared())
    assert client.writes == [('create', {'description': 'x86', 'priority': 0, 'phase': 'main', 'sensitive': False,
                                         'conditions': [X86], 'actions': [TRAIT]})]
    assert result['changed'] is True and result['rule']['uuid'] == 'u1' and result['rule']['name'] == 'x86'
    assert result['diff']['before'] == {} and result['diff']['after']['actions'] == [TRAIT]


def test_check_mode_plans_the_same_and_writes_nothing():
    client = fake_ironic(rules=[stored()])
    (result,) = ensure(client, declared(priority=5), check_mode=True)
    assert client.writes == [] and result['changed'] is True and result['rule']['priority'] == 5
    (created,) = ensure(client, declared(name='new'), check_mode=True)
    assert client.writes == [] and created['changed'] is True and 'uuid' not in created['rule']


def test_the_same_declaration_again_changes_nothing():
    client = fake_ironic(rules=[stored()])
    (result,) = ensure(client, declared(priority=0, phase='main', sensitive=False))
    assert client.writes == [] and result['changed'] is False
    assert result['diff']['before'] == result['diff']['after']


def test_a_changed_field_is_one_patch_of_that_field_and_unset_options_keep_ironics_value():
    client = fake_ironic(rules=[stored(priority=40)])
    (result,) = ensure(client, declared(actions=[TRAIT, {'op': 'log', 'args': {'msg': 'x86'}}]))
    assert client.writes == [('update', 'u1', [{'op': 'replace', 'path': '/actions',
                                                'value': [TRAIT, {'op': 'log', 'args': {'msg': 'x86'}}]}])]
    assert result['rule']['priority'] == 40 and result['diff']['before']['actions'] == [TRAIT]


def test_a_loop_condition_compares_equal_to_ironics_form_with_multiple_any():
    stored_condition = dict(X86, loop=['a'], multiple='any')
    client = fake_ironic(rules=[stored(conditions=[stored_condition])])
    (result,) = ensure(client, declared(conditions=[dict(X86, loop=['a'])]))
    assert result['changed'] is False and client.writes == []


def test_absent_deletes_the_rule_and_then_does_nothing():
    client = fake_ironic(rules=[stored()])
    (result,) = ensure(client, {'name': 'x86', 'state': 'absent'})
    assert client.writes == [('delete', 'u1')] and result['changed'] is True and result['rule'] is None
    (again,) = ensure(client, {'name': 'x86', 'state': 'absent'})
    assert again['changed'] is False and client.writes == [('delete', 'u1')]


def test_absent_in_check_mode_plans_the_delete_or_nothing_for_a_rule_that_does_not_exist():
    client = fake_ironic(rules=[stored()])
    deleted, missing = ensure(client, {'name': 'x86', 'state': 'absent'}, {'name': 'old', 'state': 'absent'},
                              check_mode=True)
    assert client.writes == [] and deleted['changed'] is True and deleted['rule'] is None
    assert missing['changed'] is False and missing['rule'] is None and missing['diff']['before'] == missing['diff']['after']


def test_a_sensitive_rule_is_never_shown_and_its_hidden_fields_are_written_only_on_create_unless_always():
    action = {'op': 'set-attribute', 'args': {'path': '/extra/note', 'value': SECRET}}
    client = fake_ironic()
    (created,) = ensure(client, declared(sensitive=True, actions=[action]))
    assert client.writes[0][1]['actions'] == [action]
    assert SECRET not in json.dumps(created)
    assert created['rule']['actions'] == writer.secrets.MASK and created['diff']['after']['conditions'] == writer.secrets.MASK
    (again,) = ensure(client, declared(sensitive=True, actions=[TRAIT]))
    assert again['changed'] is False and len(client.writes) == 1
    (rewritten,) = ensure(client, declared(sensitive=True, actions=[action]), update_sensitive='always')
    assert rewritten['changed'] is True and SECRET not in json.dumps(rewritten)
    assert client.writes[1] == ('update', 'u1', [{'op': 'replace', 'path': '/actions', 'value': [action]},
                                                 {'op': 'replace', 'path': '/conditions', 'value': [X86]}])


def test_a_visible_rule_becomes_sensitive_but_a_sensitive_one_never_visible():
    client = fake_ironic(rules=[stored()])
    (result,) = ensure(client, declared(sensitive=True))
    assert client.writes == [('update', 'u1', [{'op': 'replace', 'path': '/sensitive', 'value': True}])]
    assert result['rule']['actions'] == writer.secrets.MASK
    with pytest.raises(BaremetalError) as caught:
        ensure(client, declared(sensitive=False))
    assert 'is sensitive, and Ironic never makes a sensitive rule visible again' in str(caught.value)
    assert len(client.writes) == 1


@pytest.mark.parametrize('declarations, words', [
    ([declared(conditions=[{'op': 'is_empty', 'args': {'value': 1}}])], "'is_empty' is not an operator"),
    ([declared(name='new', actions=None)], "inspection rule 'new' does not exist yet: give its actions to create it."),
    ([declared(), declared(priority=3)], "inspection rule 'x86' is declared more than once in the task."),
])
def test_a_bad_declaration_is_refused_before_any_write_even_when_other_rules_are_good(declarations, words):
    client = fake_ironic()
    with pytest.raises(BaremetalError) as caught:
        ensure(client, declared(name='good'), *declarations)
    assert words in str(caught.value) and client.writes == []


def test_two_rules_of_ironic_with_the_name_are_refused_naming_both():
    client = fake_ironic(rules=[stored(uuid='u1'), stored(uuid='u2')])
    with pytest.raises(BaremetalError) as caught:
        ensure(client, declared(priority=1))
    assert "Ironic holds 2 rules with that description (u1, u2)" in str(caught.value) and client.writes == []


def test_several_rules_read_ironics_rules_once_and_keep_their_order():
    client = fake_ironic(rules=[stored(uuid='u9', description='old')])
    results = ensure(client, declared(name='a'), declared(name='b', priority=3), {'name': 'old', 'state': 'absent'})
    assert client.reads == ['/inspection_rules']
    assert [(result['name'], result['changed']) for result in results] == [('a', True), ('b', True), ('old', True)]
    assert [write[0] for write in client.writes] == ['create', 'create', 'delete']


def test_an_api_older_than_1_96_is_refused_before_any_request_naming_the_version():
    client = fake_ironic(version=(1, 95))
    with pytest.raises(IronicError) as caught:
        ensure(client, declared())
    assert 'inspection rules needs Ironic API 1.96 or newer; this server supports up to 1.95' in str(caught.value)
    assert client.reads == [] and client.writes == []


def test_a_failed_write_reports_the_rules_already_changed():
    class Refusing(FakeCollection):
        def request(self, method, path, body=None, params=None):
            if method == 'POST' and body['description'] == 'b':
                raise IronicError('Ironic refused POST /v1/inspection_rules (HTTP 400): no')
            return FakeCollection.request(self, method, path, body, params)

    client = fake_ironic(kind=Refusing)
    with pytest.raises(IronicError) as caught:
        ensure(client, declared(name='a'), declared(name='b'), declared(name='c'))
    assert caught.value.result['changed'] is True
    assert [(result['name'], result['rule']['uuid']) for result in caught.value.result['rules']] == [('a', 'u1')]
