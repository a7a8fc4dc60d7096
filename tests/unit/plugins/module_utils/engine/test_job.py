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


def test_a_step_that_failed_back_to_where_it_started_changed_nothing_but_one_before_it_did():
    verify = a_job(provision_state='enroll')
    verify.plan = [Step('manage', 'enroll', 'manageable'), Step('provide', 'manageable', 'available')]
    verify.started = True
    verify.transitions = [{'verb': 'manage', 'from': 'enroll', 'to': 'enroll'}]
    verify.fail("'manage' from 'enroll' ended in 'enroll' instead of 'manageable'.")
    assert verify.result()['changed'] is False
    # a clean that ran (manageable to manageable) and a provide that failed after it: the clean changed the node
    cleaned = a_job()
    cleaned.plan = [Step('clean', 'manageable', 'manageable'), Step('provide', 'manageable', 'available')]
    cleaned.started = True
    cleaned.transitions = [{'verb': 'clean', 'from': 'manageable', 'to': 'manageable'},
                           {'verb': 'provide', 'from': 'manageable', 'to': 'clean failed'}]
    cleaned.fail('cleaning failed')
    assert cleaned.result()['changed'] is True
    cleaned.transitions = cleaned.transitions[:1]  # the clean succeeded, then Ironic refused the provide
    assert cleaned.result()['changed'] is True
    stuck = a_job()  # a step that failed, still moving (to: None), or that landed elsewhere
    stuck.started = True
    stuck.transitions = [{'verb': 'provide', 'from': 'manageable', 'to': None}]
    stuck.fail('timed out')
    assert stuck.result()['changed'] is True
