# -*- coding: utf-8 -*-
"""The one deadline and backoff of everything that polls, on a fake clock."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.wait import (
    POLL_BACKOFF, POLL_INITIAL_DELAY, POLL_MAX_DELAY, Backoff, Deadline)


class FakeClock(object):
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def test_pauses_grow_to_the_ceiling_and_start_again_after_a_reset():
    backoff = Backoff()
    delays = [backoff.next() for _index in range(20)]
    assert delays[0] == POLL_INITIAL_DELAY and delays[1] == POLL_INITIAL_DELAY * POLL_BACKOFF
    assert max(delays) == delays[-1] == POLL_MAX_DELAY
    backoff.reset()
    assert backoff.next() == POLL_INITIAL_DELAY


def test_a_deadline_never_sleeps_past_itself_and_can_be_extended():
    fake = FakeClock()
    deadline = Deadline(12, fake.clock, fake.sleep)
    backoff = Backoff()
    while deadline.pause(backoff):
        pass
    assert fake.now == 12 and fake.sleeps[-1] < POLL_MAX_DELAY + 1e-9
    assert deadline.pause(backoff) is False and fake.now == 12
    deadline.extend(5)
    assert deadline.pause(backoff) is True and fake.now == 17
