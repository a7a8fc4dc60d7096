# -*- coding: utf-8 -*-
"""The one waiting primitive of everything that waits (polls, power, retries, waves), on a fake clock."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import (
    POLL_BACKOFF, POLL_INITIAL_DELAY, POLL_MAX_DELAY, Wait)

from .fake_clock import FakeClock


def test_pauses_grow_to_the_ceiling_and_start_again_after_a_reset():
    fake = FakeClock()
    waiting = Wait(clock=fake.clock, sleep=fake.sleep)
    for _index in range(20):
        assert waiting.pause() is True
    assert fake.sleeps[0] == POLL_INITIAL_DELAY and fake.sleeps[1] == POLL_INITIAL_DELAY * POLL_BACKOFF
    assert max(fake.sleeps) == fake.sleeps[-1] == POLL_MAX_DELAY
    waiting.reset()
    waiting.pause()
    assert fake.sleeps[-1] == POLL_INITIAL_DELAY


def test_a_deadline_never_sleeps_past_itself_and_can_be_extended():
    fake = FakeClock()
    waiting = Wait(12, clock=fake.clock, sleep=fake.sleep)
    while waiting.pause():
        pass
    assert fake.now == 12 and fake.sleeps[-1] < POLL_MAX_DELAY + 1e-9
    assert waiting.pause() is False and fake.now == 12 and waiting.remaining() == 0
    waiting.extend(5)
    assert waiting.pause() is True and fake.now == 17


def test_without_a_deadline_every_pause_is_slept_whole():
    fake = FakeClock()
    waiting = Wait(initial=0.1, factor=2, cap=0.5, clock=fake.clock, sleep=fake.sleep)
    assert all(waiting.pause() for _index in range(5)) and waiting.remaining() is None
    assert fake.sleeps == [0.1, 0.2, 0.4, 0.5, 0.5]


def test_a_factor_of_one_is_a_constant_pause():
    fake = FakeClock()
    waiting = Wait(initial=3, factor=1, cap=3, sleep=fake.sleep)
    waiting.pause()
    waiting.pause()
    assert fake.sleeps == [3, 3]


def test_jitter_spreads_each_pause_around_the_backoff(monkeypatch):
    fake = FakeClock()
    draws = iter([0.0, 0.999, 0.5])
    monkeypatch.setattr(wait.random, 'random', lambda: next(draws))
    waiting = Wait(initial=1, factor=2, cap=10, jitter=1.0, sleep=fake.sleep)
    for _index in range(3):
        waiting.pause()
    assert fake.sleeps[0] == 0.5 and abs(fake.sleeps[1] - 2 * 1.499) < 1e-9 and fake.sleeps[2] == 4
