# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reconcile an Ironic node record, its ports and traits with a declared one.

The pure half validates the declaration and computes JSON patches, port changes and diffs; the
other half (ensure_present, ensure_absent) reads Ironic, validates everything that needs a
read, and only then writes. A declaration names only what it manages: a field left out, and a
dictionary key left out, is never touched.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _hardware as hardware
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import (
    FEATURE_MIN_VERSION, IronicError, summarize_node)
from ansible_collections.baremetal.lifecycle.plugins.module_utils._provision import Options, Target, converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils._states import DELETE_ALLOWED_STATES

INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect', 'management', 'network', 'power',
              'raid', 'rescue', 'storage', 'vendor')

# Updated key by key: inspection and other tools fill them too.
DICT_FIELDS = ('driver_info', 'properties', 'extra', 'instance_info')

# Ironic masks the values of these fields' secret keys, so they cannot be compared.
SECRET_FIELDS = ('driver_info', 'instance_info')

SCALAR_FIELDS = ('driver', 'resource_class', 'conductor_group', 'owner', 'lessee', 'description', 'automated_clean')

PORT_ATTRIBUTES = ('pxe_enabled', 'physical_network', 'local_link_connection')

# What Ironic answers instead of a secret value (oslo strutils.mask_dict_password).
IRONIC_SECRET_MASK = '******'

MAC_ADDRESS = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')

# Ironic accepts CUSTOM_ traits and the standard os-traits names, all of this shape, at most 255 long.
TRAIT_NAME = re.compile(r'^[A-Z][A-Z0-9_]{0,254}$')

# Ironic's JSON patch schema only accepts paths made of these characters.
PATCHABLE_KEY = re.compile(r'^[\w-]+$')

UPDATE_SECRETS_ALWAYS = 'always'


class NodeError(BaremetalError):
    """A declaration Ironic would refuse or that would do harm; the message says what to change."""


def interface_field(name):
    return '%s_interface' % name


def _feature_of(field):
    if field.endswith('_interface'):
        return field if field in FEATURE_MIN_VERSION else 'interfaces'
    return field


def _required_features(declared):
    features = set(_feature_of(field) for field in declared if field != 'ports')
    for port in declared.get('ports') or ():
        features.update(attribute for attribute in PORT_ATTRIBUTES if port.get(attribute) is not None)
    return sorted(feature for feature in features if feature in FEATURE_MIN_VERSION)


# -- the declaration -------------------------------------------------------------------------

def declared_record(params):
    """The fields the task declares, as Ironic names them; None means 'leave alone'."""
    declared = {}
    for field in SCALAR_FIELDS + DICT_FIELDS + ('traits',):
        if params.get(field) is not None:
            declared[field] = params[field]
    for name, value in (params.get('interfaces') or {}).items():
        if value is not None:
            declared[interface_field(name)] = value
    if params.get('ports') is not None:
        declared['ports'] = [normalized_port(port) for port in params['ports']]
    return declared


def normalized_port(port):
    """A declared port as Ironic stores it: MAC address and switch_id in lower case."""
    entry = dict((attribute, port.get(attribute)) for attribute in PORT_ATTRIBUTES)
    entry['address'] = str(port['address']).strip().lower()
    link = entry['local_link_connection']
    if link and isinstance(link.get('switch_id'), str):
        entry['local_link_connection'] = dict(link, switch_id=link['switch_id'].lower())
    return entry


def secret_values(params):
    """The values of secret keys of driver_info and instance_info, for Ansible to scrub from all output.

    Also called on the raw arguments, before Ansible has checked their types.
    """
    values = set()
    driver = params.get('driver') if isinstance(params.get('driver'), str) else None
    for field in SECRET_FIELDS:
        record = params.get(field)
        if not isinstance(record, dict):
            continue
        for key, value in record.items():
            if value is not None and hardware.is_secret_key(driver, key):
                values.add(str(value))
    return values


def check_declaration(declared, validate_driver_info=True):
    """What can be checked before asking Ironic anything. Raises NodeError listing every problem."""
    errors = _port_errors(declared.get('ports'))
    for trait in declared.get('traits') or ():
        if not TRAIT_NAME.match(str(trait)):
            errors.append("trait %r is not a trait name: custom traits are CUSTOM_ followed by A-Z, 0-9 and _ "
                          "(for example CUSTOM_GPU_A100); the others are os-traits names such as HW_CPU_X86_AVX2."
                          % (trait,))
    for field in DICT_FIELDS:
        for key in sorted(declared.get(field) or {}):
            if not PATCHABLE_KEY.match(str(key)):
                errors.append("%s key %r cannot be managed: Ironic can only update keys made of letters, digits, "
                              "'_' and '-'. Rename the key." % (field, key))
    if validate_driver_info and 'driver' in declared:
        if declared['driver'] in hardware.SUPPORTED_HARDWARE_TYPES:
            errors.extend(hardware.validate_driver_info(declared['driver'], declared.get('driver_info'),
                                                        check_required=False))
        else:
            errors.extend(_driver_info_errors(declared, declared['driver'], None))
    if errors:
        raise NodeError(_sentences(errors))


def check_driver_info(declared, driver, current_driver_info):
    """Validate driver_info against the node's hardware type once the node has been read.

    current_driver_info is None when the node is to be created: then every required key must be given.
    """
    errors = _driver_info_errors(declared, driver, current_driver_info)
    if errors:
        raise NodeError(_sentences(errors))


def _port_errors(ports):
    errors = []
    seen = set()
    for index, port in enumerate(ports or ()):
        address = port['address']
        if not MAC_ADDRESS.match(address):
            errors.append("ports[%d].address %r is not a MAC address; write six hexadecimal octets separated by "
                          "colons, for example 52:54:00:12:34:56." % (index, address))
        elif address in seen:
            errors.append("ports[%d].address %s is listed twice; a MAC address belongs to one port. Remove the "
                          "duplicate." % (index, address))
        seen.add(address)
    return errors


def _driver_info_errors(declared, driver, current_driver_info):
    if driver not in hardware.SUPPORTED_HARDWARE_TYPES:
        return hardware.validate_driver_info(driver, {}) + [
            'Set validate_driver_info: false to use a hardware type this collection has no schema for.']
    given = declared.get('driver_info') or {}
    schema = hardware.driver_info_schema(driver)
    after = dict(current_driver_info or {})
    after.update(given)
    after = dict((key, value) for key, value in after.items() if value is not None)
    errors = hardware.validate_driver_info(driver, given, check_required=False)
    if current_driver_info is not None and 'driver' in declared:
        # The node keeps the keys of its old hardware type unless they are removed.
        stale = sorted(key for key in after if key not in given and key not in schema['properties'])
        if stale:
            errors.append('driver_info keeps %s from the current driver, unknown to hardware type %r: set them to '
                          'null to remove them.' % (', '.join(stale), driver))
    if current_driver_info is None or 'driver_info' in declared or 'driver' in declared:
        for key in schema['required']:
            if key not in after:
                errors.append('driver_info key %r is required for hardware type %r: add it to driver_info.'
                              % (key, driver))
    return errors


def _sentences(errors):
    return ' '.join(error if error.endswith(('.', '?')) else error + '.' for error in errors)


# -- computing changes -----------------------------------------------------------------------

def _pointer(*parts):
    return '/' + '/'.join(str(part) for part in parts)


def _is_secret(field, driver, key, current_value):
    return field in SECRET_FIELDS and (hardware.is_secret_key(driver, key) or current_value == IRONIC_SECRET_MASK)


def dict_field_changes(field, current, wanted, driver, send_secrets):
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
        if _is_secret(field, driver, key, current.get(key)):
            differs = send_secrets or not present
        else:
            differs = not present or current[key] != value
        if differs:
            operations.append({'op': 'add', 'path': _pointer(field, key), 'value': value})
            if present:
                before[key] = current[key]
            after[key] = value
    return operations, before, after


def _same_scalar(field, current, wanted):
    if field == 'conductor_group':
        # Ironic stores conductor groups in lower case.
        return (current or '').lower() == wanted.lower()
    return current == wanted


def node_changes(node, declared, send_secrets):
    """JSON patch operations for the node record, and the before/after of what they change."""
    driver = declared.get('driver', node.get('driver'))
    operations, before, after = [], {}, {}
    for field in sorted(declared):
        wanted = declared[field]
        if field in ('ports', 'traits'):
            continue
        if field in DICT_FIELDS:
            field_operations, field_before, field_after = dict_field_changes(
                field, node.get(field), wanted, driver, send_secrets)
            if field_operations:
                operations.extend(field_operations)
                before[field] = field_before
                after[field] = field_after
        elif not _same_scalar(field, node.get(field), wanted):
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
        if field in ('ports', 'traits'):
            continue
        if field in DICT_FIELDS:
            value = dict((key, item) for key, item in value.items() if item is not None)
        body[field] = value
    return body


def masked(record, driver):
    """A copy of a record (node view or diff side) whose secret values are masked."""
    result = dict(record)
    for field, value in result.items():
        if isinstance(value, dict):
            result[field] = hardware.mask_secrets(driver, value)
    return result


def node_view(node, ports):
    """The node as the module returns it: what it manages, secrets masked, no instance_info."""
    view = summarize_node(node)
    for field in ('driver', 'driver_info', 'properties', 'resource_class', 'extra', 'conductor_group', 'owner',
                  'lessee', 'description', 'automated_clean', 'traits'):
        view[field] = node.get(field)
    view['interfaces'] = dict((name, node.get(interface_field(name))) for name in INTERFACES)
    view['ports'] = [port_view(port) for port in sorted(ports, key=lambda port: port['address'])]
    return masked(view, node.get('driver'))


# -- talking to Ironic -------------------------------------------------------------------------

def _check_driver_enabled(client, driver):
    enabled = client.list_drivers()
    if driver not in enabled:
        raise NodeError("Ironic does not enable the hardware type %r; it enables %s. Choose one of those, or add "
                        "it to enabled_hardware_types in ironic.conf and restart the conductor."
                        % (driver, ', '.join(enabled) or 'none'))


def _check_addresses_free(client, node_uuid, addresses):
    """Fail when another node already has a port with one of these MAC addresses."""
    for address in addresses:
        for port in client.list_ports(address=address):
            if port.get('node_uuid') == node_uuid:
                continue
            owner = client.find_node(port['node_uuid'], ('uuid', 'name')) or {}
            raise NodeError("MAC %s is already used by port %s of node %s. Remove that port (or the node) first, "
                            "or correct the address." % (address, port['uuid'], owner.get('name') or port['node_uuid']))


def _check_features(client, declared):
    for feature in _required_features(declared):
        client.require(feature, FEATURE_MIN_VERSION[feature])


def _create_ports(client, node_uuid, wanted_ports):
    for wanted in wanted_ports:
        body = dict((attribute, value) for attribute, value in wanted.items() if value is not None)
        body['node_uuid'] = node_uuid
        client.create_port(body)


def ensure_present(client, name, uuid, declared, update_secrets, validate_driver_info, check_mode):
    """Create or update the node. Returns the module result (changed, created, node, diff)."""
    node = client.find_node(name)
    driver = declared.get('driver', node and node.get('driver'))
    if node is None and driver is None:
        raise NodeError("Node %s does not exist; set driver to enroll it." % name)
    if validate_driver_info:
        check_driver_info(declared, driver, None if node is None else node.get('driver_info') or {})
    _check_features(client, declared)
    if node is None:
        return _create(client, name, uuid, declared, check_mode)
    return _update(client, node, declared, update_secrets == UPDATE_SECRETS_ALWAYS, check_mode)


def _create(client, name, uuid, declared, check_mode):
    _check_driver_enabled(client, declared['driver'])
    wanted_ports = declared.get('ports') or []
    _check_addresses_free(client, None, [port['address'] for port in wanted_ports])
    body = creation_body(declared, name, uuid)
    after = dict(body)
    if 'traits' in declared:
        after['traits'] = sorted(set(declared['traits']))
    if wanted_ports:
        after['ports'] = [_declared_port_view(port, None) for port in wanted_ports]
    result = {'changed': True, 'created': True, 'node': None,
              'diff': {'before': {}, 'after': masked(after, declared['driver'])}}
    if check_mode:
        return result
    # Ironic accepts another project as owner in POST only from system-scoped callers (never with noauth);
    # a PATCH is judged by its update policy instead.
    owner = body.pop('owner', None)
    node = client.create_node(body)
    try:
        if owner is not None and node.get('owner') != owner:
            client.update_node(node['uuid'], [{'op': 'replace', 'path': '/owner', 'value': owner}])
        if declared.get('traits'):
            client.set_traits(node['uuid'], sorted(set(declared['traits'])))
        _create_ports(client, node['uuid'], wanted_ports)
    except IronicError:
        # Half a node is worse than none: Ironic refused part of the record, so take back the rest.
        for port in client.list_ports(node_uuid=node['uuid']):
            client.delete_port(port['uuid'])
        client.delete_node(node['uuid'])
        raise
    result['node'] = node_view(client.get_node(node['uuid']), client.list_ports(node_uuid=node['uuid']))
    return result


def _update(client, node, declared, send_secrets, check_mode):
    uuid = node['uuid']
    if 'driver' in declared and declared['driver'] != node.get('driver'):
        _check_driver_enabled(client, declared['driver'])
    current_ports = client.list_ports(node_uuid=uuid)
    ports = PortChanges(current_ports, declared['ports']) if 'ports' in declared else None
    if ports:
        _check_addresses_free(client, uuid, [port['address'] for port in ports.create])
    operations, before, after = node_changes(node, declared, send_secrets)
    traits = traits_change(node, declared)
    if traits is not None:
        before['traits'] = sorted(node.get('traits') or [])
        after['traits'] = traits
    if ports:
        before['ports'] = ports.before
        after['ports'] = ports.after
    changed = bool(operations or traits is not None or ports)
    driver = declared.get('driver', node.get('driver'))
    diff = {'before': masked(before, node.get('driver')), 'after': masked(after, driver)}
    if changed and not check_mode:
        if operations:
            # Interfaces of the old driver would not work with the new one; Ironic resets those not declared.
            client.update_node(uuid, operations, reset_interfaces=driver != node.get('driver'))
        if traits is not None:
            client.set_traits(uuid, traits)
        if ports:
            # Deletions first: a MAC address may move from a deleted port to a created one.
            for port in ports.delete:
                client.delete_port(port['uuid'])
            for port, port_operations in ports.update:
                client.update_port(port['uuid'], port_operations)
            _create_ports(client, uuid, ports.create)
            current_ports = client.list_ports(node_uuid=uuid)
        node = client.get_node(uuid)
    return {'changed': changed, 'created': False, 'node': node_view(node, current_ports), 'diff': diff}


def ensure_absent(client, name, allow_destructive, timeout, check_mode):
    """Delete the node and its ports, first bringing it to manageable when Ironic would refuse otherwise.

    Returns the module result (changed, node, plan, transitions, diff); raises NodeError on failure.
    """
    node = client.find_node(name)
    if node is None:
        return {'changed': False, 'node': None, 'plan': [], 'transitions': [], 'diff': {'before': {}, 'after': {}}}
    ports = client.list_ports(node_uuid=node['uuid'])
    result = {'changed': True, 'node': None, 'plan': [], 'transitions': [],
              'diff': {'before': node_view(node, ports), 'after': {}}}
    if node['provision_state'] not in DELETE_ALLOWED_STATES:
        jobs, missing = converge(client, [Target(node['uuid'], 'manageable', Options(allow_destructive=allow_destructive))],
                                 check_mode=check_mode, timeout=timeout)
        if missing:
            raise NodeError(missing[0])
        job = jobs[0].result()
        result.update(plan=job['plan'], transitions=job['transitions'])
        if job['error']:
            raise NodeError('%s Ironic deletes nodes only in %s, so the node is brought to manageable first.'
                            % (job['error'], ', '.join(DELETE_ALLOWED_STATES)),
                            dict(result, changed=bool(job['transitions'])))
    if check_mode:
        return result
    for port in ports:
        client.delete_port(port['uuid'])
    client.delete_node(node['uuid'])
    return result
