#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_deploy_template
short_description: Declare Ironic deploy templates, deploy steps a node runs when its instance traits name them
version_added: 0.4.0
description:
  - A deploy template (Ironic API 1.55 or newer) holds deploy steps under the name of a trait. When a node is
    deployed with that trait among its instance traits (the C(traits) key of its C(instance_info), which must also
    be traits of the node), Ironic adds the template's steps to the deploy, in the order of their priorities, beside
    the deploy interface's own steps. Give the instance traits with
    O(baremetal.lifecycle.baremetal_provision_state#module:instance_info) and the node's traits with
    O(baremetal.lifecycle.baremetal_node#module:traits).
  - The template is created when missing and updated where it differs from the declaration; options left unset keep
    Ironic's value. A second run with the same declaration changes nothing and sends nothing that changes anything.
  - Every declaration is checked against Ironic's deploy template schema before any request that changes anything
    (the name, the steps' keys, interfaces and priorities, duplicate steps), and every problem is named at once.
    Whether the node's interfaces have the steps, Ironic checks when a node deploys.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
attributes:
  check_mode:
    support: full
    description: Returns the templates as they would be and changes nothing.
  diff_mode:
    support: full
    description: Shows each field of the template before and after the task (with O(templates), each template).
options:
  name:
    description:
      - The template's name, a trait (C(CUSTOM_) followed by capitals, digits and underscores, or a standard trait).
      - One of O(name) and O(templates) is required.
    type: str
  state:
    description:
      - V(present) creates or updates the template; V(absent) deletes it (nothing happens when there is none).
      - With O(templates), the state of each element that sets none.
    type: str
    choices: [present, absent]
    default: present
  steps:
    description:
      - The deploy steps, each a dictionary with C(interface) (V(bios), V(deploy), V(firmware), V(management),
        V(power), V(raid) or V(vendor)), C(step) (the name of a deploy step of that interface), C(priority) (a whole
        number; 0 disables the step, a higher one runs earlier) and optional C(args) (a dictionary, empty when
        left out).
      - Each step of an interface may appear once. Required to create the template; replaces its steps.
      - Ironic masks step arguments named like passwords when it returns them, so a change of such a value alone is
        not seen; they never appear in results or diffs.
    type: list
    elements: dict
  extra:
    description:
      - Free-form data kept with the template; replaces what Ironic holds.
    type: dict
  templates:
    description:
      - Several templates in one task, each with the options above. Every declaration is checked before the first
        write.
    type: list
    elements: dict
    suboptions:
      name:
        description: The template's name, a trait.
        type: str
        required: true
      steps:
        description: Its deploy steps, as O(steps).
        type: list
        elements: dict
      extra:
        description: Free-form data kept with it.
        type: dict
      state:
        description: V(present) or V(absent); O(state) when unset.
        type: str
        choices: [present, absent]
notes:
  - An API older than 1.55 has no deploy templates; the task fails naming the version before anything is sent.
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
  - module: baremetal.lifecycle.baremetal_node
'''

EXAMPLES = r'''
- name: Declare a template that turns hyper-threading off during deploy
  baremetal.lifecycle.baremetal_deploy_template:
    name: CUSTOM_HYPERTHREADING_OFF
    steps:
      - interface: bios
        step: apply_configuration
        priority: 150
        args:
          settings:
            - {name: LogicalProc, value: Disabled}
    extra:
      ticket: OPS-4711

- name: Give the node the trait, so that it may deploy with the template
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    traits: [CUSTOM_HYPERTHREADING_OFF]

- name: Deploy it with the template's steps (its instance traits name the template)
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    instance_info:
      image_source: http://images.example.com/ubuntu-24.04.qcow2
      image_checksum: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
      traits: [CUSTOM_HYPERTHREADING_OFF]

- name: Declare several templates in one task
  baremetal.lifecycle.baremetal_deploy_template:
    templates:
      - name: CUSTOM_RAID1
        steps:
          - {interface: raid, step: apply_configuration, priority: 160,
             args: {raid_config: {logical_disks: [{size_gb: MAX, raid_level: "1", is_root_volume: true}]}}}
      - name: CUSTOM_OLD_TEMPLATE
        state: absent
'''

RETURN = r'''
deploy_template:
  description: The template after the task (as it would be, in check mode); null once deleted. Without O(templates).
  returned: when O(name) is given
  type: dict
  contains:
    uuid:
      description: The template's UUID (absent in check mode for a template not created yet).
      type: str
    name:
      description: The template's name.
      type: str
    steps:
      description: The steps, each with C(interface), C(step), C(args) and C(priority), secret arguments masked.
      type: list
      elements: dict
    extra:
      description: Free-form data kept with it.
      type: dict
deploy_templates:
  description: With O(templates), each template after the task, in the order given (null for a deleted one).
  returned: when O(templates) is given
  type: list
  elements: dict
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.deploy_template import ensure_deploy_templates
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ARGUMENT_SPEC = dict(
    name=dict(type='str'),
    state=dict(type='str', choices=['present', 'absent'], default='present'),
    steps=dict(type='list', elements='dict'),
    extra=dict(type='dict'),
    templates=dict(type='list', elements='dict', options=dict(
        name=dict(type='str', required=True),
        steps=dict(type='list', elements='dict'),
        extra=dict(type='dict'),
        state=dict(type='str', choices=['present', 'absent']),
    )),
)


def main_logic(module):
    module.exit(**ensure_deploy_templates(module.client, module.params, module.check_mode))


def main():
    with BaremetalModule(ARGUMENT_SPEC, required_one_of=[('name', 'templates')],
                         mutually_exclusive=[('name', 'templates'), ('steps', 'templates'),
                                             ('extra', 'templates')]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
