# -*- coding: utf-8 -*-
"""An inspection rule as Ironic accepts and returns it: what a declaration may hold, and its normal form."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import inspection_rule as rules

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *([os.pardir] * 5)))
IRONIC_VENV = os.environ.get('BAREMETAL_LIFECYCLE_IRONIC_VENV') or os.path.join(ROOT, '.work', 'ironic-venv')
TRAIT = {'op': 'add-trait', 'args': {'name': 'CUSTOM_X'}}


def rule(**fields):
    return dict({'name': 'x86 nodes', 'state': 'present', 'actions': [TRAIT]}, **fields)


def errors_of(declared):
    return ' '.join(rules.rule_errors('inspection rule %r' % declared.get('name'), declared))


def test_a_good_rule_has_no_problem():
    assert rules.rule_errors('r', rule(priority=9999, phase='main', sensitive=True, conditions=[
        {'op': '!is-empty', 'args': {'value': '{inventory[bmc_address]}'}},
        {'op': 'eq', 'args': {'values': ['{item}', 'x86_64']}, 'loop': ['a', 'b'], 'multiple': 'all'},
        {'op': 'one-of', 'args': {'value': 1}}])) == []


@pytest.mark.parametrize('declared, words', [
    (rule(conditions=[{'op': 'is_empty', 'args': {'value': 1}}]),
     "conditions[0].op 'is_empty' is not an operator of Ironic's inspection rules (did you mean 'is-empty'?); valid "
     "ones: contains, eq, gt, in-net, is-empty, is-false, is-none, is-true, lt, matches, one-of (each may be negated "
     "with a leading !)."),
    (rule(actions=[{'op': 'rename-node', 'args': {}}]), "actions[0].op 'rename-node' is not an action of Ironic's "
     "inspection rules; valid ones: add-trait, api-call, del-attribute, del-port-attribute, extend-attribute, "),
    (rule(actions=[{'op': 'add-trait', 'args': {'trait': 'CUSTOM_X'}}]), 'actions[0].args of add-trait lacks name.'),
    (rule(actions=[{'op': 'add-trait', 'args': {'trait': 'CUSTOM_X'}}]),
     'actions[0].args of add-trait has trait, which add-trait does not take: it takes name.'),
    (rule(actions=[{'op': 'set-plugin-data', 'args': {'path': 'a', 'value': 1, 'plugin_data': {}}}]),
     'has plugin_data, which set-plugin-data does not take'),
    (rule(conditions=[{'op': 'eq', 'args': ['{inventory[cpu][count]}', 2]}]),
     "conditions[0].args of eq is a list: give a dictionary of named arguments (force_strings, values)"),
    (rule(conditions=[{'op': 'in-net', 'args': 'x'}]), 'conditions[0].args of in-net must be a dictionary'),
    (rule(conditions=[{'op': 'eq', 'args': {'values': [1]}, 'field': 'x'}]), "conditions[0] has 'field', which Ironic "
     "does not keep: a condition has op, args, loop, multiple."),
    (rule(actions=[dict(TRAIT, multiple='any')]), "actions[0] has 'multiple', which Ironic does not keep"),
    (rule(conditions=[{'op': 'eq', 'args': {'values': [1]}, 'multiple': 'all'}]), 'conditions[0].multiple needs a loop'),
    (rule(conditions=[{'op': 'eq', 'args': {'values': [1]}, 'loop': [1], 'multiple': 'most'}]),
     'conditions[0].multiple must be one of any, all, first, last.'),
    (rule(conditions=[{'op': 'eq', 'args': {'values': [1]}, 'loop': 'abc'}]), 'conditions[0].loop must be a list'),
    (rule(conditions=['eq']), 'conditions[0] must be a dictionary with op and args.'),
    (rule(actions=[]), 'actions is empty: a rule needs at least one action.'),
    (rule(priority=10000), 'priority must be a whole number from 0 to 9999, got 10000.'),
    (rule(priority=-1), 'priority must be a whole number from 0 to 9999, got -1.'),
    (rule(phase='early'), "phase 'early' is not a phase of inspection rules; valid ones: main."),
    (rule(name='n' * 256), "the name holds 256 characters; Ironic keeps at most 255 in a rule's description."),
    (rule(name=' '), 'needs a name'),
    (rule(actions=[{'op': 'log', 'args': {'msg': 'x', 'level': 'loud'}}]),
     "actions[0].args of log has level 'loud'; valid ones: debug, info, warning, error, critical."),
])
def test_a_declaration_ironic_would_refuse_is_named_with_what_ironic_knows(declared, words):
    assert words in errors_of(declared)


def test_an_absent_rule_needs_only_its_name():
    assert rules.rule_errors('r', {'name': 'gone', 'state': 'absent', 'actions': [{'op': 'nope'}]}) == []


def test_every_problem_of_a_rule_is_named_at_once():
    found = rules.rule_errors('r', rule(priority=-1, conditions=[{'op': 'nope', 'args': {}}],
                                        actions=[{'op': 'add-trait', 'args': {}}]))
    assert len(found) == 3


def test_the_normal_form_is_the_one_ironic_returns():
    declared = rules.declared_fields(rule(priority=None, conditions=[
        {'op': 'eq', 'args': {'values': [1, 1]}},
        {'op': 'eq', 'args': {'values': ['{item}', 1]}, 'loop': [1, 2]},
        {'op': 'eq', 'args': {'values': [1, 1]}, 'loop': []}],
        actions=[TRAIT, {'op': 'set-plugin-data', 'args': {'path': 'a', 'value': 1}}, dict(TRAIT, loop=[])]))
    assert 'priority' not in declared  # unset keeps Ironic's value
    assert declared['conditions'] == [{'op': 'eq', 'args': {'values': [1, 1]}},
                                      {'op': 'eq', 'args': {'values': ['{item}', 1]}, 'loop': [1, 2], 'multiple': 'any'},
                                      {'op': 'eq', 'args': {'values': [1, 1]}}]
    assert declared['actions'] == [TRAIT, {'op': 'set-plugin-data', 'args': {'path': 'a', 'value': 1, 'plugin_data': {}}},
                                   TRAIT]


# Ironic's own tables, as the Ironic the collection is tested with has them: name -> [required, optional] arguments.
IRONIC_TABLES = """
import json
from ironic.common.inspection_rules import actions, operators
print(json.dumps([dict((name, getattr(module, cls)().get_validation_signature()) for name, cls in table.items())
                  for module, table in ((operators, operators.OPERATORS), (actions, actions.ACTIONS))]))
"""


def test_the_operator_and_action_tables_are_those_of_the_ironic_under_test():
    python = os.path.join(IRONIC_VENV, 'bin', 'python')
    if not os.path.exists(python):
        pytest.skip('no Ironic virtualenv at %s (make venv builds it)' % IRONIC_VENV)
    output = subprocess.run([python, '-c', IRONIC_TABLES], capture_output=True, text=True, check=True, timeout=300)
    theirs = [dict((name, (tuple(required), tuple(optional))) for name, (required, optional) in table.items())
              for table in json.loads(output.stdout.splitlines()[-1])]
    for name in rules.PLUGIN_DATA_ACTIONS:  # Ironic fills plugin_data in itself
        required, optional = theirs[1][name]
        theirs[1][name] = (tuple(arg for arg in required if arg != 'plugin_data'), optional)
    assert theirs == [rules.OPERATORS, rules.RULE_ACTIONS]
