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

import functools
import re
from contextlib import contextmanager

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _hardware as hardware
from ansible_collections.baremetal.lifecycle.plugins.module_utils._bulk import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import (
    FEATURE_MIN_VERSION, NODE_SUMMARY_FIELDS, AnswerLost, IronicError, summarize_node)
from ansible_collections.baremetal.lifecycle.plugins.module_utils._provision import Options, Target, converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils._states import DELETE_ALLOWED_STATES

INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect', 'management', 'network', 'power',
              'raid', 'rescue', 'storage', 'vendor')

# Updated key by key: inspection and other tools fill them too.
DICT_FIELDS = ('driver_info', 'properties', 'extra', 'instance_info')

# Ironic masks the values of these fields' secret keys, so they cannot be compared.
SECRET_FIELDS = ('driver_info', 'instance_info')

SCALAR_FIELDS = ('driver', 'resource_class', 'conductor_group', 'shard', 'owner', 'lessee', 'description',
                 'automated_clean', 'protected', 'protected_reason', 'retired', 'retired_reason')

# A reason field and the flag it needs: Ironic refuses the reason while the flag is false, and clears it
# when the flag is cleared.
REASON_FLAGS = (('protected_reason', 'protected'), ('retired_reason', 'retired'))

# Ironic makes a node protected only in these provision states, and never retires an available node.
PROTECTABLE_STATES = ('active', 'rescue')
UNRETIRABLE_STATES = ('available',)

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
    if 'conductor_group' in declared:
        # Ironic stores it in lower case, but looks up the conductors of a new node's group as the POST spells it.
        declared['conductor_group'] = declared['conductor_group'].lower()
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
    for reason, flag in REASON_FLAGS:
        if declared.get(reason) and declared.get(flag) is False:
            errors.append('%s is only kept while %s is true, and %s is false: drop %s or set %s: true.'
                          % (reason, flag, flag, reason, flag))
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


@functools.lru_cache(maxsize=None)
def _driver_info_keys(driver):
    """(known keys, required keys) of a hardware type's driver_info: read once, not copied for every node."""
    schema = hardware.driver_info_schema(driver)
    return frozenset(schema['properties']), tuple(schema['required'])


def _driver_info_errors(declared, driver, current_driver_info):
    if driver not in hardware.SUPPORTED_HARDWARE_TYPES:
        return hardware.validate_driver_info(driver, {}) + [
            'Set validate_driver_info: false to use a hardware type this collection has no schema for.']
    given = declared.get('driver_info') or {}
    known, required = _driver_info_keys(driver)
    after = dict(current_driver_info or {})
    after.update(given)
    after = dict((key, value) for key, value in after.items() if value is not None)
    errors = hardware.validate_driver_info(driver, given, check_required=False)
    if current_driver_info is not None and 'driver' in declared:
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


# The fields of a node the module compares and returns (instance_info is only read when declared).
VIEW_FIELDS = ('driver', 'driver_info', 'properties', 'resource_class', 'extra', 'conductor_group', 'shard', 'owner',
               'lessee', 'description', 'automated_clean', 'traits', 'protected', 'protected_reason', 'retired',
               'retired_reason')


def node_view(node, ports):
    """The node as the module returns it: what it manages, secrets masked, no instance_info."""
    view = summarize_node(node)
    for field in VIEW_FIELDS:
        view[field] = node.get(field)
    view['interfaces'] = dict((name, node.get(interface_field(name))) for name in INTERFACES)
    view['ports'] = [port_view(port) for port in sorted(ports, key=lambda port: port['address'])]
    return masked(view, node.get('driver'))


# -- many nodes, one declaration each --------------------------------------------------------------

class Declaration(object):
    """One node as the task declares it: the node options of the module, or one element of nodes."""

    def __init__(self, name, uuid=None, declared=None, state='present', validate_driver_info=True, label=None):
        self.name = name
        self.uuid = uuid
        self.declared = declared or {}
        self.state = state
        self.validate_driver_info = validate_driver_info
        # How errors name the node: 'nodes[3] (rack1-node07)' in bulk mode, nothing with one node.
        self.label = label

    def prefixed(self, message):
        return '%s: %s' % (self.label, message) if self.label else message


def declarations_from_params(params):
    """The Declarations of a task: nodes elements inherit state and validate_driver_info from the task."""
    if params.get('nodes') is None:
        return [Declaration(params['name'], params.get('uuid'), declared_record(params), params['state'],
                            params['validate_driver_info'])]
    declarations = []
    for index, element in enumerate(params['nodes']):
        inherited = dict((option, params[option] if element.get(option) is None else element[option])
                         for option in ('state', 'validate_driver_info'))
        declarations.append(Declaration(element['name'], element.get('uuid'), declared_record(element),
                                        inherited['state'], inherited['validate_driver_info'],
                                        label='nodes[%d] (%s)' % (index, element['name'])))
    return declarations


def check_declarations(declarations):
    """What can be checked before anything is read: [(declaration, message)] for every problem."""
    problems, addresses = [], {}
    for declaration in declarations:
        try:
            check_declaration(declaration.declared, declaration.validate_driver_info)
        except NodeError as exc:
            problems.append((declaration, str(exc)))
        for port in declaration.declared.get('ports') or ():
            other = addresses.setdefault(port['address'], declaration)
            if other is not declaration:
                problems.append((declaration, 'port %s is also declared by %s; a MAC address belongs to one node.'
                                 % (port['address'], other.label)))
    return problems


def _refusal(declarations, problems):
    """One NodeError naming every problem, in the order of the declarations."""
    order = dict((id(declaration), index) for index, declaration in enumerate(declarations))
    problems = sorted(problems, key=lambda problem: order[id(problem[0])])
    return NodeError(' | '.join(declaration.prefixed(message) for declaration, message in problems))


# -- talking to Ironic -------------------------------------------------------------------------

PORT_FIELDS = ('uuid', 'address', 'node_uuid') + PORT_ATTRIBUTES


def readable_fields(client, fields):
    """The fields this Ironic can return: a field newer than its API version is left out."""
    return tuple(field for field in fields
                 if field not in FEATURE_MIN_VERSION or client.supports(FEATURE_MIN_VERSION[field]))


def read_fields(client, declarations):
    fields = NODE_SUMMARY_FIELDS + VIEW_FIELDS + tuple(interface_field(name) for name in INTERFACES)
    if any('instance_info' in declaration.declared for declaration in declarations):
        fields += ('instance_info',)
    return readable_fields(client, fields)


class Snapshot(object):
    """What Ironic holds for the declared nodes, read once: nodes by name, ports by node and by address.

    One node is read with one GET (and its ports with one more); many with one list request per page of
    nodes and one per page of ports, whatever their number.
    """

    def __init__(self, client, declarations):
        self.client = client
        self.fields = read_fields(client, declarations)
        self._drivers = None
        names = [declaration.name for declaration in declarations]
        if len(names) == 1:
            node = client.find_node(names[0], self.fields)  # a name is never a UUID (_validate.check_node_name)
            self.nodes = {names[0]: node} if node else {}
            ports = client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS) if node else []
            self._ports_by_address = None
        else:
            wanted = set(names)
            self.nodes = dict((node['name'], node) for node in client.list_nodes(fields=self.fields)
                              if node.get('name') in wanted)
            ports = client.list_ports(fields=PORT_FIELDS)
            self._ports_by_address = dict((port['address'], port) for port in ports)
        self.ports = {}
        for port in ports:
            self.ports.setdefault(port['node_uuid'], []).append(port)

    def drivers(self):
        if self._drivers is None:
            self._drivers = self.client.list_drivers()
        return self._drivers

    def port_owner(self, address):
        """The port with this address, or None (from the port list, or one request with one node)."""
        if self._ports_by_address is not None:
            return self._ports_by_address.get(address)
        found = self.client.list_ports(address=address, fields=PORT_FIELDS)
        return found[0] if found else None


class Change(object):
    """What one declared node needs, computed in memory from the Snapshot; apply() makes the writes."""

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
            self.diff = {'before': {}, 'after': masked(after, declared['driver'])}
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
        driver = declared.get('driver', node.get('driver'))
        self.diff = {'before': masked(before, node.get('driver')), 'after': masked(after, driver)}

    @property
    def changed(self):
        return self.node is None or bool(self.operations or self.traits is not None or self.ports)


def check_change(snapshot, declaration, send_secrets):
    """The Change of one declared node, after every check that needs what Ironic holds. Raises NodeError."""
    client = snapshot.client
    declared = declaration.declared
    node = snapshot.nodes.get(declaration.name)
    driver = declared.get('driver', node and node.get('driver'))
    if node is None and driver is None:
        raise NodeError("Node %s does not exist; set driver to enroll it." % declaration.name)
    if declaration.validate_driver_info:
        check_driver_info(declared, driver, None if node is None else node.get('driver_info') or {})
    for feature in _required_features(declared):
        client.require(feature, FEATURE_MIN_VERSION[feature])
    _check_flags(node, declared)
    change = Change(declaration, node, snapshot.ports.get(node['uuid'], []) if node else [], send_secrets)
    if driver != (node or {}).get('driver') and driver not in snapshot.drivers():
        raise NodeError("Ironic does not enable the hardware type %r; it enables %s. Choose one of those, or add "
                        "it to enabled_hardware_types in ironic.conf and restart the conductor."
                        % (driver, ', '.join(snapshot.drivers()) or 'none'))
    for port in change.ports.create if change.ports else ():
        owner = snapshot.port_owner(port['address'])
        if owner is not None and (node is None or owner['node_uuid'] != node['uuid']):
            other = client.find_node(owner['node_uuid'], ('uuid', 'name')) or {}
            raise NodeError("MAC %s is already used by port %s of node %s. Remove that port (or the node) first, "
                            "or correct the address." % (port['address'], owner['uuid'],
                                                         other.get('name') or owner['node_uuid']))
    return change


def _check_flags(node, declared):
    """protected, retired and their reasons as Ironic will take them, judged before anything is sent."""
    current = node or {}
    state = current.get('provision_state', 'enroll')
    for reason, flag in REASON_FLAGS:
        if declared.get(reason) and not declared.get(flag, current.get(flag)):
            raise NodeError('%s is only kept while %s is true, and the node is not %s: set %s: true as well.'
                            % (reason, flag, flag, flag))
    if declared.get('protected') and not current.get('protected') and state not in PROTECTABLE_STATES:
        raise NodeError("Ironic protects a node only in %s; this node is in '%s'%s. Declare protected once the "
                        "node is deployed." % (' or '.join(PROTECTABLE_STATES), state,
                                               ' (it is being created)' if node is None else ''))
    if declared.get('retired') and not current.get('retired') and state in UNRETIRABLE_STATES:
        raise NodeError("Ironic does not retire an available node: bring it to manageable first "
                        "(baremetal.lifecycle.baremetal_provision_state state: manageable), then retire it.")


def plan_changes(client, declarations, send_secrets):
    """Read Ironic once for every declaration, check each, and return (Changes, [(declaration, message)]).
    Nothing is written."""
    snapshot = Snapshot(client, declarations)
    changes, problems = [], []
    for declaration in declarations:
        try:
            changes.append(check_change(snapshot, declaration, send_secrets))
        except (NodeError, IronicError) as exc:
            problems.append((declaration, str(exc)))
    return changes, problems


# The result of a creation that left nothing in Ironic.
NOTHING_CREATED = {'changed': False, 'created': False, 'node': None}


@contextmanager
def _when_refused(result):
    """A write Ironic refused fails the node with result. After a lost answer the result stands as it was:
    Ironic may have applied the write."""
    try:
        yield
    except AnswerLost:
        raise
    except BaremetalError as exc:
        raise NodeError(str(exc), result)


def apply_change(client, change, check_mode):
    """Make one node what its Change says. Returns its result (name, changed, created, node, diff).

    The node returned is built from Ironic's answers to the writes, without reading it again.
    """
    result = {'name': change.declaration.name, 'changed': change.changed, 'created': change.node is None,
              'node': None if change.node is None else node_view(change.node, change.current_ports),
              'diff': change.diff}
    if not change.changed or check_mode:
        return result
    try:
        node, ports = _create(client, change) if change.node is None else _update(client, change)
    except BaremetalError as exc:
        raise NodeError(str(exc), dict(result, **exc.result))
    result['node'] = node_view(node, ports)
    return result


def _create(client, change):
    """POST the node, then its owner, traits and ports. A NodeError says nothing was created when Ironic holds
    no part of the node (its POST refused, or the rest refused and the node taken back)."""
    declared = change.declaration.declared
    body = dict(change.body)
    # Ironic accepts another project as owner in POST only from system-scoped callers (never with noauth);
    # a PATCH is judged by its update policy instead.
    owner = body.pop('owner', None)
    with _when_refused(NOTHING_CREATED):
        node = _create_node(client, body, declared)
    try:
        if owner is not None and node.get('owner') != owner:
            node = client.update_node(node['uuid'], [{'op': 'replace', 'path': '/owner', 'value': owner}])
        if declared.get('traits'):
            node['traits'] = sorted(set(declared['traits']))
            client.set_traits(node['uuid'], node['traits'])
        ports = _create_ports(client, node['uuid'], declared.get('ports') or [])
    except IronicError as exc:
        # Half a node is worse than none: Ironic refused part of the record, so take back the rest.
        for port in client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS):
            client.delete_port(port['uuid'])
        client.delete_node(node['uuid'])
        raise NodeError(str(exc), NOTHING_CREATED)
    return node, ports


def _create_node(client, body, declared):
    """POST the node; after a lost answer or a 'name exists' refusal, the node found under that name, when it
    is the record we sent. Never creates it twice."""
    try:
        return client.create_node(body)
    except AnswerLost:
        existing = client.find_node(body['name'])
        if existing is None:
            # Ironic never got it; the name is unique, so a second POST cannot create a second node.
            return client.create_node(body)
        refusal = None
    except IronicError as exc:
        if exc.status != 409:
            raise
        existing, refusal = client.find_node(body['name']), exc
        if existing is None:
            raise
    if not _is_record_sent(existing, body, declared):
        raise refusal or NodeError("node %s appeared while it was being created, and it is not the record sent. "
                                   "Look at who else enrolls it, then rerun." % body['name'])
    return existing


def _is_record_sent(node, body, declared):
    if node.get('name') != body['name'] or node.get('provision_state') != 'enroll':
        return False
    if body.get('uuid') and node['uuid'] != body['uuid']:
        return False
    record = dict((field, value) for field, value in declared.items()
                  if field not in ('ports', 'traits', 'owner'))
    return not node_changes(node, record, send_secrets=False)[0]


def _create_ports(client, node_uuid, wanted_ports):
    """Create the ports; returns them as Ironic answered (or holds them, after a lost answer)."""
    created = []
    for wanted in wanted_ports:
        body = dict((attribute, value) for attribute, value in wanted.items() if value is not None)
        body['node_uuid'] = node_uuid
        try:
            created.append(client.create_port(body))
        except AnswerLost:
            port = _port_of(client, node_uuid, body['address'])
            created.append(port if port is not None else client.create_port(body))
        except IronicError as exc:
            # 409: the address exists; fine when it is this node's port, which a lost answer may have created.
            port = _port_of(client, node_uuid, body['address']) if exc.status == 409 else None
            if port is None:
                raise
            created.append(port)
    return created


def _port_of(client, node_uuid, address):
    return next((port for port in client.list_ports(address=address, fields=PORT_FIELDS)
                 if port['node_uuid'] == node_uuid), None)


def _update(client, change):
    node, declared = change.node, change.declaration.declared
    uuid = node['uuid']
    if change.operations:
        driver = declared.get('driver', node.get('driver'))
        # The record is the first write: when Ironic refuses it, nothing changed.
        with _when_refused({'changed': False}):
            # What the answer lacks (a field of a newer API, traits) is as read.
            node = dict(node, **_patch_node(client, node, change.operations, declared,
                                            reset_interfaces=driver != node.get('driver')))
    if change.traits is not None:
        client.set_traits(uuid, change.traits)
        node = dict(node, traits=change.traits)
    ports = change.current_ports
    if change.ports:
        # Deletions first: a MAC address may move from a deleted port to a created one.
        for port in change.ports.delete:
            client.delete_port(port['uuid'])
        updated = dict((port['uuid'], client.update_port(port['uuid'], port_operations))
                       for port, port_operations in change.ports.update)
        deleted = set(port['uuid'] for port in change.ports.delete)
        ports = [updated.get(port['uuid'], port) for port in ports if port['uuid'] not in deleted]
        ports += _create_ports(client, uuid, change.ports.create)
    return node, ports


def _patch_node(client, node, operations, declared, reset_interfaces):
    """PATCH the node and return Ironic's answer. When the answer is lost, the node is read again: what Ironic
    applied is not sent again, and what it did not is sent once more."""
    try:
        # Interfaces of the old driver would not work with the new one; Ironic resets those not declared.
        return client.update_node(node['uuid'], operations, reset_interfaces=reset_interfaces)
    except AnswerLost:
        current = client.get_node(node['uuid'])
        missing = node_changes(current, declared, send_secrets=False)[0]
        if not missing:
            return current
        return client.update_node(node['uuid'], missing, reset_interfaces=reset_interfaces)


def ensure_nodes(client, declarations, update_secrets, check_mode, concurrency=1, allow_destructive=False,
                 timeout=1800):
    """Create, update or delete every declared node. Returns the per-node results, in the declared order.

    Every declaration is checked before the first write; then at most ``concurrency`` nodes are written at
    once, and a node that fails has its error in its result while the others go on.
    """
    send_secrets = update_secrets == UPDATE_SECRETS_ALWAYS
    problems = check_declarations(declarations)
    invalid = set(id(declaration) for declaration, _message in problems)
    present = [declaration for declaration in declarations
               if declaration.state == 'present' and id(declaration) not in invalid]
    changes = []
    if present:
        changes, read_problems = plan_changes(client, present, send_secrets)
        problems.extend(read_problems)
    if problems:
        raise _refusal(declarations, problems)
    changes = dict((change.declaration.name, change) for change in changes)

    def converge_one(declaration):
        if declaration.state == 'absent':
            return dict(ensure_absent(client, declaration.name, allow_destructive, timeout, check_mode),
                        name=declaration.name)
        return apply_change(client, changes[declaration.name], check_mode)

    results = run_each(declarations, converge_one, concurrency)
    for declaration, result in zip(declarations, results):
        result.update(name=declaration.name, error=result.get('error'))
    return results


def ensure_absent(client, name, allow_destructive, timeout, check_mode):
    """Delete the node and its ports, first bringing it to manageable when Ironic would refuse otherwise.

    Returns the module result (changed, node, plan, transitions, diff); raises NodeError on failure.
    """
    node = client.find_node(name)
    if node is None:
        return {'changed': False, 'node': None, 'plan': [], 'transitions': [], 'diff': {'before': {}, 'after': {}}}
    ports = client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS)
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
                            dict(result, changed=job['changed']))
    if check_mode:
        return result
    for port in ports:
        client.delete_port(port['uuid'])
    client.delete_node(node['uuid'])
    return result


# -- maintenance --------------------------------------------------------------------------------

def wanted_maintenance(node, state, reason):
    """(maintenance, reason) the node should have. Ironic stores no reason as null."""
    if state == 'disabled':
        return False, None
    if reason is None and node.get('maintenance'):
        return True, node.get('maintenance_reason')
    return True, reason or None


def ensure_maintenance(client, node, state, reason, check_mode):
    """Set or clear one node's maintenance and reason. Returns its result."""
    current = (bool(node.get('maintenance')), node.get('maintenance_reason') or None)
    wanted = wanted_maintenance(node, state, reason)
    changed = current != wanted
    if changed and not check_mode:
        if wanted[0]:
            client.set_maintenance(node['uuid'], wanted[1])
        else:
            client.unset_maintenance(node['uuid'])
        node = client.get_node(node['uuid'], NODE_SUMMARY_FIELDS)
        wanted = (node.get('maintenance'), node.get('maintenance_reason'))
    return {'changed': changed, 'maintenance': wanted[0], 'maintenance_reason': wanted[1],
            'node': summarize_node(node),
            'diff': {'before': {'maintenance': current[0], 'maintenance_reason': current[1]},
                     'after': {'maintenance': wanted[0], 'maintenance_reason': wanted[1]}}}
