#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_inspection_rule
short_description: Declare Ironic inspection rules, conditions on what inspection finds and actions on the node
version_added: 0.4.0
description:
  - An inspection rule (Ironic API 1.96 or newer, Ironic 2025.1 and later) runs when an inspection of a node ends. When
    its O(conditions) hold on the inventory the inspection found, its O(actions) change the node (a property, a
    capability, a trait, an attribute of a port...).
  - A rule is known by its O(name), which Ironic stores as the rule's description (at most 255 characters). The rule
    is created when Ironic holds none of that description, and updated where it differs from the declaration; options
    left unset keep Ironic's value. A second run with the same declaration changes nothing and sends nothing that
    changes anything. Two rules of Ironic with the same description are refused, naming both.
  - Every declared rule is checked before the first request that changes anything, as Ironic checks it (each
    condition's operator and each action with their arguments, O(priority) and O(phase)). Every problem is named at
    once, with the operators or actions Ironic knows.
  - Built-in rules (the YAML file of Ironic's C([inspection_rules] built_in_rules) setting) are read-only. Ironic's API
    neither lists them nor lets them change, so this module never sees, changes or deletes them. A declared rule with
    the description of a built-in one is a rule of its own, and both run.
  - Below Ironic API 1.96 the task fails before any request that changes anything, naming the version.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
attributes:
  check_mode:
    support: full
    description: Returns each rule as it would be and changes nothing.
  diff_mode:
    support: full
    description: Shows each field of each rule before and after the task (a sensitive rule's conditions and actions
      masked).
options:
  name:
    description:
      - The rule's name, stored as its description in Ironic; the task finds the rule by it.
      - Required unless O(rules) is given.
    type: str
  state:
    description:
      - V(present) creates or updates the rule; V(absent) deletes it (nothing happens when there is none).
      - The state of each element of O(rules) that gives none.
    type: str
    choices: [present, absent]
    default: present
  priority:
    description:
      - Rules of higher priority run first, from 0 to 9999 (Ironic's default 0).
    type: int
  phase:
    description:
      - When the rule runs; Ironic 2025.1 and later have one phase, V(main) (the default), after the inventory is
        processed.
    type: str
  sensitive:
    description:
      - Whether the rule's conditions and actions are secret (for example an action setting a BMC password). Ironic
        then never shows them, and neither does this module, in results, diffs or messages.
      - Ironic never makes a sensitive rule visible again; the task refuses V(false) for one.
      - Since Ironic hides them, a sensitive rule's O(conditions) and O(actions) cannot be compared; they are written
        when the rule is created, and later only with O(update_sensitive=always).
    type: bool
  conditions:
    description:
      - What must hold for the actions to run, each a dictionary with C(op), C(args) (a dictionary of named
        arguments), and optionally C(loop) (a list of items, each as C({item}) in the arguments) and C(multiple)
        (V(any), the default, V(all), V(first) or V(last) of the loop's results). All of them must hold; none means
        always.
      - The operators and their arguments are V(eq), V(lt), V(gt) (C(values), a list; C(force_strings)),
        V(is-empty), V(is-none), V(is-true), V(is-false) (C(value)), V(in-net) (C(address), C(subnet)), V(matches),
        V(contains) (C(value), C(regex)) and V(one-of) (C(value), C(values)); a leading C(!) negates one, as in
        V(!is-empty).
      - Texts in arguments are formatted with the inspection's data, as in C({inventory[cpu][architecture]}),
        C({plugin_data[...]}) or C({node.properties}).
    type: list
    elements: dict
  actions:
    description:
      - What the rule does to the node, in order, each a dictionary with C(op), C(args) (a dictionary of named
        arguments) and optionally C(loop). Required to create the rule.
      - The actions and their arguments are V(set-attribute), V(extend-attribute) (C(path), C(value);
        C(unique)), V(del-attribute) (C(path)), V(add-trait), V(remove-trait), V(unset-capability) (C(name)),
        V(set-capability) (C(name), C(value)), V(set-plugin-data), V(extend-plugin-data) (C(path), C(value);
        C(unique)), V(unset-plugin-data) (C(path)), V(set-port-attribute), V(extend-port-attribute) (C(port_id),
        C(path), C(value); C(unique)), V(del-port-attribute) (C(port_id), C(path)), V(log) (C(msg); C(level)),
        V(fail) (C(msg)) and V(api-call) (C(url); C(headers), C(proxies), C(timeout), C(retries),
        C(backoff_factor)).
    type: list
    elements: dict
  rules:
    description:
      - Several rules declared in one task, each a dictionary with the options that declare one rule, O(name)
        (required), O(state), O(priority), O(phase), O(sensitive), O(conditions) and O(actions). An element without
        O(state) takes the task's.
      - Ironic's rules are read once for all of them, and all are checked and planned before the first write.
      - Cannot be combined with the options that declare one rule.
    type: list
    elements: dict
    suboptions:
      name:
        description: The rule's name, as O(name).
        type: str
        required: true
      state:
        description: V(present) or V(absent), as O(state); the task's when unset.
        type: str
        choices: [present, absent]
      priority:
        description: As O(priority).
        type: int
      phase:
        description: As O(phase).
        type: str
      sensitive:
        description: As O(sensitive).
        type: bool
      conditions:
        description: As O(conditions).
        type: list
        elements: dict
      actions:
        description: As O(actions).
        type: list
        elements: dict
  update_sensitive:
    description:
      - V(on_create) writes a sensitive rule's conditions and actions only when the rule is created;
        V(always) writes them on every run (the task then always reports a change for the rule).
    type: str
    choices: [on_create, always]
    default: on_create
notes:
  - Inspection rules run at the end of an inspection by Ironic itself (the V(agent) inspect interface, or an
    out-of-band one such as V(redfish)); run one with
    O(baremetal.lifecycle.baremetal_provision_state#module:inspection) on the way to V(manageable).
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
  - module: baremetal.lifecycle.baremetal_node_info
'''

EXAMPLES = r'''
- name: Tag x86_64 nodes with many CPUs and record their CPU count as a property
  baremetal.lifecycle.baremetal_inspection_rule:
    name: big x86 nodes
    priority: 50
    conditions:
      - op: eq
        args: {values: ["{inventory[cpu][architecture]}", x86_64]}
      - op: gt
        args: {values: ["{inventory[cpu][count]}", 32]}
    actions:
      - op: add-trait
        args: {name: CUSTOM_BIG_X86}
      - op: set-attribute
        args: {path: /properties/cpu_count, value: "{inventory[cpu][count]}"}

- name: Declare several rules in one task; a sensitive one keeps its BMC credentials out of every output
  baremetal.lifecycle.baremetal_inspection_rule:
    rules:
      - name: resource class by memory
        conditions:
          - op: gt
            args: {values: ["{inventory[memory][physical_mb]}", 262144]}
        actions:
          - op: set-attribute
            args: {path: /resource_class, value: large}
      - name: BMC credentials
        sensitive: true
        actions:
          - op: set-attribute
            args: {path: /driver_info/redfish_password, value: "{{ vault_bmc_password }}"}
      - name: an old rule
        state: absent

- name: Delete a rule
  baremetal.lifecycle.baremetal_inspection_rule:
    name: big x86 nodes
    state: absent
'''

RETURN = r'''
rule:
  description: The rule after the task (as it would be, in check mode); null once deleted. Without O(rules).
  returned: when O(name) is given
  type: dict
  contains:
    name:
      description: The rule's name (its description in Ironic).
      type: str
    uuid:
      description: The rule's UUID (absent in check mode for a rule not created yet).
      type: str
    priority:
      description: Its priority; rules of higher priority run first.
      type: int
    phase:
      description: When it runs.
      type: str
    sensitive:
      description: Whether its conditions and actions are hidden.
      type: bool
    conditions:
      description: Its conditions, each with C(op) and C(args) (and C(loop), C(multiple)); C(********) for a
        sensitive rule.
      type: raw
    actions:
      description: Its actions, each with C(op) and C(args) (and C(loop)); C(********) for a sensitive rule.
      type: raw
rules:
  description: One result per element of O(rules), in their order.
  returned: when O(rules) is given
  type: list
  elements: dict
  contains:
    name:
      description: The rule's name.
      type: str
    changed:
      description: Whether the task changed (or, in check mode, would change) this rule.
      type: bool
    rule:
      description: The rule after the task, as RV(rule) shows it; null once deleted.
      type: dict
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 2
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.inspection_rule_writer import (
    ensure_inspection_rules, shown)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

RULE_SPEC = dict(
    priority=dict(type='int'),
    phase=dict(type='str'),
    sensitive=dict(type='bool'),
    conditions=dict(type='list', elements='dict'),
    actions=dict(type='list', elements='dict'),
)

ARGUMENT_SPEC = dict(
    RULE_SPEC,
    name=dict(type='str'),
    state=dict(type='str', choices=['present', 'absent'], default='present'),
    rules=dict(type='list', elements='dict', options=dict(
        RULE_SPEC,
        name=dict(type='str', required=True),
        state=dict(type='str', choices=['present', 'absent']),
    )),
    update_sensitive=dict(type='str', choices=['on_create', 'always'], default='on_create'),
)


def main_logic(module):
    params = module.params
    if params['rules'] is None:
        declarations = [dict((option, params[option]) for option in ('name', 'state') + tuple(RULE_SPEC))]
    else:
        declarations = [dict(rule, state=rule['state'] or params['state']) for rule in params['rules']]
    results = ensure_inspection_rules(module.client, declarations, params['update_sensitive'], module.check_mode)
    changed = any(result['changed'] for result in results)
    if params['rules'] is None:
        module.exit(changed=changed, rule=results[0]['rule'], diff=results[0]['diff'])
    module.exit(changed=changed, rules=shown(results), diff=[result['diff'] for result in results])


def main():
    with BaremetalModule(ARGUMENT_SPEC, required_one_of=[('name', 'rules')],
                         mutually_exclusive=[('rules', option) for option in ['name'] + sorted(RULE_SPEC)]) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
