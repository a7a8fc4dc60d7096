# -*- coding: utf-8 -*-
"""The waiter's table of predicates: what a polled node that is not at rest shows, first verdict first, and the
job's watch as the scheduler is to keep it (the waiter changes no job)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import waiter
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import MOVING, Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import (
    ABANDONED, MOVES, STRANDED, STRANDED_GRACE, TAKEOVER, Waiter, agent_heartbeat)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Unreachable


class Clock(object):
    now = 0.0

    def __call__(self):
        return self.now


def conductor(name, alive, group='', taken_over=True):
    return {'hostname': name, 'alive': alive, 'dead': not alive, 'conductor_group': group,
            'taken_over': taken_over, 'updated_at': 'then'}


def judged(node, conductors=None, clock=None, job=None):
    """(Waiter.judge's verdict, dead conductor, reason), the job with the quiet it returned kept, as the scheduler
    keeps it, and the Judged itself."""
    clock = clock or Clock()
    job = job or Job(dict(node, uuid='u1'), 'available', Options())
    job.stage = MOVING
    before = dict(vars(job), holders=dict(job.holders))
    judgement = Waiter(None, Wait(60, clock=clock, sleep=None)).judge(job, dict(node, uuid='u1'), conductors)
    assert vars(job) == before  # the waiter reads the job, never changes it
    job.quiet = judgement.quiet
    return judgement[:3], job, judgement


def test_a_node_a_dead_conductor_holds_awaits_the_takeover_by_a_live_one_of_its_group():
    conductors = {'c1': conductor('c1', False, 'g'), 'c2': conductor('c2', True, 'g')}
    (verdict, dead, reason), _job, judgement = judged({'provision_state': 'cleaning', 'reservation': 'c1',
                                                       'conductor_group': 'g'}, conductors)
    assert (verdict, dead['hostname'], reason) == (TAKEOVER, 'c1', None)
    assert judgement.takeover is dead and judgement.holder is dead and judgement.holding == 'c1'


@pytest.mark.parametrize('node, alive_group, taken_over, reason', [
    ({'provision_state': 'inspecting'}, 'g', True, 'state'),
    ({'provision_state': 'cleaning'}, 'g', False, 'port'),
    ({'provision_state': 'cleaning'}, 'other', True, 'group'),
])
def test_a_node_no_other_conductor_takes_over_is_abandoned_and_says_why(node, alive_group, taken_over, reason):
    conductors = {'c1': conductor('c1', False, 'g', taken_over), 'c2': conductor('c2', True, alive_group)}
    (verdict, dead, why), _job, judgement = judged(dict(node, reservation='c1', conductor_group='g'), conductors)
    assert (verdict, dead['hostname'], why) == (ABANDONED, 'c1', reason) and judgement.takeover is None


def test_a_node_without_lock_or_progress_is_stranded_once_the_grace_passed():
    clock = Clock()
    node = {'provision_state': 'cleaning', 'reservation': None, 'provision_updated_at': 't'}
    (verdict, _dead, _why), job, _judgement = judged(node, clock=clock)
    assert verdict == MOVES and job.quiet is not None
    clock.now = STRANDED_GRACE
    assert judged(node, clock=clock, job=job)[0][0] == STRANDED


def test_a_wait_state_is_never_stranded_nor_judged_by_its_holder():
    clock = Clock()
    node = {'provision_state': 'clean wait', 'reservation': None}
    job = judged(node, clock=clock)[1]
    clock.now = 10 * STRANDED_GRACE
    (verdict, _dead, _why), _job, judgement = judged(node, {'c1': conductor('c1', False)}, clock=clock, job=job)
    assert verdict == MOVES and 'clean wait' in waiter.WAIT_STATES and judgement.holder is None


def test_a_takeover_comes_before_stranded_in_the_table():
    assert [verdict for verdict, _holds in waiter.VERDICTS] == [TAKEOVER, ABANDONED, STRANDED]


class SilentIronic(object):
    """An Ironic that accepts connections and never answers: each poll takes two tries of api_timeout, then fails."""

    def __init__(self, clock, api_timeout):
        self.clock, self.api_timeout = clock, api_timeout
        self.polls = 0

    def poll_nodes(self, last_seen, transient_states, agent_states=(), landing=None):
        self.polls += 1
        self.clock.now += 2 * self.api_timeout
        raise Unreachable('Ironic at http://127.0.0.1:6385 accepted the connection but did not answer')


@pytest.mark.parametrize('api_timeout, polls', [(60, 1), (5, 6)])
def test_the_time_a_poll_took_without_answer_counts_toward_the_unreachable_grace(api_timeout, polls):
    clock = Clock()
    ironic = SilentIronic(clock, api_timeout)
    poller = Waiter(ironic, Wait(3600, clock=clock, sleep=None))
    job = Job({'uuid': 'u1', 'provision_state': 'cleaning'}, 'available', Options())
    for _poll in range(polls - 1):
        assert poller.poll([job]) is None
    with pytest.raises(Unreachable):
        poller.poll([job])
    assert ironic.polls == polls and clock.now == polls * 2 * api_timeout


class RecordingIronic(object):
    """An Ironic whose polls answer that nothing moved, and keep what they were asked."""

    def __init__(self):
        self.asked = []

    def poll_nodes(self, last_seen, transient_states, agent_states=(), landing=None):
        self.asked.append((last_seen, landing))
        return dict(last_seen)


def test_a_poll_names_where_each_moving_node_lands_if_its_step_succeeds():
    ironic = RecordingIronic()
    moving, waiting = (Job({'uuid': uuid, 'provision_state': 'enroll'}, 'available', Options()) for uuid in ('m', 'w'))
    moving.plan, moving.issued, moving.stage = [Step('manage', 'enroll', 'manageable')], 1, MOVING
    Waiter(ironic, Wait(60, clock=Clock(), sleep=None)).poll([moving, waiting])
    assert ironic.asked == [({'m': moving.node, 'w': waiting.node}, {'m': 'manageable'})]


HEARTBEAT = {'at': '2026-11-28T21:59:42.931413', 'age': 4.0}


@pytest.mark.parametrize('state', ['clean wait', 'wait call-back', 'service wait', 'inspect wait', 'rescue wait'])
def test_the_heartbeat_of_a_node_in_a_wait_state_is_what_the_poll_saw_of_ironics_record(state):
    assert agent_heartbeat({'provision_state': state, 'agent_heartbeat': HEARTBEAT}) == HEARTBEAT
    # Ironic recorded none: none is shown, never a guess.
    assert agent_heartbeat({'provision_state': state}) is None


@pytest.mark.parametrize('state', ['cleaning', 'deploying', 'available', 'active', 'manageable'])
def test_a_node_in_no_wait_state_shows_no_heartbeat_even_when_its_agent_recorded_one(state):
    assert agent_heartbeat({'provision_state': state, 'agent_heartbeat': HEARTBEAT}) is None
