# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one many-node runner every module shares: node, nodes or select parsed once, the nodes read (one check
that no node is named twice), run (in waves with wave_size), and the Report (fleet/outcome.py) the task ends with.

A module turns its options into Targets with targets (every invalid element listed before anything is read),
says what each Target is to it (Target.item), and hands run a function that acts on a batch of Targets. As in
kubernetes.core's runner, a failure of one node is stored on that node's result and the others go on;
task.module.BaremetalModule.finish ends the task with the Report.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import (
    check_distinct_nodes, type_name, wrong_type_error)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import did_you_mean
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import (
    NODE_SPEC, SELECTION_SPEC, find_nodes, no_node_message, select_nodes)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import Report
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.waves import run_in_waves

# The options of every module that changes nodes in bulk (plugins/doc_fragments/waves.py).
WAVE_SPEC = dict(
    wave_size=dict(type='str'),
    wave_pause=dict(type='float', default=0),
    max_fail_percentage=dict(type='float', default=0),
)

# How many nodes a module that moves them (baremetal_provision_state, baremetal_hardware) lets move at once: the
# task sends one request at a time whatever it is, and Ironic answers a step past its own limits with HTTP 503, which
# the scheduler takes as back-pressure (engine/scheduler.py). 100 moved 100 nodes as fast as every node at once
# (bench/).
MOVING_CONCURRENCY_SPEC = dict(concurrency=dict(type='int', default=100))

# How a module names the nodes it acts on: one, a list or a selection (plugins/doc_fragments/node_selection.py).
NODE_SELECTION_SPEC = dict(
    node=NODE_SPEC,
    nodes=dict(type='list', elements='raw'),
    select=dict(type='dict', options=SELECTION_SPEC),
    concurrency=dict(type='int', default=1),
    **WAVE_SPEC
)


class Target(object):
    """One node a many-node task acts on: how errors name it (label: 'nodes[3] (rack1-node07)' for an element of
    nodes, 'node rack1-node07' for a selected node, None for the one node of a task), how it is found (ident), its
    own settings, the node as read, and what the module makes of it (item)."""

    def __init__(self, label, ident, settings, node=None):
        self.label = label
        self.ident = ident
        self.settings = settings
        self.node = node
        self.item = None


def _wrong_type(where, value, expected):
    """Why value (at where) is not what a per-node option expects (a tuple of choices, or bool, list, dict, str), or
    None. A list or a dictionary for a string is refused as an option's is (validate.wrong_type_error)."""
    if isinstance(expected, tuple):
        return None if value in expected else '%s must be one of %s, not %r' % (where, ', '.join(expected), value)
    if expected is list and not (isinstance(value, list) and all(isinstance(item, dict) for item in value)):
        return '%s must be a list of steps, each a dictionary' % where
    if expected is bool and not isinstance(value, bool):
        return wrong_type_error(where, value, 'bool', by_ansible=False).rstrip('.')
    if expected is str and not isinstance(value, str):
        return wrong_type_error(where, value, 'str', by_ansible=False).rstrip('.')
    if expected is dict and not isinstance(value, dict):
        return '%s must be a dictionary, got a %s' % (where, type_name(value))
    return None


def _element_key_hint(key, defaults):
    """The option an element's unknown key may have meant: node for name (the task's node is also called name)."""
    if key == 'name':
        return " (write node: the task's option node is also called name, an element's is not)"
    return did_you_mean(str(key), ['node'] + list(defaults))


def targets_from_elements(elements, defaults, types):
    """Targets of a nodes list whose elements are names or UUIDs, or dictionaries with node and any of the keys of
    defaults, each a per-node option that overrides the task's value (a null or missing one keeps it). types says
    what an option must be (see _wrong_type). Raises BaremetalError listing every invalid element, before
    anything is read."""
    errors, targets = [], []
    for index, element in enumerate(elements):
        where = 'nodes[%d]' % index
        if isinstance(element, dict):
            unknown = sorted(set(element) - set(defaults) - set(['node']), key=str)
            if not isinstance(element.get('node'), str) or not element['node'] or unknown:
                misspelled = ''.join(' %r is not one of them%s.' % (key, _element_key_hint(key, defaults)) for key in unknown)
                errors.append('%s must be a name, a UUID, or a dictionary with node and optionally %s; got keys %s.%s'
                              % (where, ', '.join(defaults), ', '.join(sorted(map(str, element))), misspelled))
                continue
            ident = element['node']
            settings = dict((key, element[key] if element.get(key) is not None else value)
                            for key, value in defaults.items())
            wrong = [_wrong_type('%s.%s' % (where, key), element[key], expected)
                     for key, expected in types.items() if element.get(key) is not None]
            wrong = [problem for problem in wrong if problem]
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


def targets(client, params, defaults, types=None, key='node', fields=('uuid',)):
    """The Targets of a task, from the one of its options that names its nodes: key (one node, by name or UUID),
    nodes or select (every node it matches, read with fields, found by UUID).

    defaults are the task's per-node settings. With types (see targets_from_elements), an element of nodes is a name,
    a UUID or a dictionary with node and its own settings; without, Ansible checked the elements (dictionaries with
    key and suboptions), and each element is its Target's settings.
    """
    if params[key] is not None:
        return [Target(None, params[key], dict(defaults))]
    if params['nodes'] is not None:
        if types is not None:
            return targets_from_elements(params['nodes'], defaults, types)
        return [Target('nodes[%d] (%s)' % (index, element[key]), element[key], element)
                for index, element in enumerate(params['nodes'])]
    return [Target('node %s' % node_label(node), node['uuid'], dict(defaults), node)
            for node in select_nodes(client, params['select'], fields)]


def read_targets(client, targets, fields, refuse_missing=True):
    """Fill in each target's node, reading in proportion to the targets (find_nodes), and refuse two targets that
    are one node (a name and a UUID). With refuse_missing, raises BaremetalError naming every target that matches
    no node, before anything is written; without, such a target's node stays None."""
    found, missing = find_nodes(client, [target.ident for target in targets], fields)
    if missing and refuse_missing:
        raise BaremetalError(no_node_message(missing, client))
    check_distinct_nodes(found)
    for target in targets:
        target.node = found.get(target.ident)
    return targets


def labels(targets, results, by_node=False):
    """How the task names each node in failed_nodes and its messages: as its nodes or select named it (the Target's
    label: 'nodes[3] (rack1-node07)', 'node rack1-node07'), or with by_node as every message names a node (node_label:
    its name, else its UUID, else the ident given for one that matched no node).

    One rule, the difference kept as data: both are results users see. baremetal_provision_state and
    baremetal_hardware have always named failed nodes by node, which roles/fleet relies on (it joins the failed_nodes
    of both tasks with unique, and names them in its message); the other modules name the element.
    """
    return [node_label(result.get('node'), target.ident) if by_node else target.label
            for target, result in zip(targets, results)]


def each_node(action, concurrency):
    """The act of run for a module whose nodes are independent: action(target, check_mode) for every Target of a
    batch, at most concurrency at once (a failure is stored on its node's result)."""

    def act(batch, check_mode):
        return run_each(batch, lambda target: action(target, check_mode), concurrency)
    return act


def reading_each_batch(act, client, fields, refuse_missing):
    """act, for run_in_waves: each batch's nodes read afresh before act (read_targets), and forgotten after, for a
    later batch to read again (a wave, after the plan of every node)."""

    def run_batch(batch, check_mode):
        read_targets(client, [target for target in batch if target.node is None], fields, refuse_missing)
        results = act(batch, check_mode)
        for target in batch:
            target.node = None
        return results
    return run_batch


def run(module, targets, act, fields=None, declared=None, by_node=False, refuse_missing=True, progress=None,
        group_of=None, stop=None):
    """The Report of a many-node task: act(batch, check_mode) returns the results of a batch of Targets, in order.

    With fields, every Target's node is read (read_targets) before the first write, and read again for every wave;
    without, act reads what it needs. Without waves, act runs once, on every Target. With the task's wave_size the
    nodes that need a change run wave after wave behind a health gate (waves.run_in_waves), where declared(target)
    is what the task declares of the node that the gate would otherwise hold against it. progress (a
    progress.Progress act reports to) is told how many nodes there are. group_of(target) groups the waves and stop()
    may end them (waves.run_in_waves): either runs the task in waves, one wave of every node of a group when the task
    has no wave_size. group_of needs fields: it is asked once per Target, of the node as read before the plan (each
    batch forgets the nodes it read).
    """
    params = module.params
    client = module.client
    if fields is not None:
        read_targets(client, [target for target in targets if target.node is None], fields, refuse_missing)
    if group_of is not None:
        group_of = dict((target, group_of(target)) for target in targets).get
    if progress is not None:
        progress.start(len(targets))
    wave_size = params.get('wave_size')
    if wave_size is None and (group_of or stop):
        wave_size = '100%'
    if wave_size is None:
        results, waves = act(targets, module.check_mode), None
    else:
        run_batch = act if fields is None else reading_each_batch(act, client, fields, refuse_missing)
        results, waves = run_in_waves(
            lambda uuids: find_nodes(client, uuids, NODE_SUMMARY_FIELDS)[0], targets, run_batch, wave_size,
            wave_pause=params['wave_pause'], max_fail_percentage=params['max_fail_percentage'],
            check_mode=module.check_mode, declared=declared, group_of=group_of, stop=stop)
    single = len(targets) == 1 and targets[0].label is None
    return Report(results, labels(targets, results, by_node), single, waves, params['max_fail_percentage'])
