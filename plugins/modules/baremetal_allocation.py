#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_allocation
short_description: Ask Ironic for a node of a resource class with some traits, and keep it by name
version_added: 0.4.0
description:
  - An allocation (Ironic API 1.52 or newer) asks Ironic for one node, the way Nova and metalsmith pick nodes. The
    conductor picks an V(available) node that is not in maintenance, has the O(resource_class) and every one of the
    O(traits), is among O(candidate_nodes) when they are given, and is owned by O(owner) when it is given; the node
    is then reserved for the allocation (its C(instance_uuid) is the allocation's UUID) until the allocation is
    deleted.
  - The allocation is kept by its O(name). A second run with the same declaration finds it, keeps the same node,
    and writes nothing. Ironic does not change an allocation's O(resource_class), O(traits) or O(owner) after
    creating it, so a declaration that differs there fails, naming the difference, before any write. O(extra) is
    updated in place (API 1.57).
  - The module waits, up to O(timeout) seconds, for the conductor to pick the node. When no node matches, the task
    fails with Ironic's reason (C(last_error)); the failed allocation is kept in state C(error), and the next run
    deletes it and asks again.
  - With O(node), the allocation is recorded for a node that is already V(active), for example one deployed
    before allocations were used (a backfill, API 1.58).
  - Options that the server's API does not have are refused before any request that changes anything, naming the
    version they need.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
attributes:
  check_mode:
    support: full
    description: Reads the allocation and reports what would change; nothing is written, and no node is picked.
  diff_mode:
    support: full
    description: Shows the allocation's fields and its node before and after the task (with O(allocations), one diff
      per allocation).
options:
  name:
    description:
      - The allocation's name, which identifies it from one run to the next; 1 to 255 letters, digits and
        C(. _ ~ -), not a UUID. Ironic tries first a matching node of the same name.
      - One of O(name) and O(allocations) is required.
    type: str
  state:
    description:
      - V(present) asks for the allocation when there is none, and keeps it; V(absent) deletes it, which releases
        its node (nothing happens when there is none).
      - Ironic does not release the node of an V(active) workload unless the node is in maintenance; V(absent)
        fails on such a node before any write, saying so.
      - With O(allocations), the state of each element that sets none.
    type: str
    choices: [present, absent]
    default: present
  resource_class:
    description:
      - The resource class of the node to pick. Required unless O(node) is given (the node's then).
    type: str
  traits:
    description:
      - Traits the node must all have, such as C(CUSTOM_GPU) or C(HW_CPU_X86_AVX2).
    type: list
    elements: str
  candidate_nodes:
    description:
      - Names or UUIDs of the nodes the pick is limited to. On a rerun, the allocation is kept when its node is
        among them.
    type: list
    elements: str
  owner:
    description:
      - The project the allocation is for; only nodes of that owner are picked (Ironic API 1.60 or newer).
    type: str
  extra:
    description:
      - Free-form data kept with the allocation; replaces what Ironic holds (updated in place, Ironic API 1.57).
    type: dict
  node:
    description:
      - Record the allocation for this node (name or UUID), which must be V(active) and not allocated already,
        instead of letting Ironic pick one (a backfill, Ironic API 1.58 or newer).
    type: str
  allocations:
    description:
      - Several allocations in one task, each with the options above; each name may appear once. Every allocation
        is read and checked before the first write, and the task fails naming every element that cannot be done.
      - Releases are carried out first, then the allocations that ask for the most (a named O(allocations[].node),
        candidate nodes, then more traits before fewer), so that one asking for less does not take the only node
        that matches another. Results keep the order of the list.
    type: list
    elements: dict
    suboptions:
      name:
        description: The allocation's name, as O(name).
        type: str
        required: true
      state:
        description: V(present) or V(absent); O(state) when unset.
        type: str
        choices: [present, absent]
      resource_class:
        description: The resource class of the node to pick, as O(resource_class).
        type: str
      traits:
        description: Traits the node must all have, as O(traits).
        type: list
        elements: str
      candidate_nodes:
        description: Names or UUIDs of the nodes the pick is limited to, as O(candidate_nodes).
        type: list
        elements: str
      owner:
        description: The project the allocation is for, as O(owner).
        type: str
      extra:
        description: Free-form data kept with the allocation, as O(extra).
        type: dict
      node:
        description: Record the allocation for this active node, as O(node).
        type: str
  timeout:
    description:
      - Seconds the task waits, in all, for Ironic to pick the node of each allocation and, with O(state=absent),
        for a conductor at work on a node (which holds the node's lock, often waiting for a slow BMC) to let Ironic
        release it. The allocations of one task share this time.
    type: int
    default: 120
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
  - module: baremetal.lifecycle.baremetal_node
'''

EXAMPLES = r'''
- name: Ask for a GPU node of the class baremetal-gpu
  baremetal.lifecycle.baremetal_allocation:
    name: render-01
    resource_class: baremetal-gpu
    traits: [CUSTOM_GPU_A100]
  register: render

- name: Deploy the node Ironic picked
  baremetal.lifecycle.baremetal_provision_state:
    node: "{{ render.node.uuid }}"
    state: active
    instance_info:
      image_source: http://images.example.com/render.qcow2

- name: Record an allocation for a node deployed before allocations were used
  baremetal.lifecycle.baremetal_allocation:
    name: legacy-db-01
    node: rack2-node04

- name: Ask for two nodes in one task, and release a third
  baremetal.lifecycle.baremetal_allocation:
    allocations:
      - name: web-01
        resource_class: baremetal
      - name: web-02
        resource_class: baremetal
        traits: [CUSTOM_SSD]
      - name: web-old
        state: absent
  register: web

- name: Release the node (after undeploying it)
  baremetal.lifecycle.baremetal_allocation:
    name: render-01
    state: absent
'''

RETURN = r'''
node:
  description: The allocated node (null while none is, in check mode for a new allocation, and once released the
    node it held).
  returned: when O(name) is given
  type: dict
  contains:
    uuid:
      description: The node's UUID.
      type: str
    name:
      description: The node's name.
      type: str
  sample: {uuid: 5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11, name: rack1-node07}
allocation:
  description: The allocation after the task (as it would be, in check mode); null once deleted.
  returned: when O(name) is given
  type: dict
  contains:
    uuid:
      description: The allocation's UUID (absent in check mode for an allocation not created yet).
      type: str
    name:
      description: Its name.
      type: str
    state:
      description: V(allocating), V(active) (a node is allocated) or V(error).
      type: str
    node_uuid:
      description: The UUID of the allocated node.
      type: str
    resource_class:
      description: The resource class asked for.
      type: str
    traits:
      description: The traits asked for.
      type: list
      elements: str
    candidate_nodes:
      description: The UUIDs of the nodes the pick was limited to.
      type: list
      elements: str
    owner:
      description: The project it is for (API 1.60 or newer).
      type: str
    extra:
      description: Free-form data kept with it.
      type: dict
    last_error:
      description: Why it failed, in state V(error).
      type: str
allocations:
  description: With O(allocations), each allocation's result in the order given, with C(changed), C(allocation) and
    C(node) as RV(allocation) and RV(node) are without O(allocations).
  returned: when O(allocations) is given
  type: list
  elements: dict
  sample: [{changed: true, allocation: {name: web-01, state: active, node_uuid: 5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11},
            node: {uuid: 5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11, name: rack1-node07}}]
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 3
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.allocation import ensure_allocation
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ALLOCATION_SPEC = dict(
    resource_class=dict(type='str'),
    traits=dict(type='list', elements='str'),
    candidate_nodes=dict(type='list', elements='str'),
    owner=dict(type='str'),
    extra=dict(type='dict'),
    node=dict(type='str'),
)

ARGUMENT_SPEC = dict(
    ALLOCATION_SPEC,
    name=dict(type='str'),
    state=dict(type='str', choices=['present', 'absent'], default='present'),
    allocations=dict(type='list', elements='dict', options=dict(
        ALLOCATION_SPEC, name=dict(type='str', required=True),
        state=dict(type='str', choices=['present', 'absent']))),
    timeout=dict(type='int', default=120),
)


def main_logic(module):
    module.exit(**ensure_allocation(module.client, module.params, module.check_mode))


def main():
    with BaremetalModule(ARGUMENT_SPEC, required_one_of=[('name', 'allocations')],
                         mutually_exclusive=[('allocations', option)
                                             for option in ['name'] + sorted(ALLOCATION_SPEC)]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
