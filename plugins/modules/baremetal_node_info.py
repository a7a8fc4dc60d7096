#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_node_info
short_description: Read bare metal nodes from Ironic
version_added: 0.1.0
description:
  - Returns one node by name or UUID, the node that has a port with a given MAC address, or every node that
    matches the given filters, following Ironic's pagination past its page limit.
  - Secrets never leave the module; secret C(driver_info) values are masked and C(instance_info) is not returned.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
  - baremetal.lifecycle.attributes.info_module
options:
  node:
    description:
      - The name or UUID of one node. The module fails when no node matches.
      - O(name) is the same option, the word M(baremetal.lifecycle.baremetal_node) uses.
      - Cannot be combined with the filters or O(mac).
    type: str
    aliases: [name]
  mac:
    version_added: 0.4.0
    description:
      - The MAC address of one of the node's ports; returns that node, or no node (an empty RV(nodes), not a failure)
        when no port has this address, as C(openstack.cloud.baremetal_node_info) does.
      - Six hexadecimal octets separated by colons, in any case (V(52:54:00:12:34:56)); another form fails the task
        before any request.
      - Cannot be combined with O(node) or the filters.
    type: str
  provision_state:
    description:
      - Only nodes in this provision state.
    type: str
    choices: [active, adopt failed, adopting, available, clean failed, clean hold, clean wait, cleaning, deleting,
              deploy failed, deploy hold, deploying, enroll, error, inspect failed, inspect wait, inspecting,
              manageable, rescue, rescue failed, rescue wait, rescuing, service failed, service hold, service wait,
              servicing, unrescue failed, unrescuing, verifying, wait call-back]
  maintenance:
    description:
      - Only nodes in maintenance (V(true)) or not in maintenance (V(false)).
    type: bool
  resource_class:
    description:
      - Only nodes of this resource class.
    type: str
  conductor_group:
    description:
      - Only nodes of this conductor group, in any case (Ironic stores groups in lower case).
    type: str
  owner:
    version_added: 0.2.0
    description:
      - Only nodes owned by this project.
    type: str
  shard:
    version_added: 0.2.0
    description:
      - Only nodes of this shard (Ironic API 1.82).
    type: str
  history:
    version_added: 0.2.0
    description:
      - Add each node's history events (what Ironic did to it, and the errors it met) to its entry in RV(nodes),
        one request per node.
      - Needs Ironic API 1.78; on an older API the task fails before reading any node, naming both versions.
    type: bool
    default: false
  inventory:
    version_added: 0.4.0
    description:
      - Add what inspection stored for each node to its entry in RV(nodes) - the hardware inventory and the plugin
        data - one request per node.
      - Where Ironic keeps none (the node was never inspected by an inspect interface that stores data, or Ironic's
        C([inventory]data_backend) is V(none)), the entry says so instead of failing; see RV(nodes).
      - Needs Ironic API 1.81; on an older API the task fails before reading any node, naming both versions.
    type: bool
    default: false
  firmware:
    version_added: 0.4.0
    description:
      - Add each node's firmware components and their versions, as Ironic recorded them, to its entry in RV(nodes),
        one request per node.
      - Needs Ironic API 1.86; on an older API the task fails before reading any node, naming both versions.
    type: bool
    default: false
  bios:
    version_added: 0.4.0
    description:
      - Add each node's BIOS settings, as Ironic cached them, to its entry in RV(nodes), one request per node; from
        Ironic API 1.74 each with its registry's attributes.
      - Needs Ironic API 1.40; on an older API the task fails before reading any node, naming both versions.
    type: bool
    default: false
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
'''

EXAMPLES = r'''
- name: List every node
  baremetal.lifecycle.baremetal_node_info:
    cloud: baremetal-lifecycle-local
  register: all_nodes

- name: Show one node
  baremetal.lifecycle.baremetal_node_info:
    node: rack1-node07
  register: one

- name: Nodes waiting to be made available
  baremetal.lifecycle.baremetal_node_info:
    provision_state: manageable
    maintenance: false
  register: manageable

- name: The node whose NIC has this MAC address (as openstack.cloud's module, name works as well as node)
  baremetal.lifecycle.baremetal_node_info:
    mac: "52:54:00:12:34:56"
  register: by_mac

- name: What Ironic did to one node
  baremetal.lifecycle.baremetal_node_info:
    node: rack1-node07
    history: true
  register: one_with_history

- name: What Ironic knows of one node's hardware - its inventory, firmware and BIOS
  baremetal.lifecycle.baremetal_node_info:
    node: rack1-node07
    inventory: true
    firmware: true
    bios: true
  register: hardware

- name: Firmware versions of every available node
  baremetal.lifecycle.baremetal_node_info:
    provision_state: available
    firmware: true
  register: available_firmware

- name: Print them
  ansible.builtin.debug:
    msg: "{{ manageable.nodes | map(attribute='name') | list }}"
'''

RETURN = r'''
nodes:
  description:
    - The matching nodes, sorted by name then UUID. With O(node), a list of one. With O(mac), a list of one, or an
      empty list when no port has that MAC address.
    - Each has the fields below, and C(driver_info) with secret values masked.
    - C(disable_power_off) (Ironic API 1.95) and C(health) (Ironic API 1.109, the hardware's health as the BMC
      reports it, V(OK), V(Warning), V(Critical) or null) are absent where Ironic is older.
    - With O(history), C(history) holds the node's history events, oldest first, as Ironic returns them (secret
      values quoted in C(event) masked) - C(uuid), C(created_at), C(severity) (V(INFO) or V(ERROR)), C(event_type),
      C(event), C(conductor), C(user); C(project) from Ironic API 1.113; C(state), C(target_provision_state) and
      C(duration_seconds) from Ironic API 1.115.
    - With O(inventory), C(inventory) (the hardware inventory inspection stored) and C(plugin_data) (what
      inspection's hooks added to it), both with secret values masked, and C(inventory_note), null. Where Ironic
      keeps no inventory for the node, C(inventory) and C(plugin_data) are null and C(inventory_note) gives
      Ironic's reason.
    - With O(firmware), C(firmware) holds the node's firmware components as Ironic returns them - C(component),
      C(initial_version), C(current_version), C(last_version_flashed), C(created_at), C(updated_at); C(vendor),
      C(model) and C(serial_number) from Ironic API 1.114. An empty list where Ironic recorded none.
    - With O(bios), C(bios) holds the node's BIOS settings as Ironic returns them - C(name), C(value),
      C(created_at), C(updated_at); from Ironic API 1.74 the registry's C(attribute_type), C(allowable_values),
      C(lower_bound), C(upper_bound), C(min_length), C(max_length), C(read_only), C(reset_required) and
      C(unique) - a secret setting's value (named like a password, or of registry type V(Password)) masked.
  returned: always
  type: list
  elements: dict
  sample:
    - uuid: 5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11
      name: rack1-node07
      driver: redfish
      provision_state: available
      target_provision_state: null
      power_state: power off
      target_power_state: null
      maintenance: false
      maintenance_reason: null
      last_error: null
      resource_class: baremetal
      conductor_group: ''
      properties: {cpu_arch: x86_64}
      traits: [CUSTOM_GPU]
      extra: {}
      owner: null
      lessee: null
      description: null
      automated_clean: null
      instance_uuid: null
      shard: null
      protected: false
      protected_reason: null
      retired: false
      retired_reason: null
      disable_power_off: false
      health: OK
      history:
        - uuid: 0a8f3c1e-5d2b-4e8a-9b1c-7f6e5d4c3b2a
          created_at: '2026-01-05T10:00:00+00:00'
          severity: INFO
          event_type: provisioning
          event: Node deployed
          conductor: conductor-1
          user: null
          project: null
          state: active
          target_provision_state: null
          duration_seconds: 312
      inventory:
        cpu: {count: 32, architecture: x86_64}
        memory: {physical_mb: 131072}
        interfaces: [{name: eno1, mac_address: '52:54:00:12:34:56'}]
      plugin_data: {root_disk: {name: /dev/sda}}
      inventory_note: null
      firmware:
        - component: bios
          initial_version: '1.0.0'
          current_version: '1.2.0'
          last_version_flashed: '1.2.0'
          vendor: Contoso
          model: R640
          serial_number: null
          created_at: '2026-01-05T10:00:00+00:00'
          updated_at: null
      bios:
        - name: ProcTurboMode
          value: Enabled
          attribute_type: Enumeration
          allowable_values: [Enabled, Disabled]
          lower_bound: null
          upper_bound: null
          min_length: null
          max_length: null
          read_only: false
          reset_required: null
          unique: null
          created_at: '2026-01-05T10:00:00+00:00'
          updated_at: null
      driver_info: {redfish_address: 'http://127.0.0.1:8000', redfish_password: '********'}
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import NODE_SPEC, selection_filters
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.info import asked_facets, node_entry
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import STATES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import normalized_mac

INFO_FIELDS = NODE_SUMMARY_FIELDS + (
    'driver', 'driver_info', 'resource_class', 'conductor_group', 'properties', 'traits', 'extra', 'owner',
    'lessee', 'description', 'automated_clean', 'instance_uuid', 'shard', 'protected', 'protected_reason',
    'retired', 'retired_reason')

# Filters of the node list; those of a selection (resource_class, conductor_group, owner, shard) are checked
# against the API version.
FILTERS = ('provision_state', 'maintenance', 'resource_class', 'conductor_group', 'owner', 'shard')
SELECTION = ('resource_class', 'conductor_group', 'owner', 'shard')
# The options that find one node, each exclusive of the other and of the filters.
ONE_NODE = ('node', 'mac')

ARGUMENT_SPEC = dict(
    node=NODE_SPEC,
    mac=dict(type='str'),
    provision_state=dict(type='str', choices=sorted(STATES)),
    maintenance=dict(type='bool'),
    resource_class=dict(type='str'),
    conductor_group=dict(type='str'),
    owner=dict(type='str'),
    shard=dict(type='str'),
    history=dict(type='bool', default=False),
    inventory=dict(type='bool', default=False),
    firmware=dict(type='bool', default=False),
    bios=dict(type='bool', default=False),
)


def main_logic(module):
    params = module.params
    asked = asked_facets(module.client, params)
    if params['node'] is not None:
        nodes = [module.require_node(params['node'], INFO_FIELDS)]
    elif params['mac'] is not None:
        node = module.client.find_node_by_mac(normalized_mac(params['mac']), INFO_FIELDS)
        nodes = [node] if node else []
    else:
        filters = selection_filters(module.client, dict((name, params[name]) for name in SELECTION))
        filters['provision_state'] = params['provision_state']
        if params['maintenance'] is not None:
            filters['maintenance'] = str(params['maintenance']).lower()
        nodes = module.client.list_nodes(fields=INFO_FIELDS, **filters)
    nodes.sort(key=lambda node: (node.get('name') or '', node['uuid']))
    module.exit(changed=False, nodes=[node_entry(module.client, node, INFO_FIELDS, asked) for node in nodes])


def main():
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[ONE_NODE] + [(one, name) for one in ONE_NODE
                                                                         for name in FILTERS]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
