#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_fleet_report
short_description: Report on a whole bare metal fleet - states, capacity, firmware, drift, firmware compliance
version_added: 0.4.0
description:
  - Reads every node of Ironic and returns one report - each node's state, power, maintenance, fault, health,
    resource class, owner and last error; the capacity of each resource class; the firmware versions by vendor,
    model and component, with the nodes that run another version than the rest of their group; and, given the
    declared fleet, the drift of each node from it; given a firmware baseline, each node's compliance with it and
    the plan a campaign would run.
  - Reads in proportion - one paginated list of the nodes, then per node only its firmware components (with
    O(firmware)) and what O(fleet) declares for it (its BIOS settings, its firmware). It writes nothing.
  - The playbook C(baremetal.lifecycle.fleet_report) writes this report as JSON and as an HTML page.
  - Secrets never leave the module - C(last_error) and C(maintenance_reason) are masked, and so are secret BIOS
    settings and properties in the drift.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
  - baremetal.lifecycle.attributes.info_module
options:
  fleet:
    description:
      - The declared fleet, a list of nodes in the format of the fleet role's fleet file
        (C(roles/fleet/files/fleet.schema.json)). The playbook C(baremetal.lifecycle.fleet_report) reads and
        validates the file for you.
      - Each node is compared with the node of the same C(name) (or C(uuid)) on C(resource_class), C(properties)
        (the keys given), C(traits), C(bios_settings), C(raid) and C(firmware) (a component drifts when it runs a
        version below the declared one), by the rules M(baremetal.lifecycle.baremetal_node) and
        M(baremetal.lifecycle.baremetal_hardware) follow; the other fields are not compared.
      - Not given, the report has no drift (RV(report.drift) is null).
    type: list
    elements: dict
  firmware:
    description:
      - Read the firmware components of every node (one request per node) for RV(report.firmware).
      - Where Ironic's API predates them (1.86) the report says so in C(firmware.note) instead of failing.
      - Whatever this says, the firmware of a node whose declaration in O(fleet) names firmware is read.
    type: bool
    default: true
  firmware_baseline:
    description:
      - The firmware each hardware model should run, a list of models. For each node, the report gives per
        component whether it is at the target, behind (by how many steps), ahead, or unknown (with the reason - its
        firmware interface records no components, no model matches it, or its version does not compare with the
        target), and its plan - the ordered steps (C(component), C(version), C(url)) a campaign would run - in
        RV(report.nodes); per model and component, how many nodes are in each, in RV(report.firmware_baseline).
      - Every node's firmware components are read (one request per node), whatever O(firmware) says; this needs
        Ironic API 1.86.
      - Checked before anything is read - an unknown component, a pattern other than V(nic:*), a stepping stone at
        or above the target or out of order, a URL that holds a password or a signature, a model or a component
        given twice, an empty list are refused, each named with the fix.
      - Versions compare in a natural order (numbers as numbers - V(2.10) is above V(2.9)) when they are of one shape;
        otherwise the component is unknown, never guessed.
    type: list
    elements: dict
    version_added: 0.5.0
    suboptions:
      name:
        description: How the report names the model; by default its O(firmware_baseline[].match).
        type: str
      match:
        description:
          - Which nodes are of this model. Every key given must agree.
          - C(vendor) - the node's vendor as Ironic reports it (C(properties.vendor), which Ironic reads from the
            BMC, else the vendor of its C(bios) or C(bmc) firmware component), case aside.
          - C(model) - the model of its C(bios) or C(bmc) firmware component (Ironic API 1.114; Redfish reports the
            BMC's), else C(properties.model), case aside.
          - "C(properties) - node properties and their values, for example C({hw_model: r640})."
          - A node that matches no model, or more than one, is unknown, with the reason.
        type: dict
        required: true
      components:
        description:
          - The components of the model, in the order a campaign updates them (BMC before BIOS where the vendor says
            so). Each has C(component) (V(bios), V(bmc) or C(nic:<id>), as Ironic's Redfish firmware interface names
            components, or V(nic:*)), C(version) (the target), C(url) (its image, as in
            M(baremetal.lifecycle.baremetal_hardware)'s C(firmware)), C(stepping_stones) (the versions a node must
            pass through on the way up, each with its C(version) and C(url), lowest first, all below the target) and
            C(allow_downgrade) (default V(false); when V(true) a node ahead of the target is planned down to it).
          - V(nic:*) is every NIC the node records (every component whose name starts with C(nic:)). Ironic names a
            NIC C(nic:<SerialNumber>), or C(nic:<Id>) without a serial number, so one model's NIC has another name on
            every node. Each NIC is judged and planned against the entry, under the name Ironic records, in the
            entry's place, NIC after NIC by name. A NIC the model names itself follows its own entry. A node that
            records no NIC is V(unknown) for it. It is the only pattern.
        type: list
        elements: dict
        required: true
notes:
  - A fleet that declares C(firmware) needs Ironic API 1.86; the task fails before reading any node on an older one.
seealso:
  - module: baremetal.lifecycle.baremetal_node_info
  - module: baremetal.lifecycle.baremetal_hardware
'''

EXAMPLES = r'''
- name: Report on the whole fleet
  baremetal.lifecycle.baremetal_fleet_report:
    cloud: baremetal-lifecycle-local
  register: fleet

- name: The drift from the fleet the fleet role converges, without reading firmware
  baremetal.lifecycle.baremetal_fleet_report:
    cloud: baremetal-lifecycle-local
    firmware: false
    fleet:
      - name: rack1-node01
        resource_class: baremetal-small
        traits: [CUSTOM_RACK1]
        bios_settings: {ProcTurboMode: Enabled}
  register: drift

- name: Which nodes run the firmware of their model's baseline, and what a campaign would run on the others
  baremetal.lifecycle.baremetal_fleet_report:
    cloud: baremetal-lifecycle-local
    firmware_baseline:
      - name: Contoso R640
        match: {vendor: Contoso, model: R640}
        components:
          - component: bmc
            version: "2.10"
            url: http://127.0.0.1:8080/firmware/r640-bmc-2.10.bin
            stepping_stones:
              - {version: "2.8", url: "http://127.0.0.1:8080/firmware/r640-bmc-2.8.bin"}
          - component: bios
            version: 1.4.2
            url: http://127.0.0.1:8080/firmware/r640-bios-1.4.2.bin
  register: compliance

- name: Name the nodes a firmware campaign would update
  ansible.builtin.debug:
    msg: "{{ compliance.report.firmware_baseline.to_update }}"

- name: Show the free share of each resource class
  ansible.builtin.debug:
    msg: "{{ fleet.report.capacity | items2dict(key_name='resource_class', value_name='free_percent') }}"
'''

RETURN = r'''
report:
  description:
    - The fleet report; C(playbooks/files/fleet-report.schema.json) in the collection is its JSON Schema.
  returned: always
  type: dict
  contains:
    format:
      description: The version of the report's shape.
      type: int
      sample: 1
    generated_at:
      description: When the report was made, UTC, ISO 8601.
      type: str
      sample: '2026-01-05T10:00:00Z'
    api_version:
      description: The Ironic API version the report was read with.
      type: str
      sample: '1.115'
    summary:
      description:
        - C(nodes), C(provision_states) (how many nodes in each), C(in_maintenance), C(failed) (in a failure
          state or C(error)), C(with_fault), C(with_last_error), C(unhealthy) (C(health) other than V(OK)),
          C(firmware_outliers) (nodes running another version than the rest of their group); with O(fleet),
          C(drifted), C(undeclared) and C(missing), else null; with O(firmware_baseline), C(firmware_to_update)
          (nodes whose plan has steps), else null.
      type: dict
      sample: {nodes: 3, provision_states: {available: 2, active: 1}, in_maintenance: 1, failed: 0, with_fault: 0,
               with_last_error: 0, unhealthy: 0, firmware_outliers: 1, drifted: 1, undeclared: 0, missing: 0,
               firmware_to_update: 1}
    capacity:
      description:
        - Per resource class (null for nodes without one) - C(available) (and not in maintenance), C(active),
          C(in_maintenance), C(failed), C(total) and C(free_percent) (available of total). An active or failed node
          in maintenance counts in both.
      type: list
      elements: dict
      sample: [{resource_class: baremetal, available: 2, active: 1, in_maintenance: 1, failed: 0, total: 3,
                free_percent: 66.7}]
    firmware:
      description:
        - C(read) (whether every node's firmware was read), C(note) (why not, or null), C(groups) and
          C(outliers) (the names of the nodes that are an outlier in some group).
        - Each group is one C(vendor), C(model) and C(component), with C(nodes), C(common_version) (the version
          most of its nodes run), C(versions) (C(version) and C(nodes), highest first) and C(outliers)
          (C(node) and C(version)). vendor and model are the component's (Ironic API 1.114), else the node's
          C(properties.vendor), else null.
        - The NICs of one vendor and model are one group whose C(component) is V(nic:*) (Ironic names each NIC
          C(nic:<serial number>), a name of its own on every node); its C(versions) and C(outliers) count NICs,
          its C(nodes) the nodes that have one.
      type: dict
      sample:
        read: true
        note: null
        groups:
          - {vendor: Contoso, model: R640, component: bios, nodes: 3, common_version: '2.1',
             versions: [{version: '2.1', nodes: 2}, {version: '1.9', nodes: 1}],
             outliers: [{node: rack1-node03, version: '1.9'}]}
        outliers: [rack1-node03]
    drift:
      description:
        - With O(fleet), C(declared_nodes), C(drifted) (the names of the nodes that differ from their
          declaration), C(undeclared) (nodes Ironic has that the fleet does not name) and C(missing) (names the
          fleet declares that Ironic lacks); null without O(fleet).
      type: dict
      sample: {declared_nodes: 3, drifted: [rack1-node02], undeclared: [], missing: []}
    firmware_baseline:
      description:
        - With O(firmware_baseline), C(models) - per model, C(model) (its name), C(nodes) (how many match it) and
          C(components) - per component, C(component), C(target), how many of its nodes are C(at_target),
          C(behind), C(ahead) and C(unknown), and C(steps) (the steps of all their plans for it); C(unmatched) (the
          nodes no model matches) and C(to_update) (the nodes whose plan has steps). Null without
          O(firmware_baseline).
        - The row of V(nic:*) counts nodes too. A node is V(behind) in it when one of its NICs is, else V(unknown)
          when one is, else V(ahead) when one is, else V(at_target). Its C(steps) are those of all its NICs. A node
          whose every NIC the model names itself is not counted in it.
      type: dict
      version_added: 0.5.0
      sample:
        models:
          - model: Contoso R640
            nodes: 3
            components:
              - {component: bmc, target: '2.10', at_target: 1, behind: 1, ahead: 0, unknown: 1, steps: 2}
        unmatched: [rack9-node01]
        to_update: [rack1-node02]
    nodes:
      description:
        - Every node, sorted by name then UUID - C(uuid), C(name), C(provision_state), C(power_state),
          C(maintenance), C(maintenance_reason), C(fault), C(health) (absent before Ironic API 1.109),
          C(resource_class), C(owner), C(last_error) (secrets masked; for a node in a failure state whose
          C(last_error) Ironic has cleared, as its power-state sync does once node history keeps it, the newest
          error of its history, with when Ironic recorded it).
        - C(declared) - whether O(fleet) names the node; null without O(fleet).
        - C(drift) - where the node differs from its declaration, each C(field) (for example
          V(bios_settings.ProcTurboMode), V(traits), V(firmware.bmc)), C(declared) and C(reported) (what Ironic
          reports; for firmware, the version running below the declared one).
        - C(firmware_compliance) - with O(firmware_baseline), C(model) (the model it matches, or null), C(status)
          (V(behind) when its plan has steps, else V(unknown), V(ahead) or V(at_target) as its components are),
          C(reason) (why it is unknown, or null), C(components) (each C(component), C(baseline_component) - the
          entry of the baseline it comes from, V(nic:*) for each NIC that entry covers - C(target), C(current),
          C(status), C(behind_by) - the steps to the target - and C(reason)) and C(plan) (the ordered C(component),
          C(version), C(url) a campaign would run); null without O(firmware_baseline).
      type: list
      elements: dict
      sample:
        - uuid: 5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11
          name: rack1-node02
          provision_state: available
          power_state: power off
          maintenance: false
          maintenance_reason: null
          fault: null
          health: OK
          resource_class: baremetal
          owner: null
          last_error: null
          declared: true
          drift: [{field: bios_settings.ProcTurboMode, declared: Enabled, reported: Disabled}]
          firmware_compliance:
            model: Contoso R640
            status: behind
            reason: null
            components:
              - {component: bmc, baseline_component: bmc, target: '2.10', current: '2.5', status: behind,
                 behind_by: 2, reason: null}
            plan:
              - {component: bmc, version: '2.8', url: 'http://127.0.0.1:8080/firmware/r640-bmc-2.8.bin'}
              - {component: bmc, version: '2.10', url: 'http://127.0.0.1:8080/firmware/r640-bmc-2.10.bin'}
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 4
'''

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.drift import check_fleet
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_baseline import (
    BASELINE_SPEC, check_baseline)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.report import build_report, read_fleet
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import version_string
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule

ARGUMENT_SPEC = dict(
    fleet=dict(type='list', elements='dict'),
    firmware=dict(type='bool', default=True),
    firmware_baseline=BASELINE_SPEC,
)


def main_logic(module):
    fleet = module.params['fleet']
    baseline = module.params['firmware_baseline']
    check_fleet(fleet or [])
    if baseline is not None:
        check_baseline(baseline)
    read = read_fleet(module.client, fleet, firmware=module.params['firmware'], baseline=baseline)
    report = build_report(read, fleet, generated_at=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                          api_version=version_string(module.client.version), baseline=baseline)
    module.exit(changed=False, report=report)


def main():
    with BaremetalModule(ARGUMENT_SPEC) as module:
        main_logic(module)


if __name__ == '__main__':
    main()
