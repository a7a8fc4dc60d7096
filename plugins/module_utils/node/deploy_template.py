# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declare deploy templates (Ironic API 1.55): deploy steps under a trait's name, which Ironic adds to the deploy of
every node whose instance_info traits name the template. Checking declarations, comparing them with Ironic's
templates (pure), and the writer, for one template or several in one task.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.steps import duplicate_step_errors, step_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import TRAIT_NAME, raise_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import DEPLOY_TEMPLATE_MIN_VERSION

# The fields a declaration may set besides its name, as Ironic patches them.
PATCHED_FIELDS = ('steps', 'extra')

# What a deploy template looks like in results.
VIEW_FIELDS = ('uuid', 'name', 'steps', 'extra')

# The options of one template (the task's own, or those of each element of templates).
TEMPLATE_OPTIONS = ('name', 'steps', 'extra', 'state')


class DeployTemplateError(BaremetalError):
    """A declaration that cannot be carried out as given."""


def declarations(params):
    """The declared templates: the task's own (name, steps, extra, state), or each element of templates with the
    task's state as the default."""
    if params.get('templates') is None:
        return [dict((key, params[key]) for key in TEMPLATE_OPTIONS)]
    return [dict(element, state=element['state'] or params['state']) for element in params['templates']]


def declaration_errors(declared, where=''):
    """Every problem of one declaration Ironic would refuse (its deploy template schema; the argument spec has
    checked the types of the options)."""
    errors = []
    name = declared['name']
    if not TRAIT_NAME.match(name):
        errors.append('%sname %r must be a trait: CUSTOM_ followed by capitals, digits and underscores (such as '
                      'CUSTOM_HYPERTHREADING_OFF), or a standard trait. A node deploys with the template when its '
                      'instance_info traits name it.' % (where, name))
    if declared['state'] == 'present' and declared['steps'] is not None:
        errors.extend(step_errors('%ssteps' % where, declared['steps'], 'deploy template'))
        errors.extend(duplicate_step_errors('%ssteps' % where, declared['steps'], 'deploy template'))
    return errors


def all_errors(params, templates):
    """The problems of every declared template, and of a name declared twice."""
    if params.get('templates') is None:
        return declaration_errors(templates[0])
    errors = []
    for index, declared in enumerate(templates):
        errors.extend(declaration_errors(declared, 'templates[%d].' % index))
    names = [declared['name'] for declared in templates]
    errors.extend('templates names %s %d times; declare each template once.' % (name, names.count(name))
                  for name in sorted(set(name for name in names if names.count(name) > 1), key=str))
    return errors


def normalized_steps(steps):
    """Steps as Ironic stores them (args always there, priority a number), in one order: Ironic orders a deploy's
    steps by priority, not by their place in the template."""
    shown = [{'interface': step['interface'], 'step': step['step'], 'args': step.get('args') or {},
              'priority': int(step['priority'])} for step in steps]
    return sorted(shown, key=lambda step: (step['interface'], step['step']))


def declared_fields(declared):
    """The fields the declaration sets (an option left unset keeps Ironic's value)."""
    fields = dict((name, declared[name]) for name in PATCHED_FIELDS if declared[name] is not None)
    if 'steps' in fields:
        fields['steps'] = normalized_steps(fields['steps'])
    return fields


def _comparable(name, value):
    # Ironic masks step arguments named like passwords: a secret compares as masked on both sides.
    if name == 'steps':
        return secrets.masked_keys(normalized_steps(value or []))
    return value or {} if name == 'extra' else value


def changed_fields(current, declared):
    """The declared fields whose value differs from the template's."""
    return [name for name in sorted(declared)
            if _comparable(name, current.get(name)) != _comparable(name, declared[name])]


def template_patch(current, declared):
    """JSON patch operations that give the template the declared fields."""
    return [{'op': 'replace', 'path': '/%s' % name, 'value': declared[name]}
            for name in changed_fields(current, declared)]


def template_view(template):
    """The template as results show it, steps in one order, secrets masked."""
    view = dict((name, template[name]) for name in VIEW_FIELDS if name in template)
    if 'steps' in view:
        view['steps'] = normalized_steps(view['steps'])
    return secrets.masked(view)


def _converge(templates, declared, current, check_mode):
    """Create, update or delete one template (current: Ironic's, or None) in templates, Ironic's collection of
    them; (changed, view before, view after)."""
    before = current and template_view(current)
    if declared['state'] == 'absent':
        if current is not None and not check_mode:
            templates.delete(current['uuid'])
        return current is not None, before, None
    fields = declared_fields(declared)
    if current is None:
        planned = dict(fields, name=declared['name'])
        if not check_mode:
            planned = templates.create(planned)
        return True, None, template_view(planned)
    changed = changed_fields(current, fields)
    after = dict(current, **dict((name, fields[name]) for name in changed))
    if changed and not check_mode:
        after = templates.update(current['uuid'], template_patch(current, fields))
    return bool(changed), before, template_view(after)


def _fields_diff(before, after):
    diff = DifferenceTracker()
    for name in VIEW_FIELDS:
        if name != 'uuid':
            diff.add(name, (before or {}).get(name, ABSENT), (after or {}).get(name, ABSENT))
    return diff.diff()


def ensure_deploy_templates(client, params, check_mode):
    """Every declared template made as declared; the module result (changed, deploy_template or deploy_templates,
    diff). Everything is checked before the first request that changes anything."""
    client.require('deploy templates', DEPLOY_TEMPLATE_MIN_VERSION)
    declared_templates = declarations(params)
    raise_errors(all_errors(params, declared_templates))
    templates = client.collection('deploy_templates')
    currents = [templates.find(declared['name']) for declared in declared_templates]
    missing = [declared['name'] for declared, current in zip(declared_templates, currents)
               if current is None and declared['state'] == 'present' and declared['steps'] is None]
    if missing:
        raise DeployTemplateError('deploy template %s does not exist yet: give its steps to create it.'
                                  % ', '.join(missing))
    outcomes = [(declared['name'], _converge(templates, declared, current, check_mode))
                for declared, current in zip(declared_templates, currents)]
    changed = any(outcome[0] for _name, outcome in outcomes)
    if params.get('templates') is None:
        _name, (_changed, before, after) = outcomes[0]
        return {'changed': changed, 'deploy_template': after, 'diff': _fields_diff(before, after)}
    diff = DifferenceTracker()
    for name, (_changed, before, after) in outcomes:
        diff.add(name, ABSENT if before is None else before, ABSENT if after is None else after)
    return {'changed': changed, 'deploy_templates': [after for _name, (_c, _b, after) in outcomes],
            'diff': diff.diff()}
