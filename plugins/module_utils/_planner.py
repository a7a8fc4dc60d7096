# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan the API verbs that take a node from its provision state to a declared stable state.

Pure functions, no I/O. The graph is derived from ``_states``: an edge is an API verb issued
from a state at rest (stable or failed) and the state it lands in once the conductor has
followed the transient states on success.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import heapq

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _states as states
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError

# Verbs the planner may choose. 'inspect' and 'service' change nothing about where a node rests;
# 'clean' is only planned when the task asks for manual cleaning; 'unhold' resumes a step an
# operator deliberately held.
PLANNABLE_VERBS = ('manage', 'provide', 'active', 'adopt', 'rescue', 'unrescue', 'abort', 'deleted', 'rebuild', 'clean')


class PlanError(BaremetalError):
    """No acceptable path exists; the message says why and what to change."""


def kind(state):
    return states.STATES[state][0]


def normalize_state(state):
    """Map the pre-Kilo 'no state' to available; reject states this table does not know."""
    if state in states.LEGACY_STATE_ALIASES:
        return states.LEGACY_STATE_ALIASES[state]
    if state not in states.STATES:
        raise PlanError("Ironic reported provision state %r, which this collection does not know; "
                        "upgrade baremetal.lifecycle or move the node by hand." % (state,))
    return state


def is_at_rest(provision_state, target_provision_state):
    """True when the conductor will not move the node any further by itself."""
    state = normalize_state(provision_state)
    if kind(state) == states.TRANSIENT:
        return False
    # A stable state with a target is the instant between an accepted request and its first transition.
    return kind(state) != states.STABLE or target_provision_state is None


def _event_edges():
    edges = {}
    for source, event, destination in states.TRANSITIONS:
        edges[(source, event)] = destination
    return edges


def _build_edges():
    """Every (from, verb) a plan may use, with its landing state."""
    event_edges = _event_edges()
    edges = []
    for source, (source_kind, _target) in states.STATES.items():
        if source_kind not in (states.STABLE, states.FAILED):
            continue
        for verb in PLANNABLE_VERBS:
            entered = event_edges.get((source, states.VERBS[verb]))
            if entered is None:
                continue
            landing = states.LANDING_OVERRIDES.get((source, verb))
            if landing is None:
                landing = entered if kind(entered) != states.TRANSIENT else states.STATES[entered][1]
            edges.append(Step(verb, source, landing))
    return tuple(edges)


class Step(object):
    """One API verb of a plan."""

    __slots__ = ('verb', 'source', 'landing')

    def __init__(self, verb, source, landing):
        self.verb = verb
        self.source = source
        self.landing = landing

    @property
    def destructive(self):
        return self.verb in states.DESTRUCTIVE_VERBS

    @property
    def cleans_disks(self):
        return self.verb in states.DISK_CLEANING_VERBS

    def as_dict(self):
        return {'verb': self.verb, 'from': self.source, 'to': self.landing,
                'cleans_disks': self.cleans_disks, 'destructive': self.destructive}

    def __eq__(self, other):
        return isinstance(other, Step) and (self.verb, self.source, self.landing) == (other.verb, other.source, other.landing)

    def __hash__(self):
        return hash((self.verb, self.source, self.landing))

    def __repr__(self):
        return 'Step(%r, %r -> %r)' % (self.verb, self.source, self.landing)


EDGES = _build_edges()


def _allowed(step, target, policy):
    if step.source == step.landing:
        return False  # self-loops are requested explicitly (manual clean, rebuild), never searched
    if step.verb == 'clean':
        return False
    if step.destructive and not policy['allow_destructive']:
        return False
    if step.verb == 'adopt':
        return policy['adopt']
    if policy['adopt'] and target == 'active' and step.verb in ('active', 'rebuild'):
        return False  # adoption means no deploying
    return True


def _shortest(source, target, policy):
    """Fewest verbs; among equals, fewest that clean disks; then a stable verb order."""
    order = dict((verb, index) for index, verb in enumerate(PLANNABLE_VERBS))
    queue = [((0, 0, ()), source, ())]
    settled = set()
    while queue:
        cost, state, path = heapq.heappop(queue)
        if state == target:
            return list(path)
        if state in settled:
            continue
        settled.add(state)
        for step in EDGES:
            if step.source != state or step.landing in settled or not _allowed(step, target, policy):
                continue
            step_cost = (cost[0] + 1, cost[1] + int(step.cleans_disks), cost[2] + (order[step.verb],))
            heapq.heappush(queue, (step_cost, step.landing, path + (step,)))
    return None


def _describe(steps):
    return ', '.join('%s (%s -> %s)' % (step.verb, step.source, step.landing) for step in steps)


def _path(source, target, policy):
    path = _shortest(source, target, policy)
    if path is not None:
        return path
    if not policy['allow_destructive']:
        relaxed = dict(policy, allow_destructive=True)
        destructive_path = _shortest(source, target, relaxed)
        if destructive_path is not None:
            needed = [step for step in destructive_path if step.destructive]
            raise PlanError(
                "Reaching '%s' from '%s' needs the destructive step %s, which tears down or re-images "
                "the node's workload. Set allow_destructive: true to allow it." % (target, source, _describe(needed)))
    if target == 'enroll':
        raise PlanError("Ironic has no transition back to 'enroll' from '%s'. Delete the node and enroll it again "
                        "(baremetal.lifecycle.baremetal_node state: absent, then present)." % source)
    raise PlanError("Ironic allows no path from '%s' to '%s'%s." % (
        source, target, ' by adoption' if policy['adopt'] else ''))


def plan(current, target, allow_destructive=False, adopt=False, clean=False, rebuild=False):
    """Return the list of Steps that takes a node at rest in ``current`` to ``target``.

    ``clean`` routes the path through manageable and runs a manual clean there, also for a node already
    in ``target`` (the caller asked for the steps); ``rebuild``
    redeploys a node that is already active. Raises PlanError when no acceptable path exists.
    """
    current = normalize_state(current)
    if target not in states.DECLARABLE_STATES:
        raise PlanError("'%s' is not a state a node can be declared in; choose one of %s."
                        % (target, ', '.join(states.DECLARABLE_STATES)))
    if kind(current) == states.HOLD:
        raise PlanError("The node is in '%s': a step is holding it for an operator. Resume it with the "
                        "'unhold' verb or stop it with 'abort' (openstack baremetal node unhold|abort NODE), "
                        "then run again." % current)
    if kind(current) == states.TRANSIENT:
        raise PlanError("The node is still moving ('%s'); wait for it to come to rest before planning." % current)
    if adopt and target != 'active':
        raise PlanError("adopt: true only applies to state: active, not '%s'." % target)
    policy = {'allow_destructive': allow_destructive, 'adopt': adopt}
    if rebuild:
        if target != 'active':
            raise PlanError("rebuild: true redeploys an active node; it needs state: active, not '%s'." % target)
        if current == 'active':
            step = Step('rebuild', 'active', 'active')
            if not allow_destructive:
                raise PlanError("rebuild re-images the active node's disks. Set allow_destructive: true to allow it.")
            return [step]
    if current == target and not clean:
        return []
    if not clean:
        return _path(current, target, policy)
    to_manageable = _path(current, 'manageable', policy) if current != 'manageable' else []
    from_manageable = _path('manageable', target, policy) if target != 'manageable' else []
    return to_manageable + [Step('clean', 'manageable', 'manageable')] + from_manageable
