# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node record as a task declares it, and what makes Ironic's record agree: no I/O here.

Validates the declaration (ports, traits, keys Ironic can patch, driver_info against the hardware type's
schema), computes JSON patches, trait and port changes, the before/after diff and the node view. A
declaration names only what it manages: a field left out, and a dictionary key left out, is never touched.
node/writer.py reads Ironic, hands what it read to these functions, and writes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import network_data
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import FEATURE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import NODE_OPTION_TYPES, Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import PATCHABLE_KEY, mac_errors, normalized_mac

INTERFACES = ('bios', 'boot', 'console', 'deploy', 'firmware', 'inspect', 'management', 'network', 'power',
              'raid', 'rescue', 'storage', 'vendor')

# Updated key by key: inspection and other tools fill them too.
DICT_FIELDS = ('driver_info', 'properties', 'extra', 'instance_info')

SCALAR_FIELDS = ('driver', 'resource_class', 'conductor_group', 'shard', 'owner', 'lessee', 'description',
                 'automated_clean', 'protected', 'protected_reason', 'retired', 'retired_reason', 'disable_power_off',
                 'network_data')

# Declared fields that have their own requests rather than a place in the node's JSON patch or POST body.
SEPARATE_FIELDS = ('ports', 'traits') + wiring.WIRING_FIELDS

# A reason field and the flag it needs: Ironic refuses the reason while the flag is false, and clears it
# when the flag is cleared.
REASON_FLAGS = (('protected_reason', 'protected'), ('retired_reason', 'retired'))

# Ironic makes a node protected only in these provision states.
PROTECTABLE_STATES = ('active', 'rescue')

PORT_ATTRIBUTES = ('pxe_enabled', 'physical_network', 'local_link_connection')

# Ironic accepts CUSTOM_ traits and the standard os-traits names, all of this shape, at most 255 long.
TRAIT_NAME = re.compile(r'^[A-Z][A-Z0-9_]{0,254}$')

UPDATE_SECRETS_ALWAYS = 'always'


class NodeError(BaremetalError):
    """A declaration Ironic would refuse or that would do harm; the message says what to change."""


def interface_field(name):
    return '%s_interface' % name


def _feature_of(field):
    if field.endswith('_interface'):
        return field if field in FEATURE_MIN_VERSION else 'interfaces'
    return field


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


def normalized_port(port):
    """A declared port as Ironic stores it: MAC address and switch_id in lower case."""
    entry = dict((attribute, port.get(attribute)) for attribute in PORT_ATTRIBUTES)
    entry['address'] = normalized_mac(port['address'])
    link = entry['local_link_connection']
    if link and isinstance(link.get('switch_id'), str):
        entry['local_link_connection'] = dict(link, switch_id=link['switch_id'].lower())
    return entry


def trait_errors(traits):
    """Problems of trait names (of a node, or of the nodes an allocation asks for)."""
    return ["trait %r is not a trait name: custom traits are CUSTOM_ followed by A-Z, 0-9 and _ (for example "
            "CUSTOM_GPU_A100); the others are os-traits names such as HW_CPU_X86_AVX2." % (trait,)
            for trait in traits or () if not TRAIT_NAME.match(str(trait))]


def check_declaration(declared, validate_driver_info=True):
    """What can be checked before asking Ironic anything. Raises NodeError listing every problem."""
    errors = _port_errors(declared.get('ports')) + wiring.declaration_errors(declared)
    errors.extend(trait_errors(declared.get('traits')))
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
        if declared['driver'] in driver_info.SUPPORTED_HARDWARE_TYPES:
            errors.extend(driver_info.validate_driver_info(declared['driver'], declared.get('driver_info'),
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


def _driver_info_errors(declared, driver, current_driver_info):
    if driver not in driver_info.SUPPORTED_HARDWARE_TYPES:
        return driver_info.validate_driver_info(driver, {}) + [
            'Set validate_driver_info: false to use a hardware type this collection has no schema for.']
    given = declared.get('driver_info') or {}
    known, required = _driver_info_keys(driver)
    after = dict(current_driver_info or {})
    after.update(given)
    after = dict((key, value) for key, value in after.items() if value is not None)
    errors = driver_info.validate_driver_info(driver, given, check_required=False)
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
        elif field == 'network_data':
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
    return secrets.masked(view)


# -- many nodes, one declaration each --------------------------------------------------------------

# What a declaration says of its node besides the record, which _node_converge brings about after the record (a
# field left out, None, is left alone): provision_state (a states.DECLARABLE_STATES), maintenance (true or false)
# with maintenance_reason, and power (a key of states.POWER_ACTIONS).
STATE_FIELDS = ('provision_state', 'maintenance', 'maintenance_reason', 'power')

# The options of baremetal_provision_state (provision.OPTION_SPEC) a node declaration takes: how its provision_state
# is reached. Those of provision.NODE_OPTION_TYPES may also be given per element of nodes; the others are task-wide.
PROVISION_OPTIONS = ('adopt', 'allow_destructive', 'config_drive', 'deploy_steps', 'inspection', 'rescue_password', 'unhold')
ELEMENT_PROVISION_OPTIONS = tuple(name for name in PROVISION_OPTIONS if name in NODE_OPTION_TYPES)


class Declaration(object):
    """One node as the task declares it: the node options of the module, or one element of nodes.

    states holds the STATE_FIELDS it declares (None: left alone), options the provision.Options that say how its
    provision_state is reached (and, with state absent, whether tearing it down is allowed).
    """

    def __init__(self, name, uuid=None, declared=None, state='present', validate_driver_info=True, label=None,
                 states=None, options=None, keep_workload=False):
        self.name = name
        self.uuid = uuid
        self.declared = declared or {}
        self.state = state
        self.validate_driver_info = validate_driver_info
        # How errors name the node: 'nodes[3] (rack1-node07)' in bulk mode, nothing with one node.
        self.label = label
        self.states = dict((field, (states or {}).get(field)) for field in STATE_FIELDS)
        self.options = options or Options()
        # With state absent: delete the record without a provision move, the workload kept (writer.ensure_absent).
        self.keep_workload = bool(keep_workload)

    def prefixed(self, message):
        return '%s: %s' % (self.label, message) if self.label else message


def _own_or_tasks(element, params, names):
    """The values an element of nodes gives for names, or the task's where it gives none (None or missing)."""
    return dict((name, params.get(name) if element.get(name) is None else element[name]) for name in names)


def declarations_from_params(params, selected=None):
    """The Declarations of a task: nodes elements inherit state, validate_driver_info, the STATE_FIELDS and the
    provision options from the task unless they set their own; with select, the selected nodes (as read) each get
    the task's record. A node without a name cannot be declared: baremetal_node finds nodes by name. An element
    declared absent takes the task's keep_workload unless it sets its own; one declared present takes only its own."""
    task_states = dict((field, params.get(field)) for field in STATE_FIELDS)
    task_options = Options(**dict((name, params[name]) for name in PROVISION_OPTIONS if params.get(name) is not None))
    if selected is not None:
        unnamed = [node['uuid'] for node in selected if not node.get('name')]
        if unnamed:
            raise NodeError('select matches nodes without a name (%s); baremetal_node finds nodes by name. Name '
                            'them, or narrow select.' % ', '.join(unnamed))
        return [Declaration(node['name'], None, declared_record(params), params['state'], params['validate_driver_info'],
                            label='node %s' % node['name'], states=task_states, options=task_options,
                            keep_workload=params.get('keep_workload'))
                for node in selected]
    if params.get('nodes') is None:
        return [Declaration(params['name'], params.get('uuid'), declared_record(params), params['state'],
                            params['validate_driver_info'], states=task_states, options=task_options,
                            keep_workload=params.get('keep_workload'))]
    declarations = []
    for index, element in enumerate(params['nodes']):
        inherited = _own_or_tasks(element, params, ('state', 'validate_driver_info'))
        # A node declared absent has no state but its own (which check_declarations refuses).
        element_states = (_own_or_tasks(element, params, STATE_FIELDS) if inherited['state'] == 'present'
                          else dict((field, element.get(field)) for field in STATE_FIELDS))
        options = task_options.overridden(**dict((name, element[name]) for name in ELEMENT_PROVISION_OPTIONS
                                                 if element.get(name) is not None))
        keep_workload = element.get('keep_workload')
        if keep_workload is None and inherited['state'] == 'absent':
            keep_workload = params.get('keep_workload')
        declarations.append(Declaration(element['name'], element.get('uuid'), declared_record(element),
                                        inherited['state'], inherited['validate_driver_info'],
                                        label='nodes[%d] (%s)' % (index, element['name']), states=element_states,
                                        options=options, keep_workload=keep_workload))
    return declarations


def check_declarations(declarations):
    """What can be checked before anything is read: [(declaration, message)] for every problem."""
    problems, addresses = [], {}
    for declaration in declarations:
        try:
            check_declaration(declaration.declared, declaration.validate_driver_info)
        except NodeError as exc:
            problems.append((declaration, str(exc)))
        stated = [field for field in STATE_FIELDS if declaration.states[field] is not None]
        if declaration.state == 'absent' and stated:
            problems.append((declaration, 'state: absent deletes the node, so it cannot also declare %s; drop %s or '
                                          'declare state: present.' % (', '.join(stated), ', '.join(stated))))
        problems.extend((declaration, message) for message in _keep_workload_problems(declaration))
        problems.extend((declaration, message) for message in wiring.absent_problems(declaration))
        for port in declaration.declared.get('ports') or ():
            other = addresses.setdefault(port['address'], declaration)
            if other is not declaration:
                problems.append((declaration, 'port %s is also declared by %s; a MAC address belongs to one node.'
                                 % (port['address'], other.label)))
    return problems + wiring.bulk_problems(declarations)


def _keep_workload_problems(declaration):
    if not declaration.keep_workload:
        return []
    if declaration.state != 'absent':
        return ['keep_workload keeps the workload of a node whose record state: absent deletes; it means nothing with '
                'state: present. Drop keep_workload, or declare state: absent.']
    if declaration.options.allow_destructive:
        return ['keep_workload deletes the record without touching the workload, and allow_destructive allows tearing '
                'the workload down on the way to deleting it; choose one.']
    return []


def refusal(declarations, problems):
    """One NodeError naming every problem, in the order of the declarations."""
    order = dict((id(declaration), index) for index, declaration in enumerate(declarations))
    problems = sorted(problems, key=lambda problem: order[id(problem[0])])
    return NodeError(' | '.join(declaration.prefixed(message) for declaration, message in problems))


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


def check_flags(node, declared):
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
    if declared.get('retired') and not current.get('retired') and state in states.UNRETIRABLE_STATES:
        raise NodeError("Ironic does not retire an available node: bring it to manageable first "
                        "(baremetal.lifecycle.baremetal_provision_state state: manageable), then retire it.")
