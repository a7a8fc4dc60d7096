# -*- coding: utf-8 -*-
"""One node's way to its declared state (engine/job.py): what it shows of the node, its remaining steps, how it
fails, the result it leaves, and the moves from one stage to the next the scheduler makes with what the sender and
the waiter return."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.sender import Sent
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import Judged
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked

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


def test_the_landing_is_that_of_the_step_in_flight_and_none_while_no_step_is():
    moving = a_job()
    moving.plan = [Step('provide', 'manageable', 'available'), Step('deploy', 'available', 'active')]
    assert moving.landing is None  # nothing issued
    moving.issued, moving.stage = 1, job.READY
    assert moving.landing is None  # between two steps
    moving.stage = job.MOVING
    assert moving.landing == 'available'


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


def test_a_planned_job_is_ready_with_steps_to_go_and_done_without_or_in_check_mode():
    planned = a_job()
    planned.planned([Step('provide', 'manageable', 'available')], check_mode=False)
    assert (planned.stage, planned.remaining) == (job.READY, [Step('provide', 'manageable', 'available')])
    planned.planned([], check_mode=False)
    assert planned.stage == job.DONE
    checked = a_job()
    checked.planned([Step('provide', 'manageable', 'available')], check_mode=True)
    assert checked.stage == job.DONE and len(checked.plan) == 1


def test_a_step_taken_opens_its_transition_and_landing_closes_it_with_the_seconds_on_the_clock():
    taken = a_job()
    taken.holders, taken.quiet = {'c1': 'cleaning'}, ('sig', 1.0)
    sent = Sent({'verb': 'provide', 'from': 'manageable', 'to': None, 'seconds': 0.0}, None, None, None)
    assert taken.took(sent, now=10.0) is True
    assert (taken.started, taken.step_started, taken.holders, taken.quiet, taken.locked) == (True, 10.0, {}, None, None)
    taken.landed('available', now=12.5, stranded=True)
    assert taken.transitions == [{'verb': 'provide', 'from': 'manageable', 'to': 'available', 'seconds': 2.5,
                                  'stranded': True}]


def test_a_step_held_off_or_refused_starts_nothing_and_a_refusal_fails_the_job_on_the_node_read_again():
    held = a_job()
    locked = Locked('node locked by c1', 409, 'Conflict')
    assert held.took(Sent(None, locked, None, None), now=1.0) is False
    assert (held.locked, held.stage, held.started, held.transitions) == (locked, job.WAITING, False, [])
    assert held.took(Sent(None, Busy('busy', 503, 'Service Unavailable'), None, None), now=2.0) is False
    assert held.locked is None and held.error is None
    refused = a_job()
    again = {'uuid': UUID, 'name': 'rack1-node07', 'provision_state': 'active'}
    assert refused.took(Sent(None, None, 'Ironic refused it', again), now=1.0) is False
    assert refused.error == 'node rack1-node07: Ironic refused it' and refused.stage == job.DONE
    assert refused.node['provision_state'] == 'active'


def test_a_step_cut_short_goes_first_again_once_the_node_rests_where_it_starts():
    cut = a_job()
    cut.plan = [Step('provide', 'manageable', 'available'), Step('active', 'available', 'active')]
    cut.issued = 1
    cut.retry = cut.plan[0]
    assert cut.retried({'uuid': UUID, 'provision_state': 'available'}) is False and cut.retry is None
    cut.retry = cut.plan[0]
    assert cut.retried({'uuid': UUID, 'provision_state': 'manageable'}) is True
    assert cut.stage == job.READY and cut.remaining == [Step('provide', 'manageable', 'available'),
                                                        Step('active', 'available', 'active')]


def test_what_the_waiter_judged_is_kept_on_the_job():
    watched = a_job()
    dead = {'hostname': 'c1', 'dead': True}
    watched.watched(Judged('takeover', dead, None, dead, dead, ('sig', 3.0), 'c1'), 'cleaning')
    assert (watched.holders, watched.holder, watched.takeover, watched.quiet) == (
        {'c1': 'cleaning'}, dead, dead, ('sig', 3.0))
