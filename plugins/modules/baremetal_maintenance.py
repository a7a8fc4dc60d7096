#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_maintenance
short_description: Put bare metal nodes in maintenance, with a reason, or take them out
version_added: 0.1.0
description:
  - A node in maintenance is not scheduled or moved by Ironic, even when it is V(available); the reason
    tells the team responsible for the nodes why.
  - Enabling maintenance on a node already in maintenance with the same reason changes nothing; with a
    different reason, the reason is updated.
  - Disabling maintenance clears the reason too.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
attributes:
  check_mode:
    support: full
    description: Reports whether maintenance or its reason would change, without changing them.
  diff_mode:
    support: full
    description: Shows maintenance and its reason before and after.
options:
  node:
    description:
      - The name or UUID of the node.
    type: str
    required: true
  state:
    description:
      - V(enabled) puts the node in maintenance, V(disabled) takes it out.
    type: str
    required: true
    choices: [enabled, disabled]
  reason:
    description:
      - Why the node is in maintenance. Only used with O(state=enabled).
      - When not given, the reason of a node already in maintenance is kept; an empty string clears it.
    type: str
seealso:
  - module: baremetal.lifecycle.baremetal_node_info
  - module: baremetal.lifecycle.baremetal_provision_state
'''

EXAMPLES = r'''
- name: Keep a node from being deployed while a disk is replaced
  baremetal.lifecycle.baremetal_maintenance:
    cloud: baremetal-lifecycle-local
    node: rack1-node07
    state: enabled
    reason: Replacing disk 2, ticket OPS-1234

- name: Take it out of maintenance once the work is done
  baremetal.lifecycle.baremetal_maintenance:
    node: rack1-node07
    state: disabled
'''

RETURN = r'''
maintenance:
  description: Whether the node is in maintenance after the task (in check mode, whether it would be).
  returned: always
  type: bool
  sample: true
maintenance_reason:
  description: The reason of the maintenance after the task (in check mode, what it would be), or null.
  returned: always
  type: str
  sample: Replacing disk 2, ticket OPS-1234
node:
  description: The node after the task (in check mode, before it). Never contains C(driver_info) or C(instance_info).
  returned: always
  type: dict
  contains:
    uuid:
      description: The node's UUID.
      type: str
    name:
      description: The node's name.
      type: str
    provision_state:
      description: The provision state.
      type: str
    target_provision_state:
      description: The state Ironic is moving the node to, or null.
      type: str
    power_state:
      description: The power state.
      type: str
    target_power_state:
      description: The power state Ironic is moving the node to, or null.
      type: str
    maintenance:
      description: Whether the node is in maintenance.
      type: bool
    maintenance_reason:
      description: Why the node is in maintenance.
      type: str
    last_error:
      description: The last error Ironic recorded for the node.
      type: str
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 3
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils._module import BaremetalModule

ARGUMENT_SPEC = dict(
    node=dict(type='str', required=True),
    state=dict(type='str', required=True, choices=['enabled', 'disabled']),
    reason=dict(type='str'),
)


def wanted_maintenance(node, state, reason):
    """(maintenance, reason) the node should have. Ironic stores no reason as null."""
    if state == 'disabled':
        return False, None
    if reason is None and node.get('maintenance'):
        return True, node.get('maintenance_reason')
    return True, reason or None


def main_logic(module):
    params = module.params
    node = module.require_node(params['node'], NODE_SUMMARY_FIELDS)
    current = (bool(node.get('maintenance')), node.get('maintenance_reason') or None)
    wanted = wanted_maintenance(node, params['state'], params['reason'])
    changed = current != wanted
    if changed and not module.check_mode:
        if wanted[0]:
            module.client.set_maintenance(node['uuid'], wanted[1])
        else:
            module.client.unset_maintenance(node['uuid'])
        node = module.client.get_node(node['uuid'], NODE_SUMMARY_FIELDS)
        wanted = (node.get('maintenance'), node.get('maintenance_reason'))
    module.exit(changed=changed, maintenance=wanted[0], maintenance_reason=wanted[1], node=summarize_node(node),
                diff={'before': {'maintenance': current[0], 'maintenance_reason': current[1]},
                      'after': {'maintenance': wanted[0], 'maintenance_reason': wanted[1]}})


def main():
    module = BaremetalModule(ARGUMENT_SPEC)
    module.run(main_logic)


if __name__ == '__main__':
    main()
