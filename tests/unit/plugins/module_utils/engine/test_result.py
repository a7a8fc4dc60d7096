# -*- coding: utf-8 -*-
"""One node's result and the one rule that names a node (engine/result.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import (
    fail, held, hold, mark, node_label, node_name, node_result)

UUID = '1be26c0b-03f2-4d2d-ae87-c02d7f33c123'


@pytest.mark.parametrize('node, fallback, expected', [
    ({'name': 'rack1-node07', 'uuid': UUID}, 'nodes[0] (x)', 'rack1-node07'),
    ({'name': None, 'uuid': UUID}, 'nodes[0] (x)', UUID),
    (None, 'x', 'x'),  # a name the task gave that matched no node
    ({}, None, None),
])
def test_a_node_is_named_by_its_name_else_its_uuid_else_by_what_the_task_gave(node, fallback, expected):
    assert node_label(node, fallback) == expected


def test_a_diff_header_names_a_node_by_its_name_as_read_or_declared_else_as_the_task_names_it():
    assert node_name(node_result({'name': 'a', 'uuid': UUID}), 'nodes[0] (a)') == 'a'
    assert node_name(node_result(None, name='declared'), 'nodes[0] (declared)') == 'declared'
    # A node without a name keeps the task's label, not its UUID: the diff header says which element it is.
    assert node_name(node_result({'name': None, 'uuid': UUID}), 'nodes[0] (%s)' % UUID) == 'nodes[0] (%s)' % UUID


def test_every_result_has_its_node_changed_and_error_then_its_modules_parts():
    assert node_result(None) == {'node': None, 'changed': False, 'error': None}
    assert node_result({'uuid': UUID}, True, plan=[], diff={'before': {}, 'after': {}}) == {
        'node': {'uuid': UUID}, 'changed': True, 'error': None, 'plan': [], 'diff': {'before': {}, 'after': {}}}


def test_a_failure_is_recorded_on_the_result_itself_with_the_parts_it_sets():
    result = node_result({'uuid': UUID}, True, plan=[])
    assert fail(result, 'node x: refused.', changed=False) is result
    assert result == {'node': {'uuid': UUID}, 'changed': False, 'error': 'node x: refused.', 'plan': []}
    partial = {'node': None}  # what an exception carries: the failure completes it
    assert fail(dict(partial), 'boom') == {'node': None, 'error': 'boom'} and partial == {'node': None}


def test_waves_mark_each_result_and_a_held_node_is_one_whose_wave_never_started():
    planned = node_result({'uuid': UUID}, True)
    waiting = mark(dict(planned), 2, False)
    assert (waiting['wave'], waiting['started'], held(waiting)) == (2, False, True)
    assert hold(waiting) is waiting and (waiting['changed'], waiting['error']) == (False, None) and held(waiting)
    assert not held(mark(dict(planned), 1, True))
    assert not held(mark(dict(planned), None, False))  # needs no change: in no wave, not held back
    assert not held(planned)  # a task without waves
