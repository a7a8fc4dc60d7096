# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run plans, for one node or many: each node goes its own way, as soon as it can.

A node is first waited on until it is at rest, then planned, then moved step by step: issue a verb, wait until the
node rests again, check where it landed, issue the next. One node that is still moving, stuck or refused never holds
up the others. The scheduler plans each node at rest; engine/moves.py moves those that must move (it sends their
steps, polls them and judges those not at rest with engine/waiter.py, and words what went wrong with
engine/diagnosis.py). It is loaded only for a node that must move or is moving: a task whose nodes all rest where
declared (a rerun, check mode) plans them and never compiles it.

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
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import step_word
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import DONE, MOVING, READY
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError


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
        self.issue_step = issue_step
        self.abort_on_timeout = abort_on_timeout
        self.clock = clock
        self.timeout = timeout
        self.wait = Wait(timeout, clock=clock, sleep=sleep)
        self.concurrency = max(1, concurrency)
        self.stranded_grace = stranded_grace  # None: engine/waiter.py's STRANDED_GRACE
        self._moves = None

    @property
    def moves(self):
        """The moves of this scheduler's nodes (engine/moves.py), made the first time a node must move."""
        if self._moves is None:
            from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.moves import Moves
            self._moves = Moves(self)
        return self._moves

    def plan_node(self, job, node, check_mode):
        """Plan a node that rests: READY with steps to go, DONE when there is nothing to do or no way."""
        job.node = summarize_node(node)
        try:
            steps = self.plan(job, node)
        except (graph.PlanError, IronicError) as exc:
            job.fail(str(exc))
            return
        job.plan = job.plan[:job.issued] + list(steps)
        job.stage = READY if job.remaining and not check_mode else DONE

    def plan_once_at_rest(self, job, node):
        """Check mode, a node someone else's operation moves: nothing is sent, so there is nothing to wait for. Plan
        it at once from where Ironic is taking it (its target state), and say so on its result: a real run waits
        for it to rest first, and plans from where it rests then."""
        state, target = node['provision_state'], node.get('target_provision_state')
        stable = states.STATES.get(target, (None,))[0] == states.STABLE
        landing = target if stable else states.STATES[state][1]
        self.plan_node(job, dict(node, provision_state=landing, target_provision_state=None), True)
        job.node = summarize_node(node)
        if job.error is None:
            job.notes.append(
                "node %s is in '%s' (target '%s'); in check mode nothing is sent, so the task did not wait for it. A "
                "real run waits for it to rest, then, from '%s', %s. (Where it rests otherwise, it plans from there.)"
                % (job.label, state, target, landing,
                   'sends %s' % ', '.join(step_word(step.verb) for step in job.plan) if job.plan else 'sends nothing'))

    def observe(self, job, node, check_mode, conductors=None):
        """A polled node: move its job on. conductors: IronicClient.conductors(), read this round, or None."""
        at_rest = resting(job, node)
        # A node that has come to rest is reported at rest, not still in the step that brought it there.
        self.progress.node(job.label, node.get('provision_state'),
                           job.plan[job.issued - 1].verb if job.stage == MOVING and not at_rest else None)
        if job.stage == DONE:
            return
        if not at_rest and check_mode:
            self.plan_once_at_rest(job, node)
            return
        if not at_rest:
            self.moves.judge(job, node, check_mode, conductors)
            return
        job.holder = None
        if job.stage == MOVING:
            self.moves.finish_step(job, node, check_mode)
            return
        if job.transitions and job.transitions[-1]['to'] is None:  # a way out of a stranded state, now done
            job.transitions[-1].update(to=node['provision_state'], seconds=self.moves.seconds(job))
        retry, job.retry = job.retry, None
        if retry is not None and node['provision_state'] == retry.source:
            job.node = summarize_node(node)
            job.plan = job.plan[:job.issued] + [retry] + job.plan[job.issued:]
            job.stage = READY
            return
        self.plan_node(job, node, check_mode)

    def run(self, jobs, wait=True, check_mode=False):
        """Bring every job's node to its target; nodes are given with the job (see converge).

        At most ``concurrency`` nodes move at once while waiting; with wait=False the first step of
        every node's plan is issued and the task returns. A failing node never stops the others.
        """
        self.progress.start(len(jobs))
        for job, node in jobs:
            self.observe(job, node, check_mode)
        jobs = [job for job, _node in jobs]
        if any(job.stage != DONE for job in jobs):
            self.moves.follow(jobs, wait, check_mode)
        return jobs
