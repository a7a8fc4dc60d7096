#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_firmware_campaign
short_description: Bring the firmware of bare metal nodes to a baseline per hardware model, in waves
version_added: 0.5.0
description:
  - Brings the nodes of a firmware baseline to it. The baseline is one entry per hardware model, in the same shape as
    the O(firmware_baseline) of M(baremetal.lifecycle.baremetal_fleet_report), which reports compliance with it.
  - Each node's plan is its model's components in order. Each component passes through the stepping stones above its
    running version, then goes to its target. Each version is one C(firmware.update) step. All the steps of a node
    run in one cycle. A node in V(manageable) or V(available) is updated by manual cleaning, which Ironic's Redfish
    firmware interface runs with the deploy ramdisk booted. A deployed (V(active)) node is serviced (Ironic API
    1.87), which reboots its workload and needs O(allow_disruptive=true).
  - The versions come from what Ironic reports (its firmware components, API 1.86). A rerun after an interruption
    (Ctrl-C, a failed wave, O(stop_after)) plans every node again from where it is, and never repeats a step that
    is done. Ctrl-C ends the task, not the cycle Ironic runs, so a rerun first waits, within O(timeout), for a node
    still in it (V(servicing), V(service wait), V(cleaning), V(clean wait)) to come to rest, then reads its
    versions. In check mode it waits for nothing and plans the node from where it lands.
  - The nodes that need an update run in waves, grouped by O(group_by) when given, behind the health gate of
    O(wave_size). No new wave starts once more than O(max_fail_percentage) of the nodes failed, or after
    O(stop_after).
  - Everything is read and checked before anything is written. The baseline is checked before any read. A deployed
    node without O(allow_disruptive) refuses the whole task before any write.
  - A node whose update fails is left where Ironic put it (V(clean failed) or V(service failed)), with Ironic's
    reason in its C(error). It counts against O(max_fail_percentage).
  - Why a module and not a role or a playbook. A campaign needs check mode, a diff and one result per node, which a
    module has, and the waves, the health gate and the failure budget of the collection's modules.
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
    description: Returns the whole campaign (the waves, and each node's steps and versions) and sends nothing.
  diff_mode:
    support: full
    description: Before and after per firmware component of each node to update.
options:
  firmware_baseline:
    description:
      - The firmware each hardware model should run, a list of models, as in
        M(baremetal.lifecycle.baremetal_fleet_report). Each model has C(name) (optional), C(match) (C(vendor) and
        C(model) as Ironic reports them, or node C(properties)) and C(components) in the order they are updated.
      - Each component has C(component) (V(bios), V(bmc), C(nic:<id>) or V(nic:*)), C(version) (the target), C(url)
        (its image), C(stepping_stones) (versions passed through on the way up, each with C(version) and C(url),
        lowest first) and C(allow_downgrade) (default V(false)).
      - V(nic:*) is every NIC the node records (every component whose name starts with C(nic:)). Ironic names a NIC
        C(nic:<SerialNumber>), or C(nic:<Id>) without a serial number, so one model's NIC has another name on every
        node. In the entry's place, each NIC gets its own steps (NIC after NIC by name) under the name Ironic
        records, which C(firmware.update) takes. A NIC the model names itself follows its own entry. A node that
        records no NIC is V(unknown) for it. It is the only pattern.
      - Checked before anything is read. An unknown component, a pattern other than V(nic:*), a stepping stone at or
        above the target or out of order, a URL that holds a password or a signature, or a model or component given
        twice is refused, each named with the fix.
      - A node that matches no model, or whose versions do not compare with the baseline, is left alone. Its
        C(status) is V(unknown), with the C(reason).
    type: list
    elements: dict
    required: true
    version_added: 0.5.0
    suboptions:
      name:
        description: How results name the model; by default its O(firmware_baseline[].match).
        type: str
      match:
        description: Which nodes are of this model. Every key given must agree.
        type: dict
        required: true
      components:
        description: The components of the model, in the order the campaign updates them.
        type: list
        elements: dict
        required: true
  group_by:
    description:
      - A node field that groups the waves. Every wave holds nodes of one group, group after group in the order
        the nodes come (Ironic's order with O(select)). With O(wave_size), each group runs in waves of that size.
        Without it, each group is one wave.
    type: str
    choices: [conductor_group, resource_class, shard, owner, lessee, chassis_uuid, parent_node]
    version_added: 0.5.0
  stop_after:
    description:
      - The end of the maintenance window. After it, no new wave starts, and the waves that are running finish.
      - A duration from the start of the task (V(2h), V(30m), V(1h30m), V(90s)), or a time of day in UTC (V(06:00),
        the next one to come).
      - The nodes held back are in RV(nodes) with C(started) false and C(held_by) saying why. A rerun continues
        with them.
      - Without O(wave_size) or O(group_by), all the nodes are one wave, which does not start once the window has
        ended.
    type: str
    version_added: 0.5.0
  allow_disruptive:
    description:
      - Allow the campaign to service deployed (V(active)) nodes, which reboots their workload.
      - Without it, a deployed node to update refuses the whole task before anything is written. The message names
        the node and its plan.
    type: bool
    default: false
    version_added: 0.5.0
  timeout:
    description:
      - Seconds each wave may take, including the wait for a node still in a cycle and the cycles of its nodes. Without
        waves, it is the whole task.
    type: int
    default: 3600
    version_added: 0.5.0
  concurrency:
    description:
      - How many nodes of a wave may be in their cycle at once while the task waits. Ironic answers past its own
        limits with HTTP 503, which the task takes as back-pressure.
    type: int
    default: 100
notes:
  - Ironic's Redfish firmware interface records and updates V(bios), V(bmc) and C(nic:<id>) components. Nodes whose
    firmware interface records no components (such as V(fake)) are V(unknown) and left alone.
  - The C(firmware.update) clean step needs the deploy ramdisk; the service step does not.
  - Ironic's C(firmware.update) takes no checksum, so serve firmware images from a trusted location.
seealso:
  - module: baremetal.lifecycle.baremetal_fleet_report
  - module: baremetal.lifecycle.baremetal_hardware
'''

EXAMPLES = r'''
- name: Show the whole campaign, with nothing sent
  baremetal.lifecycle.baremetal_firmware_campaign:
    cloud: baremetal-lifecycle-local
    select: {resource_class: baremetal}
    firmware_baseline:
      - name: Contoso R640
        match: {model: R640}
        components:
          - component: bmc
            version: "2.10"
            url: http://127.0.0.1:8080/firmware/r640-bmc-2.10.bin
            stepping_stones:
              - {version: "2.9", url: "http://127.0.0.1:8080/firmware/r640-bmc-2.9.bin"}
          - component: bios
            version: "1.4"
            url: http://127.0.0.1:8080/firmware/r640-bios-1.4.bin
          - component: "nic:*"  # every NIC a node records: Ironic names each nic:<serial number>
            version: "22.40"
            url: http://127.0.0.1:8080/firmware/r640-nic-22.40.bin
  check_mode: true
  register: campaign

- name: Run it two nodes at a time per conductor group, deployed nodes included, until 06:00 UTC
  baremetal.lifecycle.baremetal_firmware_campaign:
    cloud: baremetal-lifecycle-local
    select: {resource_class: baremetal}
    firmware_baseline:
      - name: Contoso R640
        match: {model: R640}
        components:
          - component: bios
            version: "1.4"
            url: http://127.0.0.1:8080/firmware/r640-bios-1.4.bin
    wave_size: 2
    group_by: conductor_group
    max_fail_percentage: 10
    allow_disruptive: true
    stop_after: "06:00"
'''

RETURN = r'''
nodes:
  description:
    - One entry per node, with C(node), C(changed), C(error) (Ironic's reason for a failed update, masked), and
      C(model) (the model of the baseline it matched, or null), C(status) (V(at_target), V(behind), V(ahead) or
      V(unknown)), C(reason) (why unknown), C(components) (per component its C(target), C(current), C(status), and
      C(baseline_component), the entry it comes from - V(nic:*) for each NIC that entry covers),
      C(campaign) (the plan, each step's C(component), C(version) and C(url)), C(mode) (V(cleaning), V(servicing) or
      null), C(steps) (the C(firmware.update) steps), C(done) (the steps that ran, read back from Ironic) and C(left)
      (the steps still to run), C(plan) and C(transitions) (the provision path), C(wave) and C(started), and
      C(held_by) for a node held back by O(stop_after).
    - With O(node), these keys are the task's own result instead.
  returned: with O(nodes) or O(select)
  type: list
  elements: dict
totals:
  description: How many nodes there were, changed, failed and not started, the seconds taken and the API calls.
  returned: with O(nodes) or O(select)
  type: dict
  sample: {nodes: 20, changed: 12, failed: 0, not_started: 4, seconds: 95.1, api_calls: 61}
failed_nodes:
  description: The nodes that failed, by name (their errors are in RV(nodes)).
  returned: with O(nodes) or O(select)
  type: list
  elements: str
waves:
  description: The waves of the campaign, in the order they ran (or would run, in check mode), each the names of its
    nodes.
  returned: with O(wave_size), O(group_by) or O(stop_after)
  type: list
  elements: list
  sample: [['rack1-node01', 'rack1-node02'], ['rack2-node01']]
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
'''

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet import firmware_campaign as campaign
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_baseline import (
    BASELINE_SPEC, check_baseline)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    MOVING_CONCURRENCY_SPEC, NODE_SELECTION_SPEC, run, targets)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import HARDWARE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ARGUMENT_SPEC = dict(
    firmware_baseline=dict(BASELINE_SPEC, required=True),
    group_by=dict(type='str', choices=list(campaign.GROUP_FIELDS)),
    stop_after=dict(type='str'),
    allow_disruptive=dict(type='bool', default=False),
    timeout=dict(type='int', default=3600),
)
ARGUMENT_SPEC.update(NODE_SELECTION_SPEC, **MOVING_CONCURRENCY_SPEC)


def main_logic(module):
    params = module.params
    baseline = params['firmware_baseline']
    check_baseline(baseline)
    deadline = campaign.stop_deadline(params['stop_after'], time.time())
    module.client.require('firmware components', HARDWARE_MIN_VERSION['firmware components'])
    group_by = params['group_by']
    fields = campaign.CAMPAIGN_NODE_FIELDS + ((group_by,) if group_by else ())
    nodes = targets(module.client, params, {}, types={}, fields=fields)

    def act(batch, check_mode):
        return campaign.run_campaign(module.client, baseline, [target.node for target in batch],
                                     allow_disruptive=params['allow_disruptive'], check_mode=check_mode,
                                     timeout=params['timeout'], concurrency=params['concurrency'])

    stop = campaign.stopper(params['stop_after'], deadline, time.time) if deadline is not None else None
    module.finish(run(module, nodes, act, fields, by_node=True,
                      group_of=(lambda target: target.node.get(group_by)) if group_by else None, stop=stop))


def main():
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes', 'select')],
                         required_one_of=[('node', 'nodes', 'select')]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
