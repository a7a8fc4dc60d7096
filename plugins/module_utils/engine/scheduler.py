# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run plans, for one node or many: each node goes its own way, as soon as it can.

A node is first waited on until it is at rest, then planned, then moved step by step: issue a verb, wait until the
node rests again, check where it landed, issue the next. One node that is still moving, stuck or refused never holds
up the others. The scheduler decides what each node does next; engine/waiter.py polls the nodes and judges those not
at rest (stranded, waiting for a takeover, left by a dead conductor); engine/diagnosis.py words what went wrong,
and is loaded only then: a task whose nodes move as planned never compiles it.

Waiting polls with a delay that starts short and backs off to a cap, within one overall deadline on a monotonic clock
(common/wait.py). A step the takeover of a dead conductor failed (``clean failed``, "aborted due to conductor take
over") is planned again from there where the planner has a way.

Ironic paces the work itself: past its concurrent action limits ([conductor]max_concurrent_clean and
max_concurrent_deploy) or with no conductor worker free it answers a verb with HTTP 503 and does nothing. The
scheduler takes that as back-pressure, not as a failure: the node stays ready, at most as many of the task's nodes
move at once as moved then, and one more each time one of them comes to rest, up to ``concurrency``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import DONE_WHEN_ANSWERED
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import DONE, MOVING, READY, WAITING
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, Unreachable

# Ironic's safe ways out of a stranded state (states.STRANDED_WAY_OUT), as steps.
STRANDED_WAY_OUT = dict(
    (state, graph.Step(verb, state, next(destination for source, event, destination in states.TRANSITIONS
                                         if (source, event) == (state, states.VERBS[verb]))))
    for state, verb in states.STRANDED_WAY_OUT.items())


def resting(job, node):
    """Whether the node rests; an unknown state fails the job (the job is then DONE)."""
    try:
        return graph.is_at_rest(node['provision_state'], node.get('target_provision_state'))
    except graph.PlanError as exc:
        job.fail(str(exc))
        return False


class Scheduler(object):
    """Runs jobs (engine/job.py) against one Ironic within one deadline.

    plan(job, node) returns the steps for a node at rest (it calls provision.plan_node) and may
    raise PlanError; issue_step(client, uuid, step, options) sends the request of one step.
    """

    def __init__(self, client, timeout, concurrency=1, plan=None, issue_step=None, abort_on_timeout=False,
                 stranded_grace=None, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.progress = progress or task_progress()
        self.plan = plan
        self._moving_with = (issue_step, stranded_grace)  # for the sender and the waiter, made when a node moves
        self._sender = self._waiter = None
        self.abort_on_timeout = abort_on_timeout
        self.clock = clock
        self.timeout = timeout
        self.wait = Wait(timeout, clock=clock, sleep=sleep)
        self.concurrency = max(1, concurrency)
        # How many nodes may move at once now: concurrency, lowered while Ironic answers Busy (the latest answer).
        self.limit = self.concurrency

    sender = property(lambda self: _moving(self)[0])
    waiter = property(lambda self: _moving(self)[1])

    # -- one node ----------------------------------------------------------------------------

    def _seconds(self, job):
        return round(self.clock() - job.step_started, 3)

    def _plan(self, job, node, check_mode):
        """Plan a node that rests: READY with steps to go, DONE when there is nothing to do or no way."""
        job.node = summarize_node(node)
        try:
            steps = self.plan(job, node)
        except (graph.PlanError, IronicError) as exc:
            job.fail(str(exc))
            return
        job.plan = job.plan[:job.issued] + list(steps)
        job.stage = READY if job.remaining and not check_mode else DONE

    def _start_next(self, job, wait):
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
            job.transitions[-1].update(to=step.landing, seconds=self._seconds(job))
        job.stage = DONE
        return False

    def _finish_step(self, job, node, check_mode):
        """The node rests after a step: record where it landed; DONE, or READY for the next step."""
        step = job.plan[job.issued - 1]
        job.node = summarize_node(node)
        state = node['provision_state']
        transition = job.transitions[-1]
        transition.update(to=state, seconds=self._seconds(job))
        takeover, job.takeover = job.takeover, None
        if state != step.landing and takeover is None:
            takeover = self.waiter.taken_over_from(job, node)
        if state != step.landing and takeover is not None:
            # The conductor that had the node died: Ironic's takeover ended the step; go on from where it left it.
            transition['takeover'] = {'conductor': takeover['hostname'], 'down_since': takeover.get('updated_at')}
            self._plan(job, node, check_mode)
            if job.error:
                job.error = '%s Ironic ended the step when it took the node over from conductor %s. %s' % (
                    _diagnosis().describe_failure(step, node), takeover['hostname'],
                    job.error[len('node %s: ' % job.label):])
        elif state != step.landing:
            job.error = _diagnosis().describe_failure(step, node)
            job.stage = DONE
        else:
            job.stage = READY if job.remaining else DONE
        # A node of the task came to rest, so Ironic has room for one more: try one more at once than before.
        self.limit = min(self.concurrency, self.limit + 1)

    def _way_out(self, job, node, check_mode, conductors):
        """A stranded node: take Ironic's safe way out where there is one, else fail this node only."""
        state = node['provision_state']
        what = _diagnosis().stranded(state, round(self.clock() - job.quiet[1], 1))
        step = STRANDED_WAY_OUT.get(state)
        if step is None or check_mode:
            dead = [] if step else self.waiter.dead_conductors(conductors)
            job.fail('%s %s' % (what, _diagnosis().no_way_out(state, step and step.verb, dead)))
            return
        if job.stage == MOVING:
            job.transitions[-1].update(to=state, seconds=self._seconds(job), stranded=True)
        interrupted = job.plan[job.issued - 1] if job.stage == MOVING else None
        if not self.sender.issue(job, step, reason=what + " Ironic's way out is '%s' to '%s'." % (step.verb, step.landing)):
            return
        # Back at rest, the node is planned again; a step it did not finish is run again first.
        job.stage = WAITING
        job.retry = interrupted

    # -- many nodes --------------------------------------------------------------------------

    def _observe(self, job, node, check_mode, conductors=None):
        """A polled node: move its job on. conductors: IronicClient.conductors(), read this round, or None."""
        at_rest = resting(job, node)
        # A node that has come to rest is reported at rest, not still in the step that brought it there.
        self.progress.node(job.label, node.get('provision_state'),
                           job.plan[job.issued - 1].verb if job.stage == MOVING and not at_rest else None)
        if job.stage == DONE:
            return
        if not at_rest:
            from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import ABANDONED, STRANDED, TAKEOVER
            job.node = summarize_node(node)
            verdict, dead, reason = self.waiter.judge(job, node, conductors)
            if verdict == TAKEOVER:
                job.quiet = None
                self.progress.node(job.label, node['provision_state'], _diagnosis().awaited(job.takeover))
            elif verdict == ABANDONED:
                job.fail(_diagnosis().abandoned(node, dead, reason))
            elif verdict == STRANDED:
                self._way_out(job, node, check_mode, conductors)
            return
        job.holder = None
        if job.stage == MOVING:
            self._finish_step(job, node, check_mode)
            return
        if job.transitions and job.transitions[-1]['to'] is None:  # a way out of a stranded state, now done
            job.transitions[-1].update(to=node['provision_state'], seconds=self._seconds(job))
        retry, job.retry = job.retry, None
        if retry is not None and node['provision_state'] == retry.source:
            job.node = summarize_node(node)
            job.plan = job.plan[:job.issued] + [retry] + job.plan[job.issued:]
            job.stage = READY
            return
        self._plan(job, node, check_mode)

    def _start_ready(self, jobs, wait):
        """Start the ready jobs there is room for; a node between two steps keeps going before a new one starts."""
        moving = sum(1 for job in jobs if job.stage == MOVING)
        for job in sorted((job for job in jobs if job.stage == READY), key=lambda job: not job.started):
            if wait and moving >= self.limit:
                return
            if self._start_next(job, wait):
                moving += 1
                self.wait.reset()
            elif job.stage == READY:
                # Busy: Ironic takes no more now; as many as move now may move until one comes to rest.
                self.limit = max(1, moving)
                self.progress.node(job.label, job.node.get('provision_state'), _diagnosis().HELD_BACK)
                return

    def run(self, jobs, wait=True, check_mode=False):
        """Bring every job's node to its target; nodes are given with the job (see converge).

        At most ``concurrency`` nodes move at once while waiting; with wait=False the first step of
        every node's plan is issued and the task returns. A failing node never stops the others.
        """
        self.progress.start(len(jobs))
        for job, node in jobs:
            self._observe(job, node, check_mode)
        jobs = [job for job, _node in jobs]
        self.wait.reset()
        while True:
            self._start_ready(jobs, wait)
            watched = [job for job in jobs if job.stage == WAITING or job.stage == MOVING]
            if not (watched or any(job.stage == READY for job in jobs)) or not self.wait.pause():
                break
            if not watched:
                continue
            try:
                nodes = self.waiter.poll(watched)
            except Unreachable as exc:
                for job in watched:
                    job.fail(_diagnosis().unreachable(exc))
                break
            if nodes is None:
                continue
            conductors = self.waiter.read_conductors() if self.waiter.suspicious(watched, nodes) else None
            for job in watched:
                node = nodes.get(job.uuid)
                if node is None:
                    job.fail(_diagnosis().deleted(job.node))
                    continue
                if node.get('target_provision_state') is None and job.node.get('target_provision_state'):
                    # A node came to rest: others the conductor works through alongside it are about to, so
                    # look again soon rather than after the back-off grown while they all moved.
                    self.wait.reset()
                self._observe(job, node, check_mode, conductors)
        _time_out(self, [job for job in jobs if job.stage != DONE])
        return jobs


def _time_out(scheduler, jobs):
    """The deadline passed: each job still under way fails with why, aborted first where abort_on_timeout asks."""
    for job in jobs:
        moving = not (job.stage == READY or (job.stage == WAITING and not job.started))
        job.error = _diagnosis().timed_out(scheduler.client, job, scheduler.timeout, scheduler.concurrency,
                                           scheduler.sender.busy)
        if moving and scheduler.abort_on_timeout and job.started:
            job.error += scheduler.sender.abort(job)
        elif moving:
            job.error += _diagnosis().timeout_advice(scheduler.client, job.node.get('provision_state'))
        job.stage = DONE


def _moving(scheduler):
    """(sender, waiter) of a scheduler, made the first time a node moves: a task whose nodes all rest where declared
    (a rerun, check mode) never loads engine/sender.py and engine/waiter.py."""
    if scheduler._sender is None:
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.sender import Sender
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import STRANDED_GRACE, Waiter
        issue_step, grace = scheduler._moving_with
        scheduler._sender = Sender(scheduler.client, issue_step, scheduler.clock, scheduler.progress)
        scheduler._waiter = Waiter(scheduler.client, scheduler.wait, STRANDED_GRACE if grace is None else grace)
    return scheduler._sender, scheduler._waiter


def _diagnosis():
    """engine/diagnosis.py, which words what went wrong: loaded only when something did."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis
    return diagnosis
