# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of a declared node record: what Ironic would refuse (ports, traits, keys Ironic can patch, driver_info
against the hardware type's schema, protected and retired with their reasons), before anything is sent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import (
    PATCHABLE_KEY, mac_errors, trait_errors, type_name)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.driver_schemas import SUPPORTED_HARDWARE_TYPES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    DICT_FIELDS, INTEGER_PROPERTIES, NodeError, is_integer_property)

# A reason field and the flag it needs: Ironic refuses the reason while the flag is false, and clears it
# when the flag is cleared.
REASON_FLAGS = (('protected_reason', 'protected'), ('retired_reason', 'retired'))


def check_declaration(declared, validate_driver_info=True):
    """What can be checked before asking Ironic anything. Raises NodeError listing every problem."""
    errors = _port_errors(declared.get('ports')) + wiring.declaration_errors(declared)
    errors.extend(integer_property_errors(declared.get('properties')))
    errors.extend(trait_errors(declared.get('traits')))
    for field in DICT_FIELDS:
        for key in sorted(declared.get(field) or {}):
            if not PATCHABLE_KEY.match(str(key)):
                errors.append("%s key %r cannot be managed: Ironic can only update keys made of letters, digits, "
                              "'_' and '-'. Rename the key." % (field, key))
    errors.extend(length_errors(declared))
    for reason, flag in REASON_FLAGS:
        if declared.get(reason) and declared.get(flag) is False:
            errors.append('%s is only kept while %s is true, and %s is false: drop %s or set %s: true.'
                          % (reason, flag, flag, reason, flag))
    if validate_driver_info and 'driver' in declared:
        if declared['driver'] in SUPPORTED_HARDWARE_TYPES:
            errors.extend(driver_info.validate_driver_info(declared['driver'], declared.get('driver_info'),
                                                           check_required=False))
        else:
            errors.extend(_driver_info_errors(declared, declared['driver'], None))
    if errors:
        raise NodeError(_sentences(errors))


def length_errors(declared):
    """Declared strings longer or shorter than their row of the table allows (record_fields.FIELD_LENGTHS)."""
    errors = []
    for name, length in sorted(record_fields.FIELD_LENGTHS.items()):
        value = declared.get(name)
        if isinstance(value, str) and not length[0] <= len(value) <= length[1]:
            given = '%d characters were given' % len(value) if value else 'an empty string was given'
            errors.append("%s must be %s long, and %s: Ironic refuses it. Give a value of that length, or leave %s "
                          "out to keep the node's." % (name, record_fields.lengths(length), given, name))
    return errors


def integer_property_errors(properties, where='properties'):
    """Problems of the INTEGER_PROPERTIES of declared properties: each must be a whole number (or a string of
    decimal digits, which integer_properties converts); null removes the key."""
    errors = []
    for name in INTEGER_PROPERTIES:
        value = (properties or {}).get(name) if isinstance(properties, Mapping) else None
        if value is None or is_integer_property(value):
            continue
        errors.append('%s.%s must be a whole number (Ironic documents %s as an integer), got %s %r: write it as a '
                      'number, such as %s: 8.' % (where, name, name, _a(type_name(value)), value, name))
    return errors


def _a(noun):
    return ('an ' if noun[0] in 'aeiou' else 'a ') + noun


def check_driver_info(declared, driver, current_driver_info, current_driver=None):
    """Validate driver_info against the node's hardware type once the node has been read.

    current_driver_info is None when the node is to be created: then every required key must be given.
    current_driver is the node's hardware type: keys it keeps that the declared one does not know are refused only
    when the declaration changes it (a key written with validate_driver_info: false stays the node's own).
    """
    errors = _driver_info_errors(declared, driver, current_driver_info, current_driver)
    if errors:
        raise NodeError(_sentences(errors))


def _port_errors(ports):
    errors = []
    seen = set()
    for index, port in enumerate(ports or ()):
        address = port['address']
        problems = mac_errors('ports[%d].address' % index, address)
        if problems:
            errors.extend(problems)
        elif address in seen:
            errors.append("ports[%d].address %s is listed twice; a MAC address belongs to one port. Remove the "
                          "duplicate." % (index, address))
        seen.add(address)
    return errors


@functools.lru_cache(maxsize=None)
def _driver_info_keys(driver):
    """(known keys, required keys) of a hardware type's driver_info: read once, not copied for every node."""
    schema = driver_info.driver_info_schema(driver)
    return frozenset(schema['properties']), tuple(schema['required'])


def _driver_info_errors(declared, driver, current_driver_info, current_driver=None):
    if driver not in SUPPORTED_HARDWARE_TYPES:
        return driver_info.validate_driver_info(driver, {}) + [
            'Set validate_driver_info: false to use a hardware type this collection has no schema for.']
    given = declared.get('driver_info') or {}
    known, required = _driver_info_keys(driver)
    after = dict(current_driver_info or {})
    after.update(given)
    after = dict((key, value) for key, value in after.items() if value is not None)
    errors = driver_info.validate_driver_info(driver, given, check_required=False)
    if current_driver_info is not None and 'driver' in declared and declared['driver'] != current_driver:
        # The node keeps the keys of its old hardware type unless they are removed.
        stale = sorted(key for key in after if key not in given and key not in known)
        if stale:
            errors.append('driver_info keeps %s from the current driver, unknown to hardware type %r: set them to '
                          'null to remove them.' % (', '.join(stale), driver))
    if current_driver_info is None or 'driver_info' in declared or 'driver' in declared:
        for key in required:
            if key not in after:
                errors.append('driver_info key %r is required for hardware type %r: add it to driver_info.'
                              % (key, driver))
    return errors


def _sentences(errors):
    return ' '.join(error if error.endswith(('.', '?')) else error + '.' for error in errors)


def check_flags(node, declared):
    """protected, retired and their reasons as Ironic will take them, judged before anything is sent. The provision
    states Ironic sets them in are rows of engine/preconditions.py."""
    current = node or {}
    for reason, flag in REASON_FLAGS:
        if declared.get(reason) and not declared.get(flag, current.get(flag)):
            raise NodeError('%s is only kept while %s is true, and the node is not %s: set %s: true as well.'
                            % (reason, flag, flag, flag))
