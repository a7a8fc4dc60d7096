# -*- coding: utf-8 -*-
"""Setting and clearing maintenance; success against a real Ironic is tested in tests/integration/test_maintenance.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import (
    ensure_maintenance, maintenance_of, node_maintenance, task_maintenance, wanted_maintenance)


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
