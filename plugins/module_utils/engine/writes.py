# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's writes (its record, traits, ports, port groups, virtual media, maintenance, RAID target, deletion) while a
conductor may hold its lock.

A conductor at work on a node, often waiting for a slow BMC, holds the node's lock, and Ironic refuses every write for
it meanwhile (HTTP 409 'locked'). In a task with a timeout such a write (and one Ironic takes no more work for, HTTP
503) is sent again at the poll's pace until Ironic takes it or the timeout passes (transport.resent_while_held, the
loop power actions wait with too); a task without one leaves it to the transport's few retries. A write still refused
fails naming the node, the write and Ironic's answer (held_off).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    Busy, ConductorUnreachable, Locked, resent_while_held)

# What the progress says of a node Ironic took no more of (Busy): it waits for room.
HELD_BACK = 'held back: Ironic takes no more nodes at once for now'

# What the progress says of a node a conductor holds (Locked): its step is sent again until the conductor lets go.
LOCKED = 'waiting for its lock: a conductor is at work on it'

# What the progress says of a node whose conductor Ironic's API cannot reach (ConductorUnreachable): its request is
# sent again until Ironic gives the node a live conductor.
NO_CONDUCTOR = "waiting for a conductor: Ironic's API cannot reach the one it gives the node"


def held_state(answer):
    """What the progress says of a node whose request Ironic holds off: NO_CONDUCTOR (transport.ConductorUnreachable),
    LOCKED for a lock (transport.Locked), else HELD_BACK (transport.Busy)."""
    if isinstance(answer, ConductorUnreachable):
        return NO_CONDUCTOR
    return LOCKED if isinstance(answer, Locked) else HELD_BACK


def held_off(label, undone, answer, timeout=None, seconds=0):
    """Why something for the node (undone: what did not happen, in words) never did: Ironic kept refusing it, its
    latest answer ``answer``: Locked (a conductor held the node's lock) or Busy (Ironic took no more work), until the
    task's timeout passed (None: a task without one, through the transport's retries for ``seconds``)."""
    latest = masked_text(answer.reason or str(answer)).rstrip('.')
    until = 'for %d s of retries' % seconds if timeout is None else 'until the timeout (%d s) passed' % timeout
    if isinstance(answer, ConductorUnreachable):
        return ("node %s: %s: Ironic's API could not reach the node's conductor %s (Ironic's latest answer: %s). That "
                "conductor is down and Ironic does not count it dead yet: start it again, or %s; Ironic gives the "
                "node a live conductor of its group once [conductor]heartbeat_timeout has passed."
                % (label, undone, until, latest, 'run the task again later' if timeout is None else 'raise timeout'))
    if isinstance(answer, Locked):
        fix = ("run the task again once it is done, or look at the conductor's log" if timeout is None
               else "raise timeout, or look at the conductor's log")
        return ("node %s: %s: a conductor kept the node locked %s (Ironic's latest answer: %s). It is at work on the "
                "node, often waiting for a slow BMC: %s." % (label, undone, until, latest, fix))
    fix = 'Run the task again later' if timeout is None else 'Raise timeout'
    return ("node %s: %s: Ironic took no more work %s (its latest answer: %s). %s, or raise Ironic's "
            "[conductor]workers_pool_size." % (label, undone, until, latest, fix))


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
            message = held_off(self.label, '%s never went through' % doing, exc, self.timeout, self.clock() - started)
            raise type(exc)(message, exc.status, exc.reason)

    def _held(self, answer):
        (self.progress or task_progress()).node(self.label, self.state, held_state(answer))
