# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The many-node contract every module shares: how nodes: elements are parsed, how nodes are looked up and
selected, how they are run, and the one shape a task with many nodes returns.

A module parses nodes: with targets_from_elements (every invalid element listed before anything is read), reads
what it needs (its nodes with find_nodes, in proportion to their number, or a selection with one list per page),
decides per node in memory, then hands the nodes that need a write to run_each. As in kubernetes.core's runner, a
failure of one node is stored on that node's result and the others go on; exit_with_results ends the task with
every node's result, the totals, the failed nodes and a diff per node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import provision, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import SELECTION_FILTERS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes, no_node_message, select_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.waves import WAVE_SPEC, over_budget, run_in_waves


def _held(result):
    """Whether a node was held back: its wave never started, as the failures were over the budget."""
    return bool(result.get('wave')) and not result.get('started')


def totals(results, started, api_calls):
    """The totals line of a many-node result."""
    return {'nodes': len(results), 'changed': sum(1 for result in results if result.get('changed')),
            'failed': sum(1 for result in results if result.get('error')),
            'not_started': sum(1 for result in results if _held(result)),
            'seconds': round(time.monotonic() - started, 3), 'api_calls': api_calls}


def failure_message(results, labels, max_fail_percentage=None):
    """'2 of the 5 nodes to change failed: a: ... | b: ...', or None when none failed or no more than
    max_fail_percentage of the nodes the task set out to change did (any one, when it is None)."""
    errors = ['%s: %s' % (label, result['error']) for label, result in zip(labels, results) if result.get('error')]
    changing = sum(1 for result in results if result.get('changed') or result.get('error') or _held(result))
    if not over_budget(len(errors), changing, max_fail_percentage):
        return None
    budget = '' if max_fail_percentage is None else ' (max_fail_percentage is %s)' % max_fail_percentage
    message = '%d of the %d nodes to change failed%s: %s' % (len(errors), changing, budget, ' | '.join(errors))
    held = [label for label, result in zip(labels, results) if _held(result)]
    if held:
        message += ' | Not started, as no wave starts once the failures are over the budget: %s.' % ', '.join(held)
    return message


def _node_name(result, label):
    """A node's name in a diff header or a wave: its name, or the task's label for it when it has none."""
    return (result.get('node') or {}).get('name') or result.get('name') or label


def exit_with_results(module, results, labels, started, single, max_fail_percentage=None, waves=None):
    """End a task with the one result shape of every module.

    One node: its result as the task's, failed when it has an error. Many: ``nodes`` (every node's result, each
    with changed and error), ``totals``, ``failed_nodes`` (the labels of the nodes that failed) and ``diff`` (one
    per node that changed, headed by the node's name, or its label when it has none); with waves (indexes of
    results, see waves.run_in_waves), ``waves``: the names of each wave's nodes, as diffs head them. The task fails when more
    than max_fail_percentage of the nodes it set out to change failed (any one, when the module has no such
    option); the errors of a task that goes on are warnings.
    """
    if single:
        result = dict(results[0])
        error = result.pop('error', None)
        if error:
            module.fail(error, **result)
        module.exit(**result)
    diffs = []
    for label, result in zip(labels, results):
        result.setdefault('error', None)
        diff = result.pop('diff', None)
        if diff and result.get('changed'):
            diffs.append(dict(diff, before_header=_node_name(result, label), after_header=_node_name(result, label)))
    summary = dict(changed=any(result.get('changed') for result in results), nodes=results,
                   totals=totals(results, started, module.api_calls), diff=diffs,
                   failed_nodes=[label for label, result in zip(labels, results) if result['error']])
    if waves is not None:
        summary['waves'] = [[_node_name(results[index], labels[index]) for index in wave] for wave in waves]
    message = failure_message(results, labels, max_fail_percentage)
    if message:
        module.fail(message, **summary)
    for label, result in zip(labels, results):
        if result['error']:
            module.warn('%s: %s' % (label, result['error']))
    module.exit(**summary)


def run_items(module, items, run_batch, declared=None):
    """Every item's result, in the order of the items, and the waves they ran in (None without wave_size).

    run_batch(items, check_mode) runs items as the module does, reading their nodes afresh; with the task's
    wave_size the nodes that need a change run wave after wave behind a health gate (waves.run_in_waves).
    """
    params = module.params
    if params.get('wave_size') is None:
        return run_batch(items, module.check_mode), None

    def read_nodes(uuids):
        return find_nodes(module.client, uuids, NODE_SUMMARY_FIELDS)[0]

    return run_in_waves(read_nodes, items, run_batch, params['wave_size'], wave_pause=params['wave_pause'],
                        max_fail_percentage=params['max_fail_percentage'], check_mode=module.check_mode,
                        declared=declared)


# The options of a selection, shared by the modules that take one.
SELECTION_SPEC = dict((name, dict(type='str')) for name in sorted(SELECTION_FILTERS))

# How many nodes a module that moves them (baremetal_provision_state, baremetal_hardware) lets move at once: the
# task sends one request at a time whatever it is, and Ironic answers a step past its own limits with HTTP 503, which
# the executor takes as back-pressure (engine/scheduler.py). 100 moved 100 nodes as fast as every node at once (bench/).
MOVING_CONCURRENCY_SPEC = dict(concurrency=dict(type='int', default=100))

# The option naming one node to find, by name or UUID: node, or name, whichever word the user reaches for
# (baremetal_node, whose option is name, takes node the same way).
NODE_SPEC = dict(type='str', aliases=['name'])

# How a module names the nodes it acts on: one, a list or a selection (plugins/doc_fragments/node_selection.py).
NODE_SELECTION_SPEC = dict(
    node=NODE_SPEC,
    nodes=dict(type='list', elements='raw'),
    select=dict(type='dict', options=SELECTION_SPEC),
    concurrency=dict(type='int', default=1),
    **WAVE_SPEC
)


class Target(object):
    """One node a many-node task acts on: how errors name it, the node as read, and its own settings."""

    def __init__(self, label, ident, settings):
        self.label = label
        self.ident = ident
        self.settings = settings
        self.node = None


def _wrong_type(value, expected):
    """Why value is not what a per-node option expects (a tuple of choices, or bool, list, dict, str), or None."""
    if isinstance(expected, tuple):
        return None if value in expected else 'must be one of %s, not %r' % (', '.join(expected), value)
    if expected is list and not (isinstance(value, list) and all(isinstance(item, dict) for item in value)):
        return 'must be a list of steps, each a dictionary'
    if expected is bool and not isinstance(value, bool):
        return 'must be true or false, not %r' % (value,)
    if expected in (dict, str) and not isinstance(value, expected):
        return 'must be a %s' % ('dictionary' if expected is dict else 'string')
    return None


def targets_from_elements(elements, defaults, types):
    """Targets of a nodes list whose elements are names or UUIDs, or dictionaries with node and any of the keys of
    defaults, each a per-node option that overrides the task's value (a null or missing one keeps it). types says
    what an option must be (see _wrong_type). Raises BaremetalError listing every invalid element, before
    anything is read."""
    errors, targets = [], []
    for index, element in enumerate(elements):
        where = 'nodes[%d]' % index
        if isinstance(element, dict):
            unknown = set(element) - set(defaults) - set(['node'])
            if not isinstance(element.get('node'), str) or not element['node'] or unknown:
                errors.append('%s must be a name, a UUID, or a dictionary with node and optionally %s; got keys %s.'
                              % (where, ', '.join(defaults), ', '.join(sorted(element))))
                continue
            ident = element['node']
            settings = dict((key, element[key] if element.get(key) is not None else value)
                            for key, value in defaults.items())
            wrong = ['%s.%s %s' % (where, key, _wrong_type(element[key], expected))
                     for key, expected in types.items() if element.get(key) is not None
                     and _wrong_type(element[key], expected)]
            if wrong:
                errors.append('%s.' % '; '.join(wrong))
                continue
        elif isinstance(element, str) and element:
            ident, settings = element, dict(defaults)
        else:
            errors.append('%s must be a name, a UUID, or a dictionary with node; got %r.' % (where, element))
            continue
        targets.append(Target('%s (%s)' % (where, ident), ident, settings))
    if errors:
        raise BaremetalError(' '.join(errors))
    return targets


def read_targets(client, targets, fields):
    """Fill in each target's node, reading in proportion to the targets (find_nodes).

    Raises BaremetalError naming every target that matches no node, before anything is written.
    """
    found, missing = find_nodes(client, [target.ident for target in targets], fields)
    if missing:
        raise BaremetalError(no_node_message(missing, client))
    for target in targets:
        target.node = found[target.ident]
    return targets


def targets_from_selection(client, selection, defaults, fields):
    """A Target for every node of the selection, with the task's settings."""
    return [_selected(node, defaults) for node in select_nodes(client, selection, fields)]


def _selected(node, defaults):
    target = Target('node %s' % (node.get('name') or node['uuid']), node['uuid'], dict(defaults))
    target.node = node
    return target


def run_module(module, defaults, types, fields, action, progress=None, declared=None):
    """The whole of a module that acts on node, nodes or a select selection of nodes.

    defaults are the task's per-node settings (an element of nodes may override them, as types allow);
    action(node, settings, check_mode) returns one node's result; declared(settings) what those settings declare
    that the health gate of waves would otherwise hold against a node (see waves.HEALTH_CHECKS). Every element
    is checked and every node read before the first write. progress (a progress.Progress the action reports
    to, for a module that waits) is told how many nodes there are.
    """
    params = module.params
    started = time.monotonic()
    client = module.client
    if params['node'] is not None:
        targets = [Target(None, params['node'], dict(defaults))]
    elif params['nodes'] is not None:
        targets = targets_from_elements(params['nodes'], defaults, types)
    else:
        targets = targets_from_selection(client, params['select'], defaults, fields)

    def run_batch(batch, check_mode):
        read_targets(client, [target for target in batch if target.node is None], fields)
        results = run_each(batch, lambda target: action(target.node, target.settings, check_mode), params['concurrency'])
        for target in batch:
            target.node = None  # read again by a later run: a wave, after the plan of every node
        return results

    read_targets(client, [target for target in targets if target.node is None], fields)
    if progress is not None:
        progress.start(len(targets))
    results, waves = run_items(module, targets, run_batch, declared and (lambda target: declared(target.settings)))
    exit_with_results(module, results, [target.label for target in targets], started, params['node'] is not None,
                      max_fail_percentage=params['max_fail_percentage'], waves=waves)


def provision_targets_from_elements(elements, state, options):
    """The Targets of a nodes: list: names or UUIDs, or dictionaries with node, state and the node's own options."""
    defaults = dict(state=state, **dict((name, getattr(options, name)) for name in provision.NODE_OPTION_TYPES))
    types = dict(state=tuple(states.DECLARABLE_STATES), **provision.NODE_OPTION_TYPES)
    return [provision.Target(element.ident, element.settings['state'],
                             options.overridden(**dict((name, element.settings[name]) for name in provision.NODE_OPTION_TYPES)))
            for element in targets_from_elements(elements, defaults, types)]
