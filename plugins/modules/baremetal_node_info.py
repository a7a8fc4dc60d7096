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
attributes:
  check_mode:
    support: full
    description: The module only reads.
  diff_mode:
    support: none
    description: The module only reads.
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
    mac: 52:54:00:12:34:56
  register: by_mac

- name: What Ironic did to one node
  baremetal.lifecycle.baremetal_node_info:
    node: rack1-node07
    history: true
  register: one_with_history

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
      driver_info: {redfish_address: 'http://127.0.0.1:8000', redfish_password: '********'}
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils._bulk import NODE_SPEC, selection_filters
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import (
    HISTORY_VERSION, NODE_SUMMARY_FIELDS, view_fields)
from ansible_collections.baremetal.lifecycle.plugins.module_utils._module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils._secrets import masked, public_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils._states import STATES
from ansible_collections.baremetal.lifecycle.plugins.module_utils._validate import normalized_mac

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
)


def node_entry(client, node, history):
    """The node as the module returns it: secrets masked, and with history its events (without their links)."""
    entry = public_node(node, view_fields(node, INFO_FIELDS))
    if history:
        entry['history'] = [masked(dict((key, value) for key, value in event.items() if key != 'links'))
                            for event in client.whole_node_history(node['uuid'])]
    return entry


def main_logic(module):
    params = module.params
    if params['history']:
        module.client.require('history', HISTORY_VERSION)
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
    module.exit(changed=False, nodes=[node_entry(module.client, node, params['history']) for node in nodes])


def main():
    module = BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[ONE_NODE] + [(one, name) for one in ONE_NODE for name in FILTERS])
    module.run(main_logic)


if __name__ == '__main__':
    main()
