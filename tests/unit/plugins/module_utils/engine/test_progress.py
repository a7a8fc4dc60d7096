# -*- coding: utf-8 -*-
"""The module half of live progress: one line per node and change, nothing without a progress file."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import (
    PROGRESS_FILE_ENV, Progress, running_step, task_progress)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import Scheduler

from .fake_ironic import FakeIronic, jobs_for, scheduler


class Clock(object):
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def records(path):
    with open(path) as stream:
        return [json.loads(line) for line in stream]


def test_one_line_per_node_and_change_of_state_or_step(tmp_path):
    path = str(tmp_path / 'progress')
    clock = Clock()
    progress = Progress(path, clock)
    progress.start(2)
    progress.node('n1', 'manageable', 'provide')
    progress.node('n1', 'manageable', 'provide')  # polled again, nothing new
    clock.now += 3.25
    progress.node('n1', 'cleaning', 'provide')
    progress.node('n2', 'cleaning', 'provide')
    progress.node('n1', 'available', None)
    assert records(path) == [
        {'nodes': 2},
        {'node': 'n1', 'state': 'manageable', 'step': 'provide', 'seconds': 0.0},
        {'node': 'n1', 'state': 'cleaning', 'step': 'provide', 'seconds': 3.2},
        {'node': 'n2', 'state': 'cleaning', 'step': 'provide', 'seconds': 3.2},
        {'node': 'n1', 'state': 'available', 'step': None, 'seconds': 3.2},
    ]


def test_the_file_comes_from_the_environment_the_action_plugin_sets(tmp_path, monkeypatch):
    path = tmp_path / 'from-env'
    monkeypatch.setenv(PROGRESS_FILE_ENV, str(path))
    task_progress().node('n1', 'active')
    assert records(str(path)) == [{'node': 'n1', 'state': 'active', 'step': None, 'seconds': 0.0}]


def test_without_an_action_plugin_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(PROGRESS_FILE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    progress = task_progress()
    progress.start(3)
    progress.node('n1', 'cleaning', 'provide')
    assert list(tmp_path.iterdir()) == []


def test_steps_are_named_in_the_users_words(tmp_path):
    path = str(tmp_path / 'progress')
    progress = Progress(path, Clock())
    progress.node('n1', 'deploying', 'active')
    progress.node('n2', 'deleting', 'deleted')
    progress.node('n3', 'cleaning', 'provide')
    assert [record['step'] for record in records(path)] == ['deploy', 'undeploy', 'provide']


def test_every_stage_of_a_task_reports_to_its_one_progress_on_one_clock(tmp_path, monkeypatch):
    path = tmp_path / 'task'
    monkeypatch.setenv(PROGRESS_FILE_ENV, str(path))
    progress = task_progress()
    assert task_progress() is progress and Scheduler(None, 60).progress is progress
    monkeypatch.setenv(PROGRESS_FILE_ENV, str(tmp_path / 'another-task'))
    assert task_progress() is not progress


def test_a_stage_on_fewer_nodes_does_not_make_the_task_one_of_fewer(tmp_path):
    # waves of 2, 2 and 1 node of a 5-node task: the last wave of one node was listed node by node, and the
    # task's last line ('done, 5 nodes: ...'), which the viewer writes for a fleet only, was missing
    path = str(tmp_path / 'progress')
    progress = Progress(path, Clock())
    for nodes in (5, 2, 2, 1, 7):
        progress.start(nodes)
    assert records(path) == [{'nodes': 5}, {'nodes': 7}]


def test_the_step_ironic_reports_a_node_runs_is_written_and_a_new_one_is_a_change(tmp_path):
    path = str(tmp_path / 'progress')
    progress = Progress(path, Clock())
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices_metadata')
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices_metadata')  # polled again, nothing new
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices')
    progress.node('n1', 'available', None)
    assert records(path) == [
        {'node': 'n1', 'state': 'clean wait', 'step': 'provide', 'running': 'deploy.erase_devices_metadata',
         'seconds': 0.0},
        {'node': 'n1', 'state': 'clean wait', 'step': 'provide', 'running': 'deploy.erase_devices', 'seconds': 0.0},
        {'node': 'n1', 'state': 'available', 'step': None, 'seconds': 0.0},
    ]


@pytest.mark.parametrize('node, running', [
    ({'clean_step': {'interface': 'deploy', 'step': 'erase_devices', 'priority': 10}}, 'deploy.erase_devices'),
    ({'clean_step': {}, 'deploy_step': {'interface': 'deploy', 'step': 'write_image'}}, 'deploy.write_image'),
    ({'clean_step': None, 'deploy_step': {}, 'service_step': {'interface': 'bios', 'step': 'apply_configuration'}},
     'bios.apply_configuration'),
    ({'clean_step': {}, 'deploy_step': {}, 'service_step': {}}, None),
    ({}, None),  # an Ironic too old to report them
])
def test_the_running_step_is_the_clean_deploy_or_service_step_ironic_reports(node, running):
    assert running_step(node) == running


HEARTBEAT = {'at': '2026-11-28T21:59:42.931413', 'age': 4.0}


def test_a_node_in_a_wait_state_shows_its_agents_heartbeat_and_a_new_heartbeat_is_one_agent_record(tmp_path):
    path = str(tmp_path / 'progress')
    clock = Clock()
    progress = Progress(path, clock)
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices', HEARTBEAT)
    clock.now += 2.0
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices', HEARTBEAT)  # polled again, same heartbeat
    clock.now += 3.0
    newer = {'at': '2026-11-28T21:59:47.5', 'age': 1.0}
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices', newer)
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices', newer)
    clock.now += 1.0
    progress.node('n1', 'clean wait', 'provide', 'deploy.erase_devices', {'at': '2026-11-28T21:59:49', 'age': None})
    progress.node('n1', 'available')
    assert records(path) == [
        {'node': 'n1', 'state': 'clean wait', 'step': 'provide', 'running': 'deploy.erase_devices', 'seconds': 0.0,
         'heartbeat_at': '2026-11-28T21:59:42.931413', 'heartbeat_age': 4.0},
        {'agent': 'n1', 'heartbeat_at': '2026-11-28T21:59:47.5', 'heartbeat_age': 1.0, 'seconds': 5.0},
        # Ironic gave no clock to age it by: its time only, never an age of this machine's clock.
        {'agent': 'n1', 'heartbeat_at': '2026-11-28T21:59:49', 'seconds': 6.0},
        {'node': 'n1', 'state': 'available', 'step': None, 'seconds': 6.0},
    ]


def test_the_scheduler_reports_the_heartbeat_of_a_node_it_waits_for_in_a_wait_state(tmp_path):
    path = str(tmp_path / 'progress')
    fake = FakeIronic()
    fake.add('n1', 'manageable')
    job, node = jobs_for(fake, 'available')[0]
    sched = scheduler(fake, progress=Progress(path, fake.clock))
    sched.observe(job, node, False)
    sched._start([job], True)
    waiting = dict(fake.nodes['n1'], provision_state='clean wait', target_provision_state='available',
                   clean_step={'interface': 'deploy', 'step': 'erase_devices'}, agent_heartbeat=HEARTBEAT)
    sched.observe(job, waiting, False)
    assert records(path)[-1] == {'node': 'n1', 'state': 'clean wait', 'step': 'provide', 'seconds': 0.0,
                                 'running': 'deploy.erase_devices', 'heartbeat_at': HEARTBEAT['at'],
                                 'heartbeat_age': 4.0}


def test_a_node_holding_its_agents_token_gives_no_text_containing_it(tmp_path):
    # Only the client's agent_heartbeat (ironic/client.py) is read: a node that still held Ironic's
    # driver_internal_info, token and all, gives the progress nothing of it.
    token = 'agent-token-4f1b9c2e77d0'
    path = str(tmp_path / 'progress')
    fake = FakeIronic()
    fake.add('n1', 'manageable')
    job, node = jobs_for(fake, 'available')[0]
    sched = scheduler(fake, progress=Progress(path, fake.clock))
    sched.observe(job, node, False)
    sched._start([job], True)
    info = {'agent_secret_token': token, 'agent_last_heartbeat': '2026-11-28T22:04:45.387800'}
    sched.observe(job, dict(fake.nodes['n1'], provision_state='clean wait', target_provision_state='available',
                            driver_internal_info=info), False)
    sched.observe(job, dict(fake.nodes['n1'], provision_state='clean wait', target_provision_state='available',
                            driver_internal_info=info, agent_heartbeat=HEARTBEAT), False)
    text = open(path).read()
    assert token not in text and 'driver_internal_info' not in text and HEARTBEAT['at'] in text
