# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run plans, for one node or many: each node goes its own way, as soon as it can.

A node is first waited on until it is at rest, then planned, then moved step by step: issue a
verb, wait until the node rests again, check where it landed, issue the next. One node that is
still moving, stuck or refused never holds up the others.

Waiting polls with a delay that starts short (most transitions take well under a second on a
fast conductor) and backs off to a cap (a real deploy takes minutes). One overall deadline on a
monotonic clock bounds everything. Many nodes share each poll.

A node that nobody is moving is told apart from a node that is moving: a transient state whose
conductor holds no lock (no ``reservation``) and makes no progress (``provision_updated_at``
and the current step unchanged) for STRANDED_GRACE seconds is stranded. That happens when a
conductor dies in the middle of a step: on restart Ironic fails at most
``[conductor]periodic_max_workers`` such nodes per state and leaves the others where they are.

With several conductors, a node reserved by a conductor that is dead (Ironic reports it so, and the task saw
heartbeats recorded: ironic/conductors.py; an Ironic on SQLite records none, and its reading is never believed) is neither
moving nor stranded: it waits for a live conductor to take it over once the dead one missed
``[conductor]heartbeat_timeout``, if a live conductor serves the node's conductor group (Ironic's hash ring is
per group). The task waits for that within its timeout and goes on from what
Ironic did: a step the takeover failed (``clean failed``, "aborted due to conductor take over") is
planned again from there where the planner has a way. Which conductors are alive is read only while
a node makes no progress, at most once per poll round.

Ironic paces the work itself: past its concurrent action limits ([conductor]max_concurrent_clean and
max_concurrent_deploy) or with no conductor worker free it answers a verb with HTTP 503 and does nothing. The
executor takes that as back-pressure, not as a failure: the node stays ready, at most as many of the task's nodes move
at once as moved then, and one more each time one of them comes to rest, up to ``concurrency``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import unproven_death
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import (
    AnswerLost, Busy, IronicError, Unreachable, summarize_node, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import Progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait

# Seconds a transient state may go without a conductor's lock and without progress before the node
# counts as stranded. A working conductor holds the lock for the whole of a non-wait transient state.
STRANDED_GRACE = 20.0

# Seconds a transient node may go without progress before the task asks which conductors are alive.
SUSPECT_AFTER = 10.0

# Seconds of consecutive failed polls (Ironic restarting) the wait rides out before giving up.
UNREACHABLE_GRACE = 60.0

# How many of a node's latest history events a timeout reports.
HISTORY_EVENTS = 5

# Wait states: the conductor waits for the ramdisk to call back and holds no lock meanwhile, so
# they are never judged stranded (Ironic's own call-back timeouts end them). The newest Ironic can abort each.
WAIT_STATES = frozenset(source for source, event, _destination in states.TRANSITIONS
                        if event == 'abort' and states.STATES[source][0] == states.TRANSIENT)

# Aborting 'wait call-back' needs this API version (ironic/api/controllers/v1/utils.py allow_deploy_abort), which
# came with the edge in Ironic 35.0 (states.TRANSITION_SINCE).
DEPLOY_WAIT_ABORT_VERSION = (1, 110)

# Why no takeover ends a node a dead conductor left in a state outside states.TAKEOVER_STATES.
NO_TAKEOVER_IN = "No other conductor takes over a node in '%s'"

# Ironic's safe ways out of a stranded state (states.STRANDED_WAY_OUT), as steps.
STRANDED_WAY_OUT = dict(
    (state, planner.Step(verb, state, next(destination for source, event, destination in states.TRANSITIONS
                                           if (source, event) == (state, states.VERBS[verb]))))
    for state, verb in states.STRANDED_WAY_OUT.items())


# What the progress says of a node Ironic took no more of (Busy): it waits for room.
HELD_BACK = 'held back: Ironic takes no more nodes at once for now'

# Where a job is: waiting for its node to rest, planned and waiting for a slot, moving, or finished.
WAITING, READY, MOVING, DONE = 'waiting', 'ready', 'moving', 'done'


class Job(object):
    """One node's way to its declared state, and what happened on the way."""

    def __init__(self, node, target, options):
        self.node = summarize_node(node)
        self.uuid = node['uuid']
        self.target = target  # the declared stable state
        self.options = options  # provision.Options: how this node gets there
        self.plan = []  # every step planned, in order; issued ones first
        self.issued = 0  # how many steps of the plan were issued
        self.transitions = []
        self.error = None
        self.stage = WAITING
        self.started = False  # a request that changes the node was sent
        self._step_started = None
        self._quiet = None  # (progress signature, when first seen) while no conductor holds the node
        self.retry = None  # a step cut short by a stranded conductor, run again once the node rests
        self._still = None  # (progress signature, when first seen) of a node not at rest
        self.takeover = None  # the dead conductor (from IronicClient.conductors) Ironic must take the node over from
        self.holder = None  # the conductor holding the node when the conductors were last read (None: none held it)
        self.holders = {}  # conductor -> the state it was last seen holding the node in, since the step was sent

    @property
    def remaining(self):
        return self.plan[self.issued:]

    @property
    def label(self):
        return self.node.get('name') or self.uuid

    def result(self):
        return {
            'node': self.node,
            'plan': [step.as_dict() for step in self.plan],
            'transitions': self.transitions,
            'error': self.error,
            'changed': self.started,
        }


def describe_failure(step, node):
    last_error = masked_text(node.get('last_error'))
    detail = (' Ironic says: %s' % last_error) if last_error else ''
    what = "'%s' (%s)" % (step.verb, step.action.name) if step.action else "'%s'" % step.verb
    return ("node %s: %s from '%s' ended in '%s' instead of '%s'.%s" % (
        node.get('name') or node['uuid'], what, step.source, node['provision_state'], step.landing, detail))


def _where(node):
    target = node.get('target_provision_state')
    return "'%s'%s" % (node.get('provision_state'), (" (target '%s')" % target) if target else '')


def _awaited(conductor):
    return ("waiting for Ironic to take it over from conductor %s (down since %s)"
            % (conductor['hostname'], conductor.get('updated_at') or 'an unknown time'))


def _progress(node):
    """What changes while a conductor works on a node."""
    return (node.get('provision_state'), node.get('provision_updated_at'), repr(node.get('clean_step')),
            repr(node.get('deploy_step')), repr(node.get('service_step')))


class Executor(object):
    """Runs jobs against one Ironic within one deadline.

    plan(job, node) returns the steps for a node at rest (it calls provision.plan_node) and may
    raise PlanError; issue_step(client, uuid, step, options) sends the request of one step.
    """

    def __init__(self, client, timeout, concurrency=1, plan=None, issue_step=None, abort_on_timeout=False,
                 stranded_grace=STRANDED_GRACE, progress=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.progress = progress or Progress(clock=clock)
        self.plan = plan
        self.issue_step = issue_step
        self.abort_on_timeout = abort_on_timeout
        self.stranded_grace = stranded_grace
        self.clock = clock
        self.timeout = timeout
        self.wait = Wait(timeout, clock=clock, sleep=sleep)
        self.concurrency = max(1, concurrency)
        # How many nodes may move at once now: concurrency, lowered while Ironic answers Busy (the latest answer).
        self.limit = self.concurrency
        self.busy = None

    # -- one node ----------------------------------------------------------------------------

    def _fail(self, job, message):
        job.error = 'node %s: %s' % (job.label, message)
        job.stage = DONE

    def _at_rest(self, job, node):
        """Whether the node rests; an unknown state fails the job (the job is then DONE)."""
        try:
            return planner.is_at_rest(node['provision_state'], node.get('target_provision_state'))
        except planner.PlanError as exc:
            self._fail(job, str(exc))
            return False

    def _plan(self, job, node, check_mode):
        """Plan a node that rests: READY with steps to go, DONE when there is nothing to do or no way."""
        job.node = summarize_node(node)
        try:
            steps = self.plan(job, node)
        except (planner.PlanError, IronicError) as exc:
            self._fail(job, str(exc))
            return
        job.plan = job.plan[:job.issued] + list(steps)
        job.stage = READY if job.remaining and not check_mode else DONE

    def _issue(self, job, step, reason=None):
        """Send one step; on a lost answer, re-read the node and go on from what Ironic reports.

        Returns True when the step is under way (or already done), False when the job failed or Ironic answered
        Busy (self.busy; the job is as it was, to send the step later).
        """
        transition = {'verb': step.verb, 'from': step.source, 'to': None, 'seconds': 0.0}
        if step.action:
            transition['action'] = step.action.name
        if reason:
            transition['reason'] = reason
        try:
            self.issue_step(self.client, job.uuid, step, job.options)
        except Busy as exc:
            self.busy = exc
            return False
        except AnswerLost:
            try:
                took_effect = self._took_effect(job, step)
            except Busy as exc:  # not applied: the node is still where the step starts
                self.busy = exc
                return False
            except IronicError as exc:
                self._fail(job, "the answer to '%s' was lost and the node could not be read again: %s" % (step.verb, exc))
                return False
            if not took_effect:
                self._fail(job, "the answer to '%s' was lost twice and the node is still in '%s'; look at the "
                                "conductor log and run the task again." % (step.verb, step.source))
                return False
            transition['answer_lost'] = True
        except IronicError as exc:
            self._refused(job, step, exc)
            return False
        job.started = True
        job.transitions.append(transition)
        job.holders = {}
        job._step_started = self.clock()
        job._quiet = None
        self.progress.node(job.label, job.node.get('provision_state'), step.verb)
        return True

    def _start_next(self, job, wait):
        """Issue the job's next step, and the one after a step done once answered: True when one moves the node.

        False when none does: the job is DONE, or still READY when Ironic answered Busy."""
        while job.remaining:
            step = job.remaining[0]
            job.issued += 1
            if not self._issue(job, step):
                job.issued -= 1
                return False
            if step.verb not in states.DONE_WHEN_ANSWERED:
                job.stage = MOVING if wait else DONE
                return True
            job.transitions[-1].update(to=step.landing, seconds=round(self.clock() - job._step_started, 3))
        job.stage = DONE
        return False

    def _took_effect(self, job, step):
        """After a lost answer: True when Ironic applied the step (or does now, sent once more)."""
        node = self.client.get_node(job.uuid, self.client.poll_fields)
        job.node = summarize_node(node)
        if node['provision_state'] != step.source or node.get('target_provision_state'):
            return True  # the step is done or under way
        try:
            # It never reached the conductor; or it moves nothing (DONE_WHEN_ANSWERED) and, sent again, sends
            # only what is still missing.
            self.issue_step(self.client, job.uuid, step, job.options)
        except AnswerLost:
            node = self.client.get_node(job.uuid, self.client.poll_fields)
            job.node = summarize_node(node)
            return node['provision_state'] != step.source or bool(node.get('target_provision_state'))
        return True

    def _refused(self, job, step, exc):
        """Say which step was refused, where the node rests and why Ironic may have refused it."""
        position = ''
        if step in job.plan:
            position = ' (step %d of %d)' % (job.plan.index(step) + 1, len(job.plan))
        message = "Ironic refused '%s'%s from '%s': %s" % (step.verb, position, step.source, exc)
        try:
            node = self.client.get_node(job.uuid, self.client.poll_fields)
        except IronicError:
            node = None
        if node is not None:
            job.node = summarize_node(node)
            message += ' The node rests in %s.' % _where(node)
            if node.get('maintenance'):
                message += (" It is in maintenance (reason: %s), set since the task planned it; clear it with "
                            "baremetal.lifecycle.baremetal_maintenance maintenance: false once the reason is dealt "
                            "with, then run the task again." % (node.get('maintenance_reason') or 'none given'))
        self._fail(job, message)

    def _finish_step(self, job, node, check_mode):
        """The node rests after a step: record where it landed; DONE, or READY for the next step."""
        step = job.plan[job.issued - 1]
        job.node = summarize_node(node)
        state = node['provision_state']
        transition = job.transitions[-1]
        transition.update(to=state, seconds=round(self.clock() - job._step_started, 3))
        takeover, job.takeover = job.takeover, None
        if state != step.landing and takeover is None:
            takeover = self._taken_over_from(job, node)
        if state != step.landing and takeover is not None:
            # The conductor that had the node died: Ironic's takeover ended the step; go on from where it left it.
            transition['takeover'] = {'conductor': takeover['hostname'], 'down_since': takeover.get('updated_at')}
            self._plan(job, node, check_mode)
            if job.error:
                job.error = '%s Ironic ended the step when it took the node over from conductor %s. %s' % (
                    describe_failure(step, node), takeover['hostname'], job.error[len('node %s: ' % job.label):])
        elif state != step.landing:
            job.error = describe_failure(step, node)
            job.stage = DONE
        else:
            job.stage = READY if job.remaining else DONE
        # A node of the task came to rest, so Ironic has room for one more: try one more at once than before.
        self.limit = min(self.concurrency, self.limit + 1)

    def _taken_over_from(self, job, node):
        """The dead conductor that held the node during its failed step, when a live one could take it over, else
        None: Ironic may take the node over and fail it between two polls, before the task saw its conductor dead."""
        if not job.holders:
            return None
        conductors = self._read_conductors()
        for name, state in sorted(job.holders.items()):
            holder = conductors.get(name)
            if (holder is not None and holder['dead']
                    and self._no_takeover(dict(node, provision_state=state), holder, conductors) is None):
                return holder
        return None

    def _stranded(self, job, node):
        """True once the node sat in a non-wait transient state with no lock and no progress for the grace."""
        state = node['provision_state']
        if (planner.kind(state) != states.TRANSIENT or state in WAIT_STATES or 'reservation' not in node
                or node.get('reservation')):
            job._quiet = None
            return False
        progress = _progress(node)
        if job._quiet is None or job._quiet[0] != progress:
            job._quiet = (progress, self.clock())
            return False
        return self.clock() - job._quiet[1] >= self.stranded_grace

    @staticmethod
    def _no_takeover(node, dead, conductors):
        """Why Ironic never takes the node over from the dead conductor that reserved it, or None when it will.

        Only a live conductor of the node's conductor group takes it over: Ironic's hash ring is per group.
        """
        state = node['provision_state']
        if state not in states.TAKEOVER_STATES:
            return NO_TAKEOVER_IN % state
        if not dead['taken_over']:
            return ("No other conductor takes over the nodes of a conductor registered as HOST:PORT ([json_rpc]port "
                    "other than 8089): it reserves them as HOST")
        group = node.get('conductor_group') or ''
        if not any(c.get('alive') and (c.get('conductor_group') or '') == group for c in conductors.values()):
            return ("No live conductor serves conductor group '%s' (Ironic takes a node over only by a live conductor "
                    "of its group)" % group)
        return None

    @staticmethod
    def _restart_advice(why, dead):
        """What to restart for a node no request moves: the dead conductors (IronicClient.conductors values) by name,
        after why no other conductor moves it."""
        if not dead:
            return ("Restart the ironic-conductor: on start-up it fails up to [conductor]periodic_max_workers orphaned "
                    "nodes per state (raise it to cover them all), and a rerun of this task then recovers them.")
        names = ' or '.join('%s (down since %s)' % (c['hostname'], c.get('updated_at') or 'an unknown time')
                            for c in dead)
        return ("%s: restart the ironic-conductor %s; on start-up it fails the nodes it left there, and a rerun of "
                "this task then recovers them." % (why, names))

    def _dead_conductors(self, conductors):
        """The dead conductors among IronicClient.conductors() (read now when None), each once, by name."""
        if conductors is None:
            conductors = self._read_conductors()
        dead = dict((c['hostname'], c) for c in conductors.values() if c['dead'])
        return [dead[name] for name in sorted(dead)]

    def _way_out(self, job, node, check_mode, conductors):
        """A stranded node: take Ironic's safe way out where there is one, else fail this node only."""
        state = node['provision_state']
        job.node = summarize_node(node)
        quiet = round(self.clock() - job._quiet[1], 1)
        what = ("stranded in '%s': no conductor has held it (no reservation) and it made no progress for %s s, "
                "so nothing will move it again (its conductor probably restarted in the middle of the step)."
                % (state, quiet))
        step = STRANDED_WAY_OUT.get(state)
        if step is None or check_mode:
            verb = STRANDED_WAY_OUT[state].verb if step else None
            advice = ("Run the task without check mode: it takes the node out with '%s'." % verb if verb else
                      "Ironic takes no request that moves a node out of '%s'. %s"
                      % (state, self._restart_advice(NO_TAKEOVER_IN % state, self._dead_conductors(conductors))))
            self._fail(job, '%s %s' % (what, advice))
            return
        if job.stage == MOVING:
            job.transitions[-1].update(to=state, seconds=round(self.clock() - job._step_started, 3),
                                       stranded=True)
        interrupted = job.plan[job.issued - 1] if job.stage == MOVING else None
        if not self._issue(job, step, reason=what + " Ironic's way out is '%s' to '%s'." % (step.verb, step.landing)):
            return
        # Back at rest, the node is planned again; a step it did not finish is run again first.
        job.stage = WAITING
        job.retry = interrupted

    # -- many nodes --------------------------------------------------------------------------

    def _observe(self, job, node, check_mode, conductors=None):
        """A polled node: move its job on. conductors: IronicClient.conductors(), read this round, or None."""
        at_rest = self._at_rest(job, node)
        # A node that has come to rest is reported at rest, not still in the step that brought it there.
        self.progress.node(job.label, node.get('provision_state'),
                           job.plan[job.issued - 1].verb if job.stage == MOVING and not at_rest else None)
        if job.stage == DONE:
            return
        if not at_rest:
            job.node = summarize_node(node)
            state = node['provision_state']
            if node.get('reservation') and job.stage == MOVING:
                job.holders[node['reservation']] = state
            dead = None
            if conductors is not None and state not in WAIT_STATES:
                job.holder = conductors.get(node.get('reservation') or '')
                dead = job.holder if job.holder is not None and job.holder['dead'] else None
            no_takeover = self._no_takeover(node, dead, conductors) if dead is not None else None
            if dead is not None:
                # Kept until the node rests: the takeover releases the node, then fails it under a live conductor.
                job.takeover = dead if no_takeover is None else None
            if job.takeover is not None:
                job._quiet = None
                self.progress.node(job.label, state, _awaited(job.takeover))
            elif dead is not None:
                self._fail(job, "left in '%s' by conductor %s, which Ironic reports down since %s. %s" % (
                    state, dead['hostname'], dead.get('updated_at') or 'an unknown time',
                    self._restart_advice(no_takeover, [dead])))
            elif self._stranded(job, node):
                self._way_out(job, node, check_mode, conductors)
            return
        job.holder = None
        if job.stage == MOVING:
            self._finish_step(job, node, check_mode)
            return
        if job.transitions and job.transitions[-1]['to'] is None:  # a way out of a stranded state, now done
            job.transitions[-1].update(to=node['provision_state'],
                                       seconds=round(self.clock() - job._step_started, 3))
        retry, job.retry = job.retry, None
        if retry is not None and node['provision_state'] == retry.source:
            job.node = summarize_node(node)
            job.plan = job.plan[:job.issued] + [retry] + job.plan[job.issued:]
            job.stage = READY
            return
        self._plan(job, node, check_mode)

    def _suspicious(self, jobs, nodes):
        """Whether a node not at rest made no progress for SUSPECT_AFTER (or waits for a takeover)."""
        suspicious = False
        for job in jobs:
            node = nodes.get(job.uuid)
            if node is None or planner.kind(node['provision_state']) != states.TRANSIENT:
                job._still = None
                continue
            progress = _progress(node)
            if job._still is None or job._still[0] != progress:
                job._still = (progress, self.clock())
            suspicious = (suspicious or job.takeover is not None
                          or self.clock() - job._still[1] >= SUSPECT_AFTER)
        return suspicious

    def _read_conductors(self):
        """The conductors by name ({} when they cannot be read: the nodes are then judged without them)."""
        try:
            return self.client.conductors()
        except IronicError:
            return {}

    def _poll(self, jobs, unreachable_since):
        """The latest view of each job's node (a missing one was deleted), or None while Ironic is unreachable."""
        try:
            nodes = self.client.poll_nodes(dict((job.uuid, job.node) for job in jobs))
        except Unreachable:
            unreachable_since[0] = unreachable_since[0] or self.clock()
            if self.clock() - unreachable_since[0] >= UNREACHABLE_GRACE:
                raise
            return None
        unreachable_since[0] = None
        return nodes

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
        unreachable_since = [None]
        while True:
            moving = sum(1 for job in jobs if job.stage == MOVING)
            # A node between two steps keeps going before a new one starts.
            for job in sorted((job for job in jobs if job.stage == READY), key=lambda job: not job.started):
                if wait and moving >= self.limit:
                    break
                if self._start_next(job, wait):
                    moving += 1
                    self.wait.reset()
                elif job.stage == READY:
                    # Busy: Ironic takes no more now; as many as move now may move until one comes to rest.
                    self.limit = max(1, moving)
                    self.progress.node(job.label, job.node.get('provision_state'), HELD_BACK)
                    break
            watched = [job for job in jobs if job.stage == WAITING or job.stage == MOVING]
            if not (watched or any(job.stage == READY for job in jobs)) or not self.wait.pause():
                break
            if not watched:
                continue
            try:
                nodes = self._poll(watched, unreachable_since)
            except Unreachable as exc:
                for job in watched:
                    self._fail(job, 'Ironic stayed unreachable for %d s while the task waited: %s'
                               % (UNREACHABLE_GRACE, exc))
                break
            if nodes is None:
                continue
            conductors = self._read_conductors() if self._suspicious(watched, nodes) else None
            for job in watched:
                node = nodes.get(job.uuid)
                if node is None:
                    self._fail(job, 'deleted while the task waited on it (last seen in %s).' % _where(job.node))
                    continue
                if node.get('target_provision_state') is None and job.node.get('target_provision_state'):
                    # A node came to rest: others the conductor works through alongside it are about to, so
                    # look again soon rather than after the back-off grown while they all moved.
                    self.wait.reset()
                self._observe(job, node, check_mode, conductors)
        self._time_out([job for job in jobs if job.stage != DONE])
        return jobs

    # -- the deadline ------------------------------------------------------------------------

    def _history(self, uuid):
        try:
            events = self.client.node_history(uuid, HISTORY_EVENTS)
        except IronicError:
            return ''
        if not events:
            return ''
        return ' Latest events: %s.' % '; '.join(
            '%s %s' % (event.get('created_at'), (event.get('event') or '').strip()) for event in events)

    def _not_abortable(self, state):
        """Why Ironic would not abort a node in ``state`` (a sentence), or None when it would."""
        if state not in WAIT_STATES:
            return 'It is not in a wait state Ironic can abort'
        if state == 'wait call-back' and not self.client.supports(DEPLOY_WAIT_ABORT_VERSION):
            return ("Aborting '%s' needs Ironic API %s or newer, and this server is %s"
                    % (state, version_string(DEPLOY_WAIT_ABORT_VERSION), self.client.describe_server()))
        return None

    def _abort(self, job):
        """abort_on_timeout: abort a node still in a wait state Ironic can abort. Returns what was done."""
        state = job.node.get('provision_state')
        why_not = self._not_abortable(state)
        if why_not:
            return ' %s, so it was left moving.' % why_not
        step = planner.Step('abort', state, None)
        try:
            self.issue_step(self.client, job.uuid, step, job.options)
        except IronicError as exc:
            return " Aborting it failed: %s" % exc
        job.started = True
        job.transitions.append({'verb': 'abort', 'from': state, 'to': None, 'seconds': 0.0,
                                'reason': 'abort_on_timeout'})
        return " It was aborted (abort_on_timeout), out of '%s'; Ironic puts it in a failed state." % state

    def _time_out(self, jobs):
        for job in jobs:
            waiting = (' while %s' % _awaited(job.takeover)) if job.takeover is not None else ''
            doubt = unproven_death(job.holder)
            if job.stage == READY and not job.started and self.busy is not None:
                job.error = ("node %s: not started: the timeout (%d s) passed while Ironic took no more nodes at "
                             "once (its latest answer: %s). Raise timeout, or Ironic's limits (its [conductor] "
                             "max_concurrent_clean, max_concurrent_deploy and workers_pool_size)."
                             % (job.label, self.timeout, self.busy))
            elif job.stage == READY and not job.started:
                job.error = ("node %s: not started: the timeout (%d s) passed while it waited for one of the "
                             "%d moving slots (concurrency). Raise concurrency or timeout."
                             % (job.label, self.timeout, self.concurrency))
            elif job.stage == READY or (job.stage == WAITING and not job.started):
                job.error = ("node %s: not started: it was still %s after %d s%s and must come to rest before it "
                             "can be planned. Ironic's last error: %s.%s%s Raise timeout if it is just slow."
                             % (job.label, _where(job.node), self.timeout, waiting,
                                job.node.get('last_error') or 'none', self._history(job.uuid), doubt))
            else:
                step = job.plan[job.issued - 1] if job.issued else None
                doing = (" during '%s' from '%s' (waiting for '%s')" % (step.verb, step.source, step.landing)
                         if step else '')
                job.error = ("node %s: timed out after %d s%s%s: it stopped in %s. Ironic's last error: %s.%s%s"
                             % (job.label, self.timeout, doing, waiting, _where(job.node),
                                job.node.get('last_error') or 'none', self._history(job.uuid), doubt))
                if self.abort_on_timeout and job.started:
                    job.error += self._abort(job)
                elif self._not_abortable(job.node.get('provision_state')):
                    job.error += ' Raise timeout.'
                else:
                    job.error += ' Raise timeout, or set abort_on_timeout to abort a node left waiting.'
            job.stage = DONE
