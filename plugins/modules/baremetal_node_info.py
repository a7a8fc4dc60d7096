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
  - Returns one node by name or UUID, or every node that matches the given filters,
    following Ironic's pagination past its page limit.
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
      - Cannot be combined with the filters.
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
    description:
      - Only nodes owned by this project.
    type: str
  shard:
    description:
      - Only nodes of this shard (Ironic API 1.82).
    type: str
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

- name: Print them
  ansible.builtin.debug:
    msg: "{{ manageable.nodes | map(attribute='name') | list }}"
'''

RETURN = r'''
nodes:
  description:
    - The matching nodes, sorted by name then UUID. With O(node), a list of one.
    - Each has the fields below, and C(driver_info) with secret values masked.
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
      driver_info: {redfish_address: 'http://127.0.0.1:8000', redfish_password: '********'}
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils._bulk import selection_filters
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import NODE_SUMMARY_FIELDS, readable_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils._module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils._secrets import public_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils._states import STATES

INFO_FIELDS = NODE_SUMMARY_FIELDS + (
    'driver', 'driver_info', 'resource_class', 'conductor_group', 'properties', 'traits', 'extra', 'owner',
    'lessee', 'description', 'automated_clean', 'instance_uuid', 'shard', 'protected', 'protected_reason',
    'retired', 'retired_reason')

# Filters of the node list; those of a selection (resource_class, conductor_group, owner, shard) are checked
# against the API version.
FILTERS = ('provision_state', 'maintenance', 'resource_class', 'conductor_group', 'owner', 'shard')
SELECTION = ('resource_class', 'conductor_group', 'owner', 'shard')

ARGUMENT_SPEC = dict(
    node=dict(type='str'),
    provision_state=dict(type='str', choices=sorted(STATES)),
    maintenance=dict(type='bool'),
    resource_class=dict(type='str'),
    conductor_group=dict(type='str'),
    owner=dict(type='str'),
    shard=dict(type='str'),
)


def main_logic(module):
    params = module.params
    fields = readable_fields(module.client, INFO_FIELDS)
    if params['node'] is not None:
        nodes = [module.require_node(params['node'], fields)]
    else:
        filters = selection_filters(module.client, dict((name, params[name]) for name in SELECTION))
        filters['provision_state'] = params['provision_state']
        if params['maintenance'] is not None:
            filters['maintenance'] = str(params['maintenance']).lower()
        nodes = module.client.list_nodes(fields=fields, **filters)
    nodes.sort(key=lambda node: (node.get('name') or '', node['uuid']))
    module.exit(changed=False, nodes=[public_node(node, INFO_FIELDS) for node in nodes])


def main():
    module = BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', name) for name in FILTERS])
    module.run(main_logic)


if __name__ == '__main__':
    main()
