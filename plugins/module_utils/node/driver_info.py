# -*- coding: utf-8 -*-
# Copyright: baremetal.lifecycle contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Validation of Ironic ``driver_info`` against the schema of its hardware type (node/driver_schemas.py): unknown
or misspelled keys (with the closest known key), missing required keys and wrong types, secrets never quoted.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import copy
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import import_library
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import did_you_mean
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.driver_schemas import SCHEMAS, SUPPORTED_HARDWARE_TYPES


_TYPE_NAMES = {'integer': 'an integer', 'boolean': 'a boolean',
               'string': 'a string'}


def driver_info_schema(driver):
    """Return the JSON Schema of driver_info for a hardware type.

    Raise ValueError for a hardware type this module does not know.
    """
    if driver not in SCHEMAS:
        raise ValueError(_unknown_driver_message(driver))
    return copy.deepcopy(SCHEMAS[driver])


def validate_driver_info(driver, driver_info, check_required=True):
    """Validate driver_info against the schema of its hardware type.

    Return a list of error messages, empty when driver_info is valid. Keys
    whose value is None are skipped: the caller removes them. With
    check_required=False (a partial update of an existing node) missing
    required keys are not reported. Secret values never appear in messages.

    jsonschema is imported by the first validation of a driver_info that has a key to check, not before: a node
    declared without driver_info (a fake-hardware node, most tasks) needs neither the library nor its import time
    (about 40 ms). Raise MissingLibrary when it is needed and missing.
    """
    if driver not in SCHEMAS:
        return [_unknown_driver_message(driver)]
    if driver_info is None:
        driver_info = {}
    if not isinstance(driver_info, Mapping):
        return ['driver_info must be a dictionary, got %s'
                % type(driver_info).__name__]

    schema = SCHEMAS[driver]
    if not check_required:
        schema = dict(schema, required=[])
    instance = _checked_keys(driver_info)
    if not instance:
        # Nothing but the required keys can be wrong in an empty driver_info.
        return [_required_message(driver, key) for key in schema['required']]

    messages = []
    errors = _jsonschema().Draft7Validator(schema).iter_errors(instance)
    for error in sorted(errors, key=_error_order):
        for message in _messages(driver, schema, error):
            # One 'required' error is raised per missing key, each of which
            # lists all of them.
            if message not in messages:
                messages.append(message)
    return messages


def require_validator(driver_info):
    """Import jsonschema now if validating driver_info will need it, so that a task without the library fails before
    it changes anything (MissingLibrary, naming the pip command); a driver_info with no key to check needs nothing."""
    if isinstance(driver_info, Mapping) and _checked_keys(driver_info):
        _jsonschema()


def _checked_keys(driver_info):
    """The keys validation checks: a key set to None is one to remove."""
    return dict((key, value) for key, value in driver_info.items() if value is not None)


def _jsonschema():
    return import_library('jsonschema', 'jsonschema', 'validating driver_info',
                          'set validate_driver_info: false to skip the validation')


def _error_order(error):
    return tuple(str(part) for part in error.path), error.validator


def _messages(driver, schema, error):
    properties = schema['properties']
    if error.validator == 'additionalProperties':
        unknown = sorted(str(key) for key in error.instance
                         if key not in properties)
        return [_unknown_key_message(driver, key, properties)
                for key in unknown]
    if error.validator == 'required':
        return [_required_message(driver, key)
                for key in error.validator_value if key not in error.instance]

    key = error.path[0]
    value = error.instance
    if error.validator == 'enum':
        expected = 'one of %s' % ', '.join(
            repr(choice) for choice in error.validator_value)
    else:
        expected = _expected_type(error.schema)
    shown = secrets.quoted_value(key, value)
    return ['driver_info key %r must be %s, got %s (%s)'
            % (key, expected, shown, type(value).__name__)]


def _expected_type(prop):
    types = prop['type'] if isinstance(prop['type'], list) else [prop['type']]
    if 'pattern' in prop:
        # The pattern narrows the string form to a spelling of the first type
        # (digits for integers, yes/no words for booleans); not "# type:", which older pylint parses as a type comment.
        types = types[:1]
    return ' or '.join(_TYPE_NAMES[name] for name in types)


def _required_message(driver, key):
    return 'driver_info key %r is required for hardware type %r' % (key, driver)


def _unknown_driver_message(driver):
    return 'unknown driver %r%s. Known hardware types: %s' % (
        driver, did_you_mean(driver, SUPPORTED_HARDWARE_TYPES),
        ', '.join(SUPPORTED_HARDWARE_TYPES))


def _unknown_key_message(driver, key, properties):
    return ('driver_info key %r is not known for hardware type %r%s. Set '
            'validate_driver_info: false to pass vendor-specific keys.'
            % (key, driver, did_you_mean(key, properties)))
