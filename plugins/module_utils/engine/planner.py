# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan the steps that take a node from its provision state to a declared stable state.

Pure functions, no I/O. The graph it searches is engine/graph.py's, derived from the state table. In-place actions (inspect, clean, rebuild, service)
come from the ACTIONS table: a plan is the path to the state an action runs from, the action,
and the path on to the declared state. Node flags (maintenance, retired, protected) remove or
redirect edges as the NODE_FLAGS table says. A plan uses only the edges the server's Ironic release
has (``release``; None: the newest, every edge of TRANSITIONS).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import heapq

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import (
    ACTIONS, ACTIONS_BY_NAME, CLEAR_FAULT, step_word)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import (
    EVENTS, PlanError, Step, action_step, edges, kind, landing, normalize_state)


def _verb_of(event):
    """The API verb that sends ``event``, or None (the conductor's own events: done, fail, wait, hold...)."""
    return next((verb for verb in states.MOVE_VERBS + tuple(action.verb for action in ACTIONS)
                 if states.VERBS[verb] == event),
                None)


def missing_ways_out(state, release):
    """A sentence naming the requests out of ``state`` that newer Ironic releases take and this server's
    release does not ('' when there are none), with the actions that still run from there."""
    missing = sorted((since, _verb_of(event))
                     for (source, event, _destination), since in capabilities.TRANSITION_SINCE.items()
                     if source == state and release is not None and since > release and _verb_of(event))
    if not missing:
        return ''
    sentence = ' %s.' % '; '.join("'%s' out of '%s' exists from Ironic %s, and this server is older"
                                  % (verb, state, capabilities.release_name(since)) for since, verb in missing)
    actions = ['%s (%s)' % (action.name, action.option) for action in ACTIONS if state in action.runs_from]
    if actions:
        sentence += " From '%s' this server still takes %s." % (state, ' or '.join(actions))
    return sentence


class _Policy(object):
    """What a search may use: destructive steps or not, adoption, the verbs node flags refuse, their landings."""

    def __init__(self, allow_destructive, adopt, target, flags, release=None):
        self.allow_destructive = allow_destructive
        self.release = release
        self.adopt = adopt
        self.target = target
        self.flags = flags  # flag -> reason, only flags that refuse some verbs (not maintenance)
        self.refused = {}
        self.lands = {}
        for flag in flags:
            rule = states.NODE_FLAGS[flag]
            for verb in rule.refuses:
                self.refused.setdefault(verb, flag)
            self.lands.update(rule.lands)

    def relaxed(self):
        """The same policy without refusals and with destructive steps: to explain why a path is missing."""
        policy = _Policy(True, self.adopt, self.target, {}, self.release)
        policy.lands = self.lands
        return policy

    def allows(self, step):
        if step.verb in self.refused:
            return False
        if step.destructive and not self.allow_destructive:
            return False
        if step.verb == 'adopt':
            return self.adopt
        if self.adopt and self.target == 'active' and step.verb in ('active', 'rebuild'):
            return False  # adoption means no deploying
        return True


def _shortest(source, goals, policy):
    """Fewest verbs to any goal; among equals, fewest that clean disks; then a stable verb order."""
    order = dict((verb, index) for index, verb in enumerate(states.MOVE_VERBS))
    queue = [((0, 0, ()), source, ())]
    settled = set()
    graph = edges(policy.lands, policy.release)
    while queue:
        cost, state, path = heapq.heappop(queue)
        if state in goals:
            return list(path)
        if state in settled:
            continue
        settled.add(state)
        for step in graph:
            if step.source != state or step.landing in settled or not policy.allows(step):
                continue
            step_cost = (cost[0] + 1, cost[1] + int(step.cleans_disks), cost[2] + (order[step.verb],))
            heapq.heappush(queue, (step_cost, step.landing, path + (step,)))
    return None


def _describe(steps):
    """Steps in a person's words, as plans and progress name them: undeploy (active -> available), not 'deleted'."""
    return ', '.join('%s (%s -> %s)' % (step.action.name if step.action else step_word(step.verb), step.source,
                                        step.landing)
                     for step in steps)


def _flag_refusal(flag, reason, steps):
    return ("%s, which Ironic refuses for a %s node (reason: %s). Clear the flag with %s once that is right, "
            "or declare a state the node can reach" % (_describe(steps), flag, reason or 'none given',
                                                       states.NODE_FLAGS[flag].clear))


def _why_blocked(steps, policy):
    """Sentences naming what in ``steps`` the policy refuses: node flags first, then destructive steps."""
    reasons = []
    for flag, reason in policy.flags.items():
        refused = [step for step in steps if policy.refused.get(step.verb) == flag]
        if refused:
            reasons.append(_flag_refusal(flag, reason, refused))
    destructive = [step for step in steps if step.destructive]
    if destructive and not policy.allow_destructive:
        reasons.append("the destructive step %s, which tears down, re-images or erases the node's workload. "
                       "Set allow_destructive: true to allow it" % _describe(destructive))
    return reasons


def _path(source, goals, policy, goal_name):
    """The shortest acceptable path from source to one of goals; PlanError naming what blocks it."""
    if source in goals:
        return []
    path = _shortest(source, goals, policy)
    if path is not None:
        return path
    relaxed = _shortest(source, goals, policy.relaxed())
    reasons = _why_blocked(relaxed or [], policy)
    if reasons:
        raise PlanError("Reaching %s from '%s' needs %s." % (goal_name, source, '; and '.join(reasons)))
    if goals == ('enroll',):
        raise PlanError("Ironic has no transition back to 'enroll' from '%s'. Delete the node and enroll it again "
                        "(baremetal.lifecycle.baremetal_node state: absent, then present)." % source)
    raise PlanError("Ironic allows no path from '%s' to %s%s.%s" % (
        source, goal_name, ' by adoption' if policy.adopt else '', missing_ways_out(source, policy.release)))


def _action_step(state, action, policy):
    """The path to a state ``action`` runs from, and the action itself."""
    goal_name = "'%s'" % action.runs_from[0]
    try:
        path = _path(state, action.runs_from, policy, goal_name)
    except PlanError as exc:
        raise PlanError('%s runs in %s: %s' % (action.name, goal_name, exc))
    if path and path[-1].verb in action.done_by:
        return path
    source = path[-1].landing if path else state
    step = action_step(action, source, landing(source, action.verb, policy.lands, policy.release))
    reasons = _why_blocked([step], policy)
    if reasons:
        raise PlanError('Running %s needs %s.' % (action.name, '; and '.join(reasons)))
    if not policy.allows(step):
        raise PlanError('%s deploys the node, and adopt: true takes a workload over without deploying; choose one.'
                        % action.option)
    return path + [step]


def _compose(state, target, names, policy):
    """The named actions in table order, each reached by the shortest path, then the path to target."""
    steps = []
    for action in ACTIONS:
        if action.name in names:
            steps += _action_step(state, action, policy)
            state = steps[-1].landing
    return steps + _path(state, (target,), policy, "'%s'" % target)


def _destructive(steps):
    return sum(1 for step in steps if step.destructive)


def _resumed_by_unhold(action, hold, resumes_to):
    """True when unholding ``hold`` finishes the work ``action`` would start (the hold interrupted it)."""
    source = action.runs_from[0]
    entered = EVENTS[(source, states.VERBS[action.verb])]
    return EVENTS.get((entered, 'hold')) == hold and landing(source, action.verb) == resumes_to


def _hold_steps(current, unhold, held_target):
    if not unhold:
        raise PlanError("The node is in '%s': a step asked an operator to look before it goes on. Set unhold: true "
                        "to let this task resume it, once whatever it waits for is done." % current)
    resumes_to = held_target or states.STATES[current][1]
    return [Step('unhold', current, resumes_to)], resumes_to


def _maintenance_steps(current, flags, fault, clear_fault):
    reason = flags['maintenance'] or 'none given'
    if not fault:
        raise PlanError("The node is in maintenance (reason: %s), so Ironic will not move it. Clear it with %s "
                        "once the reason is dealt with." % (reason, states.NODE_FLAGS['maintenance'].clear))
    if not clear_fault:
        raise PlanError(
            "The node is in maintenance because Ironic recorded the fault '%s' (%s; reason: %s), and Ironic refuses "
            "to move it until maintenance is cleared. Set clear_fault: true to let this task clear it and go on, or "
            "clear it with %s and run this task again." % (
                fault, states.FAULTS.get(fault, 'see last_error'), reason, states.NODE_FLAGS['maintenance'].clear))
    return [Step(CLEAR_FAULT, current, current)]


def plan(current, target, allow_destructive=False, adopt=False, actions=(), optional_actions=(), unhold=False,
         held_target=None, flags=None, fault=None, clear_fault=False, release=None):
    """Return the list of Steps that takes a node at rest in ``current`` to ``target``.

    actions: names of ACTIONS to run on the way, every time (in table order); optional_actions: names of
    ACTIONS run only where they can run without adding a destructive step. unhold: a node in a hold may be resumed
    (held_target is where it then rests: the node's target_provision_state). flags: the node's set
    NODE_FLAGS with their reasons; fault: the fault Ironic recorded, which clear_fault lets the plan clear.
    release: the server's Ironic release (capabilities.release_for_api), whose edges the plan uses; None: the newest.
    Raises PlanError when no acceptable path exists.
    """
    current = normalize_state(current)
    flags = dict(flags or {})
    if target not in states.DECLARABLE_STATES:
        raise PlanError("'%s' is not a state a node can be declared in; choose one of %s."
                        % (target, ', '.join(states.DECLARABLE_STATES)))
    if kind(current) == states.TRANSIENT:
        raise PlanError("The node is still moving ('%s'); wait for it to come to rest before planning." % current)
    if adopt and target != 'active':
        raise PlanError("adopt: true only applies to state: active, not '%s'." % target)
    requested = set(actions) | set(optional_actions)
    for action in ACTIONS:
        if action.name in requested and action.targets and target not in action.targets:
            accepted = []
            for row in ACTIONS:
                accepted += [state for state in row.targets or () if row.option == action.option and state not in accepted]
            raise PlanError("%s needs state: %s, not '%s': declare that state, or leave %s out."
                            % (action.option, ' or '.join(accepted), target, action.option))
    policy = _Policy(allow_destructive, adopt, target,
                     dict((flag, reason) for flag, reason in flags.items() if states.NODE_FLAGS[flag].refuses != states.ALL_VERBS),
                     release)
    steps = []
    state = current
    if kind(current) == states.HOLD:
        steps, state = _hold_steps(current, unhold, held_target)
        requested = set(name for name in requested
                        if not _resumed_by_unhold(ACTIONS_BY_NAME[name], current, state))
    required = [name for name in actions if name in requested]
    body = _compose(state, target, required, policy)
    optional = [name for name in optional_actions if name in requested and name not in required]
    if optional:
        try:
            fuller = _compose(state, target, required + optional, policy)
        except PlanError:
            fuller = None  # an optional action is left out where it cannot run
        if fuller is not None and _destructive(fuller) == _destructive(body):
            body = fuller
    steps += body
    if steps and 'maintenance' in flags:
        steps = _maintenance_steps(current, flags, fault, clear_fault) + steps
    return steps
