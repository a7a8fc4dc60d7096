# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declare a runbook (Ironic API 1.92): a named list of steps an operator runs by name on a node, as a manual
clean or as servicing. Checking a declaration, comparing it with Ironic's runbook (pure), and the writer.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    RUNBOOK_MIN_VERSION, RUNBOOK_OPTION_MIN_VERSION, RUNBOOK_TRAITS_VERSION, too_old, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.steps import duplicate_step_errors, step_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import LOGICAL_NAME, TRAIT_NAME, raise_errors

# The fields a declaration may set besides its name and traits, as Ironic patches them.
PATCHED_FIELDS = ('steps', 'public', 'owner', 'extra', 'description')

# What a runbook looks like in results.
VIEW_FIELDS = ('uuid', 'name', 'steps', 'public', 'owner', 'extra', 'traits', 'description', 'disable_ramdisk')


class RunbookError(BaremetalError):
    """A declaration Ironic would refuse, or a request the server's API is too old for."""


def declaration_errors(params, version):
    """Every problem of a declaration Ironic would refuse (its runbook schema, for this API version)."""
    errors = []
    name = params['name']
    if version < RUNBOOK_TRAITS_VERSION:
        if not TRAIT_NAME.match(name):
            versions = (version_string(RUNBOOK_TRAITS_VERSION), version_string(version))
            errors.append('name %r must be a trait before Ironic API %s (this server supports up to %s): CUSTOM_ '
                          'followed by capitals, digits and underscores, such as CUSTOM_FIRMWARE_UPDATE. A node runs '
                          'the runbook when it carries that trait.' % ((name,) + versions))
    elif not LOGICAL_NAME.match(name):  # from 1.112 (RUNBOOK_NAME_SCHEMA)
        errors.append('name %r may only hold letters, digits and - . _ ~ (at most 255).' % name)
    for option, minimum in sorted(RUNBOOK_OPTION_MIN_VERSION.items()):
        if params.get(option) is not None and version < minimum:
            errors.append(too_old(option, minimum, version))
    if params['state'] == 'absent':
        return errors
    if params.get('steps') is not None:
        errors.extend(step_errors('steps', params['steps'], 'runbook'))
        errors.extend(duplicate_step_errors('steps', params['steps'], 'runbook'))
    for trait in params.get('traits') or ():
        if not TRAIT_NAME.match(trait):
            errors.append('traits: %r is not a trait: write CUSTOM_ followed by capitals, digits and underscores.'
                          % trait)
    if params.get('public') and params.get('owner'):
        errors.append('owner and public: true do not go together: Ironic keeps no owner for a public runbook.')
    return errors


def normalized_steps(steps):
    """Steps as Ironic stores and returns them: args always there, order a number, in the order they run."""
    shown = [{'interface': step['interface'], 'step': step['step'], 'args': step.get('args') or {},
              'order': int(step['order'])} for step in steps]
    return sorted(shown, key=lambda step: step['order'])


def declared_fields(params):
    """The fields the declaration sets (an option left unset keeps Ironic's value)."""
    fields = dict((name, params[name]) for name in PATCHED_FIELDS + ('traits',) if params.get(name) is not None)
    if 'steps' in fields:
        fields['steps'] = normalized_steps(fields['steps'])
    if 'traits' in fields:
        fields['traits'] = sorted(set(fields['traits']))
    return fields


def _comparable(name, value):
    # Ironic masks step arguments named like passwords: a secret compares as masked on both sides.
    if name == 'steps':
        return secrets.masked_keys(normalized_steps(value or []))
    if name == 'traits':
        return sorted(value or [])
    return value


def changed_fields(current, declared):
    """The declared fields whose value differs from the runbook's."""
    return [name for name in sorted(declared)
            if _comparable(name, current.get(name)) != _comparable(name, declared[name])]


def runbook_patch(current, declared):
    """JSON patch operations that give the runbook the declared fields (traits are set apart, not patched)."""
    return [{'op': 'replace', 'path': '/%s' % name, 'value': declared[name]}
            for name in changed_fields(current, declared) if name != 'traits']


def runbook_view(runbook):
    """The runbook as results show it, secrets masked."""
    return secrets.masked(dict((name, runbook[name]) for name in VIEW_FIELDS if name in runbook))


def runbook_diff(before, after):
    diff = DifferenceTracker()
    for name in VIEW_FIELDS:
        if name != 'uuid':
            diff.add(name, before.get(name, ABSENT) if before else ABSENT, after.get(name, ABSENT) if after else ABSENT)
    return diff.diff()


def ensure_runbook(client, params, check_mode):
    """Create, update or delete the runbook as declared; the module result (changed, runbook, diff).

    Everything is checked before the first request that changes anything.
    """
    client.require('runbooks', RUNBOOK_MIN_VERSION)
    raise_errors(declaration_errors(params, client.version))
    runbooks = client.collection('runbooks')
    current = runbooks.find(params['name'])
    if params['state'] == 'absent':
        if current is not None and not check_mode:
            runbooks.delete(current['uuid'])
        return {'changed': current is not None, 'runbook': None,
                'diff': runbook_diff(current and runbook_view(current), None)}
    declared = declared_fields(params)
    if current is None:
        if 'steps' not in declared:
            raise RunbookError('runbook %s does not exist yet: give its steps to create it.' % params['name'])
        planned = dict(declared, name=params['name'])
        if not check_mode:
            body = dict((name, value) for name, value in planned.items() if name != 'traits')
            created = runbooks.create(body)
            if declared.get('traits'):
                client.set_runbook_traits(created['uuid'], declared['traits'])
            planned = runbooks.find(created['uuid'])
        return {'changed': True, 'runbook': runbook_view(planned), 'diff': runbook_diff(None, runbook_view(planned))}
    changed = changed_fields(current, declared)
    after = dict(current, **dict((name, declared[name]) for name in changed))
    if changed and not check_mode:
        patch = runbook_patch(current, declared)
        if patch:
            runbooks.update(current['uuid'], patch)
        if 'traits' in changed:
            client.set_runbook_traits(current['uuid'], declared['traits'])
        after = runbooks.find(current['uuid'])
    return {'changed': bool(changed), 'runbook': runbook_view(after),
            'diff': runbook_diff(runbook_view(current), runbook_view(after))}
