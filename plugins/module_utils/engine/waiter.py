# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The waiter of moving nodes (Waiter), polling many at once and judging each not at rest by a table of predicates.

A node that nobody is moving is told apart from a node that is moving: a transient state whose conductor holds no
lock (no ``reservation``) and makes no progress (``provision_updated_at`` and the current step unchanged) for
STRANDED_GRACE seconds is stranded. That happens when a conductor dies in the middle of a step: on restart Ironic
fails at most ``[conductor]periodic_max_workers`` such nodes per state and leaves the others where they are.

With several conductors, a node reserved by a conductor that is dead (Ironic reports it so, and the task saw
heartbeats recorded: ironic/conductors.py; an Ironic on SQLite records none, and its reading is never believed) is
neither moving nor stranded: it waits for a live conductor to take it over once the dead one missed
``[conductor]heartbeat_timeout``, if a live conductor serves the node's conductor group (Ironic's hash ring is per
group). Which conductors are alive is read only while a node makes no progress, at most once per poll round.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import MOVING
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.nodes import failure_reason
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, Unreachable

# Seconds a transient state may go without a conductor's lock and without progress before the node
# counts as stranded. A working conductor holds the lock for the whole of a non-wait transient state.
STRANDED_GRACE = 20.0

# Seconds a transient node may go without progress before the task asks which conductors are alive.
SUSPECT_AFTER = 10.0

# Seconds of consecutive failed polls (Ironic restarting) the wait rides out before giving up.
UNREACHABLE_GRACE = 60.0

# Wait states: the conductor waits for the ramdisk to call back and holds no lock meanwhile, so
# they are never judged stranded (Ironic's own call-back timeouts end them). The newest Ironic can abort each.
WAIT_STATES = frozenset(source for source, event, _destination in states.TRANSITIONS
                        if event == 'abort' and states.STATES[source][0] == states.TRANSIENT)


def ironics_words(client, node):
    """What Ironic says of where a step left the node: for a node in a failure state, why Ironic failed it
    (nodes.failure_reason: its history keeps it once Ironic cleared last_error); for any other, its last_error (an
    error its history keeps may be old and unrelated)."""
    if graph.kind(node['provision_state']) == states.FAILED:
        return failure_reason(client, node)
    return node.get('last_error')


def agent_heartbeat(node):
    """The last heartbeat of the agent of a node in a wait state as a poll saw it ({'at': Ironic's recorded time,
    'age': seconds by Ironic's clock, or None}: ironic/client.heartbeat_seen), or None: not in a wait state (no
    agent is waited for), or Ironic recorded none (never guessed)."""
    heartbeat = node.get('agent_heartbeat')
    return heartbeat if node.get('provision_state') in WAIT_STATES and isinstance(heartbeat, dict) else None


# What a node not at rest shows (Waiter.judge).
TAKEOVER, ABANDONED, STRANDED, MOVES = 'takeover', 'abandoned', 'stranded', 'moves'


def signature(node):
    """What changes while a conductor works on a node."""
    return (node.get('provision_state'), node.get('provision_updated_at'), repr(node.get('clean_step')),
            repr(node.get('deploy_step')), repr(node.get('service_step')))


def no_takeover(node, dead, conductors):
    """Why Ironic never takes the node over from the dead conductor that reserved it (a key of
    diagnosis.NO_TAKEOVER), or None when it will. Only a live conductor of the node's conductor group takes it
    over: Ironic's hash ring is per group."""
    if node['provision_state'] not in states.TAKEOVER_STATES:
        return 'state'
    if not dead['taken_over']:
        return 'port'
    group = node.get('conductor_group') or ''
    if not any(c.get('alive') and (c.get('conductor_group') or '') == group for c in conductors.values()):
        return 'group'
    return None


# What judging a node saw (the predicates of VERDICTS read it): the dead conductor a takeover awaits (None: none),
# the dead conductor that holds the node (None: none, or the conductors were not read), and whether the node sat
# without lock or progress for the grace.
Seen = collections.namedtuple('Seen', 'takeover dead stranded')

# What a polled node not at rest shows (Waiter.judge), for the scheduler to apply to its job: the verdict, the dead
# conductor holding the node and why none takes it over (a key of diagnosis.NO_TAKEOVER); and the job's watch as it
# is now: holder, takeover, quiet (each a Job attribute of that name) and holding (the conductor holding the node
# during its step, None: none).
# One poll round (Waiter.look): the nodes as read ({uuid: node}, a deleted one missing), each job's ``still``
# ({uuid: (progress signature, since when)} of a node not at rest), and IronicClient.conductors() where a node
# made no progress (None: not read).
Round = collections.namedtuple('Round', 'nodes still conductors')

Judged = collections.namedtuple('Judged', 'verdict dead reason holder takeover quiet holding')


def _awaits_takeover(seen):
    return seen.takeover is not None


def _abandoned(seen):
    return seen.dead is not None


def _stranded(seen):
    return seen.stranded


# What a node not at rest shows: the first verdict whose predicate holds for what was Seen, else MOVES.
VERDICTS = ((TAKEOVER, _awaits_takeover), (ABANDONED, _abandoned), (STRANDED, _stranded))


class Waiter(object):
    """Polls the nodes of many jobs within one Wait (common/wait.py), and judges the nodes not at rest."""

    def __init__(self, client, waiting, stranded_grace=STRANDED_GRACE):
        self.client = client
        self.clock = waiting.clock
        self.stranded_grace = stranded_grace
        self._unreachable_since = None

    def poll(self, jobs):
        """The latest view of each job's node (a missing one was deleted), or None while Ironic is unreachable;
        raises Unreachable once it stayed so for UNREACHABLE_GRACE, counted from the start of the first poll that
        failed: a poll Ironic never answers takes its tries of api_timeout, which count."""
        asked = self.clock()
        try:
            nodes = self.client.poll_nodes(dict((job.uuid, job.node) for job in jobs), states.TRANSIENT_STATES,
                                           WAIT_STATES, dict((job.uuid, job.landing) for job in jobs if job.landing))
        except Unreachable:
            if self._unreachable_since is None:
                self._unreachable_since = asked
            if self.clock() - self._unreachable_since >= UNREACHABLE_GRACE:
                raise
            return None
        self._unreachable_since = None
        return nodes

    def look(self, jobs):
        """One poll round of the jobs' nodes: Round, or None while Ironic is unreachable (see poll)."""
        nodes = self.poll(jobs)
        if nodes is None:
            return None
        suspicious, still = self.suspicious(jobs, nodes)
        return Round(nodes, still, self.read_conductors() if suspicious else None)

    def read_conductors(self):
        """The conductors by name ({} when they cannot be read: the nodes are then judged without them)."""
        try:
            return self.client.conductors()
        except IronicError:
            return {}

    def dead_conductors(self, conductors):
        """The dead conductors among IronicClient.conductors() (read now when None), each once, by name."""
        if conductors is None:
            conductors = self.read_conductors()
        dead = dict((c['hostname'], c) for c in conductors.values() if c['dead'])
        return [dead[name] for name in sorted(dead)]

    def suspicious(self, jobs, nodes):
        """(Whether a node not at rest made no progress for SUSPECT_AFTER or waits for a takeover, {uuid: (progress
        signature, since when)} of each job's node not at rest: the job's ``still``)."""
        suspicious, still = False, {}
        for job in jobs:
            node = nodes.get(job.uuid)
            if node is None or graph.kind(node['provision_state']) != states.TRANSIENT:
                continue
            progress = signature(node)
            seen = job.still if job.still is not None and job.still[0] == progress else (progress, self.clock())
            still[job.uuid] = seen
            suspicious = suspicious or job.takeover is not None or self.clock() - seen[1] >= SUSPECT_AFTER
        return suspicious, still

    def quiet(self, job, node):
        """(The job's ``quiet``: (progress signature, since when) while the node sits in a non-wait transient state
        with no lock, else None; whether it sat so, unchanged, for the grace: it is stranded)."""
        state = node['provision_state']
        if (graph.kind(state) != states.TRANSIENT or state in WAIT_STATES or 'reservation' not in node
                or node.get('reservation')):
            return None, False
        progress = signature(node)
        if job.quiet is None or job.quiet[0] != progress:
            return (progress, self.clock()), False
        return job.quiet, self.clock() - job.quiet[1] >= self.stranded_grace

    def judge(self, job, node, conductors):
        """What a polled node not at rest shows: Judged. The job is read, not changed.

        conductors: IronicClient.conductors(), read this round, or None. A takeover found is kept on the job until
        the node rests: the takeover releases the node, then fails it under a live conductor."""
        state = node['provision_state']
        holding = node.get('reservation') if node.get('reservation') and job.stage == MOVING else None
        holder, dead = job.holder, None
        if conductors is not None and state not in WAIT_STATES:
            holder = conductors.get(node.get('reservation') or '')
            dead = holder if holder is not None and holder['dead'] else None
        reason = no_takeover(node, dead, conductors) if dead is not None else None
        takeover = job.takeover if dead is None else (dead if reason is None else None)
        quiet, stranded = self.quiet(job, node)
        seen = Seen(takeover, dead, stranded)
        verdict = next((verdict for verdict, holds in VERDICTS if holds(seen)), MOVES)
        return Judged(verdict, dead, reason, holder, takeover, quiet, holding)

    def taken_over_from(self, job, node):
        """The dead conductor that held the node during its failed step, when a live one could take it over, else
        None: Ironic may take the node over and fail it between two polls, before the task saw its conductor dead.
        Ironic's own word that its takeover ended the step (states.TAKEOVER_ERROR) names the holder dead even when
        the task read the conductors too seldom to see heartbeats advance, and its node history keeps that word once
        Ironic cleared the last_error (nodes.failure_reason)."""
        if not job.holders:
            return None
        conductors = self.read_conductors()
        if states.TAKEOVER_ERROR in (ironics_words(self.client, node) or ''):
            held = [conductors.get(name) or {'hostname': name} for name in sorted(job.holders)]
            return next((holder for holder in held if not holder.get('alive')), held[0])
        for name, state in sorted(job.holders.items()):
            holder = conductors.get(name)
            if (holder is not None and holder['dead']
                    and no_takeover(dict(node, provision_state=state), holder, conductors) is None):
                return holder
        return None
