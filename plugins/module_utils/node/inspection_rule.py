# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inspection rules (Ironic API 1.96) as Ironic accepts and returns them: the operators and actions with their
arguments, the checks of a declaration (before any write), and a rule's normal form, the one its comparison uses.

A declared rule is known by its name, which Ironic stores as the rule's description.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import did_you_mean

# Ironic 39's condition operators (ironic.common.inspection_rules.operators.OPERATORS), each with its required and
# optional arguments (those of its __call__). A condition's op may be negated with a leading '!'.
OPERATORS = {
    'eq': (('values',), ('force_strings',)),
    'lt': (('values',), ('force_strings',)),
    'gt': (('values',), ('force_strings',)),
    'is-empty': (('value',), ()),
    'in-net': (('address', 'subnet'), ()),
    'matches': (('value', 'regex'), ()),
    'contains': (('value', 'regex'), ()),
    'one-of': (('value',), ('values',)),
    'is-none': (('value',), ()),
    'is-true': (('value',), ()),
    'is-false': (('value',), ()),
}

# Ironic 39's actions (ironic.common.inspection_rules.actions.RULE_ACTIONS), with their required and optional arguments.
RULE_ACTIONS = {
    'fail': (('msg',), ()),
    'log': (('msg',), ('level',)),
    'set-attribute': (('path', 'value'), ()),
    'extend-attribute': (('path', 'value'), ('unique',)),
    'del-attribute': (('path',), ()),
    'set-capability': (('name', 'value'), ()),
    'unset-capability': (('name',), ()),
    'add-trait': (('name',), ()),
    'remove-trait': (('name',), ()),
    'set-plugin-data': (('path', 'value'), ()),
    'extend-plugin-data': (('path', 'value'), ('unique',)),
    'unset-plugin-data': (('path',), ()),
    'set-port-attribute': (('port_id', 'path', 'value'), ()),
    'extend-port-attribute': (('port_id', 'path', 'value'), ('unique',)),
    'del-port-attribute': (('port_id', 'path'), ()),
    'api-call': (('url',), ('headers', 'proxies', 'timeout', 'retries', 'backoff_factor')),
}

# Actions on plugin data: Ironic adds 'plugin_data': {} to their arguments when it stores the rule, and fills it in
# when the rule runs. A declaration never gives it.
PLUGIN_DATA_ACTIONS = ('set-plugin-data', 'extend-plugin-data', 'unset-plugin-data')

# The levels of the log action (Ironic checks them only when the rule runs, and fails the inspection then).
LOG_LEVELS = ('debug', 'info', 'warning', 'error', 'critical')

# The keys Ironic keeps of a condition and of an action (any other is dropped, so it could never compare equal).
CONDITION_KEYS = ('op', 'args', 'loop', 'multiple')
ACTION_KEYS = ('op', 'args', 'loop')
MULTIPLE = ('any', 'all', 'first', 'last')

# The phases a rule may run in (Ironic 39 has one).
PHASES = ('main',)
# A user rule's priority (built-in rules may go beyond); rules of higher priority run first.
PRIORITY_RANGE = (0, 9999)
# The rule's description, which holds its name.
NAME_MAX_LENGTH = 255

# What one rule declares besides its name and state; an option left unset keeps Ironic's value.
RULE_FIELDS = ('priority', 'phase', 'sensitive', 'conditions', 'actions')
# What a rule is created with where the declaration leaves them unset: Ironic's defaults, sent (Ironic 39 answers
# HTTP 500 to a rule created without conditions).
CREATE_DEFAULTS = {'priority': 0, 'phase': 'main', 'sensitive': False, 'conditions': []}


def _valid_list(choices):
    return ', '.join(sorted(choices))


def _args_errors(where, op, args, signature):
    """Problems of an operator's or action's arguments, as Ironic's validate() finds them."""
    required, optional = signature
    if isinstance(args, list):
        return ['%s.args of %s is a list: give a dictionary of named arguments (%s); Ironic deprecates the list form.'
                % (where, op, _valid_list(required + optional))]
    if not isinstance(args, dict):
        return ['%s.args of %s must be a dictionary of named arguments (%s).'
                % (where, op, _valid_list(required + optional))]
    errors = []
    missing = [name for name in required if name not in args]
    unexpected = sorted(name for name in args if name not in required + optional)
    if missing:
        errors.append('%s.args of %s lacks %s.' % (where, op, ', '.join(missing)))
    if unexpected:
        errors.append('%s.args of %s has %s, which %s does not take: it takes %s.'
                      % (where, op, ', '.join(unexpected), op, _valid_list(required + optional)))
    return errors


def _item_errors(where, item, keys, table, kind):
    if not isinstance(item, dict):
        return ['%s must be a dictionary with op and args.' % where]
    errors = ['%s has %r, which Ironic does not keep: a %s has %s.' % (where, key, kind, ', '.join(keys))
              for key in sorted(item) if key not in keys]
    op = item.get('op')
    name = op[1:] if kind == 'condition' and isinstance(op, str) and op.startswith('!') else op
    if name not in table:
        valid = _valid_list(table) + (' (each may be negated with a leading !)' if kind == 'condition' else '')
        errors.append('%s.op %r is not an %s of Ironic\'s inspection rules%s; valid ones: %s.'
                      % (where, op, 'operator' if kind == 'condition' else 'action', did_you_mean(name, table), valid))
    else:
        errors.extend(_args_errors(where, op, item.get('args'), table[name]))
        level = item['args'].get('level', 'info') if op == 'log' and isinstance(item.get('args'), dict) else 'info'
        if str(level).lower() not in LOG_LEVELS:
            errors.append('%s.args of log has level %r; valid ones: %s.' % (where, level, ', '.join(LOG_LEVELS)))
    if 'loop' in item and not isinstance(item['loop'], (list, dict)):
        errors.append('%s.loop must be a list (or a dictionary) of items.' % where)
    if 'multiple' in item:
        if item['multiple'] not in MULTIPLE:
            errors.append('%s.multiple must be one of %s.' % (where, ', '.join(MULTIPLE)))
        elif not item.get('loop'):
            errors.append('%s.multiple needs a loop: it says how the results of the loop\'s items combine.' % where)
    return errors


def rule_errors(label, rule):
    """Every problem of one declared rule that Ironic would refuse (or silently change), named with label."""
    name = rule.get('name')
    if not isinstance(name, str) or not name.strip():
        return ['%s needs a name: the rule is known by it (Ironic stores it as its description).' % label]
    errors = []
    if len(name) > NAME_MAX_LENGTH:
        errors.append('%s: the name holds %d characters; Ironic keeps at most %d in a rule\'s description.'
                      % (label, len(name), NAME_MAX_LENGTH))
    if rule.get('state', 'present') == 'absent':
        return errors
    priority = rule.get('priority')
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)
                                 or not PRIORITY_RANGE[0] <= priority <= PRIORITY_RANGE[1]):
        errors.append('%s: priority must be a whole number from %d to %d, got %r.' % ((label,) + PRIORITY_RANGE
                                                                                      + (priority,)))
    if rule.get('phase') is not None and rule['phase'] not in PHASES:
        errors.append('%s: phase %r is not a phase of inspection rules; valid ones: %s.'
                      % (label, rule['phase'], ', '.join(PHASES)))
    for option, keys, table, kind in (('conditions', CONDITION_KEYS, OPERATORS, 'condition'),
                                      ('actions', ACTION_KEYS, RULE_ACTIONS, 'action')):
        items = rule.get(option)
        if items is None:
            continue
        if not isinstance(items, list):
            errors.append('%s: %s must be a list of %ss.' % (label, option, kind))
            continue
        for index, item in enumerate(items):
            errors.extend(_item_errors('%s: %s[%d]' % (label, option, index), item, keys, table, kind))
    if rule.get('actions') == []:
        errors.append('%s: actions is empty: a rule needs at least one action.' % label)
    return errors


def normalized_conditions(conditions):
    """Conditions as Ironic returns them: op and args, and loop with multiple (any by default) where there is a loop."""
    shown = []
    for condition in conditions or []:
        item = {'op': condition['op'], 'args': condition['args']}
        if condition.get('loop'):
            item.update(loop=condition['loop'], multiple=condition.get('multiple') or 'any')
        shown.append(item)
    return shown


def normalized_actions(actions):
    """Actions as Ironic returns them: op, args (with plugin_data for the plugin data actions) and loop if any."""
    shown = []
    for action in actions or []:
        args = action['args']
        if action['op'] in PLUGIN_DATA_ACTIONS and isinstance(args, dict):
            args = dict(args, plugin_data=args.get('plugin_data') or {})
        item = {'op': action['op'], 'args': args}
        if action.get('loop'):
            item['loop'] = action['loop']
        shown.append(item)
    return shown


NORMAL_FORM = {'conditions': normalized_conditions, 'actions': normalized_actions}


def declared_fields(rule):
    """The fields a declared rule sets, in Ironic's form (an option left unset keeps Ironic's value)."""
    fields = dict((name, rule[name]) for name in RULE_FIELDS if rule.get(name) is not None)
    for name, normal in NORMAL_FORM.items():
        if name in fields:
            fields[name] = normal(fields[name])
    return fields
