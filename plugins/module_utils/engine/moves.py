# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The moves of a scheduler's nodes (engine/scheduler.py): send each node's next step, poll the nodes that move
until each rests, see where a step landed, take Ironic's way out of a stranded state, and fail what the deadline
catches.

Loaded by the scheduler only for a node that must move or is still moving: a task whose nodes all rest where declared
never compiles this file, nor the sender (engine/sender.py), the waiter (engine/waiter.py) and the words for what
went wrong (engine/diagnosis.py, loaded only when something did).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import DONE_WHEN_ANSWERED
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import DONE, MOVING, READY, WAITING
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.sender import Sender, diagnosis
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import (
    ABANDONED, STRANDED, STRANDED_GRACE, TAKEOVER, Waiter)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Unreachable

# Ironic's safe ways out of a stranded state (states.STRANDED_WAY_OUT), as steps.
STRANDED_WAY_OUT = dict(
    (state, graph.Step(verb, state, next(destination for source, event, destination in states.TRANSITIONS
                                         if (source, event) == (state, states.VERBS[verb]))))
    for state, verb in states.STRANDED_WAY_OUT.items())


class Moves(object):
    """The moving half of a Scheduler: its sender, its waiter, and how many of its nodes may move at once."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.sender = Sender(scheduler.client, scheduler.issue_step, scheduler.clock, scheduler.progress)
        grace = STRANDED_GRACE if scheduler.stranded_grace is None else scheduler.stranded_grace
        self.waiter = Waiter(scheduler.client, scheduler.wait, grace)
        # How many nodes may move at once now: concurrency, lowered while Ironic answers Busy (the latest answer).
        self.limit = scheduler.concurrency

    # -- one node ----------------------------------------------------------------------------

    def seconds(self, job):
        return round(self.scheduler.clock() - job.step_started, 3)

    def start_next(self, job, wait):
        """Issue the job's next step, and the one after a step done once answered: True when one moves the node.

        False when none does: the job is DONE, or still READY when Ironic answered Busy."""
        while job.remaining:
            step = job.remaining[0]
            job.issued += 1
            if not self.sender.issue(job, step):
                job.issued -= 1
                return False
            if step.verb not in DONE_WHEN_ANSWERED:
                job.stage = MOVING if wait else DONE
                return True
            job.transitions[-1].update(to=step.landing, seconds=self.seconds(job))
        job.stage = DONE
        return False

    def finish_step(self, job, node, check_mode):
        """The node rests after a step: record where it landed; DONE, or READY for the next step."""
        step = job.plan[job.issued - 1]
        job.node = summarize_node(node)
        state = node['provision_state']
        transition = job.transitions[-1]
        transition.update(to=state, seconds=self.seconds(job))
        takeover, job.takeover = job.takeover, None
        if state != step.landing and takeover is None:
            takeover = self.waiter.taken_over_from(job, node)
        if state != step.landing and takeover is not None:
            # The conductor that had the node died: Ironic's takeover ended the step; go on from where it left it.
            transition['takeover'] = {'conductor': takeover['hostname'], 'down_since': takeover.get('updated_at')}
            self.scheduler.plan_node(job, node, check_mode)
            if job.error:
                job.error = '%s Ironic ended the step when it took the node over from conductor %s. %s' % (
                    diagnosis().describe_failure(step, node), takeover['hostname'],
                    job.error[len('node %s: ' % job.label):])
        elif state != step.landing:
            job.error = diagnosis().describe_failure(step, node)
            job.stage = DONE
        else:
            job.stage = READY if job.remaining else DONE
        # A node of the task came to rest, so Ironic has room for one more: try one more at once than before.
        self.limit = min(self.scheduler.concurrency, self.limit + 1)

    def judge(self, job, node, check_mode, conductors):
        """A node not at rest: wait on, wait for a takeover, fail it as abandoned, or take a way out if stranded."""
        job.node = summarize_node(node)
        verdict, dead, reason = self.waiter.judge(job, node, conductors)
        if verdict == TAKEOVER:
            job.quiet = None
            self.scheduler.progress.node(job.label, node['provision_state'], diagnosis().awaited(job.takeover))
        elif verdict == ABANDONED:
            job.fail(diagnosis().abandoned(node, dead, reason))
        elif verdict == STRANDED:
            self._way_out(job, node, check_mode, conductors)

    def _way_out(self, job, node, check_mode, conductors):
        """A stranded node: take Ironic's safe way out where there is one, else fail this node only."""
        state = node['provision_state']
        what = diagnosis().stranded(state, round(self.scheduler.clock() - job.quiet[1], 1))
        step = STRANDED_WAY_OUT.get(state)
        if step is None or check_mode:
            dead = [] if step else self.waiter.dead_conductors(conductors)
            job.fail('%s %s' % (what, diagnosis().no_way_out(state, step and step.verb, dead)))
            return
        if job.stage == MOVING:
            job.transitions[-1].update(to=state, seconds=self.seconds(job), stranded=True)
        interrupted = job.plan[job.issued - 1] if job.stage == MOVING else None
        if not self.sender.issue(job, step, reason=what + " Ironic's way out is '%s' to '%s'." % (step.verb, step.landing)):
            return
        # Back at rest, the node is planned again; a step it did not finish is run again first.
        job.stage = WAITING
        job.retry = interrupted

    # -- many nodes --------------------------------------------------------------------------

    def _start_ready(self, jobs, wait):
        """Start the ready jobs there is room for; a node between two steps keeps going before a new one starts."""
        moving = sum(1 for job in jobs if job.stage == MOVING)
        for job in sorted((job for job in jobs if job.stage == READY), key=lambda job: not job.started):
            if wait and moving >= self.limit:
                return
            if self.start_next(job, wait):
                moving += 1
                self.scheduler.wait.reset()
            elif job.locked is not None:
                # Locked: a conductor holds this node only; the others go on.
                self.scheduler.progress.node(job.label, job.node.get('provision_state'), diagnosis().LOCKED)
            elif job.stage == READY:
                # Busy: Ironic takes no more now; as many as move now may move until one comes to rest.
                self.limit = max(1, moving)
                self.scheduler.progress.node(job.label, job.node.get('provision_state'), diagnosis().HELD_BACK)
                return

    def follow(self, jobs, wait, check_mode):
        """Move the jobs observed once (Scheduler.run) until each is DONE or the deadline passes."""
        waiting = self.scheduler.wait
        waiting.reset()
        while True:
            self._start_ready(jobs, wait)
            watched = [job for job in jobs if job.stage == WAITING or job.stage == MOVING]
            if not (watched or any(job.stage == READY for job in jobs)) or not waiting.pause():
                break
            if not watched:
                continue
            try:
                nodes = self.waiter.poll(watched)
            except Unreachable as exc:
                for job in watched:
                    job.fail(diagnosis().unreachable(exc))
                break
            if nodes is None:
                continue
            conductors = self.waiter.read_conductors() if self.waiter.suspicious(watched, nodes) else None
            for job in watched:
                node = nodes.get(job.uuid)
                if node is None:
                    job.fail(diagnosis().deleted(job.node))
                    continue
                if node.get('target_provision_state') is None and job.node.get('target_provision_state'):
                    # A node came to rest: others the conductor works through alongside it are about to, so
                    # look again soon rather than after the back-off grown while they all moved.
                    waiting.reset()
                self.scheduler.observe(job, node, check_mode, conductors)
        self._time_out([job for job in jobs if job.stage != DONE])

    # -- the deadline ------------------------------------------------------------------------

    def _time_out(self, jobs):
        scheduler = self.scheduler
        for job in jobs:
            moving = not (job.stage == READY or (job.stage == WAITING and not job.started))
            job.error = diagnosis().timed_out(scheduler.client, job, scheduler.timeout, scheduler.concurrency,
                                              self.sender.busy)
            if moving and scheduler.abort_on_timeout and job.started:
                job.error += self.sender.abort(job)
            elif moving:
                job.error += diagnosis().timeout_advice(scheduler.client, job.node.get('provision_state'))
            job.stage = DONE
