# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's writes (its record, traits, ports, port groups, virtual media, maintenance, RAID target, deletion) while a
conductor may hold its lock.

A conductor at work on a node, often waiting for a slow BMC, holds the node's lock, and Ironic refuses every write for
it meanwhile (HTTP 409 'locked'). In a task with a timeout such a write (and one Ironic takes no more work for, HTTP
503) is sent again at the poll's pace until Ironic takes it or the timeout passes (transport.resent_while_held, the
loop power actions wait with too); a task without one leaves it to the transport's few retries. A write still refused
fails naming the node, the write and Ironic's answer (diagnosis.held_off).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked, resent_while_held


def _diagnosis():
    # Loaded only when a write is held off, as the progress is.
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis
    return diagnosis


class NodeWrites(object):
    """The writes of one node (label: its name in messages; state: what the progress shows it in), each waiting for
    the node's lock until ``timeout`` seconds after this was made (None: the transport's retries only)."""

    def __init__(self, label, state, timeout=None, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.label, self.state, self.timeout = label, state, timeout
        self.progress = progress
        self.clock = clock
        self.waiting = None if timeout is None else Wait(timeout, clock=clock, sleep=sleep)

    def send(self, doing, write, *args, **kwargs):
        """write(*args, **kwargs), a write for the node (doing: what it does, in words: 'setting its traits').

        A write Ironic still holds off (Locked, Busy) at the end is raised as such, its message naming the node,
        the write and Ironic's latest answer."""
        started = self.clock()
        try:
            if self.waiting is None:
                return write(*args, **kwargs)
            return resent_while_held(functools.partial(write, *args, **kwargs), self.waiting, self._held)
        except (Locked, Busy) as exc:
            message = _diagnosis().held_off(self.label, '%s never went through' % doing, exc, self.timeout,
                                            self.clock() - started)
            raise type(exc)(message, exc.status, exc.reason)

    def _held(self, answer):
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
        (self.progress or task_progress()).node(self.label, self.state, _diagnosis().held_state(answer))
