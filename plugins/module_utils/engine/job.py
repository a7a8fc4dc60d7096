# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One node's way to its declared state (a Job), where it is on the way (its stage), and the moves of a job from one
stage to the next: only the scheduler (engine/scheduler.py) calls them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Locked, Unreachable

# Where a job is: waiting for its node to rest, planned and waiting for a slot, moving, or finished.
WAITING, READY, MOVING, DONE = 'waiting', 'ready', 'moving', 'done'


class Job(object):
    """One node's way to its declared state, and what happened on the way."""

    def __init__(self, node, target, options):
        self.node = summarize_node(node)
        self.uuid = node['uuid']
        self.target = target  # the declared stable state
        self.options = options  # options.Options: how this node gets there
        self.plan = []  # every step planned, in order; issued ones first
        self.issued = 0  # how many steps of the plan were issued
        self.transitions = []
        self.error = None
        self.stage = WAITING
        self.started = False  # a request that changes the node was sent
        self.step_started = None
        self.quiet = None  # (progress signature, when first seen) while no conductor holds the node
        self.retry = None  # a step cut short by a stranded conductor, run again once the node rests
        self.still = None  # (progress signature, when first seen) of a node not at rest
        self.takeover = None  # the dead conductor (from IronicClient.conductors) Ironic must take the node over from
        self.holder = None  # the conductor holding the node when the conductors were last read (None: none held it)
        self.holders = {}  # conductor -> the state it was last seen holding the node in, since the step was sent
        self.locked = None  # Ironic's answer (transport.Locked) while a conductor holds the node the step is for
        self.notes = []  # what the task warns of this node (a check-mode plan of a node still moving)

    @property
    def remaining(self):
        return self.plan[self.issued:]

    @property
    def landing(self):
        """The resting state the step in flight lands in when it succeeds, or None: no step in flight."""
        return self.plan[self.issued - 1].landing if self.stage == MOVING and self.issued else None

    @property
    def label(self):
        return node_label(self.node)

    def fail(self, message):
        self.error = 'node %s: %s' % (self.label, message)
        self.stage = DONE

    def saw(self, node):
        """The node as Ironic reports it now."""
        self.node = summarize_node(node)

    def planned(self, steps, check_mode):
        """The steps to go from where the node rests, after those issued: READY, or DONE without steps or in check
        mode."""
        self.plan = self.plan[:self.issued] + list(steps)
        self.stage = READY if self.remaining and not check_mode else DONE

    def took(self, sent, now):
        """Apply what came of sending a step (sender.Sent): True when the step is under way (or done)."""
        if sent.node is not None:
            self.saw(sent.node)
        self.locked = sent.held if isinstance(sent.held, Locked) else None
        if isinstance(sent.held, Unreachable):
            # Ironic did not answer (the step may or may not have reached it): wait for the node to be read again,
            # then plan from where it rests, as for any node not at rest.
            self.stage = WAITING
        if sent.error is not None:
            self.fail(sent.error)
        if sent.transition is not None:
            self.step_sent(sent.transition, now)
        return sent.transition is not None

    def step_sent(self, transition, now):
        """Ironic took a step's request (transition: its verb, from, and to None until the node rests)."""
        self.started = True
        self.transitions.append(transition)
        self.holders = {}
        self.step_started = now
        self.quiet = None

    def retried(self, node):
        """A step cut short by a stranded conductor goes first again, READY, once the node rests where it starts:
        True when it does."""
        retry, self.retry = self.retry, None
        if retry is None or node['provision_state'] != retry.source:
            return False
        self.saw(node)
        self.plan = self.plan[:self.issued] + [retry] + self.plan[self.issued:]
        self.stage = READY
        return True

    def watched(self, judged, state):
        """Keep what the waiter judged of the node not at rest, in state (waiter.Judged)."""
        if judged.holding is not None:
            self.holders[judged.holding] = state
        self.holder, self.takeover, self.quiet = judged.holder, judged.takeover, judged.quiet

    def landed(self, state, now, **facts):
        """The node ended its latest transition in state (facts: what else the transition records)."""
        self.transitions[-1].update(to=state, seconds=round(now - self.step_started, 3), **facts)

    @property
    def changed(self):
        """Whether the task changed the node: a step was sent that did not fail back to where it started (a verify
        that fails takes the node back to enroll, and Ironic changed no more than its last_error). A step of the
        plan that lands where it starts (clean, service) is a change."""
        return self.started and any(
            transition['to'] != transition['from']
            or any((step.verb, step.source, step.landing) == (transition['verb'], transition['from'], transition['to'])
                   for step in self.plan)
            for transition in self.transitions)

    def result(self):
        """The node's result; with notes, its warnings (fleet/outcome.py warns of them, out of the result)."""
        notes = {'warnings': list(self.notes)} if self.notes else {}
        return node_result(self.node, self.changed, self.error, plan=[step.as_dict() for step in self.plan],
                           transitions=self.transitions, **notes)
