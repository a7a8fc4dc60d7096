# -*- coding: utf-8 -*-
"""Setting and clearing maintenance; success against a real Ironic is tested in tests/integration/test_maintenance.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import targets_from_elements
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import (
    STATES, ensure_maintenance, maintenance_of, node_maintenance, refuse_dropped_reasons, task_maintenance,
    wanted_maintenance)


def test_a_reason_is_kept_when_none_is_given_and_dropped_when_maintenance_ends():
    node = {'maintenance': True, 'maintenance_reason': 'fan'}
    assert wanted_maintenance(node, True, None) == (True, 'fan')
    assert wanted_maintenance(node, True, 'disk') == (True, 'disk')
    assert wanted_maintenance(node, False, 'disk') == (False, None)


def test_the_operators_reason_is_masked_where_it_quotes_a_secret():
    node = {'uuid': 'u-1', 'name': 'n1', 'maintenance': True,
            'maintenance_reason': 'BMC rotated, old password=MARKER; see http://admin:MARKER@127.0.0.1:9'}
    result = ensure_maintenance(None, node, False, None, check_mode=True)
    assert result['changed'] is True
    # node, changed and error, as every node's result (engine/result.py), which the task's outcome relies on.
    assert sorted(result) == ['changed', 'diff', 'error', 'maintenance', 'maintenance_reason', 'node']
    assert 'MARKER' not in repr(result)
    assert result['diff']['before']['maintenance_reason'] == \
        'BMC rotated, old password=********; see http://admin:********@127.0.0.1:9'


@pytest.mark.parametrize('maintenance, state, expected', [
    (True, None, True), (False, None, False),  # the word every module uses
    (None, 'enabled', True), (None, 'disabled', False),  # baremetal_maintenance's older spelling
    (None, None, None),
])
def test_maintenance_and_state_are_two_spellings_of_one_setting(maintenance, state, expected):
    assert maintenance_of(maintenance, state) is expected


@pytest.mark.parametrize('maintenance, state', [(True, 'enabled'), (False, 'enabled'), (False, 'disabled')])
def test_both_spellings_at_once_are_refused_even_when_they_agree(maintenance, state):
    with pytest.raises(BaremetalError, match='gives both maintenance and state, two spellings of one setting'):
        maintenance_of(maintenance, state)


def test_an_element_says_its_own_maintenance_in_either_spelling_and_both_are_refused_before_any_request():
    params = {'maintenance': False, 'state': None, 'nodes': ['a', {'node': 'b', 'state': 'enabled'},
                                                             {'node': 'c', 'maintenance': True}]}
    task = task_maintenance(params)
    assert task is False
    assert node_maintenance({'maintenance': None, 'state': None}, task) is False  # 'a': the task's
    assert node_maintenance({'maintenance': None, 'state': 'enabled'}, task) is True  # 'b'
    assert node_maintenance({'maintenance': True, 'state': None}, task) is True  # 'c'
    assert task_maintenance({'maintenance': None, 'state': 'enabled', 'nodes': None}) is True
    params['nodes'].append({'node': 'd', 'maintenance': False, 'state': 'disabled'})
    with pytest.raises(BaremetalError, match=r'^nodes\[3\] gives both maintenance and state'):
        task_maintenance(params)


def test_an_elements_unknown_state_is_left_to_the_check_of_its_options():
    # The element's choices are checked with its other options, which name the element and the choices.
    assert task_maintenance({'maintenance': True, 'state': None, 'nodes': [{'node': 'a', 'state': 'sideways'}]}) is True


def maintenance_task(**given):
    full = dict(node=None, nodes=None, select=None, maintenance=None, state=None, reason=None)
    full.update(given)
    return full


@pytest.mark.parametrize('given', [dict(maintenance=False), dict(state='disabled')])
def test_a_reason_given_with_maintenance_off_is_refused_naming_the_fix(given):
    with pytest.raises(BaremetalError) as caught:
        task_maintenance(maintenance_task(node='n1', reason='Fan noise', **given))
    assert str(caught.value) == (
        'reason is only kept while maintenance is on, and maintenance: false (or state: disabled) takes the node out '
        'of maintenance: drop reason, or set maintenance: true.')
    assert task_maintenance(maintenance_task(node='n1', reason='', **given)) is False


def test_with_nodes_an_elements_own_reason_where_it_is_off_and_a_reason_no_node_takes_are_refused():
    elements = ['a', {'node': 'b', 'maintenance': True}, {'node': 'c', 'reason': 'Disk'}]
    for task_given in (dict(maintenance=False), dict(maintenance=False, reason='Fan')):
        params = maintenance_task(nodes=elements, **task_given)
        task = task_maintenance(params)
        nodes = targets_from_elements(elements, {'maintenance': None, 'state': None, 'reason': params['reason']},
                                      {'maintenance': bool, 'state': tuple(STATES), 'reason': str})
        with pytest.raises(BaremetalError) as caught:
            refuse_dropped_reasons(params, nodes, task)
        assert str(caught.value).startswith('nodes[2] (c): reason is only kept while maintenance is on'), caught.value
        # b takes the task's reason, where there is one: it is not dropped.
        assert "the task's reason" not in str(caught.value)
    params = maintenance_task(nodes=['a', {'node': 'b', 'maintenance': True, 'reason': 'Disk'}], maintenance=False,
                              reason='Fan')
    nodes = targets_from_elements(params['nodes'], {'maintenance': None, 'state': None, 'reason': 'Fan'},
                                  {'maintenance': bool, 'state': tuple(STATES), 'reason': str})
    with pytest.raises(BaremetalError, match="^the task's reason is kept by none of its nodes"):
        refuse_dropped_reasons(params, nodes, False)


def test_a_reason_that_holds_a_secret_is_refused_before_anything_is_read_never_showing_it():
    with pytest.raises(BaremetalError) as caught:
        task_maintenance(maintenance_task(node='n1', maintenance=True, reason='BMC rotated, old password=Zq-old-1'))
    assert str(caught.value).startswith('reason holds what reads as a secret') and 'Zq-old-1' not in str(caught.value)
    with pytest.raises(BaremetalError, match=r'^nodes\[1\]\.reason holds what reads as a secret'):
        task_maintenance(maintenance_task(nodes=['a', {'node': 'b', 'reason': 'ipmi_password: Zq-old-1'}],
                                          maintenance=True))
