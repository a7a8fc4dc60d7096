# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node record as a task declares it, and what makes Ironic's record agree: no I/O here.

Computes JSON patches, trait and port changes, the before/after diff and the node view (its checks are in
node/record_checks.py). A declaration names only what it manages: a field left out, and a dictionary key left out,
is never touched. node/snapshot.py reads Ironic, hands what it read to these functions, and node/writer.py writes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from contextlib import contextmanager

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import network_data
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import normalized_mac
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import interface_field
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    FEATURE_MIN_VERSION, SUPPORTED_API)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost

# The field lists derive from the one table of record fields (node/record_fields.py).
INTERFACES = record_fields.INTERFACE_NAMES

# Updated key by key: inspection and other tools fill them too.
DICT_FIELDS = record_fields.named(record_fields.KEYS)

# JSON documents, compared whole (node/network_data.py); a change replaces them in the node's JSON patch.
DOCUMENT_FIELDS = record_fields.named(record_fields.DOCUMENT)

# Compared whole and replaced in the node's JSON patch: values, and documents.
SCALAR_FIELDS = record_fields.named(record_fields.VALUE) + DOCUMENT_FIELDS

# Declared fields that have their own requests rather than a place in the node's JSON patch or POST body.
# (wiring's port_memberships is no record field: it is what port groups make of the ports.)
_OWN_REQUEST_FIELDS = record_fields.named(record_fields.OWN_REQUESTS)
SEPARATE_FIELDS = _OWN_REQUEST_FIELDS + tuple(
    field for field in wiring.WIRING_FIELDS if field not in _OWN_REQUEST_FIELDS)

PORT_ATTRIBUTES = ('pxe_enabled', 'physical_network', 'local_link_connection')

UPDATE_SECRETS_ALWAYS = 'always'

# The node properties Ironic documents as integers (and the Nova and Placement scheduling that reads them): Ironic
# stores whatever JSON it is given, so "8" would stay a string. Ansible's key=value parsing (properties=cpus=8) and
# templated values make strings of them: a string of decimal digits is sent as the integer with a warning
# (integer_properties); any other value that is not a whole number is refused
# (record_checks.integer_property_errors).
INTEGER_PROPERTIES = ('cpus', 'local_gb', 'memory_mb')


class NodeError(BaremetalError):
    """A declaration Ironic would refuse or that would do harm; the message says what to change."""


@contextmanager
def when_refused(result):
    """A write Ironic refused fails the node with result. After a lost answer the result stands as it was:
    Ironic may have applied the write."""
    try:
        yield
    except AnswerLost:
        raise
    except BaremetalError as exc:
        raise NodeError(str(exc), result)


def _feature_of(field):
    if field.endswith('_interface'):
        return field if field in FEATURE_MIN_VERSION else record_fields.FIELD_FEATURES['interfaces']
    return record_fields.FIELD_FEATURES.get(field)


def required_features(declared):
    features = set(_feature_of(field) for field in declared if field != 'ports')
    for port in declared.get('ports') or ():
        features.update(attribute for attribute in PORT_ATTRIBUTES if port.get(attribute) is not None)
    features.update(wiring.required_features(declared))
    return sorted(feature for feature in features if feature in FEATURE_MIN_VERSION)


# -- the declaration -------------------------------------------------------------------------

def declared_record(params):
    """The fields the task declares, as Ironic names them; None means 'leave alone'."""
    declared = {}
    for field in SCALAR_FIELDS + DICT_FIELDS + ('traits',):
        if params.get(field) is not None:
            declared[field] = params[field]
    if 'conductor_group' in declared:
        # Ironic stores it in lower case, but looks up the conductors of a new node's group as the POST spells it.
        declared['conductor_group'] = declared['conductor_group'].lower()
    for name, value in (params.get('interfaces') or {}).items():
        if value is not None:
            declared[interface_field(name)] = value
    if params.get('ports') is not None:
        declared['ports'] = [normalized_port(port) for port in params['ports']]
    declared.update(wiring.declared_wiring(params))
    return declared


def _is_digits(value):
    return isinstance(value, str) and value.strip().isdigit() and value.strip().isascii()


def is_integer_property(value):
    """Whether a value of an INTEGER_PROPERTIES key is taken: an integer, or a string of decimal digits."""
    return isinstance(value, int) and not isinstance(value, bool) or _is_digits(value)


def integer_properties(properties, where='properties'):
    """(properties, warnings): the INTEGER_PROPERTIES given as strings of decimal digits turned into integers, each
    with a warning that names it; properties itself is left as it is."""
    converted = [name for name in INTEGER_PROPERTIES if _is_digits((properties or {}).get(name))]
    if not converted:
        return properties, []
    properties = dict(properties)
    warnings = []
    for name in converted:
        text = properties[name]
        properties[name] = int(text.strip())
        warnings.append('%s.%s was given as the string %r and is sent to Ironic as the integer %d: write it as a '
                        'number (%s: %d); arguments written name=value (properties=%s=%s) and templated values are '
                        'strings.'
                        % (where, name, text, properties[name], name, properties[name], name, text.strip()))
    return properties, warnings


def normalized_port(port):
    """A declared port as Ironic stores it: MAC address and switch_id in lower case."""
    entry = dict((attribute, port.get(attribute)) for attribute in PORT_ATTRIBUTES)
    entry['address'] = normalized_mac(port['address'])
    link = entry['local_link_connection']
    if link and isinstance(link.get('switch_id'), str):
        entry['local_link_connection'] = dict(link, switch_id=link['switch_id'].lower())
    return entry


# -- computing changes -----------------------------------------------------------------------

def _pointer(*parts):
    return '/' + '/'.join(str(part) for part in parts)


def dict_field_changes(field, current, wanted, send_secrets):
    """JSON patch operations that set the wanted keys of one dictionary field and remove those given as null.

    Returns (operations, before, after) where before and after hold only the keys that change.
    A secret key is sent when the node lacks it or send_secrets is true; its value is never compared.
    """
    current = current or {}
    operations, before, after = [], {}, {}
    for key in sorted(wanted):
        value = wanted[key]
        present = key in current
        if value is None:
            if present:
                operations.append({'op': 'remove', 'path': _pointer(field, key)})
                before[key] = current[key]
            continue
        if secrets.is_secret_key(field, key, current.get(key)):
            differs = send_secrets or not present
        else:
            differs = not present or current[key] != value
        if differs:
            operations.append({'op': 'add', 'path': _pointer(field, key), 'value': value})
            if present:
                before[key] = current[key]
            after[key] = value
    return operations, before, after


def node_changes(node, declared, send_secrets):
    """JSON patch operations for the node record, and the before/after of what they change."""
    operations, before, after = [], {}, {}
    for field in sorted(declared):
        wanted = declared[field]
        if field in SEPARATE_FIELDS:
            continue
        if field in DICT_FIELDS:
            field_operations, field_before, field_after = dict_field_changes(field, node.get(field), wanted, send_secrets)
            if field_operations:
                operations.extend(field_operations)
                before[field] = field_before
                after[field] = field_after
        elif field in DOCUMENT_FIELDS:
            field_operations = network_data.operations(node.get(field), wanted)
            if field_operations:
                operations.extend(field_operations)
                before[field], after[field] = node.get(field) or {}, wanted
        elif node.get(field) != wanted:
            operations.append({'op': 'replace', 'path': _pointer(field), 'value': wanted})
            before[field] = node.get(field)
            after[field] = wanted
    return operations, before, after


def traits_change(node, declared):
    """The sorted trait list to set, or None when the node already has exactly the declared traits."""
    if 'traits' not in declared:
        return None
    wanted = sorted(set(declared['traits']))
    return None if sorted(node.get('traits') or []) == wanted else wanted


class PortChanges(object):
    """What makes a node's ports exactly the declared list, matched by MAC address."""

    def __init__(self, current_ports, wanted_ports):
        by_address = dict((port['address'].lower(), port) for port in current_ports)
        wanted_addresses = set(port['address'] for port in wanted_ports)
        self.delete = [port for address, port in sorted(by_address.items()) if address not in wanted_addresses]
        self.create = []
        self.update = []
        for wanted in wanted_ports:
            current = by_address.get(wanted['address'])
            if current is None:
                self.create.append(wanted)
                continue
            operations = [{'op': 'replace', 'path': _pointer(attribute), 'value': wanted[attribute]}
                          for attribute in PORT_ATTRIBUTES
                          if wanted[attribute] is not None and current.get(attribute) != wanted[attribute]]
            if operations:
                self.update.append((current, operations))
        self.before = [port_view(port) for port in sorted(current_ports, key=lambda port: port['address'])]
        self.after = [_declared_port_view(wanted, by_address.get(wanted['address'])) for wanted in wanted_ports]

    def __bool__(self):
        return bool(self.delete or self.create or self.update)


def port_view(port):
    view = dict((attribute, port.get(attribute)) for attribute in PORT_ATTRIBUTES)
    view['address'] = port['address']
    return view


def _declared_port_view(wanted, current):
    view = port_view(current) if current else {'address': wanted['address']}
    view.update((attribute, value) for attribute, value in wanted.items() if value is not None)
    return view


def creation_body(declared, name, uuid):
    """POST /nodes body: the declared record without ports and traits, which have their own requests."""
    body = {'name': name}
    if uuid:
        body['uuid'] = uuid
    for field, value in declared.items():
        if field in SEPARATE_FIELDS:
            continue
        if field in DICT_FIELDS:
            value = dict((key, item) for key, item in value.items() if item is not None)
        body[field] = value
    return body


# The fields of a node the module compares and returns (instance_info is only read when declared).
VIEW_FIELDS = record_fields.VIEW_FIELDS

# Those the oldest Ironic the collection supports does not have: absent from the view of a node Ironic returns
# without them, not null.
NEWER_VIEW_FIELDS = tuple(field for field in VIEW_FIELDS if field in record_fields.FIELD_FEATURES
                          and FEATURE_MIN_VERSION[record_fields.FIELD_FEATURES[field]] > SUPPORTED_API)


def node_view(node, ports):
    """The node as the module returns it: what it manages, secrets masked, no instance_info."""
    view = summarize_node(node)
    for field in VIEW_FIELDS:
        if field in node or field not in NEWER_VIEW_FIELDS:
            view[field] = node.get(field)
    view['interfaces'] = dict((name, node.get(interface_field(name))) for name in INTERFACES)
    view['ports'] = [port_view(port) for port in sorted(ports, key=lambda port: port['address'])]
    return secrets.masked(view)


class Change(object):
    """What one declared node needs, computed in memory from the Snapshot; apply() makes the writes."""

    wiring = None  # its port groups and virtual media (node/wiring.py, plan), when it declares any

    def __init__(self, declaration, node, ports, send_secrets):
        self.declaration = declaration
        self.node = node
        self.current_ports = ports
        declared = declaration.declared
        if node is None:
            self.body = creation_body(declared, declaration.name, declaration.uuid)
            after = dict(self.body)
            if 'traits' in declared:
                after['traits'] = sorted(set(declared['traits']))
            if declared.get('ports'):
                after['ports'] = [_declared_port_view(port, None) for port in declared['ports']]
            self.operations, self.traits = [], None
            self.ports = PortChanges([], declared.get('ports') or [])
            self.diff = _record_diff({}, after)
            return
        self.body = None
        self.operations, before, after = node_changes(node, declared, send_secrets)
        self.traits = traits_change(node, declared)
        if self.traits is not None:
            before['traits'] = sorted(node.get('traits') or [])
            after['traits'] = self.traits
        self.ports = PortChanges(ports, declared['ports']) if 'ports' in declared else None
        if self.ports:
            before['ports'] = self.ports.before
            after['ports'] = self.ports.after
        self.diff = _record_diff(before, after)

    @property
    def changed(self):
        return self.node is None or bool(self.operations or self.traits is not None or self.ports or self.wiring)


def _record_diff(before, after):
    """The fields that change; a field on one side only (a node being created has no before) is left out of the other."""
    diff = DifferenceTracker()
    for field in sorted(set(before) | set(after)):
        diff.add(field, before.get(field, ABSENT), after.get(field, ABSENT))
    return diff.diff()
