# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nodes a baremetal_node task declares: one Declaration per Target of the task (fleet/runner.py), what each
inherits from the task, and the checks made across them before anything is read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets, validate
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import NODE_OPTION_TYPES, Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    NodeError, declared_record, integer_properties)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_checks import check_declaration

# What a declaration says of its node besides the record, which node/stages.py brings about after the record (a
# field left out, None, is left alone): provision_state (a states.DECLARABLE_STATES), maintenance (true or false)
# with maintenance_reason, and power (a key of states.POWER_ACTIONS).
STATE_FIELDS = ('provision_state', 'maintenance', 'maintenance_reason', 'power')
# The free text a task writes into Ironic as typed: Ironic shows it to anyone who can read the node.
REASON_FIELDS = ('maintenance_reason', 'protected_reason', 'retired_reason')

# The options of baremetal_provision_state (options.OPTION_SPEC) a node declaration takes: how its provision_state
# is reached. Those of options.NODE_OPTION_TYPES may also be given per element of nodes; the others are task-wide.
PROVISION_OPTIONS = ('adopt', 'allow_destructive', 'config_drive', 'deploy_steps', 'inspection', 'rescue_password', 'unhold')
ELEMENT_PROVISION_OPTIONS = tuple(name for name in PROVISION_OPTIONS if name in NODE_OPTION_TYPES)


class Declaration(object):
    """One node as the task declares it: the node options of the module, or one element of nodes.

    states holds the STATE_FIELDS it declares (None: left alone), options the options.Options that say how its
    provision_state is reached (and, with state absent, whether tearing it down is allowed).
    """

    def __init__(self, name, uuid=None, declared=None, state='present', validate_driver_info=True, label=None,
                 states=None, options=None, keep_workload=False):
        self.name = name
        self.uuid = uuid
        self.declared = declared or {}
        self.state = state
        self.validate_driver_info = validate_driver_info
        # How errors name the node: 'nodes[3] (rack1-node07)' in bulk mode, nothing with one node.
        self.label = label
        self.states = dict((field, (states or {}).get(field)) for field in STATE_FIELDS)
        self.options = options or Options()
        # With state absent: delete the record without a provision move, the workload kept (writer.ensure_absent).
        self.keep_workload = bool(keep_workload)
        # What the task is told of the declaration, in the node's result (writer.apply_change).
        self.warnings = []

    def prefixed(self, message):
        return '%s: %s' % (self.label, message) if self.label else message


def _own_or_tasks(element, params, names):
    """The values an element of nodes gives for names, or the task's where it gives none (None or missing)."""
    return dict((name, params.get(name) if element.get(name) is None else element[name]) for name in names)


def _refuse_dropped_reason(params, declarations):
    """A maintenance_reason the task would drop (given where maintenance is false or not declared: Ironic keeps no
    reason for a node out of maintenance) is refused before anything is written. A node declared absent has its
    own refusal of every state field (check_declarations)."""
    present = [(index, declaration) for index, declaration in enumerate(declarations) if declaration.state == 'present']
    if params.get('nodes') is None:
        if present and params.get('maintenance_reason') and not params.get('maintenance'):
            raise NodeError(validate.reason_dropped('maintenance_reason', params.get('maintenance')))
        return
    problems = validate.dropped_reasons([params['nodes'][index] for index, _declaration in present],
                                        [declaration.states['maintenance'] for _index, declaration in present],
                                        [declaration.label for _index, declaration in present],
                                        params.get('maintenance_reason'), 'maintenance_reason')
    if problems:
        raise NodeError(' | '.join(problems))


def declarations_of(params, targets):
    """The Declaration of each Target (fleet/runner.targets) of a task: an element of nodes inherits state,
    validate_driver_info, the STATE_FIELDS and the provision options from the task unless it sets its own; with
    select, each selected node (as read) gets the task's record. A node without a name cannot be declared:
    baremetal_node finds nodes by name. An element declared absent takes the task's keep_workload unless it sets
    its own; one declared present takes only its own."""
    return [_with_integer_properties(declaration) for declaration in _checked_declarations(params, targets)]


def _with_integer_properties(declaration):
    """The declaration with the integer properties it gives as strings of digits ("8") as integers, each with a
    warning (record.integer_properties); check_declaration refuses the other values that are not integers."""
    properties, warnings = integer_properties(declaration.declared.get('properties'))
    if warnings:
        declaration.declared['properties'] = properties
        declaration.warnings.extend(declaration.prefixed(warning) for warning in warnings)
    return declaration


def _checked_declarations(params, targets):
    """The declarations, once the reasons they give are checked: none holding a secret, none the task would drop."""
    task_states = dict((field, params.get(field)) for field in STATE_FIELDS)
    task_options = Options(**dict((name, params[name]) for name in PROVISION_OPTIONS if params.get(name) is not None))
    _refuse_secret_reasons(params)
    declarations = _declarations(params, targets, task_states, task_options)
    _refuse_dropped_reason(params, declarations)
    return declarations


def _refuse_secret_reasons(params):
    """A reason that holds a secret is refused before anything is written: Ironic stores it as typed
    (secrets.stored_text_error), the task's own and each element's."""
    problems = [secrets.stored_text_error(field, params.get(field)) for field in REASON_FIELDS]
    for index, element in enumerate(params.get('nodes') or ()):
        problems.extend(secrets.stored_text_error('nodes[%d].%s' % (index, field), element.get(field))
                        for field in REASON_FIELDS)
    problems = [problem for problem in problems if problem]
    if problems:
        raise NodeError(' | '.join(problems))


def _declarations(params, targets, task_states, task_options):
    if params.get('select') is not None:
        unnamed = [target.node['uuid'] for target in targets if not target.node.get('name')]
        if unnamed:
            raise NodeError('select matches nodes without a name (%s); baremetal_node finds nodes by name. Name '
                            'them, or narrow select.' % ', '.join(unnamed))
        return [Declaration(target.node['name'], None, declared_record(params), params['state'],
                            params['validate_driver_info'], label=target.label, states=task_states,
                            options=task_options, keep_workload=params.get('keep_workload'))
                for target in targets]
    if params.get('nodes') is None:
        return [Declaration(target.ident, params.get('uuid'), declared_record(params), params['state'],
                            params['validate_driver_info'], states=task_states, options=task_options,
                            keep_workload=params.get('keep_workload')) for target in targets]
    return [_element_declaration(params, target, task_options) for target in targets]


def _element_declaration(params, target, task_options):
    element = target.settings
    inherited = _own_or_tasks(element, params, ('state', 'validate_driver_info'))
    # A node declared absent has no state but its own (which check_declarations refuses).
    element_states = (_own_or_tasks(element, params, STATE_FIELDS) if inherited['state'] == 'present'
                      else dict((field, element.get(field)) for field in STATE_FIELDS))
    options = task_options.overridden(**dict((name, element[name]) for name in ELEMENT_PROVISION_OPTIONS
                                             if element.get(name) is not None))
    keep_workload = element.get('keep_workload')
    if keep_workload is None and inherited['state'] == 'absent':
        keep_workload = params.get('keep_workload')
    return Declaration(element['name'], element.get('uuid'), declared_record(element), inherited['state'],
                       inherited['validate_driver_info'], label=target.label, states=element_states,
                       options=options, keep_workload=keep_workload)


def check_declarations(declarations):
    """What can be checked before anything is read: [(declaration, message)] for every problem."""
    problems, addresses = [], {}
    for declaration in declarations:
        try:
            check_declaration(declaration.declared, declaration.validate_driver_info)
        except NodeError as exc:
            problems.append((declaration, str(exc)))
        stated = [field for field in STATE_FIELDS if declaration.states[field] is not None]
        if declaration.state == 'absent' and stated:
            problems.append((declaration, 'state: absent deletes the node, so it cannot also declare %s; drop %s or '
                                          'declare state: present.' % (', '.join(stated), ', '.join(stated))))
        problems.extend((declaration, message) for message in _keep_workload_problems(declaration))
        problems.extend((declaration, message) for message in wiring.absent_problems(declaration))
        for port in declaration.declared.get('ports') or ():
            other = addresses.setdefault(port['address'], declaration)
            if other is not declaration:
                problems.append((declaration, 'port %s is also declared by %s; a MAC address belongs to one node.'
                                 % (port['address'], other.label)))
    return problems + wiring.bulk_problems(declarations)


def _keep_workload_problems(declaration):
    if not declaration.keep_workload:
        return []
    if declaration.state != 'absent':
        return ['keep_workload keeps the workload of a node whose record state: absent deletes; it means nothing with '
                'state: present. Drop keep_workload, or declare state: absent.']
    if declaration.options.allow_destructive:
        return ['keep_workload deletes the record without touching the workload, and allow_destructive allows tearing '
                'the workload down on the way to deleting it; choose one.']
    return []


def refusal(declarations, problems):
    """One NodeError naming every problem, in the order of the declarations."""
    order = dict((id(declaration), index) for index, declaration in enumerate(declarations))
    problems = sorted(problems, key=lambda problem: order[id(problem[0])])
    return NodeError(' | '.join(declaration.prefixed(message) for declaration, message in problems))
