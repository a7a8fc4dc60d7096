# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filter fleet_errors: everything wrong with a fleet description, each message naming the node and the field.

Documented in fleet_errors.yml next to this file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info as schemas
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_checks import integer_property_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import validate
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import spelling
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import MissingLibrary, import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.bifrost import looks_like_bifrost

_TYPE_NAMES = {'array': 'a list', 'object': 'a dictionary', 'string': 'a string', 'integer': 'an integer',
               'boolean': 'a boolean', 'number': 'a number', 'null': 'null'}
_PYTHON_TYPES = {'list': 'list', 'dict': 'dictionary', 'str': 'string', 'int': 'integer', 'bool': 'boolean',
                 'float': 'number', 'NoneType': 'null'}


def _python_type(value):
    for cls in type(value).__mro__:
        if cls.__name__ in _PYTHON_TYPES:
            return _PYTHON_TYPES[cls.__name__]
    return type(value).__name__


def _node_label(nodes, index):
    node = nodes[index] if isinstance(nodes, list) and isinstance(index, int) and index < len(nodes) else None
    name = node.get('name') if isinstance(node, Mapping) else None
    return 'fleet[%d]' % index + (' (%s)' % name if isinstance(name, str) and name else '')


def _field_path(parts):
    text = ''
    for part in parts:
        text += '[%d]' % part if isinstance(part, int) else ('.' if text else '') + str(part)
    return text


def _shown(path, value):
    """The wrong value, unless it may hold a secret: a secret key's value, or a whole list or dictionary."""
    if secrets.is_secret_path(path):
        return secrets.MASK
    if isinstance(value, (Mapping, list)):
        return 'a %s' % _python_type(value)
    return '%r (%s)' % (value, _python_type(value))


def _schema_messages(error):
    """(path, text) pairs for one JSON Schema error; several for several missing or unknown fields."""
    path = list(error.absolute_path)
    validator = error.validator
    schema_path = list(error.absolute_schema_path)
    if 'propertyNames' in schema_path:
        return [(path, 'key %r is not allowed: Ironic only updates keys made of letters, digits, _ and -'
                 % error.instance)]
    if 'dependencies' in schema_path:
        return [(path[:1] + ['maintenance_reason'], 'needs maintenance: true')]
    if validator == 'required':
        return [(path + [name], 'is required') for name in error.validator_value if name not in error.instance]
    if validator == 'additionalProperties':
        known = error.schema.get('properties', {})
        return [(path + [key], 'is not a known field%s' % spelling.did_you_mean(key, known))
                for key in sorted(error.instance, key=str) if key not in known]
    if validator == 'type':
        expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        names = ' or '.join(_TYPE_NAMES[name] for name in expected)
        unquoted = validate.sexagesimal_mac(error.instance) if path and path[-1] in ('address', 'mac') else None
        note = '; %s' % validate.unquoted_mac_note(unquoted) if unquoted else ''
        return [(path, 'must be %s, got %s%s' % (names, _shown(path, error.instance), note))]
    if validator == 'enum':
        choices = ', '.join(str(value) for value in error.validator_value)
        return [(path, 'must be one of %s, got %s' % (choices, _shown(path, error.instance)))]
    if validator == 'pattern' and path and path[-1] in ('address', 'mac') and isinstance(error.instance, str):
        # As baremetal_node says it, not as the schema's regular expression: the message names the field itself,
        # so its path is the node's.
        return [(path[:1], mac) for mac in validate.mac_errors(_field_path(path[1:]), error.instance)] or [
            (path, 'is not a MAC address')]
    if validator == 'pattern':
        return [(path, 'must match %s, got %s' % (error.validator_value, _shown(path, error.instance)))]
    if validator == 'uniqueItems':
        return [(path, 'lists an item twice')]
    if secrets.is_secret_path(path):
        return [(path, 'is not valid (%s)' % validator)]
    return [(path, error.message)]


def _driver_info_messages(node):
    """What the hardware type's own schema says about driver_info, as baremetal_node checks it."""
    if node.get('validate_driver_info') is False or not isinstance(node.get('driver'), str):
        return []
    driver_info = node.get('driver_info')
    if driver_info is not None and not isinstance(driver_info, Mapping):
        return []  # already reported by the fleet schema
    return schemas.validate_driver_info(node['driver'], driver_info or {})


def _duplicate_messages(nodes):
    """Names, UUIDs and MAC addresses declared twice: Ironic would refuse the second, after the first was sent."""
    messages = []
    seen = {}
    for index, node in enumerate(nodes):
        if not isinstance(node, Mapping):
            continue
        values = [('name', node.get('name')), ('uuid', node.get('uuid'))]
        ports = node.get('ports') if isinstance(node.get('ports'), list) else []
        values += [('ports[%d].address' % position, port.get('address'))
                   for position, port in enumerate(ports) if isinstance(port, Mapping)]
        for field, value in values:
            if not isinstance(value, str):
                continue
            kind = field.split('.')[-1]
            key = (kind, value.lower().replace('-', '') if kind == 'uuid' else value.lower() if kind == 'address'
                   else value)
            if key in seen:
                messages.append('%s: %s: %r is also declared by %s' % (
                    _node_label(nodes, index), field, value, _node_label(nodes, seen[key])))
            else:
                seen[key] = index
    return messages


def _settings_messages(settings):
    """The role's own variables (fleet_concurrency...), by the numeric limits the modules apply."""
    messages = []
    settings = settings or {}
    for name, value in sorted(settings.items()):
        if name == 'fleet_wave_size':
            messages.extend(validate.wave_size_errors(name, value) if value not in (None, '') else [])
        else:
            messages.extend(validate.limit_errors(name, value, name[len('fleet_'):]))
    if 'fleet_wave_pause' in settings:
        messages.extend(validate.wave_pause_errors('fleet_wave_pause', settings['fleet_wave_pause'], 'fleet_wave_size',
                                                   settings.get('fleet_wave_size')))
    return messages


def _uuid_name_messages(nodes):
    return ['%s: name: is a UUID, and Ironic node names cannot be UUIDs: give the node a name (and its UUID in uuid)'
            % _node_label(nodes, index) for index, node in enumerate(nodes)
            if isinstance(node, Mapping) and validate.is_uuid_like(node.get('name'))]


def fleet_errors(nodes, schema, settings=None):
    """Every problem of a fleet description, as messages that name the node and the field path; [] when valid.

    settings are the role's own numeric variables, checked as well so that nothing is enrolled before the
    convergence would refuse them.
    """
    try:
        # Imported here, not with this module: the role's other filters load it too (fleet_plan.py), in a worker
        # process of their own, and importing jsonschema costs each of those tasks about 60 ms.
        jsonschema = import_library('jsonschema', 'jsonschema', "the fleet role's check of the fleet description "
                                    '(the filter baremetal.lifecycle.fleet_errors)')
    except MissingLibrary as exc:
        raise AnsibleFilterError(str(exc))
    if not isinstance(schema, Mapping):
        raise AnsibleFilterError('baremetal.lifecycle.fleet_errors: the schema must be a dictionary, got %s'
                                 % _python_type(schema))
    try:
        validator = jsonschema.Draft7Validator(schema)
        validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise AnsibleFilterError('baremetal.lifecycle.fleet_errors: the schema is not a valid JSON Schema: %s'
                                 % exc.message)
    messages = _settings_messages(settings)
    if looks_like_bifrost(nodes):
        return messages + [
            'fleet: must be a list of nodes, and this is a dictionary of nodes by name (%s), which looks like a '
            'Bifrost inventory: set fleet_format: bifrost (with the file in fleet_file) to read it as one.'
            % ', '.join(_shown([], name) if not isinstance(name, str) else name for name in list(nodes)[:3])
            + (', ...' if len(nodes) > 3 else '')]
    for error in sorted(validator.iter_errors(nodes), key=lambda error: [str(part) for part in error.absolute_path]):
        for path, text in _schema_messages(error):
            if path:
                where = _node_label(nodes, path[0])
                field = _field_path(path[1:])
                messages.append('%s: %s: %s' % (where, field, text) if field else '%s: %s' % (where, text))
            else:
                messages.append('fleet: %s' % text)
    if not isinstance(nodes, list):
        return messages
    for index, node in enumerate(nodes):
        if isinstance(node, Mapping):
            messages.extend('%s: %s' % (_node_label(nodes, index), text) for text in _driver_info_messages(node))
            # As baremetal_node takes them: "8" becomes 8 (with a warning, once declared), "eight" is refused.
            messages.extend('%s: %s' % (_node_label(nodes, index), text)
                            for text in integer_property_errors(node.get('properties')))
    return messages + _uuid_name_messages(nodes) + _duplicate_messages(nodes)


class FilterModule(object):

    def filters(self):
        return {'fleet_errors': fleet_errors}
