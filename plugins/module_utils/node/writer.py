# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the declared nodes from Ironic once, check each against what it holds, and write the changes.

Every check (node/record.py, plus what needs a read: the enabled hardware types, MAC addresses of other
nodes, API versions) is made for every node before the first write. Writes recover from lost answers:
a POST whose answer was lost is looked up by name before it is sent again, a PATCH is read back and only
what Ironic did not apply is sent again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from contextlib import contextmanager

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.bmc_check import verified
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import FEATURE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    INTERFACES, PORT_ATTRIBUTES, SEPARATE_FIELDS, UPDATE_SECRETS_ALWAYS, VIEW_FIELDS, Change, NodeError, check_declarations,
    check_driver_info, check_flags, interface_field, node_changes, node_view, refusal, required_features)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import is_at_rest
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Options, Target, converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DELETE_ALLOWED_STATES

PORT_FIELDS = ('uuid', 'address', 'node_uuid', 'portgroup_uuid') + PORT_ATTRIBUTES


def read_fields(declarations):
    """What is read of each declared node; the client leaves out a field the server is too old for."""
    fields = NODE_SUMMARY_FIELDS + VIEW_FIELDS + tuple(interface_field(name) for name in INTERFACES)
    if any('instance_info' in declaration.declared for declaration in declarations):
        fields += ('instance_info',)
    return fields + wiring.read_fields(declarations)


class Snapshot(object):
    """What Ironic holds for the declared nodes, read once: nodes by name, ports by node.

    The nodes are read in proportion to the declaration (find_nodes), and so are the ports: each found node's
    with one request, or every port in one list per page when the lookup listed every node Ironic holds.
    """

    def __init__(self, client, declarations):
        self.client = client
        self.fields = read_fields(declarations)
        self._drivers = None
        # A name is never a UUID (validate.check_node_name): find_nodes matches it by name only.
        self.nodes, _missing = find_nodes(client, [declaration.name for declaration in declarations], self.fields)
        if client.node_count is not None:
            # The lookup listed every node Ironic holds (it holds few more than declared, or so many are declared
            # that listing was cheaper): a list of every port then costs fewer requests than one per node.
            ports = client.list_ports(fields=PORT_FIELDS)
            self._ports_by_address = dict((port['address'], port) for port in ports)
        else:
            ports = [port for node in self.nodes.values()
                     for port in client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS)]
            self._ports_by_address = None
        self.ports = {}
        for port in ports:
            self.ports.setdefault(port['node_uuid'], []).append(port)

    def drivers(self):
        if self._drivers is None:
            self._drivers = self.client.list_drivers()
        return self._drivers

    def port_owner(self, address):
        """The port with this address, or None (from the list of every port, or one request)."""
        if self._ports_by_address is not None:
            return self._ports_by_address.get(address)
        found = self.client.list_ports(address=address, fields=PORT_FIELDS)
        return found[0] if found else None


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
    for feature in required_features(declared):
        client.require(feature, FEATURE_MIN_VERSION[feature])
    check_flags(node, declared)
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
    change.wiring = wiring.plan(client, declared, node, change)
    return change


def plan_changes(client, declarations, send_secrets):
    """Read Ironic once for every declaration, check each, and return (Changes, [(declaration, message)]).
    Nothing is written."""
    snapshot = Snapshot(client, declarations)
    changes, problems = [], []
    for declaration in declarations:
        try:
            changes.append(check_change(snapshot, declaration, send_secrets))
        except (NodeError, IronicError, wiring.WiringError) as exc:
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


def apply_change(client, change, check_mode, verify_bmc=True):
    """Make one node what its Change says. Returns its result (name, changed, created, node, diff, bmc_verified).

    The node returned is built from Ironic's answers to the writes, without reading it again. With verify_bmc, a
    write that changes a BMC secret is followed by a check that Ironic can use it (_bmc_check).
    """
    result = {'name': change.declaration.name, 'changed': change.changed, 'created': change.node is None,
              'node': None if change.node is None else wiring.view(change.wiring, node_view(change.node, change.current_ports)),
              'diff': change.diff, 'bmc_verified': None}
    if not change.changed or check_mode:
        return result
    try:
        node, ports = _create(client, change) if change.node is None else _update(client, change)
        result['node'] = wiring.apply(client, change.wiring, node, ports, node_view)
    except BaremetalError as exc:
        raise NodeError(str(exc), dict(result, **exc.result))
    return verified(client, change, node, result) if verify_bmc else result


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
                  if field not in SEPARATE_FIELDS + ('owner',))
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


def ensure_nodes(client, declarations, update_secrets, check_mode, concurrency=1, timeout=1800, verify_bmc=True):
    """Create, update or delete every declared node. Returns the per-node results, in the declared order.

    Every declaration is checked before the first write; then at most ``concurrency`` nodes are written at
    once, and a node that fails (or whose new BMC secret Ironic cannot use, with verify_bmc) has its error in
    its result while the others go on.
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
        raise refusal(declarations, problems)
    changes = dict((change.declaration.name, change) for change in changes)

    def converge_one(declaration):
        if declaration.state == 'absent':
            return dict(ensure_absent(client, declaration.name, declaration.options.allow_destructive, timeout, check_mode,
                                      declaration.keep_workload), name=declaration.name)
        return apply_change(client, changes[declaration.name], check_mode, verify_bmc)

    results = run_each(declarations, converge_one, concurrency)
    for declaration, result in zip(declarations, results):
        result.update(name=declaration.name, error=result.get('error'))
    return results


# The maintenance reason of a node whose record is deleted with keep_workload (ensure_absent).
DETACH_REASON = 'being detached by baremetal.lifecycle.baremetal_node (keep_workload): its record is deleted, its workload kept'


def ensure_absent(client, name, allow_destructive, timeout, check_mode, keep_workload=False):
    """Delete the node and its ports, first bringing it to manageable when Ironic would refuse otherwise; with
    keep_workload, a node Ironic would not delete as it is goes into maintenance instead (_detach).

    Returns the module result (changed, node, plan, transitions, diff, and detach with keep_workload); raises
    NodeError on failure.
    """
    node = client.find_node(name)
    if node is None:
        return {'changed': False, 'node': None, 'plan': [], 'transitions': [], 'diff': {'before': {}, 'after': {}}}
    ports = client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS)
    result = {'changed': True, 'node': None, 'plan': [], 'transitions': [],
              'diff': {'before': node_view(node, ports), 'after': {}}}
    if keep_workload:
        return _detach(client, node, result, check_mode)
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


def detach_steps(node):
    """Whether deleting the node's record without a provision move first needs maintenance: Ironic deletes a node
    in maintenance whatever its provision state, and one out of it only in DELETE_ALLOWED_STATES.
    Raises NodeError where Ironic would refuse the delete, or would delete a node in the middle of a move."""
    if node.get('protected'):
        raise NodeError('node %s is protected%s, and Ironic refuses to delete a protected node. Set protected: false '
                        '(baremetal.lifecycle.baremetal_node) first, then rerun.'
                        % (node['name'], ' (%s)' % node['protected_reason'] if node.get('protected_reason') else ''))
    if not is_at_rest(node['provision_state'], node.get('target_provision_state')):
        raise NodeError("node %s is moving (%s, target %s); keep_workload deletes the record of a node at rest only, "
                        "so that no half-done move is left on the hardware. Wait until it settles, then rerun."
                        % (node['name'], node['provision_state'], node.get('target_provision_state')))
    return not node.get('maintenance') and node['provision_state'] not in DELETE_ALLOWED_STATES


def _detach(client, node, result, check_mode):
    """Delete the node's record and leave its workload running: no provision move, maintenance set first where
    Ironic needs it (with DETACH_REASON), then the DELETE, which takes the ports with the node."""
    sets_maintenance = detach_steps(node)
    result['detach'] = {'provision_state': node['provision_state'], 'maintenance_set': sets_maintenance,
                        'maintenance_reason': DETACH_REASON if sets_maintenance
                        else masked_text(node.get('maintenance_reason'))}
    if check_mode:
        return result
    if sets_maintenance:
        with _when_refused(dict(result, changed=False)):
            client.set_maintenance(node['uuid'], DETACH_REASON)
    try:
        client.delete_node(node['uuid'])
    except AnswerLost:
        raise
    except BaremetalError as exc:
        raise NodeError('%s The node is left in maintenance, its workload untouched; rerun to delete it.' % exc
                        if sets_maintenance else str(exc), dict(result, changed=sets_maintenance))
    return result
