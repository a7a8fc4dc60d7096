# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input checks shared by every module, the inventory plugin and the fleet role: run before any request.

Ironic checks some input only after earlier requests of a plan have already moved the node (a clean step
list is read when the node is already manageable), and answers others with an HTTP 500. Everything whose
shape can be known without asking Ironic is checked here first, and every message names the option, what
is wrong and what to write instead. Messages never quote a value that may be secret (step arguments,
config drive contents). Step lists and config drives are checked in common/steps.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.steps import config_drive_errors, step_errors


class InputError(BaremetalError):
    """Input that cannot work; raised before anything is sent to Ironic."""


# Inclusive bounds of numeric options, by option name, wherever they appear.
LIMITS = {
    'api_timeout': (1, None),
    'timeout': (1, None),
    'concurrency': (1, None),
    'max_fail_percentage': (0, 100),
    'wave_pause': (0, None),
}

# wave_size: a number of nodes, or a percentage of the nodes a task changes.
_WAVE_SIZE = re.compile(r'^\s*(?P<number>[0-9]+(\.[0-9]+)?)\s*(?P<percent>%?)\s*$')

# Ironic's logical names (of a node, a port group, an allocation, a runbook from API 1.112): RFC 3986 unreserved
# characters, at most 255; a node's is never a UUID (is_valid_node_name).
LOGICAL_NAME = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')

# Ironic's JSON patch schema only accepts paths made of these characters.
PATCHABLE_KEY = re.compile(r'^[\w-]+$')

# A MAC address as Ironic stores a port's: six octets in lower case, separated by colons (see normalized_mac).
MAC_ADDRESS = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')

# The options holding steps, and their kind (common/steps.py step_errors).
STEP_OPTIONS = {'clean_steps': 'clean', 'deploy_steps': 'deploy', 'service_steps': 'service'}

# Trait names (of a node, an allocation, a deploy template): Ironic accepts CUSTOM_ traits and the standard
# os-traits names, all of this shape, at most 255 long.
TRAIT_NAME = re.compile(r'^[A-Z][A-Z0-9_]{0,254}$')

NOTHING_TO_DO = 'nodes is an empty list: there is nothing to do, and nothing was sent to Ironic.'

# The suboption of select that asks for every node on purpose; every other suboption is a filter.
SELECT_ALL = 'all'


def selection_given(selection):
    """The filters a select sets (name -> value), without SELECT_ALL: Ansible hands every unset suboption as null,
    so select: {} and select: {resource_class: null} both set none."""
    return dict((name, value) for name, value in (selection or {}).items() if name != SELECT_ALL and value is not None)


def selection_errors(option, selection):
    """Problems of a select: one that sets no filter is never every node (a variable that came out empty would turn
    a task meant for a few nodes into one for all of them), so every node is asked for with all: true, alone; a
    filter set to an empty string would match nothing or, on some Ironic releases, be dropped."""
    filters = selection_given(selection)
    every = bool((selection or {}).get(SELECT_ALL))
    errors = ['%s.%s is an empty string: give the value to filter on, or leave %s out.' % (option, name, name)
              for name, value in sorted(filters.items()) if isinstance(value, str) and not value.strip()]
    if every and filters:
        errors.append('%s.%s: true selects every node, and %s also sets %s: drop %s to act on the nodes that match, '
                      'or drop the filters to act on every node.'
                      % (option, SELECT_ALL, option, ', '.join(sorted(filters)), SELECT_ALL))
    elif not every and not filters:
        errors.append('%s sets no filter, and an empty selection is never every node: a filter templated from an '
                      'empty or undefined variable would otherwise send the task to every node Ironic holds. Set a '
                      'filter (such as %s.resource_class), or write %s: {%s: true} to act on every node on purpose.'
                      % (option, option, option, SELECT_ALL))
    return errors


def nothing_selected(selection):
    """What a task says when its select matches no node: a filter with a typo in its value must not pass unseen."""
    filters = ', '.join('%s: %s' % (name, value) for name, value in sorted(selection_given(selection).items()))
    return ('select (%s) matches no node: there is nothing to do, and nothing was changed. Check the filters against '
            'what baremetal.lifecycle.baremetal_node_info returns.' % (filters or 'every node'))


def is_uuid_like(text):
    """Whether Ironic takes text for a UUID (oslo uuidutils.is_uuid_like: dashes and braces optional).

    oslo compares uuid.UUID(text).hex with the text's own digits; those digits are taken here as uuid.UUID takes
    them (without urn:, uuid:, braces and dashes), so that a task does not load Python's uuid module (and its C
    part) for this one check.
    """
    if not isinstance(text, str):
        return False
    digits = text.replace('urn:', '').replace('uuid:', '').strip('{}').replace('-', '')
    try:
        value = int(digits, 16)
    except ValueError:
        return False
    return len(digits) == 32 and '%032x' % value == digits.lower()


def check_options(params):
    """Check every option these rules know, by name, in a module's parameters; InputError lists every problem."""
    errors = []
    for name in sorted(LIMITS):
        errors.extend(limit_errors(name, params.get(name)))
    given_steps = [(name, kind) for name, kind in sorted(STEP_OPTIONS.items()) if params.get(name) is not None]
    if given_steps or params.get('config_drive') is not None:
        for name, kind in given_steps:
            errors.extend(step_errors(name, params[name], kind))
        if params.get('config_drive') is not None:
            errors.extend(config_drive_errors('config_drive', params['config_drive']))
    if isinstance(params.get('instance_info'), Mapping):
        errors.extend(_key_errors('instance_info', params['instance_info']))
    if params.get('uuid') is not None and not is_uuid_like(params['uuid']):
        errors.append('uuid %s is not a UUID: write 32 hexadecimal digits, such as '
                      '5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11, or leave uuid out to let Ironic choose one.'
                      % _quoted(params['uuid']))
    if params.get('wave_size') is not None:
        errors.extend(wave_size_errors('wave_size', params['wave_size'], params.get('wait')))
    errors.extend(wave_pause_errors('wave_pause', params.get('wave_pause'), 'wave_size', params.get('wave_size')))
    if params.get('node') is not None:
        errors.extend(ident_errors('node', params['node']))
    if params.get('mac') is not None:
        errors.extend(mac_errors('mac', normalized_mac(params['mac'])))
    if params.get('nodes') is not None:
        errors.extend(nodes_errors('nodes', params['nodes']))
    if params.get('select') is not None:
        errors.extend(selection_errors('select', params['select']))
    raise_errors(errors)


def normalized_mac(address):
    """A MAC address as Ironic stores it: in lower case, without surrounding blanks."""
    return str(address).strip().lower()


def sexagesimal_mac(address):
    """The MAC address YAML 1.1 read as a base-60 number (52:54:00:12:34:56 unquoted is 41135085296), or None."""
    if isinstance(address, bool) or not str(address).isdigit():
        return None
    address = str(address)
    number, octets = int(address), []
    while number:
        number, octet = divmod(number, 60)
        octets.insert(0, octet)
    if len(octets) != 6 or octets[0] > 99:
        return None
    return ':'.join('%02d' % octet for octet in octets)


def unquoted_mac_note(unquoted):
    """Why a MAC address written without quotes became a number, and the fix."""
    return ('YAML reads a MAC address written without quotes whose octets are all decimal digits, such as %s, as a '
            'base-60 number. Quote it: "%s".' % (unquoted, unquoted))


def mac_errors(option, address):
    """Problems of a MAC address (normalized_mac): six hexadecimal octets separated by colons."""
    if MAC_ADDRESS.match(address):
        return []
    unquoted = sexagesimal_mac(address)
    if unquoted:
        return ['%s %s is a number, not a MAC address: %s' % (option, _quoted(address), unquoted_mac_note(unquoted))]
    return ['%s %s is not a MAC address; write six hexadecimal octets separated by colons, for example '
            '52:54:00:12:34:56.' % (option, _quoted(address))]


def trait_errors(traits):
    """Problems of trait names (of a node, or of the nodes an allocation asks for)."""
    return ["trait %r is not a trait name: custom traits are CUSTOM_ followed by A-Z, 0-9 and _ (for example "
            "CUSTOM_GPU_A100); the others are os-traits names such as HW_CPU_X86_AVX2." % (trait,)
            for trait in traits or () if not TRAIT_NAME.match(str(trait))]


def check_node_name(option, name):
    """A node name to create or look up by name: Ironic refuses UUID-like names, so such a name would find
    (and change) the node that has that UUID instead."""
    raise_errors(name_errors(option, name))


def raise_errors(errors):
    if errors:
        raise InputError(' '.join(errors))


def wave_size_errors(name, value, wait=None):
    """Problems of a wave size: a whole number of nodes from 1, or a percentage above 0 and up to 100; waves wait for
    each wave, so a task that does not wait (wait: false) cannot have any."""
    match = _WAVE_SIZE.match(str(value))
    number = float(match.group('number')) if match else 0
    if not match or not (0 < number <= 100 if match.group('percent') else number >= 1 and number == int(number)):
        return ['%s must be a whole number of nodes from 1 (such as 10) or a percentage above 0 and up to 100 of the '
                'nodes the task changes (such as "10%%"), got %r.' % (name, str(value)[:40])]
    if wait is False:
        return ['%s needs wait: true: a wave starts only when the nodes of the one before are back and healthy. '
                'Set wait: true, or leave %s out.' % (name, name)]
    return []


def wave_pause_errors(name, value, size_name, size):
    """A pause between waves in a task without waves (no wave_size) would be ignored: an error, not a silent no-op."""
    try:
        pause = float(value or 0)
    except (TypeError, ValueError):
        return []  # limit_errors names it
    if pause <= 0 or size not in (None, ''):
        return []
    return ['%s (%s s) is the pause between two waves, and without %s the task runs no waves. Set %s (such as 10, '
            'or "25%%" of the nodes that change), or leave %s out.' % (name, as_written(pause), size_name, size_name, name)]


def as_written(number):
    """A number as a task writes it, for messages: 0, 30 and 12.5 (Ansible hands float options over as 0.0)."""
    return '%d' % number if number == int(number) else '%g' % number


def limit_errors(name, value, limit=None):
    """Problems of a number outside the bounds of LIMITS[limit or name]; strings of digits count as numbers."""
    minimum, maximum = LIMITS[limit or name]
    if isinstance(value, str):
        try:
            value = float(value) if '.' in value else int(value)
        except ValueError:
            return ['%s must be a number, got %r.' % (name, value[:40])]
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    if maximum is None and value < minimum:
        return ['%s must be at least %s, got %s.' % (name, minimum, as_written(value))]
    if maximum is not None and not minimum <= value <= maximum:
        return ['%s must be between %s and %s, got %s: set it in that range.' % (name, minimum, maximum, as_written(value))]
    return []


def _key_errors(option, record):
    return ["%s key %r cannot be managed: Ironic can only update keys made of letters, digits, '_' and '-'. "
            "Rename the key." % (option, key) for key in sorted(record, key=str) if not PATCHABLE_KEY.match(str(key))]


def name_errors(option, name, what='node'):
    """Problems of the name of an Ironic resource (a node, an allocation): Ironic's logical names, never a UUID."""
    if not isinstance(name, str) or not LOGICAL_NAME.match(name):
        return ["%s %s is not a%s %s name Ironic accepts: use 1 to 255 letters, digits, '.', '_', '~' or '-'."
                % (option, _quoted(name), 'n' if what[0] in 'aeiou' else '', what)]
    if is_uuid_like(name):
        return ['%s %s is a UUID, and Ironic %s names cannot be UUIDs: give the name of the %s%s.'
                % (option, name, what, what,
                   ' (to choose the UUID of a new node, set uuid as well)' if what == 'node' else '')]
    return []


def ident_errors(option, ident):
    """Problems of a node name or UUID used to find a node."""
    if is_uuid_like(ident):
        return []
    return name_errors(option, ident)


def nodes_errors(option, nodes):
    """Problems of a nodes: list: elements that name no node, and nodes named twice."""
    errors = []
    seen = {}
    for index, entry in enumerate(nodes):
        where = '%s[%d]' % (option, index)
        # An element's node: (or a plain string) finds a node by name or UUID; its name: names a node record,
        # which Ironic never lets look like a UUID.
        check = ident_errors
        if isinstance(entry, Mapping):
            key = 'node' if 'node' in entry else 'name'
            ident = entry.get(key)
            where += '.' + key
            check = ident_errors if key == 'node' else name_errors
        else:
            ident = entry
        if isinstance(ident, int) and not isinstance(ident, bool):
            ident = str(ident)
        if ident is None:
            continue  # the module says which keys an element needs
        problems = check(where, ident)
        errors.extend(problems)
        if problems:
            continue
        if ident in seen:
            errors.append('%s names %s again (first in %s[%d]): list each node once.'
                          % (where, ident, option, seen[ident]))
        else:
            seen[ident] = index
    return errors


def check_distinct_nodes(found):
    """found maps each ident of a nodes: list to its node: fail when two idents (a name and a UUID) are one node."""
    by_uuid = {}
    for ident, node in found.items():
        by_uuid.setdefault(node['uuid'], []).append(ident)
    errors = ['nodes names node %s more than once (%s): list each node once.' % (uuid_, ', '.join(sorted(idents)))
              for uuid_, idents in sorted(by_uuid.items()) if len(idents) > 1]
    raise_errors(errors)


# -- option values of another type than the argument spec's ------------------------------------------------------

# What each scalar type of an argument spec is called in a message, and what to write instead of a list or a
# dictionary. Ansible turns a list or a dictionary given for a str or path option into its Python text ("['a', 'b']")
# and sends that on: ansible-core 2.16 still passes string_conversion_action to modules but no longer reads it
# (deprecated, "no longer used in the Ansible Core code base"), and 2.19 to 2.21 removed it, so every supported
# release converts without a word. int, float and bool options Ansible refuses itself, with a message that names no
# fix; the same rule names one for them too. A string of digits for an int ("8") and "yes" for a bool stay Ansible's
# documented conversions, and a number for a str (name: 123) stays a string, as Ansible makes it.
SCALAR_TYPES = {
    'str': ('a string', 'give one string'),
    'path': ('a path', 'give one path'),
    'int': ('a whole number', 'give one whole number'),
    'float': ('a number', 'give one number'),
    'bool': ('true or false', 'give true or false'),
}
# The types Ansible would turn a list or a dictionary into the text of (above), rather than refuse it.
TEXT_TYPES = ('str', 'path')


def type_name(value):
    """What a value given to an option is, as a message says it: a list, a dictionary, a string, a number..."""
    if isinstance(value, Mapping):
        return 'dictionary'
    if isinstance(value, (list, tuple)):
        return 'list'
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, int):
        return 'whole number'
    if isinstance(value, float):
        return 'number'
    if isinstance(value, str):
        return 'string'
    return type(value).__name__


def wrong_type_error(where, value, expected, secret=None, by_ansible=True):
    """The message for a value of another type than expected (a key of SCALAR_TYPES) at where (select.resource_class,
    nodes[2].resource_class): the type given, the value unless it may be secret (secret, or when None a key of where
    named like a secret), and what to write. by_ansible: the value is an option's, which Ansible would have converted
    (TEXT_TYPES), and the message says so."""
    wanted, fix = SCALAR_TYPES[expected]
    given = type_name(value)
    if secret is None:
        secret = secrets.is_secret_path(where.replace('[', '.').split('.'))
    shown = '' if secret else ' (%s)' % _shortened(value)
    message = '%s must be %s, got a %s%s: %s, not a %s' % (where, wanted, given, shown, fix, given)
    if by_ansible and expected in TEXT_TYPES:
        message += ' (Ansible would send the text of the whole %s to Ironic)' % given
    return message + '.'


def option_type_errors(params, argument_spec, by_ansible=True):
    """Option values, as the task gave them (before AnsibleModule converts them), that are a list or a dictionary
    where the argument spec says a scalar type (SCALAR_TYPES): at any depth, in suboptions, in each element of a
    list option (elements: str, or elements: dict with options). Derived from the spec, the same for every module.
    A value under a no_log option, or under a key named like a secret (unless its spec says no_log: false, as
    secrets.no_log_values judges an option), is never quoted. by_ansible: as
    wrong_type_error (false for an inventory plugin's options, which Ansible refuses rather than converts)."""
    return _suboption_type_errors(None, params, argument_spec, False, by_ansible)


def _value_type_errors(where, value, spec, secret, by_ansible):
    kind = spec.get('type', 'str')
    if kind in SCALAR_TYPES:
        if isinstance(value, (Mapping, list, tuple)):
            return [wrong_type_error(where, value, kind, secret, by_ansible)]
        return []
    if kind == 'list' and isinstance(value, (list, tuple)):
        errors = []
        element_spec = dict(type=spec.get('elements'))
        for index, item in enumerate(value):
            item_where = '%s[%d]' % (where, index)
            if spec.get('elements') == 'dict' and spec.get('options'):
                errors.extend(_suboption_type_errors(item_where, item, spec['options'], secret, by_ansible))
            elif spec.get('elements') in SCALAR_TYPES and item is not None:
                errors.extend(_value_type_errors(item_where, item, element_spec, secret, by_ansible))
        return errors
    if kind == 'dict' and spec.get('options'):
        return _suboption_type_errors(where, value, spec['options'], secret, by_ansible)
    return []


def _suboption_type_errors(where, value, options, secret, by_ansible):
    """The errors of the options (of an argument spec) value gives, each under its name or alias, named from where."""
    errors = []
    if not isinstance(value, Mapping):
        return errors
    for name, spec in (options or {}).items():
        for key in [name] + list(spec.get('aliases') or ()):
            if key in value and value[key] is not None:
                no_log = spec.get('no_log')
                secret_key = no_log is True or no_log is not False and secrets.is_secret_name(key)
                errors.extend(_value_type_errors(key if where is None else '%s.%s' % (where, key), value[key], spec,
                                                 secret or secret_key, by_ansible))
    return errors


def _shortened(value):
    """A value's repr, cut short as _quoted cuts a text."""
    text = repr(value)
    return text if len(text) <= 60 else '%s... (%d characters)' % (text[:40], len(text))


def _quoted(value):
    """A value quoted in a message, cut short: a huge string would drown the message."""
    text = value if isinstance(value, str) else repr(value)
    return repr(text) if len(text) <= 60 else '%r... (%d characters)' % (text[:40], len(text))


def reason_dropped(option, maintenance):
    """Why a reason (option: its name) given with maintenance off (False) or not declared (None) is refused: Ironic
    keeps a maintenance reason only while the node is in maintenance, so it would be dropped without a word."""
    how = ('maintenance: false (or state: disabled) takes the node out of maintenance' if maintenance is False
           else 'maintenance is not declared, so the node is left as it is')
    return ('%s is only kept while maintenance is on, and %s: drop %s, or set maintenance: true.'
            % (option, how, option))


def dropped_reasons(elements, maintenances, labels, task_reason, option):
    """The messages for the reasons a task with nodes would drop, found before anything is read: an element's own
    reason (option) where that element's maintenance is off or not declared, and the task's reason when no element
    with maintenance on takes it. elements are the task's nodes; maintenances and labels, in the same order, each
    one's maintenance (True, False or None) and how the task names it."""
    problems, inherited = [], False
    for element, on, label in zip(elements, maintenances, labels):
        own = element.get(option) if isinstance(element, Mapping) else None
        if own is None:
            inherited = inherited or bool(on)
        elif own and not on:
            problems.append('%s: %s' % (label, reason_dropped(option, on)))
    if task_reason and not inherited and len(elements):
        problems.append('the task\'s %s is kept by none of its nodes: %s is only kept while maintenance is on, and '
                        'no element of nodes that takes the task\'s %s has maintenance: true. Drop %s, or set '
                        'maintenance: true.' % (option, option, option, option))
    return problems
