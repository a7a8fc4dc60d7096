# -*- coding: utf-8 -*-
"""A node's writes while a conductor holds its lock (engine/writes.py), on a fake clock: sent again within the task's
timeout, or left to the transport's retries in a task without one; a write still refused names the node and itself.

A write that waits in a real task is tested through node/test_writer.py (the record) and node/test_power.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import POLL_MAX_DELAY
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import Progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import LOCKED, NO_CONDUCTOR, NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    Busy, ConductorUnreachable, Locked)

from ..common.fake_clock import FakeClock

LOCK = 'Node u-1 is locked by host c1, please retry after the current operation is completed.'
# Ironic's API, its hash ring still giving the node a conductor that died (HTTP 500).
NO_CONDUCTOR_ANSWER = ("Unable to establish connection to http://127.0.131.3:8089: "
                       "HTTPConnectionPool(host='127.0.131.3', port=8089): Max retries exceeded with url: /")
ANSWERS = {Locked: (409, LOCK), Busy: (503, 'No free conductor workers available'),
           ConductorUnreachable: (500, NO_CONDUCTOR_ANSWER)}


class HeldNode(FakeClock):
    """set_maintenance of a node Ironic holds off until ``until`` (fake clock) with ``answer`` (Locked or Busy); the
    transport's own retries (retry_busy) take 30 s before it gives up."""

    def __init__(self, until, answer=Locked):
        super(HeldNode, self).__init__()
        self.until, self.answer = until, answer
        self.sent = []

    def set_maintenance(self, uuid, reason=None, retry_busy=True):
        self.sent.append((self.now, retry_busy))
        if self.now < self.until:
            if retry_busy:
                self.sleep(30)
            status, reason = ANSWERS[self.answer]
            raise self.answer('Ironic refused PUT /v1/nodes/u-1/maintenance (HTTP %d): %s' % (status, reason), status,
                              reason)


def writes(fake, timeout, progress=None):
    return NodeWrites('n1', 'active', timeout, progress=progress, clock=fake.clock, sleep=fake.sleep)


@pytest.mark.parametrize('answer', [Locked, Busy, ConductorUnreachable])
def test_a_write_held_off_for_a_while_is_sent_again_at_the_polls_pace_until_ironic_takes_it(answer):
    fake = HeldNode(40.0, answer)
    writes(fake, 300).send('setting maintenance', fake.set_maintenance, 'u-1', 'disk')
    assert all(retry_busy is False for _at, retry_busy in fake.sent)  # the transport answers at once
    assert 40 <= fake.now <= 40 + POLL_MAX_DELAY


def test_a_write_locked_past_the_timeout_names_the_node_the_write_the_lock_and_the_fix():
    fake = HeldNode(float('inf'))
    with pytest.raises(Locked) as caught:
        writes(fake, 300).send('setting maintenance', fake.set_maintenance, 'u-1', 'disk')
    assert str(caught.value) == (
        "node n1: setting maintenance never went through: a conductor kept the node locked until the timeout (300 s) "
        "passed (Ironic's latest answer: %s). It is at work on the node, often waiting for a slow BMC: raise timeout, "
        "or look at the conductor's log." % LOCK.rstrip('.'))
    assert caught.value.status == 409 and caught.value.reason == LOCK
    assert fake.now == 300


def test_a_task_without_a_timeout_leaves_the_lock_to_the_transports_retries_and_says_to_run_again():
    fake = HeldNode(float('inf'))
    with pytest.raises(Locked) as caught:
        writes(fake, None).send('setting maintenance', fake.set_maintenance, 'u-1', 'disk')
    assert fake.sent == [(0.0, True)]
    assert str(caught.value).startswith("node n1: setting maintenance never went through: a conductor kept the node "
                                        "locked for 30 s of retries (Ironic's latest answer: Node u-1 is locked by host c1")
    assert str(caught.value).endswith('run the task again once it is done, or look at the conductor\'s log.')


def test_a_write_refused_for_busy_past_the_timeout_names_the_limit_to_raise():
    fake = HeldNode(float('inf'), Busy)
    with pytest.raises(Busy, match=r"node n1: setting maintenance never went through: Ironic took no more work until "
                                   r"the timeout \(60 s\) passed .*Raise timeout, or raise Ironic's "
                                   r"\[conductor\]workers_pool_size\."):
        writes(fake, 60).send('setting maintenance', fake.set_maintenance, 'u-1', 'disk')


def test_the_progress_shows_the_node_waiting_for_its_lock(tmp_path):
    fake = HeldNode(10.0)
    path = str(tmp_path / 'progress')
    writes(fake, 300, Progress(path, fake.clock)).send('setting maintenance', fake.set_maintenance, 'u-1', 'disk')
    with open(path) as stream:
        records = [json.loads(line) for line in stream]
    assert [(record['node'], record['state'], record['step']) for record in records] == [('n1', 'active', LOCKED)]


def test_a_write_whose_conductor_ironic_cannot_reach_past_the_timeout_says_the_conductor_is_down():
    fake = HeldNode(float('inf'), ConductorUnreachable)
    with pytest.raises(ConductorUnreachable) as caught:
        writes(fake, 300).send('clearing the fault', fake.set_maintenance, 'u-1', 'disk')
    assert str(caught.value) == (
        "node n1: clearing the fault never went through: Ironic's API could not reach the node's conductor until the "
        "timeout (300 s) passed (Ironic's latest answer: %s). That conductor is down and Ironic does not count it "
        "dead yet: start it again, or raise timeout; Ironic gives the node a live conductor of its group once "
        "[conductor]heartbeat_timeout has passed." % NO_CONDUCTOR_ANSWER)
    assert caught.value.status == 500 and fake.now == 300


def test_the_progress_shows_the_node_waiting_for_a_conductor(tmp_path):
    fake = HeldNode(10.0, ConductorUnreachable)
    path = str(tmp_path / 'progress')
    writes(fake, 300, Progress(path, fake.clock)).send('clearing the fault', fake.set_maintenance, 'u-1', 'disk')
    with open(path) as stream:
        records = [json.loads(line) for line in stream]
    assert [(record['node'], record['state'], record['step']) for record in records] == [
        ('n1', 'active', NO_CONDUCTOR)]
