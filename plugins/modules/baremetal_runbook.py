#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_runbook
short_description: Declare an Ironic runbook, a named list of steps to run on nodes by name
version_added: 0.3.0
description:
  - A runbook (Ironic API 1.92 or newer) holds clean or service steps under a name, so that maintenance is declared
    once and run by name on many nodes with O(baremetal.lifecycle.baremetal_provision_state#module:runbook), as a
    manual clean on a V(manageable) node or by servicing an V(active) one.
  - The runbook is created when missing and updated where it differs from the declaration; options left unset keep
    Ironic's value. A second run with the same declaration changes nothing and sends nothing that changes anything.
  - The declaration is checked against Ironic's runbook schema before any request that changes anything (steps,
    their interfaces and order, duplicate steps, the name, owner with public), and every problem is named at once.
  - Ironic runs a runbook only on nodes approved for it. From API 1.112 a node needs one of the runbook's
    O(traits); before, the runbook's O(name) is a trait the node needs (set node traits with
    M(baremetal.lifecycle.baremetal_node)).
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
attributes:
  check_mode:
    support: full
    description: Returns the runbook as it would be and changes nothing.
  diff_mode:
    support: full
    description: Shows each field of the runbook before and after the task (after the declaration, in check mode).
options:
  name:
    description:
      - The runbook's name, or its UUID to find an existing one.
      - Before Ironic API 1.112 the name must be a trait (C(CUSTOM_) followed by capitals, digits and underscores);
        from 1.112 any name of letters, digits and C(- . _ ~).
    type: str
    required: true
  state:
    description:
      - V(present) creates or updates the runbook; V(absent) deletes it (nothing happens when there is none).
    type: str
    choices: [present, absent]
    default: present
  steps:
    description:
      - The steps, each a dictionary with C(interface) (V(bios), V(deploy), V(firmware), V(management), V(power),
        V(raid) or V(vendor)), C(step), C(order) (a whole number; steps run in that order) and optional C(args).
      - Each step of an interface may appear once. Required to create the runbook.
      - Ironic masks step arguments named like passwords when it returns them, so a change of such a value alone is
        not seen; they never appear in results or diffs.
    type: list
    elements: dict
  public:
    description:
      - Whether every project may use the runbook. A public runbook has no O(owner).
    type: bool
  owner:
    description:
      - The project that owns the runbook.
    type: str
  extra:
    description:
      - Free-form data kept with the runbook; replaces what Ironic holds.
    type: dict
  traits:
    description:
      - The node traits that approve a node for the runbook (Ironic API 1.112 or newer); a node carrying one of them
        may run it. Ironic refuses to run a runbook without traits. Replaces the runbook's traits.
    type: list
    elements: str
  description:
    description:
      - What the runbook does (Ironic API 1.112 or newer).
    type: str
notes:
  - Older APIs refuse O(traits) and O(description) before anything is sent, naming the version they need.
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
'''

EXAMPLES = r'''
- name: Declare a firmware update runbook that nodes with the trait CUSTOM_FIRMWARE_UPDATE may run
  baremetal.lifecycle.baremetal_runbook:
    name: CUSTOM_FIRMWARE_UPDATE
    description: BMC and BIOS firmware of the 2026 rollout
    traits: [CUSTOM_FIRMWARE_UPDATE]
    steps:
      - interface: firmware
        step: update
        order: 1
        args:
          settings:
            - {component: bmc, url: "http://10.0.0.5/bmc-2.1.bin"}
      - interface: management
        step: clear_job_queue
        order: 2

- name: Run it on a manageable node (a manual clean)
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: manageable
    runbook: CUSTOM_FIRMWARE_UPDATE

- name: Delete the runbook
  baremetal.lifecycle.baremetal_runbook:
    name: CUSTOM_FIRMWARE_UPDATE
    state: absent
'''

RETURN = r'''
runbook:
  description: The runbook after the task (as it would be, in check mode); null once deleted.
  returned: always
  type: dict
  contains:
    uuid:
      description: The runbook's UUID (absent in check mode for a runbook not created yet).
      type: str
    name:
      description: The runbook's name.
      type: str
    steps:
      description: The steps, each with C(interface), C(step), C(args) and C(order), secret arguments masked.
      type: list
      elements: dict
    public:
      description: Whether every project may use it.
      type: bool
    owner:
      description: The project that owns it.
      type: str
    extra:
      description: Free-form data kept with it.
      type: dict
    traits:
      description: The node traits that approve a node for it (API 1.112 or newer).
      type: list
      elements: str
    description:
      description: What it does (API 1.112 or newer).
      type: str
    disable_ramdisk:
      description: Whether its steps run without booting the ramdisk.
      type: bool
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.runbook import ensure_runbook

ARGUMENT_SPEC = dict(
    name=dict(type='str', required=True),
    state=dict(type='str', choices=['present', 'absent'], default='present'),
    steps=dict(type='list', elements='dict'),
    public=dict(type='bool'),
    owner=dict(type='str'),
    extra=dict(type='dict'),
    traits=dict(type='list', elements='str'),
    description=dict(type='str'),
)


def main_logic(module):
    module.exit(**ensure_runbook(module.client, module.params, module.check_mode))


def main():
    with BaremetalModule(ARGUMENT_SPEC) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
