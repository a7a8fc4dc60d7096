# -*- coding: utf-8 -*-
"""An Ironic killed (SIGKILL) and restarted in the middle of a fleet task, for real.

On start-up Ironic fails at most [conductor]periodic_max_workers (8) orphaned nodes per state and leaves
the others in their transient state with no reservation: stranded. The task must ride out the restart,
report the stranded nodes within a couple of poll intervals after the grace period, take the safe way out
('manage' out of a stranded 'cleaning'), and a rerun must converge every node.
"""

from __future__ import annotations

import json
import time

import pytest
from dedicated import kill, result_of, spawn, spawn_with, start_module
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import PROGRESS_FILE_ENV
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import STRANDED_GRACE
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import (
    POLL_BACKOFF, POLL_INITIAL_DELAY, POLL_MAX_DELAY)

NODES = 10
NODES_READ_HERE = '/v1/nodes?fields=name,provision_state,reservation,uuid'
CLEAN_SECONDS = 8  # [fake] vendor_delay: the fake vendor's clean step (log_passthrough) sleeps this long


def under_way(progress, step):
    """The nodes the task's progress file (engine/progress.py) shows under way in ``step``: Ironic answered it. A
    line the task is still writing (no newline yet) is left for the next read."""
    lines = progress.read_text(encoding='utf-8').split('\n')[:-1] if progress.exists() else []
    return set(record['node'] for record in map(json.loads, lines) if record.get('step') == step)


def polls_within(seconds):
    """How many polls a task makes in ``seconds`` at most: its pauses back off from POLL_INITIAL_DELAY to
    POLL_MAX_DELAY (common/wait.py), and each request takes time besides."""
    polls, delay, total = 0, POLL_INITIAL_DELAY, 0.0
    while total + delay <= seconds:
        polls, total, delay = polls + 1, total + delay, min(delay * POLL_BACKOFF, POLL_MAX_DELAY)
    return polls


@pytest.fixture
def slow_cleaning_ironic(make_ironic):
    """A dedicated Ironic whose automated cleaning takes CLEAN_SECONDS (a fake vendor clean step)."""
    instance = make_ironic()
    spawn_with(instance, '[fake]\nvendor_delay = %d\n' % CLEAN_SECONDS)
    return instance


def test_a_fleet_task_rides_out_an_ironic_restart_and_a_rerun_converges(slow_cleaning_ironic, tmp_path):
    ironic = slow_cleaning_ironic
    names = []
    for index in range(NODES):
        node = ironic.api('POST', '/v1/nodes', {'name': 'restart-%02d' % index, 'driver': 'fake-hardware',
                                                'vendor_interface': 'fake'})
        ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
        names.append(node['name'])
    deadline = time.monotonic() + 60
    while any(ironic.api('GET', '/v1/nodes/%s' % name)['provision_state'] != 'manageable' for name in names):
        assert time.monotonic() < deadline
        time.sleep(0.2)

    # Ironic is killed once the task holds Ironic's answer to every node's 'provide' (its progress file says each is
    # under way): a kill while an answer is on its way is test_scheduler's (the node is read again once Ironic
    # answers, and planned from where it is).
    progress = tmp_path / 'progress.jsonl'
    task = start_module(ironic, tmp_path, env={PROGRESS_FILE_ENV: str(progress)}, nodes=names, state='available',
                        concurrency=NODES, timeout=600)
    deadline = time.monotonic() + 60
    while len(under_way(progress, 'provide')) < NODES or sum(
            node['provision_state'] == 'cleaning'
            for node in ironic.api('GET', '/v1/nodes?fields=provision_state')['nodes']) < NODES:
        assert time.monotonic() < deadline and task.poll() is None
        time.sleep(0.1)
    kill(ironic)
    spawn(ironic)  # the task's polls fail while Ironic starts again
    restarted = ironic.log_mark()

    nodes = dict((node['name'], node) for node in ironic.api('GET', NODES_READ_HERE)['nodes'])
    stranded = sorted(name for name, node in nodes.items() if node['provision_state'] == 'cleaning')
    failed = sorted(name for name, node in nodes.items() if node['provision_state'] == 'clean failed')
    assert len(failed) == 8 and len(stranded) == NODES - 8, nodes  # periodic_max_workers = 8
    assert all(nodes[name]['reservation'] is None for name in stranded)

    first = result_of(task)
    # The moment the task takes a stranded node out of 'cleaning' is the moment it reports it: within a few polls
    # after the grace period (not at the task's timeout, 600 s), counted in Ironic's log from the restart.
    uuids = dict((name, node['uuid']) for name, node in nodes.items())
    requests = ironic.requests_since(restarted)
    paths = [(request.method, request.path) for request in requests]
    taken_out = max(paths.index(('PUT', '/v1/nodes/%s/states/provision' % uuids[name])) for name in stranded)
    polls = [request for request in requests[:taken_out] if request.method == 'GET'
             and request.path.startswith('/v1/nodes?') and request.path != NODES_READ_HERE]
    print('stranded -> reported and taken out after %d polls (%d at most in the grace of %d s and 3 polls more)'
          % (len(polls), polls_within(STRANDED_GRACE + 3 * POLL_MAX_DELAY), STRANDED_GRACE))
    assert len(polls) <= polls_within(STRANDED_GRACE + 3 * POLL_MAX_DELAY) + 1, polls

    assert first['failed'] and first['totals']['failed'] == 8
    by_name = dict((entry['node']['name'], entry) for entry in first['nodes'])
    for name in stranded:
        entry = by_name[name]
        assert entry['error'] is None and entry['node']['provision_state'] == 'available', entry
        verbs = [(step['verb'], step['from'], step['to']) for step in entry['transitions']]
        assert verbs == [('provide', 'manageable', 'cleaning'), ('manage', 'cleaning', 'manageable'),
                         ('provide', 'manageable', 'available')]
        assert "stranded in 'cleaning'" in entry['transitions'][1]['reason']
    for name in failed:
        assert "ended in 'clean failed'" in by_name[name]['error']
        assert "can't be resumed by conductor" in by_name[name]['error']

    rerun = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=NODES,
                                   timeout=300))
    assert not rerun.get('failed'), rerun
    assert rerun['changed'] and rerun['totals']['changed'] == 8
    assert all(entry['node']['provision_state'] == 'available' for entry in rerun['nodes'])
