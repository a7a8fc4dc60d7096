# -*- coding: utf-8 -*-
"""The controller half of live progress: what a person sees while a task waits."""

import pytest
from ansible.errors import AnsibleError

from ansible_collections.baremetal.lifecycle.plugins.plugin_utils import _progress
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._progress import ProgressView


def view(nodes=None, task='converge', verbosity=0, **options):
    """A ProgressView of the task and the lines it shows; told first how many nodes the task runs on, when nodes is
    given, as the action plugin's first record tells it."""
    lines = []
    progress = ProgressView(task, verbosity, lines.append, **options)
    if nodes is not None:
        progress.feed({'nodes': nodes})
    return progress, lines


def record(node, state, step, seconds):
    return {'node': node, 'state': state, 'step': step, 'seconds': seconds}


def test_a_single_node_shows_every_change_with_its_step_and_time():
    progress, lines = view(1)
    progress.feed(record('n1', 'verifying', 'manage', 0.4))
    progress.feed(record('n1', 'available', None, 12.6))
    assert lines == ['converge: n1 verifying (manage), 0 s', 'converge: n1 available, 13 s']


def tick_every_read(progress, until, start=0.0):
    """The action plugin's loop in fake time: a tick every READ_INTERVAL up to until."""
    seconds = start
    while seconds <= until:
        progress.tick(seconds)
        seconds += _progress.READ_INTERVAL


def test_a_node_waiting_seventy_seconds_without_a_change_gets_a_heartbeat_every_thirty():
    progress, lines = view(1)
    progress.feed(record('n1', 'wait call-back', 'deploy', 1.0))
    tick_every_read(progress, 71.0)
    assert lines == ['converge: n1 wait call-back (deploy), 1 s',
                     'converge: n1 still wait call-back (deploy) for 30 s, 31 s',
                     'converge: n1 still wait call-back (deploy) for 60 s, 61 s']


def test_a_node_at_rest_gets_no_heartbeat_and_a_change_restarts_the_count():
    progress, lines = view(1)
    progress.feed(record('n1', 'cleaning', 'provide', 0.0))
    tick_every_read(progress, 20.0)
    progress.feed(record('n1', 'clean wait', 'provide', 20.0))
    tick_every_read(progress, 49.0, start=20.0)
    assert lines[1:] == ['converge: n1 clean wait (provide), 20 s']
    tick_every_read(progress, 50.0, start=49.5)
    assert lines[2:] == ['converge: n1 still clean wait (provide) for 30 s, 50 s']
    progress.feed(record('n1', 'available', None, 55.0))
    tick_every_read(progress, 200.0, start=55.0)
    assert lines[3:] == ['converge: n1 available, 55 s']


def test_the_heartbeat_interval_is_the_views_to_choose():
    progress, lines = view(task='power', heartbeat=2.0)
    progress.feed(record('n1', 'power off', 'power on', 0.0))
    tick_every_read(progress, 4.0)
    assert lines[1:] == ['power: n1 still power off (power on) for 2 s, 2 s', 'power: n1 still power off (power on) for 4 s, 4 s']


def test_a_fleet_is_counted_by_state_and_step_every_summary_interval_even_while_nothing_changes():
    progress, lines = view(3)
    progress.tick(0.5)
    assert lines == []  # nothing known yet
    for name in ('n1', 'n2', 'n3'):
        progress.feed(record(name, 'cleaning', 'provide', 1.0))
    progress.tick(_progress.SUMMARY_INTERVAL - 1)
    assert lines == []
    progress.tick(_progress.SUMMARY_INTERVAL + 0.5)
    progress.feed(record('n1', 'available', None, _progress.SUMMARY_INTERVAL + 1))
    progress.tick(_progress.SUMMARY_INTERVAL + 1.5)
    assert lines == ['converge: 3 nodes: 3 cleaning (provide), 10 s']
    progress.tick(2 * _progress.SUMMARY_INTERVAL + 1)  # no record since: the counts still come
    assert lines[1:] == ['converge: 3 nodes: 1 available, 2 cleaning (provide), 21 s']


def test_a_fleet_waiting_seventy_seconds_gets_its_counts_at_least_every_thirty():
    progress, lines = view(2)
    progress.feed(record('n1', 'wait call-back', 'deploy', 0.0))
    progress.feed(record('n2', 'deploying', 'deploy', 0.0))
    tick_every_read(progress, 70.0)
    assert len(lines) >= 70 // 30
    assert set(line.split(', ')[0] for line in lines) == {'converge: 2 nodes: 1 deploying (deploy)'}


def test_a_fleet_shows_every_node_and_its_heartbeat_at_verbose():
    progress, lines = view(2, verbosity=1)
    progress.feed(record('n1', 'cleaning', 'provide', 1.0))
    progress.feed(record('n2', 'clean failed', None, 2.0))
    tick_every_read(progress, 31.0)
    assert lines == ['converge: n1 cleaning (provide), 1 s', 'converge: n2 clean failed, 2 s',
                     'converge: n1 still cleaning (provide) for 30 s, 31 s']


def test_a_fleet_ends_with_where_its_nodes_are_and_how_many_failed():
    progress, lines = view(3)
    progress.feed(record('n1', 'available', None, 5.0))
    progress.feed(record('n2', 'available', None, 6.0))
    progress.feed(record('n3', 'clean failed', None, 7.0))
    progress.finish({'totals': {'nodes': 3, 'failed': 1}}, 7.2)
    assert lines == ['converge: done, 3 nodes: 2 available, 1 clean failed; 1 failed, 7 s']


def test_a_single_node_has_no_summary_its_last_change_says_where_it_ended():
    progress, lines = view()
    progress.feed(record('n1', 'available', None, 5.0))
    progress.finish({'changed': True}, 5.0)
    assert lines == ['converge: n1 available, 5 s']


def planned(*names):
    return [{'verb': {'deploy': 'active', 'undeploy': 'deleted'}.get(name, name), 'name': name} for name in names]


def test_check_mode_ends_a_fleet_with_what_it_would_do_in_the_words_of_progress_not_where_the_nodes_already_are():
    progress, lines = view(4, check_mode=True)
    for name, state in (('n1', 'available'), ('n2', 'available'), ('n3', 'available'), ('n4', 'enroll')):
        progress.feed(record(name, state, None, 0.2))
    progress.finish({'totals': {'nodes': 4, 'failed': 0}, 'nodes': [
        {'plan': planned('deploy'), 'changed': True}, {'plan': planned('deploy'), 'changed': True},
        {'plan': [], 'changed': False}, {'plan': planned('manage', 'provide'), 'changed': True}]}, 0.4)
    assert lines == ['converge: check mode, nothing changed; 4 nodes: 2 would deploy, 1 would manage then provide, '
                     '1 no change (now 3 available, 1 enroll); 0 failed, 0 s']


def test_check_mode_ends_one_node_too_and_a_change_without_a_plan_or_a_failure_says_so():
    progress, lines = view(1, 'undeploy', check_mode=True)
    progress.feed(record('n1', 'active', None, 0.1))
    progress.finish({'plan': planned('undeploy'), 'changed': True}, 0.3)
    assert lines[1:] == ['undeploy: check mode, nothing changed; n1 would undeploy (now active), 0 s']
    progress, lines = view(2, 'power', check_mode=True)
    progress.feed(record('n1', 'power off', None, 0.1))
    progress.feed(record('n2', 'power on', None, 0.1))
    entries = [{'changed': True, 'error': None}, {'changed': False, 'error': 'refused'}]
    progress.finish({'totals': {'nodes': 2, 'failed': 1}, 'nodes': entries}, 0.3)
    assert lines == ['power: check mode, nothing changed; 2 nodes: 1 would change (now 1 power off, 1 power on); '
                     '1 failed, 0 s']


def test_the_heartbeat_interval_comes_from_the_environment_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.delenv(_progress.HEARTBEAT_INTERVAL_ENV, raising=False)
    assert _progress.heartbeat_interval() == _progress.HEARTBEAT_INTERVAL
    monkeypatch.setenv(_progress.HEARTBEAT_INTERVAL_ENV, '1.5')
    assert _progress.heartbeat_interval() == 1.5
    for bad in ('soon', '0', '-3'):
        monkeypatch.setenv(_progress.HEARTBEAT_INTERVAL_ENV, bad)
        with pytest.raises(AnsibleError, match='BAREMETAL_LIFECYCLE_HEARTBEAT_INTERVAL must be a number of seconds'):
            _progress.heartbeat_interval()


def wave(number, members, back, failed, seconds):
    return {'wave': number, 'waves': 3, 'members': members, 'back': back, 'failed': failed, 'seconds': seconds}


def test_a_rollout_shows_the_wave_in_flight_with_how_many_of_its_nodes_are_back():
    progress, lines = view(3)
    progress.feed(wave(2, ['n1', 'n2', 'n3'], 0, 1, 40.0))
    for name in ('n1', 'n2', 'n3'):
        progress.feed(record(name, 'wait call-back', 'service', 41.0))
    progress.feed(record('n1', 'active', None, 45.0))
    progress.tick(_progress.SUMMARY_INTERVAL + 41)
    progress.feed(wave(2, ['n1', 'n2', 'n3'], 3, 1, 60.0))
    assert lines == ['converge: wave 2/3: 0 of 3 back, 1 failed, 40 s',
                     'converge: wave 2/3: 1 of 3 back, 1 failed; 3 nodes: 1 active, 2 wait call-back (service), 51 s',
                     'converge: wave 2/3: 3 of 3 back, 1 failed, 60 s']


def test_a_node_at_rest_before_its_wave_started_is_not_back_yet():
    progress, lines = view(2)
    progress.feed(record('n1', 'active', None, 1.0))
    progress.feed(wave(1, ['n1', 'n2'], 0, 0, 5.0))
    progress.tick(_progress.SUMMARY_INTERVAL + 1)
    assert lines[-1] == 'converge: wave 1/3: 0 of 2 back, 0 failed; 2 nodes: 1 active, 11 s'


def test_a_node_shows_the_step_ironic_reports_it_runs_in_its_changes_and_heartbeats():
    progress, lines = view(1)
    progress.feed(dict(record('n1', 'clean wait', 'provide', 2.0), running='deploy.erase_devices_metadata'))
    progress.feed(dict(record('n1', 'clean wait', 'provide', 5.0), running='deploy.erase_devices'))
    tick_every_read(progress, 36.0, start=5.0)
    assert lines == ['converge: n1 clean wait (provide, running deploy.erase_devices_metadata), 2 s',
                     'converge: n1 clean wait (provide, running deploy.erase_devices), 5 s',
                     'converge: n1 still clean wait (provide, running deploy.erase_devices) for 30 s, 35 s']


def waiting(seconds, at, age=None, **fields):
    """A progress record of n1 in 'clean wait' running erase_devices, its agent's heartbeat at Ironic's time at, age
    seconds old by Ironic's clock when the module's poll was answered (None: Ironic gave no clock)."""
    record = dict(record_of_heartbeat(at, age), node='n1', state='clean wait', step='provide',
                  running='deploy.erase_devices', seconds=seconds)
    record.update(fields)
    return record


def record_of_heartbeat(at, age):
    return dict({'heartbeat_at': at}, **({'heartbeat_age': age} if age is not None else {}))


def test_a_node_in_a_wait_state_shows_its_agents_last_heartbeat_as_ironic_recorded_it():
    progress, lines = view(1)
    progress.feed(waiting(2.0, '2026-11-28T22:04:45.3', 4.0))
    # New heartbeats are no lines of their own: the next line of the node gives the latest.
    progress.feed(dict(record_of_heartbeat('2026-11-28T22:05:10', 1.0), agent='n1', seconds=28.0))
    tick_every_read(progress, 33.0, start=2.0)
    assert lines == ['converge: n1 clean wait (provide, running deploy.erase_devices, agent heartbeat 4 s ago), 2 s',
                     # 1 s old at the poll at 28 s, 4 s before this line
                     'converge: n1 still clean wait (provide, running deploy.erase_devices, agent heartbeat 5 s ago) '
                     'for 30 s, 32 s']
    # No newer heartbeat found by the next polls: it ages (a silent agent shows so), from its age at the poll.
    tick_every_read(progress, 63.0, start=33.0)
    assert lines[2] == ('converge: n1 still clean wait (provide, running deploy.erase_devices, agent heartbeat 35 s '
                        'ago) for 60 s, 62 s')
    progress.feed(record('n1', 'available', None, 70.0))
    assert lines[3:] == ['converge: n1 available, 70 s']


def test_a_heartbeat_without_ironics_clock_is_shown_at_ironics_time_and_none_recorded_is_not_shown():
    progress, lines = view(1)
    progress.feed(waiting(2.0, '2026-11-28T22:04:45.3'))
    progress.feed(record('n2', 'wait call-back', 'deploy', 3.0))
    assert lines == ["converge: n1 clean wait (provide, running deploy.erase_devices, agent heartbeat at "
                     "2026-11-28T22:04:45.3 (Ironic's time, UTC)), 2 s",
                     'converge: n2 wait call-back (deploy), 3 s']
