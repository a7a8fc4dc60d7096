# -*- coding: utf-8 -*-
"""Executor edge cases that a real Ironic cannot produce on demand: slow conductors, timeouts, many nodes.

The fake conductor moves a node along the table's success path one transient state per tick.
Everything users rely on is also tested against the real Ironic in tests/integration.
"""

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _planner as planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils import _states as states
from ansible_collections.baremetal.lifecycle.plugins.module_utils._executor import Executor, Job, POLL_MAX_DELAY
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._provision import Options, issue_step

EVENTS = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)


class FakeIronic(object):
    """Nodes whose transient states each last ``tick`` seconds of a fake clock."""

    def __init__(self, tick=0.3, fail_in=None):
        self.now = 0.0
        self.tick = tick
        self.fail_in = fail_in or {}  # transient state -> failure state it falls into
        self.nodes = {}
        self.polls = []
        self.moving_peak = 0

    def clock(self):
        return self.now

    def sleep(self, seconds):
        assert seconds > 0
        self.now += seconds

    def add(self, uuid, state):
        self.nodes[uuid] = {'uuid': uuid, 'name': uuid, 'provision_state': state, 'target_provision_state': None,
                            'since': 0.0, 'last_error': None}

    def set_provision_state(self, uuid, verb, **arguments):
        node = self.nodes[uuid]
        entered = EVENTS.get((node['provision_state'], states.VERBS[verb]))
        if entered is None:
            raise IronicError('cannot %s from %s' % (verb, node['provision_state']), 400)
        landing = states.LANDING_OVERRIDES.get((node['provision_state'], verb))
        node['provision_state'] = entered
        node['target_provision_state'] = landing or states.STATES[entered][1]
        node['since'] = self.now
        self.moving_peak = max(self.moving_peak, sum(1 for n in self.nodes.values() if n['target_provision_state']))

    def _advance(self, node):
        while node['target_provision_state'] and self.now - node['since'] >= self.tick:
            state = node['provision_state']
            if state in self.fail_in:
                node['provision_state'] = self.fail_in[state]
                node['last_error'] = 'the fake conductor failed in %s' % state
                return
            # the event that reaches the target directly (a manual clean's 'manage'), else onwards
            following = next((EVENTS[(state, event)] for event in ('manage', 'done', 'clean')
                              if EVENTS.get((state, event)) == node['target_provision_state']), None)
            following = following or EVENTS.get((state, 'done')) or EVENTS.get((state, 'clean'))
            node['provision_state'] = following
            node['since'] += self.tick
            if states.STATES[following][0] == states.STABLE:
                node['target_provision_state'] = None

    def poll_nodes(self, uuids):
        self.polls.append((self.now, sorted(uuids)))
        for uuid in uuids:
            self._advance(self.nodes[uuid])
        return dict((uuid, dict(self.nodes[uuid])) for uuid in uuids)


def job_for(fake, uuid, target, **options):
    node = fake.nodes[uuid]
    return Job(node, planner.plan(node['provision_state'], target, **options), Options())


def test_walks_a_node_through_every_step_and_records_transitions():
    fake = FakeIronic()
    fake.add('n1', 'enroll')
    job = job_for(fake, 'n1', 'active')
    Executor(fake, issue_step=issue_step, timeout=60, clock=fake.clock, sleep=fake.sleep).run([job])
    assert job.error is None
    assert [(t['verb'], t['from'], t['to']) for t in job.transitions] == [
        ('manage', 'enroll', 'manageable'), ('provide', 'manageable', 'available'), ('active', 'available', 'active')]
    assert all(t['seconds'] >= fake.tick for t in job.transitions)
    assert job.node['provision_state'] == 'active'


def test_polling_starts_fast_and_backs_off_to_a_cap():
    fake = FakeIronic(tick=600)  # a real deploy: ten minutes
    fake.add('n1', 'available')
    Executor(fake, issue_step=issue_step, timeout=3600, clock=fake.clock, sleep=fake.sleep).run([job_for(fake, 'n1', 'active')])
    gaps = [later[0] - earlier[0] for earlier, later in zip(fake.polls, fake.polls[1:])]
    assert fake.polls[0][0] < 0.1
    assert gaps == sorted(gaps)
    assert max(gaps) == POLL_MAX_DELAY
    assert len(fake.polls) < 150  # about one poll per cap interval once backed off


def test_failure_state_stops_that_node_with_ironics_last_error():
    fake = FakeIronic(fail_in={'cleaning': 'clean failed'})
    fake.add('n1', 'manageable')
    job = job_for(fake, 'n1', 'active')
    Executor(fake, issue_step=issue_step, timeout=60, clock=fake.clock, sleep=fake.sleep).run([job])
    assert "'provide' from 'manageable' ended in 'clean failed' instead of 'available'" in job.error
    assert 'the fake conductor failed in cleaning' in job.error
    assert [t['verb'] for t in job.transitions] == ['provide']


def test_one_overall_timeout_bounds_the_whole_plan():
    fake = FakeIronic(tick=100)
    fake.add('n1', 'enroll')
    job = job_for(fake, 'n1', 'available')
    Executor(fake, issue_step=issue_step, timeout=150, clock=fake.clock, sleep=fake.sleep).run([job])
    assert 'timed out after 150 s' in job.error and "'provide'" in job.error
    assert fake.now <= 150 + 1e-9


def test_many_nodes_share_one_poll_and_respect_concurrency():
    fake = FakeIronic()
    for index in range(30):
        fake.add('n%02d' % index, 'manageable')
    jobs = [job_for(fake, uuid, 'active') for uuid in sorted(fake.nodes)]
    Executor(fake, issue_step=issue_step, timeout=600, concurrency=7, clock=fake.clock, sleep=fake.sleep).run(jobs)
    assert all(job.error is None and job.node['provision_state'] == 'active' for job in jobs)
    assert fake.moving_peak == 7
    assert all(len(uuids) <= 7 for _at, uuids in fake.polls)


def test_a_failing_node_does_not_stop_the_others():
    fake = FakeIronic()
    fake.add('good', 'manageable')
    fake.add('bad', 'enroll')
    jobs = [job_for(fake, 'good', 'available'), Job(fake.nodes['bad'], [planner.Step('provide', 'enroll', 'available')], Options())]
    Executor(fake, issue_step=issue_step, timeout=60, concurrency=2, clock=fake.clock, sleep=fake.sleep).run(jobs)
    assert jobs[0].error is None and jobs[0].node['provision_state'] == 'available'
    assert 'cannot provide from enroll' in jobs[1].error


def test_without_wait_only_the_first_verb_is_issued():
    fake = FakeIronic()
    fake.add('n1', 'enroll')
    job = job_for(fake, 'n1', 'active')
    Executor(fake, issue_step=issue_step, timeout=60, clock=fake.clock, sleep=fake.sleep).run([job], wait=False)
    assert fake.nodes['n1']['provision_state'] == 'verifying'
    assert job.transitions == [{'verb': 'manage', 'from': 'enroll', 'to': None, 'seconds': 0.0}]
    assert fake.polls == []


@pytest.mark.parametrize('state', ['cleaning', 'deploying', 'verifying'])
def test_settle_waits_for_moving_nodes(state):
    fake = FakeIronic()
    fake.add('n1', state)
    fake.nodes['n1']['target_provision_state'] = states.STATES[state][1]
    latest = Executor(fake, issue_step=issue_step, timeout=60, clock=fake.clock, sleep=fake.sleep).settle([dict(fake.nodes['n1'])])
    assert planner.is_at_rest(latest['n1']['provision_state'], latest['n1']['target_provision_state'])
