# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The graph the planner searches, derived from the state table (engine/states.py): steps between states at rest.

Pure, no I/O. An edge is an API verb issued from a state at rest (stable or failed) and the state it lands in once
the conductor has followed the transient states on success; node flags redirect landings (``lands``), and a server's
Ironic release has only the edges it knows (``release``; None: the newest, every edge of TRANSITIONS).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import (
    ACTIONS, DESTRUCTIVE_VERBS, DISK_CLEANING_VERBS, REBOOTING_VERBS, step_word)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states

_EVENTS_BY_RELEASE = {}


def events(release=None):
    """(state, event) -> the state it enters, on a server of ``release`` (None: the newest)."""
    if release not in _EVENTS_BY_RELEASE:
        _EVENTS_BY_RELEASE[release] = dict(((source, event), destination)
                                           for source, event, destination in states.transitions(release))
    return _EVENTS_BY_RELEASE[release]


EVENTS = events()
AT_REST_KINDS = (states.STABLE, states.FAILED)


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


class Step(object):
    """One step of a plan: an API verb (or clear_fault) from a state, and where the node rests after it.

    action: the ACTIONS row of an in-place action named otherwise than its verb (a runbook runs by 'clean' or
    'service'), whose row says what the step sends and does; None for every other step.
    """

    __slots__ = ('verb', 'source', 'landing', 'action')

    def __init__(self, verb, source, landing, action=None):
        self.verb = verb
        self.source = source
        self.landing = landing
        self.action = action

    @property
    def destructive(self):
        return self.action.destructive if self.action else self.verb in DESTRUCTIVE_VERBS

    @property
    def cleans_disks(self):
        return self.action.cleans_disks if self.action else self.verb in DISK_CLEANING_VERBS

    @property
    def reboots(self):
        return self.action.reboots if self.action else self.verb in REBOOTING_VERBS

    def as_dict(self):
        shown = {'verb': self.verb, 'name': step_word(self.verb), 'from': self.source, 'to': self.landing,
                 'cleans_disks': self.cleans_disks, 'destructive': self.destructive, 'reboots': self.reboots}
        if self.action:
            shown['action'] = self.action.name
        return shown

    def _key(self):
        return self.verb, self.source, self.landing, self.action and self.action.name

    def __eq__(self, other):
        return isinstance(other, Step) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        named = ', %r' % self.action.name if self.action else ''
        return 'Step(%r, %r -> %r%s)' % (self.verb, self.source, self.landing, named)


def action_step(action, source, landing):
    """The Step of an in-place action: a row named after its verb needs no mention (its verb says it all)."""
    return Step(action.verb, source, landing, action if action.name != action.verb else None)


def landing(source, verb, lands=None, release=None):
    """Where ``verb`` issued in ``source`` leaves the node at rest on success; None if Ironic refuses it there."""
    entered = events(release).get((source, states.VERBS[verb]))
    if entered is None:
        return None
    override = (lands or {}).get(verb) or states.LANDING_OVERRIDES.get((source, verb))
    if override:
        return override
    return entered if kind(entered) != states.TRANSIENT else states.STATES[entered][1]


def _move_edges(lands=None, release=None):
    """Every (from, verb) a path may use between different resting states, with its landing state."""
    edges = []
    for source, (source_kind, _target) in states.STATES.items():
        if source_kind not in AT_REST_KINDS:
            continue
        for verb in states.MOVE_VERBS:
            destination = landing(source, verb, lands, release)
            if destination is not None and destination != source:
                edges.append(Step(verb, source, destination))
    return tuple(edges)


# The graph of a node without flags: what the docs draw.
EDGES = _move_edges()

# One (action, Step) per in-place action and state it runs from: what the docs draw beside EDGES.
ACTION_EDGES = tuple((action, action_step(action, source, landing(source, action.verb)))
                     for action in ACTIONS for source in action.runs_from)
_EDGES_BY_LANDS = {((), None): EDGES}


def edges(lands, release):
    """_move_edges, once per node flags' landings and release."""
    key = (tuple(sorted(lands.items())), release)
    if key not in _EDGES_BY_LANDS:
        _EDGES_BY_LANDS[key] = _move_edges(lands, release)
    return _EDGES_BY_LANDS[key]
