# -*- coding: utf-8 -*-
"""Ironic split as operators run it: ironic-api and two ironic-conductor processes over json-rpc, each on its own
loopback address, on PostgreSQL (SQLite never lets a survivor take over), with short heartbeats (5/15 s).

A conductor is SIGKILLed in the middle of a clean and of an inspection, for real: the task must say it waits for
Ironic's takeover (not that the nodes move), recover the nodes the takeover failed, and where no takeover comes
name the conductor to restart.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from dedicated import result_of, start_module

HEARTBEAT_INTERVAL = 5
HEARTBEAT_TIMEOUT = 15
CLEAN_SECONDS = 15  # [fake] vendor_delay: the fake vendor's clean step sleeps this long
INSPECT_SECONDS = 120  # [fake] inspect_delay: longer than the test waits for
CONDUCTORS = 2


@pytest.fixture(scope='module')
def split_ironic(make_split_ironic):
    """One split Ironic for the module, with slow fake clean steps and inspections to kill a conductor in."""
    return make_split_ironic(
        conductors=CONDUCTORS, ironic_standalone_heartbeat_interval=HEARTBEAT_INTERVAL,
        ironic_standalone_heartbeat_timeout=HEARTBEAT_TIMEOUT,
        ironic_standalone_config_overrides={'fake': {'vendor_delay': CLEAN_SECONDS, 'inspect_delay': INSPECT_SECONDS}})


def conductor_pid_file(ironic, host):
    """The pid file of the conductor on that loopback address (the first one on the role's first conductor host)."""
    first = int(ironic.role_vars['ironic_standalone_conductor_first_host'].rsplit('.', 1)[1])
    return os.path.join(ironic.base_dir, 'ironic-conductor-%d.pid' % (int(host.rsplit('.', 1)[1]) - first + 1))


def kill_conductor(ironic, host):
    with open(conductor_pid_file(ironic, host), encoding='utf-8') as handle:
        os.killpg(int(handle.read().strip()), signal.SIGKILL)
    return time.monotonic()


def alive_conductors(ironic):
    return sorted(conductor['hostname'] for conductor in
                  ironic.api('GET', '/v1/conductors?fields=hostname,alive')['conductors'] if conductor['alive'])


def create_nodes(ironic, prefix, count, **fields):
    names = []
    for index in range(count):
        node = ironic.api('POST', '/v1/nodes', dict(fields, name='%s-%02d' % (prefix, index), driver='fake-hardware'))
        names.append(node['name'])
    return names


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def answered_verbs(ironic, mark):
    """How many provision verbs Ironic answered (202) since the mark: a conductor killed before the answer of the
    verb it is running makes Ironic answer HTTP 500, a failure of another kind than the one a test is after."""
    return sum(1 for request in ironic.requests_since(mark)
               if request.method == 'PUT' and request.path.endswith('/states/provision') and request.status == 202)


def nodes_named(ironic, names):
    # detail=true: a list asking for the conductor field fails on Ironic 39 (HTTP 500).
    return [node for node in ironic.api('GET', '/v1/nodes?detail=true&limit=1000')['nodes'] if node['name'] in names]


def test_twenty_nodes_move_across_both_conductors_and_a_rerun_writes_nothing(split_ironic, tmp_path):
    ironic = split_ironic
    assert len(alive_conductors(ironic)) == CONDUCTORS
    names = create_nodes(ironic, 'split', 20)
    serving = set(node['conductor'] for node in nodes_named(ironic, names))
    assert len(serving) == CONDUCTORS, serving  # the hash ring spreads the nodes over both conductors

    first = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=20, timeout=300))
    assert not first.get('failed'), first
    assert first['totals']['changed'] == 20
    assert all(node['provision_state'] == 'available' for node in nodes_named(ironic, names))

    mark = ironic.log_mark()
    rerun = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=20, timeout=300))
    assert not rerun.get('failed') and not rerun['changed'], rerun
    assert ironic.write_requests_since(mark) == []


def test_a_conductor_killed_mid_clean_is_reported_and_its_nodes_recovered_after_the_takeover(
        split_ironic, tmp_path, monkeypatch):
    ironic = split_ironic
    names = create_nodes(ironic, 'clean', 6, vendor_interface='fake')
    for name in names:
        ironic.api('PUT', '/v1/nodes/%s/states/provision' % name, {'target': 'manage'})
    wait_for(lambda: all(node['provision_state'] == 'manageable' for node in nodes_named(ironic, names)), 60,
             'the nodes never became manageable')
    progress = tmp_path / 'progress.jsonl'
    monkeypatch.setenv('BAREMETAL_LIFECYCLE_PROGRESS_FILE', str(progress))
    # The takeover fails the clean with the fault 'clean failure' (maintenance): clear_fault lets the task go on.
    mark = ironic.log_mark()
    task = start_module(ironic, tmp_path, nodes=names, state='available', concurrency=6, timeout=300, clear_fault=True)
    wait_for(lambda: answered_verbs(ironic, mark) == len(names) and all(
        node['provision_state'] == 'cleaning' and node['reservation'] for node in nodes_named(ironic, names)),
        60, 'the nodes never all reached cleaning')
    reserved = dict((node['name'], node['reservation']) for node in nodes_named(ironic, names))
    victim = sorted(reserved.values())[0]
    assert ':' not in victim  # reserved under the address the conductor registered as: a survivor takes over
    orphans = sorted(name for name, holder in reserved.items() if holder == victim)
    killed_at = kill_conductor(ironic, victim)

    reported_at = None
    while task.poll() is None and reported_at is None:
        if progress.exists():
            for line in progress.read_text().splitlines():
                record = json.loads(line)
                if record.get('node') in orphans and 'take it over from conductor %s' % victim in (record.get('step') or ''):
                    reported_at = time.monotonic()
                    print('killed -> "%s": %.1f s (heartbeat %d/%d s)'
                          % (record['step'], reported_at - killed_at, HEARTBEAT_INTERVAL, HEARTBEAT_TIMEOUT))
                    break
        time.sleep(0.2)
    result = result_of(task)
    print('killed -> task done: %.1f s' % (time.monotonic() - killed_at))
    assert reported_at is not None, result
    assert reported_at - killed_at <= HEARTBEAT_TIMEOUT + 2 * HEARTBEAT_INTERVAL + 10

    assert not result.get('failed'), [entry['error'] for entry in result['nodes'] if entry['error']]
    by_name = dict((entry['node']['name'], entry) for entry in result['nodes'])
    for name in orphans:
        entry = by_name[name]
        assert entry['node']['provision_state'] == 'available', entry
        verbs = [(step['verb'], step['from'], step['to']) for step in entry['transitions']]
        assert verbs == [('provide', 'manageable', 'clean failed'), ('clear_fault', 'clean failed', 'clean failed'),
                         ('manage', 'clean failed', 'manageable'), ('provide', 'manageable', 'available')], entry
        assert entry['transitions'][0]['takeover']['conductor'].split(':')[0] == victim
    for name in set(names) - set(orphans):
        assert [step['verb'] for step in by_name[name]['transitions']] == ['provide']
    rc, output = ironic.playbook('start')  # the role starts again what is not running
    assert rc == 0, output
    assert len(alive_conductors(ironic)) == CONDUCTORS


def test_a_conductor_killed_mid_inspection_is_named_as_the_one_to_restart(split_ironic, tmp_path):
    ironic = split_ironic
    name, = create_nodes(ironic, 'inspect', 1)
    ironic.api('PUT', '/v1/nodes/%s/states/provision' % name, {'target': 'manage'})
    wait_for(lambda: ironic.api('GET', '/v1/nodes/%s' % name)['provision_state'] == 'manageable', 60,
             'the node never became manageable')
    mark = ironic.log_mark()
    task = start_module(ironic, tmp_path, nodes=[name], state='manageable', inspection='always', timeout=300)
    wait_for(lambda: answered_verbs(ironic, mark) == 1 and ironic.api('GET', '/v1/nodes/%s' % name)['reservation'], 60,
             'the inspection never started')
    victim = ironic.api('GET', '/v1/nodes/%s' % name)['reservation']
    killed_at = kill_conductor(ironic, victim)
    result = result_of(task)
    print('killed mid-inspection -> task failed: %.1f s' % (time.monotonic() - killed_at))
    assert result['failed']
    error = result['nodes'][0]['error']
    assert "'inspecting'" in error and 'restart the ironic-conductor %s' % victim in error, error
    assert ironic.api('GET', '/v1/nodes/%s' % name)['provision_state'] == 'inspecting'


def running(pid):
    """Whether the process is alive (a zombie the container's init never reaped is not)."""
    try:
        with open('/proc/%d/stat' % pid, encoding='utf-8', errors='replace') as handle:
            return handle.read().rsplit(') ', 1)[1].split()[0] not in ('Z', 'X')
    except OSError:
        return False


def test_the_roles_stop_stops_every_process_it_started_by_its_pid(split_ironic):
    ironic = split_ironic
    rc, output = ironic.playbook('start')  # the conductor killed mid-inspection is started again
    assert rc == 0, output
    pid_files = sorted(name for name in os.listdir(ironic.base_dir) if name.endswith('.pid'))
    assert pid_files == ['ironic-conductor-1.pid', 'ironic-conductor-2.pid', 'ironic.pid', 'postgresql.pid']
    pids = []
    for name in pid_files:
        with open(os.path.join(ironic.base_dir, name), encoding='utf-8') as handle:
            pids.append(int(handle.read().strip()))
    assert all(running(pid) for pid in pids)
    rc, output = ironic.playbook('stop')
    assert rc == 0, output
    assert not any(running(pid) for pid in pids)
    assert not [name for name in os.listdir(ironic.base_dir) if name.endswith('.pid')]
