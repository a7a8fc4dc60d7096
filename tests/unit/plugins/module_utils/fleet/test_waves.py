# -*- coding: utf-8 -*-
"""Waves: which nodes go in which wave, the health gate between waves, and the failure budget."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import Progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import wave_size_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.waves import (
    health_problems, run_in_waves, wave_length)

from ..common.fake_clock import FakeClock

HEALTHY = {'uuid': 'u', 'name': 'n', 'provision_state': 'active', 'target_provision_state': None, 'power_state': 'power on',
           'target_power_state': None, 'maintenance': False, 'fault': None, 'health': 'OK'}


@pytest.mark.parametrize('size, changing, expected', [
    ('3', 10, 3), ('10%', 25, 2), ('10%', 5, 1), ('100%', 7, 7), ('50%', 3, 1), (' 4 ', 2, 4)])
def test_a_wave_holds_a_number_of_nodes_or_a_percentage_rounded_down_but_never_none(size, changing, expected):
    assert wave_length(size, changing) == expected


@pytest.mark.parametrize('size', ['0', '-1', '2.5', 'ten', '0%', '101%', '%', ''])
def test_a_wave_size_that_cannot_be_a_number_of_nodes_is_refused_naming_both_forms_and_their_bounds(size):
    # 0, -1, 2.5 and 101% are numbers and percentages: the message says which ones are taken
    assert wave_size_errors('wave_size', size) == [
        'wave_size must be a whole number of nodes from 1 (such as 10) or a percentage above 0 and up to 100 of the '
        'nodes the task changes (such as "10%%"), got %r.' % size]


def test_waves_need_a_task_that_waits():
    assert 'wave_size needs wait: true' in wave_size_errors('wave_size', '2', wait=False)[0]
    assert wave_size_errors('wave_size', '12.5%', wait=True) == []


@pytest.mark.parametrize('change, declared, reason', [
    ({}, {}, None),
    ({'target_provision_state': 'active'}, {}, "it is still moving (to 'active')"),
    ({'maintenance': True, 'maintenance_reason': 'password=hunter2'}, {},
     'it is in maintenance (reason: password=********)'),
    ({'maintenance': True}, {'maintenance': True}, None),
    ({'fault': 'power failure'}, {}, "Ironic reports the fault 'power failure' (the power state could not be read or set)"),
    ({'power_state': 'power off'}, {}, "its power is 'power off', not 'power on'"),
    ({'power_state': 'power off'}, {'power_state': 'power off'}, None),
    ({'power_state': 'power off', 'provision_state': 'manageable'}, {}, None),
    ({'power_state': None}, {}, None),
    ({'health': 'Warning'}, {}, None),
    ({'health': 'Critical'}, {}, "Ironic reports its health as 'Critical'"),
])
def test_a_node_is_healthy_unless_a_check_says_why_not(change, declared, reason):
    problems = health_problems(dict(HEALTHY, **change), declared)
    assert problems == ([reason] if reason else [])


def test_a_node_of_an_api_before_health_is_judged_without_it():
    node = dict(HEALTHY)
    del node['health']
    assert health_problems(node) == []


class Fleet(object):
    """Nodes held in memory: run_batch changes them, read_nodes reads them; every call is recorded."""

    def __init__(self, count, unchanged=(), failing=(), unhealthy=()):
        self.nodes = dict(('u%d' % index, dict(HEALTHY, uuid='u%d' % index, name='n%d' % index, done=index in unchanged))
                          for index in range(count))
        self.failing = set(failing)
        self.unhealthy = set(unhealthy)
        self.batches = []
        self.reads = []

    def run_batch(self, items, check_mode):
        self.batches.append((list(items), check_mode))
        results = []
        for item in items:
            node = self.nodes['u%d' % item]
            result = {'node': dict(node), 'changed': not node['done'], 'error': None}
            if not check_mode and not node['done']:
                if item in self.failing:
                    result['error'] = 'node %s: deploy failed' % node['name']
                else:
                    node['done'] = True
                    node['maintenance'] = item in self.unhealthy
            results.append(result)
        return results

    def read_nodes(self, uuids):
        self.reads.append(list(uuids))
        return dict((uuid, dict(self.nodes[uuid])) for uuid in uuids)


def run(fleet, size, **options):
    progress_lines = []

    class Lines(Progress):
        def _write(self, record):
            progress_lines.append(json.loads(json.dumps(record)))

    pauses = []
    results, waves = run_in_waves(fleet.read_nodes, list(range(len(fleet.nodes))), fleet.run_batch, size,
                                  progress=Lines(None), sleep=pauses.append, **options)
    return results, waves, pauses, progress_lines


def test_nodes_that_need_a_change_run_wave_after_wave_in_the_order_given():
    fleet = Fleet(8, unchanged=(1, 4))
    results, waves, pauses, lines = run(fleet, '2', wave_pause=5)
    assert waves == [[0, 2], [3, 5], [6, 7]]
    # The plan of every node first, then one batch per wave, each read again after it ran.
    assert fleet.batches == [(list(range(8)), True), ([0, 2], False), ([3, 5], False), ([6, 7], False)]
    assert fleet.reads == [['u0', 'u2'], ['u3', 'u5'], ['u6', 'u7']]
    assert pauses == [5, 5]
    assert [(result['wave'], result['started'], result['changed']) for result in results] == [
        (1, True, True), (None, False, False), (1, True, True), (2, True, True), (None, False, False),
        (2, True, True), (3, True, True), (3, True, True)]
    assert [(line['wave'], line['waves'], line['members'], line['back'], line['failed']) for line in lines] == [
        (1, 3, ['n0', 'n2'], 0, 0), (1, 3, ['n0', 'n2'], 2, 0), (2, 3, ['n3', 'n5'], 0, 0), (2, 3, ['n3', 'n5'], 2, 0),
        (3, 3, ['n6', 'n7'], 0, 0), (3, 3, ['n6', 'n7'], 2, 0)]


def test_check_mode_shows_the_waves_and_runs_nothing():
    fleet = Fleet(5, unchanged=(0,))
    results, waves, pauses, lines = run(fleet, '50%', check_mode=True)
    assert waves == [[1, 2], [3, 4]]
    assert fleet.batches == [(list(range(5)), True)] and fleet.reads == [] and lines == [] and pauses == []
    assert [result['wave'] for result in results] == [None, 1, 1, 2, 2]
    assert not any(node['done'] for index, node in sorted(fleet.nodes.items()) if index != 'u0')


def test_a_failed_node_stops_the_next_waves_and_the_rest_are_not_started():
    fleet = Fleet(6, failing=(3,))
    results, waves, _pauses, lines = run(fleet, '2')
    assert fleet.batches[1:] == [([0, 1], False), ([2, 3], False)]
    assert [(result['wave'], result['started'], result['changed'], bool(result['error'])) for result in results] == [
        (1, True, True, False), (1, True, True, False), (2, True, True, False), (2, True, True, True),
        (3, False, False, False), (3, False, False, False)]
    assert lines[-1]['failed'] == 1
    assert not fleet.nodes['u4']['done'] and not fleet.nodes['u5']['done']


def test_within_the_budget_the_waves_go_on():
    fleet = Fleet(6, failing=(0,))
    results, _waves, _pauses, _lines = run(fleet, '2', max_fail_percentage=20)
    assert all(result['started'] for result in results)
    assert [bool(result['error']) for result in results] == [True, False, False, False, False, False]


def test_a_node_that_comes_back_unhealthy_counts_as_failed_and_stops_the_rollout():
    fleet = Fleet(4, unhealthy=(1,))
    results, _waves, _pauses, _lines = run(fleet, '2')
    assert 'came back from wave 1 unhealthy: it is in maintenance (reason: none given)' in results[1]['error']
    assert results[1]['changed'] is True and results[1]['node']['maintenance'] is True
    assert [result['started'] for result in results] == [True, True, False, False]


def test_what_the_task_declares_is_not_held_against_the_node():
    fleet = Fleet(4, unhealthy=(1,))
    results, _waves, _pauses, _lines = run(fleet, '2', declared=lambda item: {'maintenance': True})
    assert [result['error'] for result in results] == [None] * 4


def test_a_plan_that_fails_counts_before_the_first_wave():
    fleet = Fleet(3)

    def run_batch(items, check_mode):
        results = fleet.run_batch(items, check_mode)
        if check_mode:
            results[2] = dict(results[2], error='node n2: no path', changed=False)
        return results

    results, waves = run_in_waves(fleet.read_nodes, [0, 1, 2], run_batch, '1', progress=Progress(path=''))
    assert waves == [[0], [1]]
    assert [(result['started'], result['error']) for result in results] == [
        (False, None), (False, None), (False, 'node n2: no path')]
    assert len(fleet.batches) == 1


def test_a_wave_refused_as_a_whole_fails_each_of_its_nodes_and_keeps_the_others():
    fleet = Fleet(4)

    def run_batch(items, check_mode):
        if not check_mode and items == [2, 3]:
            raise BaremetalError('node n3 was deleted')
        return fleet.run_batch(items, check_mode)

    results, _waves = run_in_waves(fleet.read_nodes, [0, 1, 2, 3], run_batch, '2', max_fail_percentage=100,
                                   progress=Progress(path=''))
    assert [result['error'] for result in results] == [None, None, 'node n3 was deleted', 'node n3 was deleted']
    assert [result['changed'] for result in results] == [True, True, False, False]


def test_grouped_waves_never_mix_two_groups_and_keep_the_order_each_group_first_appears():
    fleet = Fleet(7, unchanged=(4,))
    groups = {0: 'rack2', 1: 'rack1', 2: 'rack2', 3: 'rack2', 4: 'rack1', 5: 'rack1', 6: 'rack3'}
    results, waves, _pauses, _lines = run(fleet, '2', group_of=groups.get)
    assert waves == [[0, 2], [3], [1, 5], [6]]
    assert fleet.batches[1:] == [([0, 2], False), ([3], False), ([1, 5], False), ([6], False)]
    assert [result['wave'] for result in results] == [1, 3, 1, 2, None, 3, 4]


def test_a_stop_holds_every_wave_not_started_with_its_reason_and_the_started_ones_finish():
    fleet = Fleet(5)
    clock = FakeClock()

    def run_batch(items, check_mode):
        results = fleet.run_batch(items, check_mode)
        if not check_mode:
            clock.sleep(600)  # a wave takes ten minutes
        return results

    def stop():
        return 'the window ended' if clock.clock() >= 900 else None

    results, waves = run_in_waves(fleet.read_nodes, list(range(5)), run_batch, '2', stop=stop,
                                  progress=Progress(path=''))
    # Waves start at 0 and 600 s; the third would start at 1200 s, after the end of the window at 900 s.
    assert waves == [[0, 1], [2, 3], [4]] and [batch for batch, check in fleet.batches if not check] == [[0, 1], [2, 3]]
    assert [(result['started'], result.get('held_by')) for result in results] == [
        (True, None), (True, None), (True, None), (True, None), (False, 'the window ended')]
    assert results[4]['changed'] is False and results[4]['error'] is None and not fleet.nodes['u4']['done']
