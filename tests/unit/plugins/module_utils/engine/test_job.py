# -*- coding: utf-8 -*-
"""One node's way to its declared state (engine/job.py): what it shows of the node, its remaining steps, how it
fails and the result it leaves."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step

UUID = '1be26c0b-03f2-4d2d-ae87-c02d7f33c123'


def a_job(name='rack1-node07', **node):
    return job.Job(dict({'uuid': UUID, 'name': name, 'provision_state': 'manageable',
                         'driver_info': {'ipmi_password': 'secret-7'}}, **node), 'available', options=None)


def test_a_job_keeps_the_summary_of_its_node_not_the_whole_record():
    started = a_job()
    assert started.node['uuid'] == UUID and started.node['provision_state'] == 'manageable'
    assert 'driver_info' not in started.node
    assert (started.stage, started.started, started.error) == (job.WAITING, False, None)


def test_the_remaining_steps_are_those_of_the_plan_not_issued_yet():
    moving = a_job()
    moving.plan = [Step('provide', 'manageable', 'available'), Step('deploy', 'available', 'active')]
    moving.issued = 1
    assert moving.remaining == [Step('deploy', 'available', 'active')]


def test_a_failure_names_the_node_by_its_name_else_its_uuid_and_ends_the_job():
    named, unnamed = a_job(), a_job(name=None)
    named.fail('cleaning failed')
    unnamed.fail('cleaning failed')
    assert named.error == 'node rack1-node07: cleaning failed' and named.stage == job.DONE
    assert unnamed.error == 'node %s: cleaning failed' % UUID


def test_the_result_shows_the_plan_the_transitions_and_changed_only_once_a_request_was_sent():
    moved = a_job()
    moved.plan = [Step('provide', 'manageable', 'available')]
    moved.transitions = [{'from': 'manageable', 'to': 'available'}]
    assert moved.result()['changed'] is False
    moved.started = True
    result = moved.result()
    assert result['changed'] is True and result['error'] is None and result['node']['name'] == 'rack1-node07'
    assert [step['verb'] for step in result['plan']] == ['provide']
    assert result['transitions'] == [{'from': 'manageable', 'to': 'available'}]
