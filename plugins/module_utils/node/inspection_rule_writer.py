# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declare inspection rules (Ironic API 1.96): find each declared rule by its name among Ironic's rules, plan what
changes (pure), and write it. Every rule of a task is checked and planned before the first request that changes
anything.

A sensitive rule's conditions and actions are hidden by Ironic when it returns the rule, so they are never compared:
they are written when the rule is created, and on every run with update_sensitive: always. They never appear in a
result or a diff.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import raise_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import INSPECTION_RULE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import inspection_rule as rules

# What a rule looks like in results (its name is Ironic's description).
VIEW_FIELDS = ('name', 'uuid', 'priority', 'phase', 'sensitive', 'conditions', 'actions')
HIDDEN = ('conditions', 'actions')


def rule_view(rule):
    """A rule as results show it: the name, and a sensitive rule's conditions and actions masked."""
    view = dict((name, rule.get(name)) for name in VIEW_FIELDS if name in rule)
    if 'description' in rule:
        view['name'] = rule['description']
    if rule.get('sensitive'):
        view.update((name, secrets.MASK) for name in HIDDEN)
    return secrets.masked(view)


def rule_diff(name, before, after):
    diff = DifferenceTracker()
    for field in VIEW_FIELDS:
        if field != 'uuid':
            diff.add(field, (before or {}).get(field, ABSENT), (after or {}).get(field, ABSENT))
    return diff.diff(label='inspection rule %s' % name)


def changed_fields(current, declared, update_sensitive):
    """The declared fields that differ from the rule's; a sensitive rule's hidden fields only when asked to update
    them (update_sensitive: always), as they cannot be compared."""
    changed = []
    for field in sorted(declared):
        if current.get('sensitive') and field in HIDDEN:
            if update_sensitive == 'always':
                changed.append(field)
        elif current.get(field) != declared[field]:
            changed.append(field)
    return changed


class Plan(object):
    """What the task does to one declared rule: create, update (a JSON patch), delete, or nothing."""

    def __init__(self, declaration, current, action, fields=None):
        self.name = declaration['name']
        self.current = current
        self.action = action
        self.fields = fields or {}

    @property
    def changed(self):
        return self.action != 'none'

    def planned(self):
        """The rule as it will be (as far as the plan knows it): None once deleted, or when there is none to keep."""
        if self.action == 'delete' or self.current is None and self.action == 'none':
            return None
        if self.action == 'create':
            return dict(rules.CREATE_DEFAULTS, description=self.name, **self.fields)
        return dict(self.current, **self.fields)

    def patch(self):
        return [{'op': 'replace', 'path': '/%s' % field, 'value': value}
                for field, value in sorted(self.fields.items())]


def plan_rule(declaration, current, update_sensitive):
    """The plan of one declared rule, given the rule Ironic holds under its name (or None); raises nothing, returns
    (plan, errors)."""
    label = 'inspection rule %r' % declaration['name']
    if declaration.get('state', 'present') == 'absent':
        return Plan(declaration, current, 'delete' if current else 'none'), []
    declared = rules.declared_fields(declaration)
    if current is None:
        if 'actions' not in declared:
            return None, ['%s does not exist yet: give its actions to create it.' % label]
        return Plan(declaration, None, 'create', declared), []
    if current.get('sensitive') and declared.get('sensitive') is False:
        return None, ['%s is sensitive, and Ironic never makes a sensitive rule visible again: declare it with '
                      'sensitive: true, or delete it (state: absent) and declare it anew.' % label]
    changed = changed_fields(current, declared, update_sensitive)
    fields = dict((field, declared[field]) for field in changed)
    return Plan(declaration, current, 'update' if fields else 'none', fields), []


def find_current(existing, names):
    """The rule of each name among Ironic's rules (by description), or None; and the errors of names that more than
    one rule holds (the task could not tell which to change)."""
    by_name = {}
    for rule in existing:
        by_name.setdefault(rule.get('description'), []).append(rule)
    errors = ['inspection rule %r: Ironic holds %d rules with that description (%s); the task cannot tell which one '
              'it declares. Delete all but one of them.'
              % (name, len(by_name[name]), ', '.join(sorted(rule['uuid'] for rule in by_name[name])))
              for name in names if len(by_name.get(name, ())) > 1]
    return dict((name, (by_name.get(name) or [None])[0]) for name in names), errors


def _declaration_errors(declarations):
    errors = []
    seen = set()
    for index, declaration in enumerate(declarations):
        errors.extend(rules.rule_errors('inspection rule %r' % declaration.get('name', index), declaration))
        if declaration.get('name') in seen:
            errors.append('inspection rule %r is declared more than once in the task.' % declaration['name'])
        seen.add(declaration.get('name'))
    return errors


def shown(results):
    """The per-rule results as the module returns them with several rules (their diffs go to the task's diff)."""
    return [dict((key, result[key]) for key in ('name', 'changed', 'rule')) for result in results]


def _write(rules, plan):
    """Carry out one plan in rules, Ironic's collection of them; the rule as Ironic returns it (None once deleted)."""
    if plan.action == 'create':
        return rules.create(plan.planned())
    if plan.action == 'update':
        return rules.update(plan.current['uuid'], plan.patch())
    if plan.action == 'delete':
        rules.delete(plan.current['uuid'])
        return None
    return plan.current


def ensure_inspection_rules(client, declarations, update_sensitive, check_mode):
    """Create, update or delete each declared rule; per rule, its result: name, changed, rule (its view after the
    task, None once deleted) and diff. Nothing is written unless every declaration is valid and every plan made."""
    client.require('inspection rules', INSPECTION_RULE_MIN_VERSION)
    raise_errors(_declaration_errors(declarations))
    names = [declaration['name'] for declaration in declarations]
    rules = client.collection('inspection_rules')
    current, errors = find_current(rules.list(), names)
    plans = []
    for declaration in declarations:
        plan, plan_errors = plan_rule(declaration, current[declaration['name']], update_sensitive)
        plans.append(plan)
        errors.extend(plan_errors)
    raise_errors(errors)
    results = []
    for plan in plans:
        try:
            after = plan.planned() if check_mode else _write(rules, plan)
        except BaremetalError as exc:
            exc.result.update(changed=any(result['changed'] for result in results), rules=shown(results))
            raise
        before_view = rule_view(plan.current) if plan.current else None
        after_view = rule_view(after) if after else None
        results.append({'name': plan.name, 'changed': plan.changed, 'rule': after_view,
                        'diff': rule_diff(plan.name, before_view, after_view)})
    return results
