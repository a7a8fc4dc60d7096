# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Bifrost inventory as a fleet description of the role baremetal.lifecycle.fleet.

Bifrost's inventory is a mapping of node name to the node's fields: ``uuid``, ``driver``, ``driver_info`` (flat, or
with the legacy sections ``power``, ``deploy``, ``management`` and ``console``), ``nics`` (ports), ``properties``
(with Bifrost's names ``ram`` and ``disk_size``), ``instance_info``, and the keys Bifrost itself uses for the
deployed system's network and the Ansible groups. ``from_bifrost`` maps each node to the role's own format, or
names every key it cannot map, all nodes together, so that nothing is sent to Ironic for an inventory it would
half understand. Pure: no Ironic, no Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    INTEGER_PROPERTIES, integer_properties, is_integer_property)

# The legacy sections of driver_info, flattened into it (as openstack.cloud.baremetal_node, which Bifrost enrolls
# with, flattens them).
DRIVER_INFO_SECTIONS = ('power', 'deploy', 'management', 'console')

# Bifrost's property names -> Ironic's. Bifrost's inventory writes the integer ones (cpus, ram, disk_size) as strings
# ("cpus": "2"): a string of decimal digits is that format's own way of writing the number, and becomes the integer
# here without a warning (record.integer_properties); any other value that is not a whole number is refused.
PROPERTIES = {'cpu_arch': 'cpu_arch', 'cpus': 'cpus', 'ram': 'memory_mb', 'disk_size': 'local_gb',
              'root_device': 'root_device', 'capabilities': 'capabilities'}

# Port fields of a nic, besides its MAC address.
NIC_FIELDS = ('local_link_connection', 'pxe_enabled', 'physical_network')

# Keys only Bifrost reads (the deployed system's static network, DHCP, and the Ansible groups of its inventory):
# kept in the node's extra under the same name, where the inventory plugin baremetal.lifecycle.ironic reads them
# (host_address: extra:ipv4_address; keyed_groups on ironic_extra.host_groups).
EXTRA_KEYS = ('ipv4_address', 'ipv4_subnet_mask', 'ipv4_gateway', 'ipv4_nameserver', 'ipv4_interface_mac',
              'network_mtu', 'node_network_data', 'provisioning_ipv4_address', 'host_groups')

# Per-node deploy ramdisk of older Bifrost releases -> the driver_info keys that Ironic reads per node.
RAMDISK_KEYS = {'ipa_kernel_url': 'deploy_kernel', 'ipa_ramdisk_url': 'deploy_ramdisk'}

# Why a key is not mapped, where the role has a better place for it.
HINTS = {
    'instance_info.configdrive': "give it as config_drive of baremetal.lifecycle.baremetal_provision_state",
}


class _Node:
    """One node's conversion: the fleet node, and the problems (path, why or None) found on the way."""

    def __init__(self, name):
        self.name = name
        self.problems = []

    def cannot(self, path, why=None):
        self.problems.append((path, why or HINTS.get(path)))


def _driver_info(node, value, ramdisk):
    if not isinstance(value, Mapping):
        node.cannot('driver_info', 'must be a mapping')
        return None
    flat = dict((key, item) for key, item in value.items() if key not in DRIVER_INFO_SECTIONS)
    for section in DRIVER_INFO_SECTIONS:
        if section not in value:
            continue
        if not isinstance(value[section], Mapping):
            node.cannot('driver_info.%s' % section, 'a legacy section must be a mapping')
            continue
        _merge(node, flat, dict(('driver_info.%s.%s' % (section, key), (key, item))
                                for key, item in value[section].items()))
    _merge(node, flat, dict((name, (target, ramdisk[target])) for name, target in RAMDISK_KEYS.items()
                            if target in ramdisk))
    return flat


def _merge(node, flat, more):
    """Adds more ({path in the inventory: (driver_info key, value)}) to flat; a key flat has with another value is a
    problem."""
    for path, (key, item) in more.items():
        if key in flat and flat[key] != item:
            node.cannot(path, 'driver_info.%s is also given, with another value' % key)
        else:
            flat[key] = item


def _ports(node, nics):
    if not isinstance(nics, list):
        node.cannot('nics', 'must be a list')
        return None
    ports = []
    for index, nic in enumerate(nics):
        if not isinstance(nic, Mapping) or 'mac' not in nic:
            node.cannot('nics[%d]' % index, 'must be a mapping with mac')
            continue
        port = {'address': nic['mac']}
        for key, item in nic.items():
            if key in NIC_FIELDS:
                port[key] = item
            elif key != 'mac':
                node.cannot('nics[%d].%s' % (index, key))
        ports.append(port)
    return ports


def _properties(node, value):
    if not isinstance(value, Mapping):
        node.cannot('properties', 'must be a mapping')
        return None
    properties = {}
    for key, item in value.items():
        if key not in PROPERTIES:
            node.cannot('properties.%s' % key)
        elif PROPERTIES[key] in INTEGER_PROPERTIES and item is not None and not is_integer_property(item):
            node.cannot('properties.%s' % key, 'must be a whole number, got %r' % (item,))
        else:
            properties[PROPERTIES[key]] = item
    properties, _warnings = integer_properties(properties)
    return properties


def _instance_info(node, value):
    if not isinstance(value, Mapping):
        node.cannot('instance_info', 'must be a mapping')
        return None
    if 'configdrive' in value:
        node.cannot('instance_info.configdrive')
    return dict((key, item) for key, item in value.items() if key != 'configdrive')


def _convert(key, host):
    """(fleet node, _Node) of one inventory entry."""
    node = _Node(host.get('name', key) if isinstance(host, Mapping) else key)
    if not isinstance(host, Mapping):
        node.cannot('', 'a node must be a mapping of its fields')
        return None, node
    fleet = {'name': node.name}
    ramdisk = dict((RAMDISK_KEYS[name], host[name]) for name in RAMDISK_KEYS if name in host)
    extra = dict((name, host[name]) for name in EXTRA_KEYS if name in host)
    for field, item in host.items():
        if field in ('name', 'uuid', 'driver'):
            fleet[field] = item
        elif field == 'driver_info':
            fleet['driver_info'] = _driver_info(node, item, ramdisk)
        elif field == 'nics':
            fleet['ports'] = _ports(node, item)
        elif field == 'properties':
            fleet['properties'] = _properties(node, item)
        elif field == 'instance_info':
            fleet['instance_info'] = _instance_info(node, item)
        elif field not in EXTRA_KEYS and field not in RAMDISK_KEYS:
            node.cannot(field)
    if ramdisk and 'driver_info' not in host:
        fleet['driver_info'] = ramdisk
    if extra:
        fleet['extra'] = extra
    return fleet, node


def _words(node):
    return '%s: %s' % (node.name, ', '.join(_problem_words(path, why) for path, why in node.problems))


def _problem_words(path, why):
    if not path:
        return why
    return path + (' (%s)' % why if why else '')


# The fields of a Bifrost inventory's node that from_bifrost reads.
NODE_FIELDS = frozenset(('name', 'uuid', 'driver', 'driver_info', 'nics', 'properties', 'instance_info')
                        + EXTRA_KEYS + tuple(RAMDISK_KEYS))


def looks_like_bifrost(inventory):
    """Whether a fleet description is a Bifrost inventory: a mapping of node name to node, each node a mapping with
    at least one of the fields Bifrost gives a node (a single node of the role's own format is a mapping of fields,
    not of nodes)."""
    return (isinstance(inventory, Mapping) and bool(inventory)
            and all(isinstance(host, Mapping) and NODE_FIELDS.intersection(host) for host in inventory.values()))


def from_bifrost(inventory):
    """(fleet, error) of a Bifrost inventory (the mapping of node name to fields, as read from its JSON or YAML).

    fleet is the role's list of nodes, in the inventory's order; error is None, or one message naming every key
    (as node: path) that the role cannot map, and every value it cannot read, of all the nodes; then fleet is [].
    """
    if not inventory:  # an empty file
        return [], None
    if not isinstance(inventory, Mapping):
        return [], ('The Bifrost inventory must be a mapping of node name to node, got a %s. With a list of nodes, '
                    'set fleet_format: fleet.' % type(inventory).__name__)
    fleet, troubled = [], []
    for key, host in inventory.items():
        node, converted = _convert(key, host)
        if converted.problems:
            troubled.append(converted)
        elif node is not None:
            fleet.append(node)
    if not troubled:
        return fleet, None
    return [], ('The Bifrost inventory has keys the role cannot map: %s. Remove them from the file, or describe '
                "those nodes in the role's own format (fleet_format: fleet)." % '; '.join(map(_words, troubled)))
