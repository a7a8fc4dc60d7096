# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The writes of one node's record (node/writer.py applies a Change with them): the node, its owner, traits and ports.

Writes recover from lost answers: a POST whose answer was lost is looked up by name before it is sent again, a
PATCH is read back and only what Ironic did not apply is sent again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    SEPARATE_FIELDS, NodeError, node_changes, when_refused)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import PORT_FIELDS

# The result of a creation that left nothing in Ironic.
NOTHING_CREATED = node_result(None, created=False)


def write_record(client, change, writes):
    """Create or update the node as its Change says; returns (the node, its ports) as Ironic answered. writes (an
    engine.writes.NodeWrites) sends each write for the node, waiting while a conductor holds it."""
    return _create(client, change, writes) if change.node is None else _update(client, change, writes)


def _create(client, change, writes):
    """POST the node, then its owner, traits and ports. A NodeError says nothing was created when Ironic holds
    no part of the node (its POST refused, or the rest refused and the node taken back)."""
    declared = change.declaration.declared
    body = dict(change.body)
    # Ironic accepts another project as owner in POST only from system-scoped callers (never with noauth);
    # a PATCH is judged by its update policy instead.
    owner = body.pop('owner', None)
    with when_refused(NOTHING_CREATED):
        node = _create_node(client, body, declared)
    try:
        if owner is not None and node.get('owner') != owner:
            node = writes.send('setting its owner', client.update_node, node['uuid'],
                               [{'op': 'replace', 'path': '/owner', 'value': owner}])
        if declared.get('traits'):
            node['traits'] = sorted(set(declared['traits']))
            writes.send('setting its traits', client.set_traits, node['uuid'], node['traits'])
        ports = _create_ports(client, node['uuid'], declared.get('ports') or [], writes)
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


def _create_ports(client, node_uuid, wanted_ports, writes):
    """Create the ports; returns them as Ironic answered (or holds them, after a lost answer)."""
    created = []
    for wanted in wanted_ports:
        body = dict((attribute, value) for attribute, value in wanted.items() if value is not None)
        body['node_uuid'] = node_uuid
        doing = 'creating its port %s' % body['address']
        try:
            created.append(writes.send(doing, client.create_port, body))
        except AnswerLost:
            port = _port_of(client, node_uuid, body['address'])
            created.append(port if port is not None else writes.send(doing, client.create_port, body))
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


def _update(client, change, writes):
    node, declared = change.node, change.declaration.declared
    uuid = node['uuid']
    if change.operations:
        driver = declared.get('driver', node.get('driver'))
        # The record is the first write: when Ironic refuses it, nothing changed.
        with when_refused({'changed': False}):
            # What the answer lacks (a field of a newer API, traits) is as read.
            node = dict(node, **_patch_node(client, node, change.operations, declared, writes,
                                            reset_interfaces=driver != node.get('driver')))
    if change.traits is not None:
        writes.send('setting its traits', client.set_traits, uuid, change.traits)
        node = dict(node, traits=change.traits)
    ports = change.current_ports
    if change.ports:
        # Deletions first: a MAC address may move from a deleted port to a created one.
        for port in change.ports.delete:
            writes.send('deleting its port %s' % port['address'], client.delete_port, port['uuid'])
        updated = dict((port['uuid'], writes.send('updating its port %s' % port['address'], client.update_port,
                                                  port['uuid'], port_operations))
                       for port, port_operations in change.ports.update)
        deleted = set(port['uuid'] for port in change.ports.delete)
        ports = [updated.get(port['uuid'], port) for port in ports if port['uuid'] not in deleted]
        ports += _create_ports(client, uuid, change.ports.create, writes)
    return node, ports


def _patch_node(client, node, operations, declared, writes, reset_interfaces):
    """PATCH the node and return Ironic's answer. When the answer is lost, the node is read again: what Ironic
    applied is not sent again, and what it did not is sent once more."""
    try:
        # Interfaces of the old driver would not work with the new one; Ironic resets those not declared.
        return writes.send(_updating(operations), client.update_node, node['uuid'], operations,
                           reset_interfaces=reset_interfaces)
    except AnswerLost:
        current = client.get_node(node['uuid'])
        missing = node_changes(current, declared, send_secrets=False)[0]
        if not missing:
            return current
        return writes.send(_updating(missing), client.update_node, node['uuid'], missing,
                           reset_interfaces=reset_interfaces)


def _updating(operations):
    """A PATCH in words: the fields it writes ('updating its driver_info, name')."""
    return 'updating its %s' % ', '.join(sorted(set(operation['path'].split('/')[1] for operation in operations)))
