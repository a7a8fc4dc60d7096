# -*- coding: utf-8 -*-
"""How a task on many nodes ends (fleet/outcome.py): totals, the failure budget, one shape for one node and many."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time


from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import Report, failure_message, over_budget, totals


def test_totals_count_changed_and_failed():
    summary = totals([{'changed': True}, {'changed': False, 'error': 'x'}, {}], time.monotonic(), 7)
    assert (summary['nodes'], summary['changed'], summary['failed'], summary['api_calls']) == (3, 1, 1, 7)


def end(results, labels, started, single, max_fail_percentage=None):
    """How a task with these results ends: ('fail' or 'exit', its message, its result, its warnings)."""
    message, result, warnings = Report(results, labels, single, None, max_fail_percentage).outcome(started, 3)
    return 'fail' if message else 'exit', message, result, warnings


def many_results():
    return [node_result({'name': 'a'}, True, diff={'before': {'x': 1}, 'after': {'x': 2}}),
            node_result({'name': 'b'}, diff={'before': {}, 'after': {}}),
            node_result(None, error="No node is named or has the UUID 'c'.")]


def test_many_nodes_end_with_one_shape_and_a_diff_for_each_node_that_changed():
    how, msg, result, warnings = end(many_results(), ['a', 'b', 'c'], time.monotonic(), single=False, max_fail_percentage=50)
    assert how == 'exit' and msg is None
    assert [sorted(node) for node in result['nodes']] == [['changed', 'error', 'node']] * 3
    assert result['totals']['nodes'] == 3 and result['totals']['changed'] == 1 and result['totals']['failed'] == 1
    assert result['totals']['api_calls'] == 3
    assert result['failed_nodes'] == ['c'] and result['changed'] is True
    assert result['diff'] == [{'before': {'x': 1}, 'after': {'x': 2}, 'before_header': 'a', 'after_header': 'a'}]
    assert warnings == ["c: No node is named or has the UUID 'c'."]


def test_a_failure_over_the_budget_fails_the_task_and_one_node_is_the_task():
    how, msg, result, _warnings = end(many_results(), ['a', 'b', 'c'], time.monotonic(), single=False)
    assert how == 'fail' and msg == "1 of the 2 nodes to change failed: c: No node is named or has the UUID 'c'."
    assert result['failed_nodes'] == ['c']
    assert end(many_results()[2:], ['c'], time.monotonic(), single=True) == (
        'fail', "No node is named or has the UUID 'c'.", {'node': None, 'changed': False}, [])
    assert end(many_results()[:1], ['a'], time.monotonic(), single=True) == (
        'exit', None, {'node': {'name': 'a'}, 'changed': True, 'diff': {'before': {'x': 1}, 'after': {'x': 2}}}, [])


def test_the_budget_is_a_percentage_of_the_nodes_to_change():
    # Nodes already as declared (the last two) cannot fail, and do not water the budget down.
    results = [{'error': 'x'}, {'changed': True}, {'changed': True}, {'changed': True}, {'changed': False}, {}]
    assert failure_message(results, 'abcdef', max_fail_percentage=25) is None
    assert failure_message(results, 'abcdef', max_fail_percentage=20) == (
        '1 of the 4 nodes to change failed (max_fail_percentage is 20): a: x')


def test_the_budget_is_written_as_a_task_writes_it_not_as_the_float_ansible_hands_over():
    results = [{'error': 'x'}, {'error': 'y'}, {'changed': True}, {'changed': True}]
    assert failure_message(results, 'abcd', max_fail_percentage=0.0).startswith(
        '2 of the 4 nodes to change failed (max_fail_percentage is 0): ')
    assert failure_message(results, 'abcd', max_fail_percentage=12.5).startswith(
        '2 of the 4 nodes to change failed (max_fail_percentage is 12.5): ')


def test_nodes_whose_wave_never_started_are_named_after_the_failures():
    results = [{'error': 'x', 'wave': 1, 'started': True}, {'changed': True, 'wave': 1, 'started': True},
               {'changed': False, 'wave': 2, 'started': False}, {'changed': False, 'wave': None, 'started': False}]
    assert failure_message(results, 'abcd', max_fail_percentage=0) == (
        '1 of the 3 nodes to change failed (max_fail_percentage is 0): a: x | Not started, as no wave starts once the '
        'failures are over the budget: c.')
    assert totals(results, time.monotonic(), 0)['not_started'] == 1


def test_over_budget_is_more_than_the_percentage_of_the_nodes_to_change():
    assert not over_budget(0, 10, 0)
    assert over_budget(1, 10, 0) and over_budget(1, 10, None)
    assert not over_budget(1, 10, 10) and over_budget(2, 10, 10)


def test_the_warnings_a_node_result_carries_are_the_tasks_whether_it_fails_or_not_and_leave_the_result():
    def results():
        return [node_result({'name': 'a'}, True, warnings=['node a: kept']), node_result({'name': 'b'}, error='node b: failed')]
    how, _msg, result, warnings = end(results()[:1], ['a'], time.monotonic(), single=True)
    assert how == 'exit' and warnings == ['node a: kept'] and 'warnings' not in result
    how, _msg, result, warnings = end(results(), ['a', 'b'], time.monotonic(), single=False)
    assert how == 'fail' and warnings == ['node a: kept'] and all('warnings' not in node for node in result['nodes'])
    how, _msg, _result, warnings = end(results(), ['a', 'b'], time.monotonic(), single=False, max_fail_percentage=50)
    assert how == 'exit' and warnings == ['node a: kept', 'b: node b: failed']
