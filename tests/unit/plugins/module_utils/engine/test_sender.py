# -*- coding: utf-8 -*-
"""Sending a step (engine/sender.py): lost answers checked against the node, refusals, abort_on_timeout, and what
came of a step returned (Sent), never written on the job."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.sender import Sender
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, Busy, IronicError, Locked, Unreachable)

from .fake_ironic import IMAGE, FakeIronic, deploying_with_instance_info, run


def test_abort_on_timeout_aborts_a_node_left_in_a_wait_state():
    fake = FakeIronic(fail_in={'cleaning': 'clean wait'})
    fake.add('n1', 'manageable')
    fake.add('n2', 'deploying', target='active')  # someone else's deploy, never ours to abort
    fake.nodes['n2']['since'] = 1000
    jobs = run(fake, 'available', timeout=30, abort_on_timeout=True)
    assert 'It was aborted (abort_on_timeout), out of \'clean wait\'' in jobs[0].error
    assert fake.nodes['n1']['provision_state'] == 'clean failed'
    assert jobs[0].transitions[-1]['verb'] == 'abort' and jobs[0].result()['changed']
    assert 'not started' in jobs[1].error and fake.nodes['n2']['provision_state'] == 'deploying'
    assert [verb for _at, uuid, verb in fake.requests] == ['provide', 'abort']


def test_abort_on_timeout_leaves_wait_call_back_alone_before_api_1_110_and_says_why():
    fake = FakeIronic(fail_in={'deploying': 'wait call-back'})
    fake.server_version = (1, 109)
    fake.add('n1', 'available')
    job, = run(fake, 'active', timeout=30, abort_on_timeout=True)
    assert "stopped in 'wait call-back'" in job.error and 'not in a wait state' not in job.error
    assert ("Aborting 'wait call-back' needs Ironic API 1.110 or newer, and this server is Ironic 34.0 (API 1.109), "
            "so it was left moving." in job.error)
    assert [verb for _at, _uuid, verb in fake.requests] == ['active']


def test_a_refusal_in_the_middle_of_a_plan_names_the_step_where_the_node_rests_and_the_maintenance_reason():
    fake = FakeIronic()
    fake.add('n1', 'manageable')
    fake.refuse['active'] = 'disk replaced by ops'
    job, = run(fake, 'active')
    assert "Ironic refused 'active' (step 2 of 2) from 'available'" in job.error
    assert "rests in 'available'" in job.error and 'disk replaced by ops' in job.error
    assert job.node['maintenance'] is True


@pytest.mark.parametrize('applied', [True, False])
def test_a_lost_answer_is_checked_against_the_node(applied):
    fake = FakeIronic()
    fake.add('n1', 'enroll')
    if applied:
        fake.lose_answer['manage'] = 1
    else:
        original = fake.set_provision_state
        lost = []

        def lost_before_applied(uuid, verb, **arguments):
            if verb == 'manage' and not lost:
                lost.append(verb)
                raise AnswerLost('lost')
            original(uuid, verb, **arguments)

        fake.set_provision_state = lost_before_applied
    job, = run(fake, 'manageable')
    assert job.error is None and job.node['provision_state'] == 'manageable'
    assert [verb for _at, _uuid, verb in fake.requests] == ['manage']
    assert job.transitions[0].get('answer_lost') is True


@pytest.mark.parametrize('applied', [True, False])
def test_a_lost_answer_to_set_instance_info_sends_only_what_is_missing(applied):
    fake = FakeIronic()
    if applied:
        fake.lose_answer['PATCH'] = 1
    else:
        original = fake.update_node

        def lost_before_applied(uuid, patch, retry_busy=True):
            fake.update_node = original
            raise AnswerLost('lost')

        fake.update_node = lost_before_applied
    job, = deploying_with_instance_info(fake)
    assert job.error is None and job.node['provision_state'] == 'active'
    assert job.transitions[1]['verb'] == 'set_instance_info' and job.transitions[1]['answer_lost'] is True
    assert [verb for _at, _uuid, verb in fake.requests] == [
        'provide', 'PATCH /instance_info/image_source /instance_info/old_key', 'active']  # sent until applied, once
    assert fake.nodes['n1']['instance_info'] == {'image_source': IMAGE['image_source'], 'image_checksum': 'kept'}


class AnsweringClient(object):
    """A client whose PUT of a verb gives the answers queued (an exception raised, None taken), and whose node read
    again rests in ``state``."""
    poll_fields = ('uuid', 'name', 'provision_state', 'target_provision_state')

    def __init__(self, answers, state='manageable'):
        self.answers, self.state, self.sent = list(answers), state, []

    def set_provision_state(self, uuid, verb, **arguments):
        self.sent.append(verb)
        answer = self.answers.pop(0) if self.answers else None
        if answer is not None:
            raise answer

    def get_node(self, uuid, fields):
        if self.state is None:
            raise Unreachable('connection refused')  # Ironic went down with the answer
        return {'uuid': uuid, 'name': 'n1', 'provision_state': self.state, 'target_provision_state': None}


PROVIDE = Step('provide', 'manageable', 'available')


@pytest.mark.parametrize('answers, state, expected', [
    ([], 'manageable', ('transition', None, False, False)),
    ([Busy('busy', 503)], 'manageable', (None, Busy, False, False)),
    ([Locked('locked', 409)], 'manageable', (None, Locked, False, False)),
    ([IronicError('no', 400)], 'manageable', (None, None, True, True)),
    ([AnswerLost('lost')], 'cleaning', ('transition', None, False, True)),  # applied: not sent again
    ([AnswerLost('lost'), None], 'manageable', ('transition', None, False, True)),  # never arrived: sent again
    ([AnswerLost('lost'), AnswerLost('lost')], 'manageable', (None, None, True, True)),
    ([Unreachable('refused')], 'manageable', (None, Unreachable, False, False)),  # read the node again later
    ([AnswerLost('lost'), Unreachable('refused')], 'manageable', (None, Unreachable, False, True)),
    ([AnswerLost('lost')], None, (None, Unreachable, False, False)),  # the read again refused: read it later
])
def test_sending_a_step_returns_what_came_of_it_and_changes_no_job(answers, state, expected):
    job = Job({'uuid': 'u1', 'name': 'n1', 'provision_state': 'manageable'}, 'available', Options())
    job.plan = [PROVIDE]
    before = dict(vars(job), node=dict(job.node), transitions=list(job.transitions))
    sent = Sender(AnsweringClient(answers, state)).send(job, PROVIDE)
    transition, held, error, read_again = expected
    assert vars(job) == before
    assert (sent.transition['verb'] if sent.transition else None) == ('provide' if transition else None)
    assert isinstance(sent.held, held) if held else sent.held is None
    assert (sent.error is not None, sent.node is not None) == (error, read_again)
    lost = any(isinstance(answer, AnswerLost) for answer in answers)
    assert bool(sent.transition and sent.transition.get('answer_lost')) is bool(transition and lost)
