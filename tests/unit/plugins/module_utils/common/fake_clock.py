# -*- coding: utf-8 -*-
"""A clock that moves only when the code under test sleeps."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class FakeClock(object):
    """``clock`` and ``sleep`` to give the code under test; ``sleeps`` is every pause it took, in order."""

    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        assert seconds > 0
        self.sleeps.append(seconds)
        self.now += seconds
