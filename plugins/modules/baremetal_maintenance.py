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
  - A node a conductor keeps locked (for example while it waits for a slow BMC) is asked again until O(timeout)
    passes; then the node fails naming the lock and the timeout.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
  - baremetal.lifecycle.node_selection
  - baremetal.lifecycle.node_selection.select
  - baremetal.lifecycle.waves
attributes:
  check_mode:
    support: full
    description: Reports whether maintenance or its reason would change, without changing them.
  diff_mode:
    support: full
    description: Shows maintenance and its reason before and after.
options:
  maintenance:
    version_added: 0.4.0
    description:
      - V(true) puts the node in maintenance, V(false) takes it out; the same word and type as
        O(baremetal.lifecycle.baremetal_node#module:maintenance).
      - Exactly one of O(maintenance) and O(state) is required.
    type: bool
  state:
    description:
      - The older spelling of O(maintenance), kept working without a warning for the playbooks that use it;
        new tasks write O(maintenance).
      - V(enabled) is O(maintenance=true), V(disabled) is O(maintenance=false). A task or an element of O(nodes)
        that gives both O(maintenance) and O(state) fails before any request, even when they agree.
    type: str
    choices: [enabled, disabled]
  reason:
    description:
      - Why the node is in maintenance. Only used with O(maintenance=true).
      - When not given, the reason of a node already in maintenance is kept; an empty string clears it.
      - Ironic keeps no reason for a node out of maintenance, so a reason given with O(maintenance=false) (or
        O(state=disabled)) fails the task before any request, as does an element's own C(reason) when that
        element's maintenance is off, or a task's reason that no element with maintenance on takes. An empty
        reason is accepted with either.
      - A reason that holds a secret (the value of a key named like one, such as C(password=...), or a URL's
        password) fails the task before any request. The task masks it in its output, but Ironic stores the text as
        typed and shows it to anyone who can read the node.
      - An element of O(nodes) may give its own C(maintenance) (or C(state)) and C(reason).
    type: str
  timeout:
    version_added: 0.5.0
    description:
      - Seconds each node's maintenance write waits for a node a conductor keeps locked (for example while it waits
        for a slow BMC, as long as Ironic's own timeouts for the BMC allow), from its first try.
      - Task-wide only, as in M(baremetal.lifecycle.baremetal_power); an element of O(nodes) cannot give its own.
    type: int
    default: 300
seealso:
  - module: baremetal.lifecycle.baremetal_node_info
  - module: baremetal.lifecycle.baremetal_provision_state
'''

EXAMPLES = r'''
- name: Keep a node from being deployed while a disk is replaced
  baremetal.lifecycle.baremetal_maintenance:
    cloud: baremetal-lifecycle-local
    node: rack1-node07
    maintenance: true
    reason: Replacing disk 2, ticket OPS-1234

- name: Take it out of maintenance once the work is done
  baremetal.lifecycle.baremetal_maintenance:
    node: rack1-node07
    maintenance: false

- name: Put a whole shard in maintenance before a switch upgrade
  baremetal.lifecycle.baremetal_maintenance:
    select:
      shard: rack3
    maintenance: true
    reason: Switch upgrade, ticket OPS-2000

- name: Take two nodes out of maintenance and put a third in, in one task
  baremetal.lifecycle.baremetal_maintenance:
    nodes:
      - rack1-node07
      - rack1-node08
      - node: rack1-node09
        maintenance: true
        reason: Fan noise
    maintenance: false
'''

RETURN = r'''
maintenance:
  description: Whether the node is in maintenance after the task (in check mode, whether it would be).
  returned: with O(node)
  type: bool
  sample: true
maintenance_reason:
  description: The reason of the maintenance after the task (in check mode, what it would be), or null.
  returned: with O(node)
  type: str
  sample: Replacing disk 2, ticket OPS-1234
node:
  description: The node after the task (in check mode, before it). Never contains C(driver_info) or C(instance_info).
  returned: with O(node)
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
nodes:
  version_added: 0.2.0
  description:
    - With O(nodes) or O(select), one entry per node with C(node), C(changed) and C(error) (null unless it
      failed), C(maintenance) and C(maintenance_reason).
  returned: with O(nodes) or O(select)
  type: list
  elements: dict
totals:
  version_added: 0.2.0
  description: With O(nodes) or O(select), how many nodes there were, changed, failed and not started (with O(wave_size)), the seconds taken and the API calls.
  returned: with O(nodes) or O(select)
  type: dict
  sample: {nodes: 300, changed: 2, failed: 0, not_started: 0, seconds: 0.4, api_calls: 3}
failed_nodes:
  version_added: 0.2.0
  description: With O(nodes) or O(select), how the task names each node that failed (its error is in RV(nodes)).
  returned: with O(nodes) or O(select)
  type: list
  elements: str
  sample: ['nodes[3] (rack1-node07)']
waves:
  version_added: 0.3.0
  description:
    - With O(wave_size), the waves of the task, in the order they ran (or would run, in check mode), each the names
      the task gives its nodes. Each entry of RV(nodes) has C(wave), the number of its wave (null for a node that
      needs no change), and C(started), false for a node whose wave never started.
  returned: with O(wave_size)
  type: list
  elements: list
  sample: [['rack1-node01', 'rack1-node02'], ['rack1-node03']]
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 3
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    NODE_SELECTION_SPEC, each_node, run, targets)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import (
    MAINTENANCE_STATES, declared_maintenance, ensure_maintenance, node_maintenance, refuse_dropped_reasons,
    task_maintenance)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ARGUMENT_SPEC = dict(
    NODE_SELECTION_SPEC,
    maintenance=dict(type='bool'),
    state=dict(type='str', choices=list(MAINTENANCE_STATES)),
    reason=dict(type='str'),
    timeout=dict(type='int', default=300),
)


def main_logic(module):
    params = module.params
    task = task_maintenance(params)

    def apply(target, check_mode):
        return ensure_maintenance(module.client, target.node, node_maintenance(target.settings, task),
                                  target.settings['reason'], check_mode, timeout=params['timeout'])

    # An element's maintenance and state default to none, so that either one of them overrides the task's.
    nodes = targets(module.client, params, {'maintenance': None, 'state': None, 'reason': params['reason']},
                    {'maintenance': bool, 'state': tuple(MAINTENANCE_STATES), 'reason': str}, fields=NODE_SUMMARY_FIELDS)
    refuse_dropped_reasons(params, nodes, task)  # with nodes, the elements were only parsed: nothing was read yet
    module.finish(run(module, nodes, each_node(apply, params['concurrency']), NODE_SUMMARY_FIELDS,
                      declared=lambda target: declared_maintenance(node_maintenance(target.settings, task))))


def main():
    # maintenance and state, both given, are refused by task_maintenance, with a message that says which to keep.
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes', 'select')],
                         required_one_of=[('node', 'nodes', 'select'), ('maintenance', 'state')]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
