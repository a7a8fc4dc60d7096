# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Converge nodes to their declared provision states, one node or many: each node goes its own way, as soon as it
can. converge looks the nodes up and makes one job each (engine/job.py); the scheduler owns every move of a job from
one stage to the next; the sender (engine/sender.py) and the waiter (engine/waiter.py) only say what came of a request
or a poll, and the scheduler applies it.

A node is first waited on until it is at rest, then planned, then moved step by step: issue a verb, wait until the
node rests again, check where it landed, issue the next. One node that is still moving, stuck or refused never holds
up the others. What went wrong is worded by engine/diagnosis.py.

Waiting polls with a delay that starts short and backs off to a cap, within one overall deadline on a monotonic clock
(common/wait.py). A step the takeover of a dead conductor failed (``clean failed``, "aborted due to conductor take
over") is planned again from there where the planner has a way. A node left stranded by a dead conductor takes
Ironic's safe way out (STRANDED_WAY_OUT_STEPS), and the step it did not finish is run again once it rests.

Ironic paces the work itself: past its concurrent action limits ([conductor]max_concurrent_clean and
max_concurrent_deploy) or with no conductor worker free it answers a verb with HTTP 503 and does nothing. The
scheduler takes that as back-pressure, not as a failure: the node stays ready, at most as many of the task's nodes
move at once as moved then, and one more each time one of them comes to rest, up to ``concurrency``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import check_distinct_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis, graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import DONE_WHEN_ANSWERED, step_word
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import DONE, MOVING, READY, WAITING, Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import running_step, task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import NodePlans
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.sender import Sender
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import HELD_BACK, held_state
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import (
    ABANDONED, STRANDED, STRANDED_GRACE, TAKEOVER, Waiter, agent_heartbeat)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes, no_node_message
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, IronicError, Unreachable

# Ironic's safe ways out of a stranded state (states.STRANDED_WAY_OUT), as steps.
STRANDED_WAY_OUT_STEPS = dict(
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


def landing_of(node):
    """Where a node someone else's operation moves lands: its target when stable, else where its state leads."""
    state, target = node['provision_state'], node.get('target_provision_state')
    return target if states.STATES.get(target, (None,))[0] == states.STABLE else states.STATES[state][1]


def as_landed(node):
    """The node as check mode plans it: at rest where it lands (landing_of), nothing being sent to wait for."""
    return dict(node, provision_state=landing_of(node), target_provision_state=None)


def check_mode_note(job, node):
    """What check mode tells of a node someone else's operation moves: nothing is sent, so there is nothing to wait
    for; it is planned at once from where it lands (landing_of), and its result says so: a real run waits for it to
    rest, and plans from where it rests then."""
    landing = landing_of(node)
    return ("node %s is in '%s' (target '%s'); in check mode nothing is sent, so the task did not wait for it. A real "
            "run waits for it to rest, then, from '%s', %s. (Where it rests otherwise, it plans from there.)"
            % (job.label, node['provision_state'], node.get('target_provision_state'), landing,
               'sends %s' % ', '.join(step_word(step.verb) for step in job.plan) if job.plan else 'sends nothing'))


def converge(client, goals, check_mode=False, wait=True, timeout=3600, concurrency=1, abort_on_timeout=False,
             found=None):
    """Bring each Goal (engine/provision.py) to its declared state: its node looked up, one Job each, and a Scheduler
    that plans each node with NodePlans as it rests and moves it. Returns (jobs, errors for idents that match no
    node).

    Each node is planned as soon as it is at rest and moves on its own; failures of one node are
    recorded on its job and never stop the others. found ({ident: node}, each read with client.poll_fields and,
    where its goal sets instance_info, instance_info) are the nodes as a caller just read them, or as an earlier
    step of its task leaves them (in check mode, as it would): they are not read again.
    """
    with_instance_info = any(goal.options.instance_info for goal in goals)
    fields = client.poll_fields + (('instance_info',) if with_instance_info else ())
    if found is None:
        found, missing = find_nodes(client, [goal.ident for goal in goals], fields)
    else:
        missing = [goal.ident for goal in goals if goal.ident not in found]
    check_distinct_nodes(found)
    scheduler = Scheduler(client, timeout, concurrency=concurrency, plan=NodePlans(client, found).steps,
                          abort_on_timeout=abort_on_timeout)
    jobs = [(Job(found[goal.ident], goal.state, goal.options), found[goal.ident])
            for goal in goals if goal.ident in found]
    scheduler.run(jobs, wait=wait, check_mode=check_mode)
    errors = [no_node_message([ident], client) for ident in missing]
    return [job for job, _node in jobs], errors


def wait_for_rest(client, nodes, timeout, clock=time.monotonic, sleep=time.sleep):
    """Wait until each node (as read), moved by someone else, rests: a cycle an interrupted task left running (Ctrl-C
    ends the task, not Ironic's cycle) ends before the node is planned again. Each is polled and judged as converge
    judges a node not at rest (engine/waiter.py): waited for while it moves, in a wait state, or until a dead
    conductor's takeover; the only write is Ironic's way out of a stranded state (STRANDED_WAY_OUT_STEPS).

    Returns {uuid: None once the node rests, else why it did not within timeout, worded by engine/diagnosis.py}.
    """
    scheduler = Scheduler(client, timeout, plan=lambda job, node: [], clock=clock, sleep=sleep)
    jobs = [(Job(node, landing_of(node), Options()), node) for node in nodes]
    scheduler.run(jobs)
    return dict((job.uuid, job.error) for job, _node in jobs)


class Scheduler(object):
    """Runs jobs (engine/job.py) against one Ironic within one deadline: plan(job, node) returns the steps for a node
    at rest (provision.NodePlans.steps); a step goes out by run, _start and Sender.send, and _apply applies what
    came of it."""

    def __init__(self, client, timeout, concurrency=1, plan=None, abort_on_timeout=False,
                 stranded_grace=None, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.progress = progress or task_progress()
        self.plan = plan
        self.abort_on_timeout = abort_on_timeout
        self.clock = clock
        self.timeout = timeout
        self.wait = Wait(timeout, clock=clock, sleep=sleep)
        self.concurrency = max(1, concurrency)
        self.sender = Sender(client)
        self.waiter = Waiter(client, self.wait, STRANDED_GRACE if stranded_grace is None else stranded_grace)
        # How many nodes may move at once now: concurrency, lowered while Ironic answers Busy (the latest answer).
        self.limit = self.concurrency
        self.busy = None  # Ironic's latest Busy answer to a step (None: none)

    def run(self, jobs, wait=True, check_mode=False):
        """Bring every job's node to its target (jobs: (Job, node as read)) until each is DONE or the deadline passes;
        with wait=False the first step of every node's plan is issued and the task returns."""
        self.progress.start(len(jobs))
        for job, node in jobs:
            self.observe(job, node, check_mode)
        jobs = [job for job, _node in jobs]
        self.wait.reset()
        while any(job.stage != DONE for job in jobs):
            self._start(jobs, wait)
            watched = [job for job in jobs if job.stage in (WAITING, MOVING)]
            if not (watched or any(job.stage == READY for job in jobs)) or not self.wait.pause():
                break
            if watched and not self._poll(watched, check_mode):
                break
        for job in jobs:
            if job.stage != DONE:
                self._time_out(job)
        return jobs

    def _poll(self, watched, check_mode):
        """Read the watched nodes once and observe each; False when Ironic stayed unreachable (each job failed)."""
        try:
            seen = self.waiter.look(watched)
        except Unreachable as exc:
            for job in watched:
                job.fail(diagnosis.unreachable(exc))
            return False
        for job in (watched if seen is not None else ()):
            job.still = seen.still.get(job.uuid)
            node = seen.nodes.get(job.uuid)
            if node is None:
                job.fail(diagnosis.deleted(job.node))
                continue
            if node.get('target_provision_state') is None and job.node.get('target_provision_state'):
                # A node came to rest: others the conductor works through alongside it are about to, so look
                # again soon rather than after the back-off grown while they all moved.
                self.wait.reset()
            self.observe(job, node, check_mode, seen.conductors)
        return True

    def observe(self, job, node, check_mode, conductors=None):
        """A node as read: move its job on. conductors: IronicClient.conductors(), read this round, or None."""
        at_rest = resting(job, node)
        # A node that has come to rest is reported at rest, not still in the step that brought it there.
        moving = job.stage == MOVING and not at_rest
        self.progress.node(job.label, node.get('provision_state'), job.plan[job.issued - 1].verb if moving else None,
                           running_step(node) if moving else None, agent_heartbeat(node) if moving else None)
        if job.stage == DONE:
            return
        job.holder = job.holder if not at_rest else None
        if not at_rest and check_mode:  # nothing is sent, so there is nothing to wait for: see check_mode_note
            self._plan(job, as_landed(node), True)
            job.saw(node)
            job.notes.extend([check_mode_note(job, node)] if job.error is None else [])
        elif not at_rest:
            self._judge(job, node, check_mode, conductors)
        elif job.stage == MOVING:
            self._finish_step(job, node, check_mode)
        else:
            if job.transitions and job.transitions[-1]['to'] is None:  # a way out of a stranded state, now done
                job.landed(node['provision_state'], self.clock())
            if not job.retried(node):
                self._plan(job, node, check_mode)

    def _plan(self, job, node, check_mode):
        """Plan a node that rests: READY with steps to go, DONE when there is nothing to do or no way."""
        job.saw(node)
        try:
            job.planned(self.plan(job, node), check_mode)
        except (graph.PlanError, IronicError) as exc:
            job.fail(str(exc))

    def _start(self, jobs, wait):
        """Start the ready jobs there is room for, a node between two steps before a new one: each job's next steps go
        out (Sender.send) up to one that moves the node (a step DONE_WHEN_ANSWERED is done once Ironic takes it, and
        the next follows at once). A job Ironic holds off stays READY: Locked holds that node only, and the others go
        on; Busy holds every node, and as many as move now may move until one comes to rest."""
        moving = sum(1 for job in jobs if job.stage == MOVING)
        for job in sorted((job for job in jobs if job.stage == READY), key=lambda job: not job.started):
            if wait and moving >= self.limit:
                return
            moved = False
            while job.remaining and not moved:
                step = job.remaining[0]
                job.issued += 1
                if not self._apply(job, step, self.sender.send(job, step)):
                    job.issued -= 1
                    break
                moved = step.verb not in DONE_WHEN_ANSWERED
                if not moved:
                    job.landed(step.landing, self.clock())
            if moved:
                job.stage = MOVING if wait else DONE
                moving += 1
                self.wait.reset()
            elif not job.remaining:  # every step done when answered: nothing is left to wait for
                job.stage = DONE
            elif job.locked is not None:  # Locked (or its conductor unreachable): this node only; the others go on.
                self.progress.node(job.label, job.node.get('provision_state'), held_state(job.locked))
            elif job.stage == READY:  # Busy: Ironic takes no more now; as many as move now may move.
                self.limit = max(1, moving)
                self.progress.node(job.label, job.node.get('provision_state'), HELD_BACK)
                return

    def _apply(self, job, step, sent):
        """Apply what came of sending a step (the Sent of Sender.send): True when it is under way (or done)."""
        self.busy = sent.held if isinstance(sent.held, Busy) else self.busy
        if not job.took(sent, self.clock()):
            return False
        self.progress.node(job.label, job.node.get('provision_state'), step.verb)
        return True

    def _finish_step(self, job, node, check_mode):
        """The node rests after a step: record where it landed; DONE, or READY for the next step."""
        step = job.plan[job.issued - 1]
        job.saw(node)
        state = node['provision_state']
        job.landed(state, self.clock())
        takeover, job.takeover = job.takeover, None
        if state != step.landing and takeover is None:
            takeover = self.waiter.taken_over_from(job, node)
        if state != step.landing and takeover is not None:
            # The conductor that had the node died: Ironic's takeover ended the step; go on from where it left it.
            job.transitions[-1]['takeover'] = {'conductor': takeover['hostname'],
                                               'down_since': takeover.get('updated_at')}
            self._plan(job, node, check_mode)
            if job.error:
                job.error = diagnosis.ended_by_takeover(self.client, job, step, node, takeover)
        elif state != step.landing:
            job.error = diagnosis.describe_failure(self.client, step, node)
            job.stage = DONE
        else:
            job.stage = READY if job.remaining else DONE
        # A node of the task came to rest, so Ironic has room for one more: try one more at once than before.
        self.limit = min(self.concurrency, self.limit + 1)

    def _judge(self, job, node, check_mode, conductors):
        """A node not at rest: wait on, wait for a takeover, fail it as abandoned, or take a way out if stranded."""
        job.saw(node)
        judged = self.waiter.judge(job, node, conductors)
        job.watched(judged, node['provision_state'])
        if judged.verdict == TAKEOVER:
            job.quiet = None
            self.progress.node(job.label, node['provision_state'], diagnosis.awaited(job.takeover))
        elif judged.verdict == ABANDONED:
            job.fail(diagnosis.abandoned(node, judged.dead, judged.reason))
        elif judged.verdict == STRANDED:
            self._way_out(job, node, check_mode, conductors)

    def _way_out(self, job, node, check_mode, conductors):
        """A stranded node: take Ironic's safe way out where there is one, else fail this node only. Back at rest,
        the node is planned again; a step it did not finish is run again first."""
        state = node['provision_state']
        what = diagnosis.stranded(state, round(self.clock() - job.quiet[1], 1))
        step = STRANDED_WAY_OUT_STEPS.get(state)
        if step is None or check_mode:
            dead = [] if step else self.waiter.dead_conductors(conductors)
            job.fail('%s %s' % (what, diagnosis.no_way_out(state, step and step.verb, dead)))
            return
        if job.stage == MOVING:
            job.landed(state, self.clock(), stranded=True)
        interrupted = job.plan[job.issued - 1] if job.stage == MOVING else None
        reason = what + " Ironic's way out is '%s' to '%s'." % (step.verb, step.landing)
        if self._apply(job, step, self.sender.send(job, step, reason)):
            job.stage, job.retry = WAITING, interrupted

    def _time_out(self, job):
        """The deadline passed before the job was DONE: say why, and abort it where abort_on_timeout says so."""
        moving = job.started if job.stage == WAITING else job.stage != READY
        job.error = diagnosis.timed_out(self.client, job, self.timeout, self.concurrency, self.busy)
        if moving and self.abort_on_timeout and job.started:
            words, transition = self.sender.abort(job)
            if transition is not None:
                job.step_sent(transition, self.clock())
            job.error += words
        elif moving:
            job.error += diagnosis.timeout_advice(self.client, job.node.get('provision_state'))
        job.stage = DONE
