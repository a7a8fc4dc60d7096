# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one waiting primitive (Wait), used by everything that waits for Ironic: a deadline on a monotonic clock,
backed-off pauses and a sleep.

Provision moves (engine/scheduler.py), power requests and a node's writes held off by a lock
(ironic/transport.resent_while_held), the transport's retries (ironic/transport.py) and the pause between two waves
(fleet/waves.py) all wait with a Wait, each with its own pace: one backoff scheme, a
pause growing from ``initial`` by ``factor`` up to ``cap``, each scaled by a random factor around 1 of width
``jitter`` (0: none), where a constant pause is a factor of 1.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import random
import time

# The pace of polls: most transitions take well under a second on a fast conductor, a real deploy takes minutes.
POLL_INITIAL_DELAY = 0.05
POLL_BACKOFF = 1.5
POLL_MAX_DELAY = 5.0


class Wait(object):
    """One wait: pauses between tries, within a time limit (timeout seconds from now; None: none).

    clock and sleep are the monotonic clock and the sleep (a fake pair in tests).
    """

    def __init__(self, timeout=None, initial=POLL_INITIAL_DELAY, factor=POLL_BACKOFF, cap=POLL_MAX_DELAY, jitter=0.0,
                 clock=time.monotonic, sleep=time.sleep):
        self.initial, self.factor, self.cap, self.jitter = initial, factor, cap, jitter
        self.clock, self.sleep = clock, sleep
        self.at = None if timeout is None else clock() + timeout
        self.delay = initial

    def reset(self):
        """Things moved: the next pause is short again."""
        self.delay = self.initial

    def extend(self, seconds):
        self.at += seconds

    def remaining(self):
        """Seconds left before the deadline (None: there is none)."""
        return None if self.at is None else self.at - self.clock()

    def next_delay(self):
        """The next pause of the backoff, which grows the one after it."""
        delay = self.delay * (1 - self.jitter / 2.0 + self.jitter * random.random())
        self.delay = min(self.delay * self.factor, self.cap)
        return delay

    def pause(self):
        """Sleep until the next try; False, without sleeping, once the deadline has passed."""
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            return False
        delay = self.next_delay()
        self.sleep(delay if remaining is None else min(delay, remaining))
        return True
