#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_hardware
short_description: Declare BIOS settings, a RAID layout and firmware versions of bare metal nodes
version_added: 0.2.0
description:
  - Declares the hardware configuration of an Ironic node, which is its BIOS settings, its RAID layout and
    its firmware versions. The module reads what Ironic reports, validates the declaration against it, and computes the
    clean (or service) steps that make the node match.
  - All the steps run together in one cycle, so one reboot applies every change. The provision path around
    them comes from the same state engine as M(baremetal.lifecycle.baremetal_provision_state). With
    O(apply=cleaning), a node in V(manageable) or V(available) runs one manual clean and returns to the
    state it came from. From V(available), that path is V(manage), V(clean), V(provide), and automated
    cleaning runs again on V(provide).
  - Everything is validated before anything is written. An unknown BIOS setting gets a "did you mean"
    from the node's BIOS registry. A value outside the allowed values or range, a read-only setting, or a
    malformed RAID layout or firmware entry fails the task and names the key. So does a step the node's
    interface does not offer (see the notes). Nothing is sent to Ironic.
  - When the node already matches, no request that changes anything is made and the task reports no change.
  - A node still moving is waited for within O(timeout) and read again once it rests, so that a step its cycle
    completed meanwhile is not run again. Such a node is most often in the clean or service cycle of a run that was
    interrupted, since Ctrl-C ends the task and not Ironic's cycle. In check mode it is planned from where it lands,
    without waiting.
  - With O(nodes) or O(select), many nodes are validated first and then configured in one task.
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
    description: Validates, and returns the steps and the provision plan computed from the live node; makes no change.
  diff_mode:
    support: full
    description: Before and after per BIOS setting, per logical disk and per firmware component.
options:
  nodes:
    description:
      - Names or UUIDs of many nodes to configure in one task.
      - An element may also be a dictionary with C(node) and any of C(bios_settings), C(raid), C(firmware),
        C(apply), C(allow_destructive) and C(allow_reboot), which override the task's options for that node.
    type: list
    elements: raw
  bios_settings:
    description:
      - BIOS setting names and the values they should have. Only the settings named here are managed;
        the others are left alone.
      - Names and values are checked against the node's BIOS registry (API 1.74) when Ironic has one. Values of
        settings whose registry type is C(Password), or whose name says password, are never shown.
      - Only the settings that differ are sent, in one C(bios.apply_configuration) step.
    type: dict
  raid:
    description:
      - The RAID layout the node should have, as Ironic's C(target_raid_config). It is a dictionary with
        C(logical_disks), a list of logical disks with C(raid_level) and C(size_gb) (GiB or V(MAX)). Each may also
        have C(is_root_volume), C(volume_name), C(controller), C(physical_disks), C(disk_type),
        C(interface_type), C(number_of_physical_disks) or C(share_physical_disks).
      - Use V({}) to declare no RAID. Leave it out to leave RAID alone.
      - The module first records the layout as the node's C(target_raid_config). When the node's built
        layout (C(raid_config)) differs, it runs C(raid.delete_configuration) and C(raid.create_configuration).
    type: dict
  firmware:
    description:
      - Firmware components and the lowest version each should run. A component reported below its
        C(version), or not reported at all, is updated with one C(firmware.update) step (API 1.86).
        A component already at or above the version is left alone.
    type: list
    elements: dict
    suboptions:
      component:
        description: The component, as Ironic names it (for example V(bios), V(bmc), or V(nic:...) on Redfish).
        type: str
        required: true
      version:
        description: The version the component should run at least.
        type: str
        required: true
      url:
        description: The URL of the image that provides this version.
        type: str
        required: true
      wait:
        description: Seconds to wait after this component's update, where the firmware interface supports it.
        type: int
  apply:
    description:
      - V(cleaning) runs the steps in one manual clean. It works from V(manageable) or V(available), and the node
        returns to the state it came from.
      - V(servicing) runs them as service steps on an V(active) node (API 1.87), without tearing down its
        workload. This reboots the workload, so it needs O(allow_reboot=true). A RAID change also needs
        O(allow_destructive=true).
      - V(never) only validates and reports the difference.
    type: str
    choices: [cleaning, servicing, never]
    default: cleaning
  allow_destructive:
    description:
      - Allow a RAID change on an V(active) node, which destroys the data of its workload.
    type: bool
    default: false
  allow_reboot:
    description:
      - Allow servicing to reboot an V(active) node's workload.
    type: bool
    default: false
  timeout:
    description:
      - Seconds the whole task may take, including the wait for a node still moving and the clean or service cycle.
      - Recording a node's target RAID configuration waits this long at most for a node a conductor keeps locked.
    type: int
    default: 3600
  concurrency:
    description:
      - With O(nodes) or O(select), how many nodes may be in their cycle at once while the task waits.
      - It bounds the conductors' work, not the API's; the task sends one request at a time whatever its value, so
        it is no limit a database needs, SQLite included.
      - Ironic paces the rest itself. Past its concurrent action limits (C([conductor]max_concurrent_clean), 50 by
        default, for manual cleaning and servicing) or with no conductor worker free, it answers a step with HTTP
        503 and does nothing. The task takes that as back-pressure, not as a failure. The node waits. At most as
        many nodes as were in their cycle then move at once, and one more each time one of them comes to rest.
      - O(wave_size) is the outer limit, how many nodes a task takes in hand before it checks they are healthy;
        O(concurrency) is the inner one, how many of those at once.
    type: int
    default: 100
notes:
  - While the task waits, its action plugin shows the nodes moving as the task runs, with every change of state
    or step of a single node, and counts by state every 10 seconds for several nodes (every change at C(-v)). With
    C(async) or a connection other than C(local), the module runs the same way without these lines.
  - Ironic's own interfaces that offer no step of their kind are refused before anything is written, in check
    mode too. These are V(no-bios), V(no-raid), V(fake) RAID (which has no RAID clean steps) and V(no-firmware).
    The error names the node's C(bios_interface), C(raid_interface) or C(firmware_interface), and says to set one
    that offers the steps with M(baremetal.lifecycle.baremetal_node) or to leave the option out.
    O(apply=never) still reports the difference.
  - Another interface (a vendor's) that does not offer a step fails in Ironic. The task then fails with Ironic's
    message and names the interface that would be needed. The node is left in V(clean failed) or
    V(service failed). M(baremetal.lifecycle.baremetal_provision_state) recovers it from there, and Ironic keeps
    the recorded C(target_raid_config).
  - Ironic's C(firmware.update) takes each component's C(url) and optional C(wait). It takes no checksum, so
    serve firmware images from a trusted location.
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
  - module: baremetal.lifecycle.baremetal_node
'''

EXAMPLES = r'''
- name: Set BIOS settings on a node in manageable, in one manual clean
  baremetal.lifecycle.baremetal_hardware:
    cloud: baremetal-lifecycle-local
    node: rack1-node07
    bios_settings:
      ProcTurboMode: Disabled
      LogicalProc: Enabled

- name: Declare a mirrored root volume and the rest as RAID 5, then return the node to available
  baremetal.lifecycle.baremetal_hardware:
    node: rack1-node07
    raid:
      logical_disks:
        - {size_gb: 100, raid_level: "1", is_root_volume: true}
        - {size_gb: MAX, raid_level: "5"}

- name: Bring the BMC firmware up to 2.76, with BIOS settings, in the same cycle
  baremetal.lifecycle.baremetal_hardware:
    node: rack1-node07
    bios_settings:
      BootMode: Uefi
    firmware:
      - component: bmc
        version: "2.76"
        url: http://127.0.0.1:8080/firmware/bmc-2.76.bin

- name: Show what would change on a whole rack, without changing anything
  baremetal.lifecycle.baremetal_hardware:
    nodes: "{{ groups['rack1'] }}"
    bios_settings:
      ProcTurboMode: Disabled
    apply: never
  register: preview

- name: Change a BIOS setting on a deployed node by servicing it, which reboots its workload
  baremetal.lifecycle.baremetal_hardware:
    node: db01
    bios_settings:
      ProcTurboMode: Enabled
    apply: servicing
    allow_reboot: true
'''

RETURN = r'''
changes:
  description:
    - What differs, per BIOS setting, per logical disk (and the recorded C(target_raid_config)) and per firmware
      component, each with C(before) and C(after). Password values are shown as C(********).
    - Empty sections mean that part already matches.
  returned: with O(node)
  type: dict
  sample:
    bios_settings: {ProcTurboMode: {before: Enabled, after: Disabled}}
    raid: {}
    firmware: {bmc: {before: "2.70", after: "2.76"}}
steps:
  description: The clean or service steps that make the node match, in the order they run. Empty when it matches.
  returned: with O(node)
  type: list
  elements: dict
  sample: [{interface: bios, step: apply_configuration, args: {settings: [{name: ProcTurboMode, value: Disabled}]}}]
plan:
  description:
    - The provision path that runs the steps, as in M(baremetal.lifecycle.baremetal_provision_state)
      (C(verb), C(name), C(from), C(to), C(cleans_disks), C(destructive)).
  returned: with O(node)
  type: list
  elements: dict
  sample: [{verb: clean, from: manageable, to: manageable, cleans_disks: true, destructive: false}]
transitions:
  description: The provision steps executed, with the state each ended in and how long it took.
  returned: with O(node)
  type: list
  elements: dict
node:
  description:
    - The node after the task (C(uuid), C(name), C(provision_state), C(target_provision_state), C(power_state),
      C(target_power_state), C(maintenance), C(maintenance_reason), C(last_error)).
    - Never contains C(driver_info) or C(instance_info).
  returned: with O(node)
  type: dict
nodes:
  description: With O(nodes) or O(select), one entry per node with C(node), C(changes), C(steps), C(plan), C(transitions),
    C(changed) and C(error).
  returned: with O(nodes) or O(select)
  type: list
  elements: dict
totals:
  description: With O(nodes) or O(select), how many nodes there were, changed, failed and not started (with O(wave_size)), the seconds taken and the API calls.
  returned: with O(nodes) or O(select)
  type: dict
  sample: {nodes: 20, changed: 4, failed: 0, not_started: 0, seconds: 95.1, api_calls: 61}
failed_nodes:
  description:
    - With O(nodes) or O(select), each node that failed, by its name, else its UUID, else as the task gave it (its
      error is in RV(nodes)).
  returned: with O(nodes) or O(select)
  type: list
  elements: str
  sample: ['rack1-node07']
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
  sample: 9
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware, hardware_declaration as declared
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    MOVING_CONCURRENCY_SPEC, NODE_SELECTION_SPEC, run, targets)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ARGUMENT_SPEC = dict(
    bios_settings=dict(type='dict'),
    raid=dict(type='dict'),
    firmware=dict(type='list', elements='dict', options=dict(
        component=dict(type='str', required=True),
        version=dict(type='str', required=True),
        url=dict(type='str', required=True),
        wait=dict(type='int'),
    )),
    apply=dict(type='str', default='cleaning', choices=list(declared.APPLY_MODES)),
    allow_destructive=dict(type='bool', default=False),
    allow_reboot=dict(type='bool', default=False),
    timeout=dict(type='int', default=3600),
)
ARGUMENT_SPEC.update(NODE_SELECTION_SPEC, **MOVING_CONCURRENCY_SPEC)


def main_logic(module):
    params = module.params
    task = dict((key, params[key]) for key in declared.DECLARATION_KEYS)
    nodes = targets(module.client, params, task, declared.ELEMENT_TYPES, fields=hardware.HARDWARE_NODE_FIELDS)
    for target in nodes:
        target.item = declared.declaration_of(target.settings)
    declared.check_shapes([(target.ident, target.item) for target in nodes])

    def act(batch, check_mode):
        return hardware.configure(module.client, [(target.node, target.item) for target in batch],
                                  check_mode=check_mode, timeout=params['timeout'], concurrency=params['concurrency'])

    module.finish(run(module, nodes, act, hardware.HARDWARE_NODE_FIELDS, by_node=True))


def main():
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes', 'select')],
                         required_one_of=[('node', 'nodes', 'select')]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
