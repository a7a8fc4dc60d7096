# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waiting: one time limit on a monotonic clock, and the backed-off pause between two polls.

Everything that waits for Ironic (provision moves in engine/executor.py, power actions in node/power.py) waits with these.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

POLL_INITIAL_DELAY = 0.05
POLL_BACKOFF = 1.5
POLL_MAX_DELAY = 5.0


class Backoff(object):
    """Pauses that grow from POLL_INITIAL_DELAY by POLL_BACKOFF up to POLL_MAX_DELAY; reset() when things move."""

    def __init__(self):
        self.delay = POLL_INITIAL_DELAY

    def reset(self):
        self.delay = POLL_INITIAL_DELAY

    def next(self):
        delay = self.delay
        self.delay = min(self.delay * POLL_BACKOFF, POLL_MAX_DELAY)
        return delay


class Deadline(object):
    """One time limit on a monotonic clock, and the backed-off pause before the next poll."""

    def __init__(self, timeout, clock=time.monotonic, sleep=time.sleep):
        self.clock = clock
        self.sleep = sleep
        self.at = clock() + timeout

    def extend(self, seconds):
        self.at += seconds

    def pause(self, backoff):
        """Sleep until the next poll; False, without sleeping, once the deadline has passed."""
        remaining = self.at - self.clock()
        if remaining <= 0:
            return False
        self.sleep(min(backoff.next(), remaining))
        return True
