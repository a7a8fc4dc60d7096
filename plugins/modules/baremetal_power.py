#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_power
short_description: Power bare metal nodes on and off, or reboot them
version_added: 0.1.0
description:
  - Asks Ironic to power a node on or off, hard or soft, or to reboot it, and waits until Ironic reports
    the power state reached.
  - V(powered_on), V(powered_off) and V(soft_powered_off) are states; a node already in them is left alone.
    V(rebooted) and V(soft_rebooted) are actions and always report a change.
  - When the node's power interface cannot act (for example its BMC is unreachable), the task fails with
    Ironic's reason.
  - A power action Ironic is already running on the node is waited for first, and a node a conductor keeps locked
    (for example while it waits for a slow BMC) is asked again until O(timeout) passes.
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
    description: Reports whether the power state would change, without asking Ironic to act.
  diff_mode:
    support: full
    description: Shows the power state before and after.
options:
  state:
    description:
      - V(powered_on) and V(powered_off) switch the power hard.
      - V(soft_powered_off) asks the operating system to shut down (ACPI), and V(soft_rebooted) to restart.
      - V(rebooted) power cycles the node hard.
    type: str
    required: true
    choices: [powered_on, powered_off, rebooted, soft_powered_off, soft_rebooted]
  timeout:
    description:
      - Seconds to wait for the power state to be reached.
      - For soft actions it is also Ironic's own timeout, after which the task fails; the operating system may
        have ignored the request.
    type: int
    default: 300
notes:
  - Power nodes through Ironic, not through their BMC directly. Ironic's periodic power state sync puts a node
    back in the power state it recorded (C(force_power_state_during_sync)).
seealso:
  - module: baremetal.lifecycle.baremetal_node
  - module: baremetal.lifecycle.baremetal_maintenance
'''

EXAMPLES = r'''
- name: Power a node on
  baremetal.lifecycle.baremetal_power:
    cloud: baremetal-lifecycle-local
    node: rack1-node07
    state: powered_on

- name: Shut the operating system down cleanly, giving it five minutes
  baremetal.lifecycle.baremetal_power:
    node: rack1-node07
    state: soft_powered_off
    timeout: 300

- name: Power cycle a hung server
  baremetal.lifecycle.baremetal_power:
    node: rack1-node07
    state: rebooted

- name: Ask the operating system to restart
  baremetal.lifecycle.baremetal_power:
    node: rack1-node07
    state: soft_rebooted
    timeout: 600

- name: Power on every node of a conductor group, five at a time (Ironic on MySQL or PostgreSQL)
  baremetal.lifecycle.baremetal_power:
    select:
      conductor_group: rack2
    state: powered_on
    concurrency: 5
'''

RETURN = r'''
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
      description: The power state, V(power on) or V(power off), or null when Ironic does not know it yet.
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
      description: The last error Ironic recorded for the node, such as why a power action failed.
      type: str
nodes:
  version_added: 0.2.0
  description: With O(nodes) or O(select), one entry per node with C(node), C(changed) and C(error) (null unless it failed).
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
  sample: 4
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    NODE_SELECTION_SPEC, each_node, run, targets)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.power import declared_power, ensure_power
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import POWER_ACTIONS

ARGUMENT_SPEC = dict(
    NODE_SELECTION_SPEC,
    state=dict(type='str', required=True, choices=sorted(POWER_ACTIONS)),
    timeout=dict(type='int', default=300),
)


def main_logic(module):
    params = module.params
    progress = task_progress()

    def apply(target, check_mode):
        return ensure_power(module.client, target.node, target.settings['state'], params['timeout'], check_mode, progress)

    nodes = targets(module.client, params, {'state': params['state']}, {'state': tuple(sorted(POWER_ACTIONS))},
                    fields=NODE_SUMMARY_FIELDS)
    module.finish(run(module, nodes, each_node(apply, params['concurrency']), NODE_SUMMARY_FIELDS,
                      declared=lambda target: declared_power(target.settings['state']), progress=progress))


def main():
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes', 'select')],
                         required_one_of=[('node', 'nodes', 'select')]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
