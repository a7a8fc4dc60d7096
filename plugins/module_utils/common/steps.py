# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a provision request carries, checked as Ironic's schemas check it: step lists (clean, deploy, service,
runbook and deploy template steps) and config drives.

Ironic reads a clean step list only once the node is already manageable: checked here, before any request, a
wrong list moves no node. Messages never quote a step's arguments or a config drive's contents (they may hold
secrets).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import re
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import did_you_mean

# The interfaces Ironic accepts in steps (ironic.conductor.steps *_INTERFACE_PRIORITY).
_STEP_INTERFACES = ('bios', 'deploy', 'firmware', 'management', 'power', 'raid', 'vendor')
STEP_INTERFACES = {
    'clean': _STEP_INTERFACES,
    'deploy': _STEP_INTERFACES,
    'service': _STEP_INTERFACES + ('network',),
    # A runbook's steps (ironic.api.controllers.v1.utils RUNBOOK_STEP_SCHEMA: CLEANING_INTERFACE_PRIORITY).
    'runbook': _STEP_INTERFACES,
    # A deploy template's steps (DEPLOY_STEP_SCHEMA: DEPLOYING_INTERFACE_PRIORITY).
    'deploy template': _STEP_INTERFACES,
}

# The keys of one step (Ironic's _STEPS_SCHEMA and DEPLOY_STEP_SCHEMA), required first.
_STEP_KEYS = {
    'clean': (('interface', 'step'), ('args', 'order', 'execute_on_child_nodes', 'limit_child_node_execution')),
    'deploy': (('interface', 'step', 'args', 'priority'), ()),
    'service': (('interface', 'step'), ('args', 'order', 'execute_on_child_nodes', 'limit_child_node_execution')),
    'runbook': (('interface', 'step', 'order'), ('args',)),
    # Ironic requires args too; an empty dictionary is sent for a step declared without them.
    'deploy template': (('interface', 'step', 'priority'), ('args',)),
}

# A config drive Ironic builds from a dictionary (its _CONFIG_DRIVE_SCHEMA); user_data may also be text or a list.
CONFIG_DRIVE_KEYS = ('meta_data', 'network_data', 'user_data', 'vendor_data')

# A config drive given as text is a URL or a gzipped ISO in base64 (Ironic's own test of the alphabet).
_BASE64 = re.compile(r'^[A-Za-z0-9+/=\s]*$')


def _type_name(value):
    if value == '':
        return 'an empty string'
    return {dict: 'a dictionary', list: 'a list', str: 'a string', bool: 'a boolean', int: 'a number',
            float: 'a number', type(None): 'null'}.get(type(value), type(value).__name__)


def step_errors(option, steps, kind):
    """Problems of a step list (clean, deploy or service), checked as Ironic would, before any step runs."""
    interfaces = STEP_INTERFACES[kind]
    required, optional = _STEP_KEYS[kind]
    if not isinstance(steps, list):
        return ['%s must be a list of steps, got %s.' % (option, _type_name(steps))]
    if not steps:
        return ['%s is an empty list: give at least one step, or leave %s out.' % (option, option)]
    errors = []
    example = ', '.join(required)
    for index, step in enumerate(steps):
        where = '%s[%d]' % (option, index)
        if not isinstance(step, Mapping):
            errors.append('%s must be a dictionary with %s, got %s.' % (where, example, _type_name(step)))
            continue
        for key in sorted(set(step) - set(required) - set(optional), key=str):
            errors.append('%s has the unknown key %r%s; a %s step has only %s.' % (
                where, key, did_you_mean(key, required + optional), kind, ', '.join(required + optional)))
        for key in required:
            if key not in step:
                errors.append('%s lacks %r: every %s step needs %s.' % (where, key, kind, example))
        if 'interface' in step and step['interface'] not in interfaces:
            errors.append('%s.interface %r is not an interface of %s steps%s; use one of %s.' % (
                where, step['interface'], kind, did_you_mean(step['interface'], interfaces), ', '.join(interfaces)))
        if 'step' in step and not (isinstance(step['step'], str) and step['step']):
            errors.append('%s.step must be the name of a step, such as erase_devices_metadata; got %s.'
                          % (where, _type_name(step['step'])))
        if 'args' in step and not isinstance(step['args'], Mapping):
            errors.append('%s.args must be a dictionary of the step arguments, got %s.'
                          % (where, _type_name(step['args'])))
        for key in ('priority', 'order'):
            if key in step and not _is_count(step[key]):
                errors.append('%s.%s must be a whole number, 0 or more.' % (where, key))
        if 'execute_on_child_nodes' in step and not isinstance(step['execute_on_child_nodes'], bool):
            errors.append('%s.execute_on_child_nodes must be true or false.' % where)
        if 'limit_child_node_execution' in step and not isinstance(step['limit_child_node_execution'], list):
            errors.append('%s.limit_child_node_execution must be a list of node names or UUIDs.' % where)
    return errors


def duplicate_step_errors(option, steps, what):
    """Ironic's duplicate_steps: a runbook or a deploy template has each step of an interface once."""
    counted = collections.Counter((step.get('interface'), step.get('step')) for step in steps if isinstance(step, Mapping))
    return ['%s has %s.%s %d times; a %s may have each step of an interface only once.' % (
        option, interface, step, count, what)
        for (interface, step), count in sorted(counted.items(), key=str) if count > 1]


def _is_count(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    return isinstance(value, str) and value.isdigit() and value.isascii()


def config_drive_errors(option, config_drive):
    """Problems of a config drive: a URL, a gzipped ISO in base64, or a dictionary Ironic builds one from.

    The contents are never quoted: user_data may hold passwords.
    """
    if isinstance(config_drive, str):
        if '://' in config_drive or _BASE64.match(config_drive):
            return []
        return ['%s is text that is neither a URL nor base64: give the URL of a config drive image, a gzipped ISO '
                'encoded in base64, or a dictionary with %s.' % (option, ', '.join(CONFIG_DRIVE_KEYS))]
    if not isinstance(config_drive, Mapping):
        return ['%s must be a URL, base64 text or a dictionary with %s; got %s.'
                % (option, ', '.join(CONFIG_DRIVE_KEYS), _type_name(config_drive))]
    errors = []
    for key in sorted(set(config_drive) - set(CONFIG_DRIVE_KEYS), key=str):
        errors.append('%s has the unknown key %r%s; Ironic builds a config drive from %s only.' % (
            option, key, did_you_mean(key, CONFIG_DRIVE_KEYS), ', '.join(CONFIG_DRIVE_KEYS)))
    for key in ('meta_data', 'network_data', 'vendor_data'):
        if config_drive.get(key) is not None and not isinstance(config_drive[key], Mapping):
            errors.append('%s.%s must be a dictionary, got %s.' % (option, key, _type_name(config_drive[key])))
    user_data = config_drive.get('user_data')
    if user_data is not None and not isinstance(user_data, (str, Mapping, list)):
        errors.append('%s.user_data must be text (such as a #cloud-config document), a dictionary or a list; got %s.'
                      % (option, _type_name(user_data)))
    return errors
