# -*- coding: utf-8 -*-
"""Waves against a real Ironic: never more than wave_size nodes in transit, a failure stops the rollout, a rerun
finishes it without touching the nodes already done."""

from __future__ import annotations

import re
import threading
import time

import pytest

from nodes import RawIronic
from test_fleet_task import _MOVED, _deploy_fails


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


class InTransit(object):
    """Polls Ironic every 50 ms while a task runs: the most nodes of a resource class seen with a target at once."""

    def __init__(self, ironic, resource_class):
        self.ironic = ironic
        self.resource_class = resource_class
        self.most = 0
        self.polls = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self._stop.is_set():
            nodes = self.ironic.api('GET', '/nodes?fields=target_provision_state&resource_class=%s' % self.resource_class)
            moving = sum(1 for node in nodes['nodes'] if node['target_provision_state'])
            self.most = max(self.most, moving)
            self.polls += 1
            self._stop.wait(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)


def power_on(ironic, raw, uuid):
    ironic.api('PUT', '/nodes/%s/states/power' % uuid, {'target': 'power on'})
    deadline = time.monotonic() + 30
    while raw.node(uuid)['target_power_state'] and time.monotonic() < deadline:
        time.sleep(0.05)


def moves(ironic, mark, uuids):
    """(uuid, moving) for each logged move of the given nodes: True when it left a stable state, False at rest."""
    with open(ironic.log_path, 'rb') as handle:
        handle.seek(mark)
        log = handle.read().decode('utf-8', 'replace')
    return [(match.group('uuid'), match.group('target') != 'None') for match in _MOVED.finditer(log)
            if match.group('uuid') in uuids]


def request_gaps_before_first_move(ironic, mark, resting, moving):
    """The seconds between consecutive API requests in Ironic's log (from mark), by Ironic's clock, after the last
    of ``resting`` came to rest and up to the first move of one of ``moving`` (a PUT of its provision state)."""
    lines = ironic.timed_log_since(mark)
    rested = max(index for index, (_written, _request, line) in enumerate(lines) for match in [_MOVED.search(line)]
                 if match and match.group('uuid') in resting and match.group('target') == 'None')
    moved = min(index for index, (_written, request, _line) in enumerate(lines) if index > rested and request
                and request.method == 'PUT' and request.path in ['/v1/nodes/%s%s' % (uuid, '/states/provision')
                                                                 for uuid in moving])
    times = [written for written, request, _line in lines[rested + 1:moved + 1] if request]
    return [(later - earlier).total_seconds() for earlier, later in zip(times, times[1:])]


def test_a_rollout_moves_one_wave_at_a_time_and_leaves_the_nodes_already_done_out(raw, ironic, run_module, fresh_node):
    resource_class = 'waves-%d' % int(time.time() * 1000)
    to_move = [fresh_node(resource_class=resource_class) for _index in range(12)]
    done = [fresh_node() for _index in range(2)]
    for node in done:
        raw.verb(node['uuid'], 'manage')
        raw.verb(node['uuid'], 'provide')
    names = [node['name'] for node in to_move]
    given = names[:3] + [done[0]['name']] + names[3:8] + [done[1]['name']] + names[8:]
    uuids = set(node['uuid'] for node in to_move)

    planned = run_module('baremetal_provision_state', check=True, nodes=given, state='available', wave_size='4')
    assert planned['waves'] == [names[0:4], names[4:8], names[8:12]]

    mark = ironic.log_mark()
    with InTransit(ironic, resource_class) as watch:
        result = run_module('baremetal_provision_state', nodes=given, state='available', wave_size='4')
    assert not result.get('failed'), result.get('msg')
    assert result['waves'] == [names[0:4], names[4:8], names[8:12]]
    assert watch.polls > 10 and 2 <= watch.most <= 4, (watch.polls, watch.most)
    entries = dict((entry['node']['name'], entry) for entry in result['nodes'])
    assert [entries[name]['wave'] for name in given] == [1, 1, 1, None, 1, 2, 2, 2, 2, None, 3, 3, 3, 3]
    assert all(entries[node['name']]['changed'] is False for node in done)
    assert result['totals']['changed'] == 12 and result['totals']['not_started'] == 0
    assert [raw.node(node['uuid'])['provision_state'] for node in to_move] == ['available'] * 12

    # From Ironic's own log: every node of a wave is at rest before the first node of the next one moves.
    events = moves(ironic, mark, uuids)
    wave_of = dict((node['uuid'], index // 4) for index, node in enumerate(to_move))
    for wave in (0, 1):
        last_rest = max(index for index, (uuid, moving) in enumerate(events) if wave_of[uuid] == wave and not moving)
        first_move = min(index for index, (uuid, moving) in enumerate(events) if wave_of[uuid] == wave + 1 and moving)
        assert last_rest < first_move
    done_uuids = set(node['uuid'] for node in done)
    assert not [request for request in ironic.write_requests_since(mark) if any(uuid in request.path for uuid in done_uuids)]


def test_a_failed_node_stops_the_waves_after_it_and_a_rerun_finishes_the_rest_alone(raw, ironic, run_module, fresh_node):
    nodes = [raw.node_in('available') for _index in range(6)]
    broken = _deploy_fails(raw, fresh_node)
    fleet = nodes[:2] + [broken] + nodes[2:]  # the broken node is in wave 2 of 4
    names = [node['name'] for node in fleet]

    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', nodes=names, state='active', wave_size='2', wave_pause=1)
    assert result['failed'] is True, result
    assert result['msg'].startswith('1 of the 7 nodes to change failed (max_fail_percentage is 0): %s: ' % broken['name']), result['msg']
    assert 'Not started, as no wave starts once the failures are over the budget: %s.' % ', '.join(names[4:]) in result['msg']
    entries = result['nodes']
    assert [(entry['wave'], entry['started']) for entry in entries] == [
        (1, True), (1, True), (2, True), (2, True), (3, False), (3, False), (4, False)]
    assert [entry['changed'] for entry in entries] == [True, True, True, True, False, False, False]
    assert result['failed_nodes'] == [broken['name']]
    assert result['totals']['not_started'] == 3 and result['totals']['failed'] == 1
    assert [raw.node(node['uuid'])['provision_state'] for node in fleet] == (
        ['active', 'active', 'deploy failed', 'active', 'available', 'available', 'available'])
    # The pause between waves 1 and 2, by Ironic's clock: once wave 1 rests, the task's requests follow one another
    # at once (its last poll, the health check's read, the plan of wave 2) but for one gap of wave_pause.
    gaps = request_gaps_before_first_move(ironic, mark, [nodes[0]['uuid'], nodes[1]['uuid']],
                                          [broken['uuid'], nodes[2]['uuid']])
    assert max(gaps) >= 1.0, gaps

    # The operator repairs the node; the same task carries on with the nodes not done, and writes nothing to the others.
    raw.repair(broken['uuid'])
    # The fake deploy interface leaves the power as it is, and the failed deploy powered the node off: an active
    # node that is off would not pass the health check.
    power_on(ironic, raw, broken['uuid'])
    mark = ironic.log_mark()
    again = run_module('baremetal_provision_state', nodes=names, state='active', wave_size='2')
    assert not again.get('failed'), again.get('msg')
    assert again['waves'] == [[broken['name'], names[4]], names[5:]]
    assert [raw.node(node['uuid'])['provision_state'] for node in fleet] == ['active'] * 7
    done_uuids = set(node['uuid'] for node in fleet[:2] + fleet[3:4])
    writes = ironic.write_requests_since(mark)
    assert writes and not [request for request in writes if any(uuid in request.path for uuid in done_uuids)]


def test_check_mode_shows_the_waves_and_writes_nothing(raw, ironic, run_module, fresh_node):
    nodes = [fresh_node() for _index in range(5)]
    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', check=True, nodes=[node['name'] for node in nodes],
                        state='manageable', wave_size='40%')
    assert ironic.write_requests_since(mark) == []
    assert result['changed'] is True
    assert result['waves'] == [[node['name'] for node in nodes[start:start + 2]] for start in (0, 2, 4)]
    assert [raw.node(node['uuid'])['provision_state'] for node in nodes] == ['enroll'] * 5


def test_a_power_rollout_expects_the_power_it_declares_and_other_modules_take_waves(raw, ironic, run_module):
    nodes = [raw.node_in('active') for _index in range(4)]
    names = [node['name'] for node in nodes]
    result = run_module('baremetal_power', nodes=names, state='powered_off', wave_size='3')
    assert not result.get('failed'), result.get('msg')
    assert result['waves'] == [names[:3], names[3:]]
    assert [raw.node(name)['power_state'] for name in names] == ['power off'] * 4

    # Back on; maintenance set in waves is what the task declares, not a reason to stop.
    assert not run_module('baremetal_power', nodes=names, state='powered_on', wave_size='50%').get('failed')
    held = run_module('baremetal_maintenance', nodes=names, state='enabled', reason='rack move', wave_size='1')
    assert not held.get('failed'), held.get('msg')
    assert len(held['waves']) == 4 and all(raw.node(name)['maintenance'] for name in names)


def test_a_node_that_comes_back_unhealthy_stops_the_rollout(raw, ironic, run_module):
    nodes = [raw.node_in('active') for _index in range(3)]
    # Powered off behind the task's back (as a BMC that cut the power would): an active node must run.
    ironic.api('PUT', '/nodes/%s/states/power' % nodes[0]['uuid'], {'target': 'power off'})
    deadline = time.monotonic() + 30
    while raw.node(nodes[0]['uuid'])['target_power_state'] and time.monotonic() < deadline:
        time.sleep(0.05)
    for node in nodes[:2]:
        ironic.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'checked'})
    result = run_module('baremetal_maintenance', nodes=[node['name'] for node in nodes], state='disabled', wave_size='1')
    assert result['failed'] is True
    assert re.search(r"node %s came back from wave 1 unhealthy: its power is 'power off', not 'power on'"
                     % nodes[0]['name'], result['msg'])
    assert [(entry['wave'], entry['started']) for entry in result['nodes']] == [(1, True), (2, False), (None, False)]
    assert [raw.node(node['uuid'])['maintenance'] for node in nodes] == [False, True, False]
