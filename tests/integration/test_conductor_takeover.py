# -*- coding: utf-8 -*-
"""Ironic split as operators run it: ironic-api and three ironic-conductor processes over json-rpc, each on its own
loopback address, on PostgreSQL (SQLite never lets a survivor take over), with short heartbeats (5/15 s), in two
conductor groups: the first conductor alone serves rack-a, the two others rack-b.

A conductor is SIGKILLed in the middle of a clean and of an inspection, for real: the task must say it waits for
Ironic's takeover (not that the nodes move), recover the nodes the takeover failed, and where no takeover comes (a
state no takeover ends, or a group no live conductor serves) name the conductor to restart.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest
from dedicated import pid_files, recorded_pids, result_of, running, start_module

HEARTBEAT_INTERVAL = 5
HEARTBEAT_TIMEOUT = 15
CLEAN_SECONDS = 15  # [fake] vendor_delay: the fake vendor's clean step sleeps this long
ORPHAN_CHECK_INTERVAL = 20  # [conductor]check_provision_state_interval: how often a takeover is looked for
INSPECT_SECONDS = 120  # [fake] inspect_delay: longer than the test waits for
# Conductor N+1 serves GROUPS[N]: rack-a has no conductor to take over from its only one, rack-b has two.
GROUPS = ('rack-a', 'rack-b', 'rack-b')
CONDUCTORS = len(GROUPS)
# "Node <uuid> moved to provision state "x" from state "y"; target provision state is "z"", in the log of the
# conductor that moved the node.
MOVED = re.compile(r'Node ([0-9a-f-]{36}) moved to provision state ')


@pytest.fixture(scope='module')
def split_ironic(make_split_ironic):
    """One split Ironic for the module, with slow fake clean steps and inspections to kill a conductor in."""
    return make_split_ironic(
        conductors=CONDUCTORS, ironic_standalone_conductor_groups=list(GROUPS),
        ironic_standalone_heartbeat_interval=HEARTBEAT_INTERVAL,
        ironic_standalone_heartbeat_timeout=HEARTBEAT_TIMEOUT,
        # Ironic looks for a dead conductor's nodes every check_provision_state_interval (60 s by default).
        ironic_standalone_config_overrides={'fake': {'vendor_delay': CLEAN_SECONDS, 'inspect_delay': INSPECT_SECONDS},
                                            'conductor': {'check_provision_state_interval': ORPHAN_CHECK_INTERVAL}})


def conductor_number(ironic, host):
    """N of ironic-conductor-N, the conductor on that loopback address (1 on the role's first conductor host)."""
    first = int(ironic.role_vars['ironic_standalone_conductor_first_host'].rsplit('.', 1)[1])
    return int(host.rsplit('.', 1)[1]) - first + 1


def conductor_host(ironic, number):
    first = ironic.role_vars['ironic_standalone_conductor_first_host']
    return '%s.%d' % (first.rsplit('.', 1)[0], int(first.rsplit('.', 1)[1]) + number - 1)


def kill_conductor(ironic, host):
    pid_file = os.path.join(ironic.base_dir, 'ironic-conductor-%d.pid' % conductor_number(ironic, host))
    with open(pid_file, encoding='utf-8') as handle:
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


def manageable_nodes(ironic, prefix, count, **fields):
    """create_nodes, then managed: the state a clean starts from."""
    names = create_nodes(ironic, prefix, count, **fields)
    for name in names:
        ironic.api('PUT', '/v1/nodes/%s/states/provision' % name, {'target': 'manage'})
    wait_for(lambda: all(node['provision_state'] == 'manageable' for node in nodes_named(ironic, names)), 60,
             'the nodes never became manageable')
    return names


def wait_for_cleaning(ironic, mark, names):
    """Until Ironic answered the verb of every node (a conductor killed before its answer makes Ironic answer HTTP
    500) and each is cleaning, reserved by its conductor."""
    wait_for(lambda: answered_verbs(ironic, mark) == len(names) and all(
        node['provision_state'] == 'cleaning' and node['reservation'] for node in nodes_named(ironic, names)),
        60, 'the nodes never all reached cleaning')


def start_the_killed_conductor(ironic):
    """The role starts again what is not running: every conductor is alive for the next test."""
    rc, output = ironic.playbook('start')
    assert rc == 0, output
    assert len(alive_conductors(ironic)) == CONDUCTORS


def test_twenty_nodes_move_across_every_conductor_and_a_rerun_writes_nothing(split_ironic, tmp_path):
    ironic = split_ironic
    assert len(alive_conductors(ironic)) == CONDUCTORS
    names = create_nodes(ironic, 'split-a', 10, conductor_group='rack-a') + create_nodes(
        ironic, 'split-b', 10, conductor_group='rack-b')
    serving = set(node['conductor'] for node in nodes_named(ironic, names))
    assert len(serving) == CONDUCTORS, serving  # the hash ring spreads the nodes over every conductor

    first = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=20, timeout=300))
    assert not first.get('failed'), first
    assert first['totals']['changed'] == 20
    assert all(node['provision_state'] == 'available' for node in nodes_named(ironic, names))

    mark = ironic.log_mark()
    rerun = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=20, timeout=300))
    assert not rerun.get('failed') and not rerun['changed'], rerun
    assert ironic.write_requests_since(mark) == []


def moved_by(ironic, number):
    """The uuids of the nodes conductor N moved from one provision state to another, from its own log."""
    with open(os.path.join(ironic.base_dir, 'ironic-conductor-%d.log' % number), encoding='utf-8') as handle:
        return set(MOVED.findall(handle.read()))


def test_each_conductor_group_is_moved_by_its_own_conductors_only(split_ironic, tmp_path):
    ironic = split_ironic
    uuids = {}
    for group in ('rack-a', 'rack-b'):
        names = create_nodes(ironic, 'group-' + group, 4, conductor_group=group, resource_class='group-test')
        uuids[group] = set(node['uuid'] for node in nodes_named(ironic, names))
    for group in ('rack-a', 'rack-b'):
        result = result_of(start_module(ironic, tmp_path, select={'conductor_group': group,
                                                                  'resource_class': 'group-test'},
                                        state='manageable', concurrency=4, timeout=120))
        assert not result.get('failed'), result
        assert set(entry['node']['uuid'] for entry in result['nodes']) == uuids[group]
        assert all(entry['node']['provision_state'] == 'manageable' for entry in result['nodes'])
    for number, group in enumerate(GROUPS, 1):
        other = uuids['rack-b' if group == 'rack-a' else 'rack-a']
        assert moved_by(ironic, number) & other == set(), 'conductor %d (%s) moved nodes of the other group' % (
            number, group)
    assert uuids['rack-a'] <= moved_by(ironic, 1)
    assert uuids['rack-b'] <= moved_by(ironic, 2) | moved_by(ironic, 3)


def test_a_conductor_killed_mid_clean_with_no_live_one_in_its_group_is_named_at_once(split_ironic, tmp_path):
    ironic = split_ironic
    names = manageable_nodes(ironic, 'lonely', 2, vendor_interface='fake', conductor_group='rack-a')
    mark = ironic.log_mark()
    timeout = 300
    task = start_module(ironic, tmp_path, nodes=names, state='available', concurrency=2, timeout=timeout)
    wait_for_cleaning(ironic, mark, names)
    victim = conductor_host(ironic, 1)  # rack-a's only conductor
    assert set(node['reservation'] for node in nodes_named(ironic, names)) == {victim}
    killed_at = kill_conductor(ironic, victim)
    result = result_of(task)
    failed_after = time.monotonic() - killed_at
    print('killed the only rack-a conductor -> task failed: %.1f s (timeout %d s)' % (failed_after, timeout))
    assert result['failed']
    for entry in result['nodes']:
        assert "left in 'cleaning' by conductor %s" % victim in entry['error'], entry['error']
        assert "No live conductor serves conductor group 'rack-a'" in entry['error'], entry['error']
        assert 'restart the ironic-conductor %s' % victim in entry['error'], entry['error']
    # Failed once Ironic reports the conductor dead, not after waiting for a takeover until the timeout.
    assert failed_after <= HEARTBEAT_TIMEOUT + 2 * HEARTBEAT_INTERVAL + 10
    start_the_killed_conductor(ironic)


def test_a_conductor_killed_mid_clean_is_reported_and_its_nodes_recovered_after_the_takeover(
        split_ironic, tmp_path, monkeypatch):
    ironic = split_ironic
    names = manageable_nodes(ironic, 'clean', 6, vendor_interface='fake', conductor_group='rack-b')
    progress = tmp_path / 'progress.jsonl'
    monkeypatch.setenv('BAREMETAL_LIFECYCLE_PROGRESS_FILE', str(progress))
    # The takeover fails the clean with the fault 'clean failure' (maintenance): clear_fault lets the task go on.
    mark = ironic.log_mark()
    task = start_module(ironic, tmp_path, nodes=names, state='available', concurrency=6, timeout=300, clear_fault=True)
    wait_for_cleaning(ironic, mark, names)
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
    # The wait is reported once Ironic says the conductor is dead, unless the takeover comes before the next poll:
    # then the task recognises it when the nodes rest (the transitions below record it either way).
    if reported_at is None:
        print('the takeover came between two polls: recognised when the nodes rested')
    else:
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
    start_the_killed_conductor(ironic)


def test_a_conductor_killed_mid_inspection_is_named_as_the_one_to_restart(split_ironic, tmp_path):
    ironic = split_ironic
    name, = create_nodes(ironic, 'inspect', 1, conductor_group='rack-b')
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


def test_the_roles_stop_stops_every_process_it_started_by_its_pid(split_ironic):
    ironic = split_ironic
    rc, output = ironic.playbook('start')  # the conductor killed mid-inspection is started again
    assert rc == 0, output
    assert pid_files(ironic) == ['ironic-conductor-%d.pid' % number for number in range(1, CONDUCTORS + 1)] + [
        'ironic.pid', 'postgresql.pid']
    pids = recorded_pids(ironic)
    assert all(running(pid) for pid in pids)
    rc, output = ironic.playbook('stop')
    assert rc == 0, output
    assert not any(running(pid) for pid in pids)
    assert not pid_files(ironic)
