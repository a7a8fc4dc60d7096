# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What Ironic holds for the nodes a task declares, read once, and every check that needs it.

Every check (node/record.py, plus what needs a read: the enabled hardware types, MAC addresses of other
nodes, API versions) is made for every node before the first write (node/writer.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import interface_field
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import FEATURE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.preconditions import (
    PRECONDITION_FIELDS, UPDATE_NODE, UPDATE_PORT, Write, node_writes, refusals)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    INTERFACES, PORT_ATTRIBUTES, VIEW_FIELDS, Change, NodeError, required_features)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_checks import check_driver_info, check_flags

PORT_FIELDS = ('uuid', 'address', 'node_uuid', 'portgroup_uuid') + PORT_ATTRIBUTES


def read_fields(declarations):
    """What is read of each declared node; the client leaves out a field the server is too old for."""
    fields = (NODE_SUMMARY_FIELDS + VIEW_FIELDS + tuple(interface_field(name) for name in INTERFACES)
              + tuple(field for field in PRECONDITION_FIELDS if field not in VIEW_FIELDS + NODE_SUMMARY_FIELDS))
    if any('instance_info' in declaration.declared for declaration in declarations):
        fields += ('instance_info',)
    return fields + wiring.read_fields(declarations)


class Snapshot(object):
    """What Ironic holds for the declared nodes, read once: nodes by name, ports by node.

    The nodes are read in proportion to the declaration (find_nodes), and so are the ports: each found node's
    with one request, or every port in one list per page when the lookup listed every node Ironic holds.
    """

    def __init__(self, client, fields, nodes, ports, ports_by_address=None):
        self.client = client
        self.fields = fields
        self.nodes = nodes
        self.ports = {}
        for port in ports:
            self.ports.setdefault(port['node_uuid'], []).append(port)
        # Every port Ironic holds by address, when ports lists them all; else None: port_owner asks Ironic.
        self._ports_by_address = ports_by_address
        self._drivers = None

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


def read_snapshot(client, declarations):
    """The Snapshot of the declared nodes: the nodes by name (find_nodes), and their ports."""
    fields = read_fields(declarations)
    # A name is never a UUID (validate.check_node_name): find_nodes matches it by name only.
    nodes, _missing = find_nodes(client, [declaration.name for declaration in declarations], fields)
    if client.node_count is not None:
        # The lookup listed every node Ironic holds (it holds few more than declared, or so many are declared
        # that listing was cheaper): a list of every port then costs fewer requests than one per node.
        ports = client.list_ports(fields=PORT_FIELDS)
        return Snapshot(client, fields, nodes, ports, dict((port['address'], port) for port in ports))
    ports = [port for node in nodes.values() for port in client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS)]
    return Snapshot(client, fields, nodes, ports)


def check_change(snapshot, declaration, send_secrets):
    """The Change of one declared node, after every check that needs what Ironic holds. Raises NodeError."""
    client = snapshot.client
    declared = declaration.declared
    node = snapshot.nodes.get(declaration.name)
    driver = declared.get('driver', node and node.get('driver'))
    if node is None and driver is None:
        raise NodeError("Node %s does not exist; set driver to enroll it." % declaration.name)
    if declaration.validate_driver_info:
        check_driver_info(declared, driver, None if node is None else node.get('driver_info') or {},
                          None if node is None else node.get('driver'))
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
                                                         node_label(other, owner['node_uuid'])))
    change.wiring = wiring.plan(client, declared, node, change)
    # What Ironic refuses in the node's state (engine/preconditions.py): a new node is judged as enrolled.
    refused = refusals(node or {'name': declaration.name, 'provision_state': 'enroll'}, planned_writes(change),
                       label=None if node else '%s (being created)' % declaration.name)
    if refused:
        raise NodeError(' '.join(refused))
    return change


def planned_writes(change):
    """The engine.preconditions.Writes the record of a Change sends, in order: the node's fields (a node to be
    created: the fields of its POST, judged as its first update), its ports' updates, then the moves of its ports
    between port groups (its wiring)."""
    if change.node is None:
        return [Write(UPDATE_NODE, field, value) for field, value in sorted(change.body.items())]
    writes = node_writes(change.operations)
    for _port, operations in change.ports.update if change.ports else ():
        writes += [Write(UPDATE_PORT, operation['path'].split('/')[1], operation['value']) for operation in operations]
    groups = change.wiring.groups if change.wiring is not None else None
    return writes + [Write(UPDATE_PORT, 'portgroup_uuid', name) for _address, name in (groups.moves if groups else ())]


def plan_changes(client, declarations, send_secrets):
    """Read Ironic once for every declaration, check each, and return (Changes, [(declaration, message)]).
    Nothing is written."""
    snapshot = read_snapshot(client, declarations)
    changes, problems = [], []
    for declaration in declarations:
        try:
            changes.append(check_change(snapshot, declaration, send_secrets))
        except (NodeError, IronicError, wiring.WiringError) as exc:
            problems.append((declaration, str(exc)))
    return changes, problems
