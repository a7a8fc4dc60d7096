#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_provision_state
short_description: Bring bare metal nodes to a declared provision state
version_added: 0.1.0
description:
  - Declares the stable provision state an Ironic node should be in. The module reads the node,
    waits for it to come to rest if it is moving, computes the shortest sequence of API verbs from
    Ironic's state machine, and issues them one by one, waiting for each to finish.
  - Recovers from failure states where Ironic allows it (V(clean failed), V(inspect failed),
    V(adopt failed), V(deploy failed), V(rescue failed), V(unrescue failed), V(service failed), V(error)).
  - Destructive steps, which tear down or re-image a workload (V(deleted), V(rebuild)), are only
    planned with O(allow_destructive=true). Each step of the plan says whether it cleans disks.
  - A node already in the declared state is left alone and no request that changes anything is made.
  - With O(nodes), many nodes converge in one task; they are planned first, at most O(concurrency)
    of them move at once, and one list request per poll follows them all.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
attributes:
  check_mode:
    support: full
    description: Returns the plan computed from the live node and makes no change.
  diff_mode:
    support: none
    description: Provision states are reported in RV(plan) and RV(transitions) instead.
options:
  node:
    description:
      - The name or UUID of the node.
      - Exactly one of O(node) and O(nodes) is required.
    type: str
  nodes:
    description:
      - Names or UUIDs of many nodes to bring to O(state) in one task.
      - An element may also be a dictionary with C(node) and C(state) to declare a different state for that node.
      - Each node may be listed once. An empty list changes nothing and says so in C(msg).
    type: list
    elements: raw
  state:
    description:
      - The stable provision state the node should rest in.
      - V(enroll) is only reachable by a node that is already there; Ironic has no transition back to it.
    type: str
    required: true
    choices: [enroll, manageable, available, active, rescue]
  adopt:
    description:
      - Reach V(active) from V(manageable) by adoption, which takes over an existing workload without
        cleaning or deploying. Only valid with O(state=active).
    type: bool
    default: false
  instance_info:
    description:
      - Keys of the node's C(instance_info) to set before deploying or adopting (for example C(image_source)).
        A key with a null value is removed; keys not given are left alone.
      - Only applied when the plan deploys, rebuilds or adopts.
    type: dict
  config_drive:
    description:
      - The config drive to deploy with, as a URL, a gzipped and base64 encoded ISO, or a dictionary with
        C(meta_data), C(network_data), C(user_data) and C(vendor_data) that Ironic builds into one.
    type: raw
  deploy_steps:
    description:
      - Deploy steps to run when deploying, each a dictionary with C(interface), C(step), C(args) and C(priority).
    type: list
    elements: dict
  clean_steps:
    description:
      - Manual clean steps, each a dictionary with C(interface), C(step) and optional C(args).
      - When given, the path is routed through V(manageable) and a manual clean runs there.
        A node already in O(state) is not cleaned.
    type: list
    elements: dict
  rescue_password:
    description:
      - The password of the rescue user, required when the plan rescues the node.
    type: str
  rebuild:
    description:
      - Redeploy a node that is already V(active). This re-images its disks, so it also needs
        O(allow_destructive=true). Every run with O(rebuild=true) redeploys.
    type: bool
    default: false
  allow_destructive:
    description:
      - Allow steps that tear down or re-image a workload (V(deleted), V(rebuild)). Without it,
        a plan that needs one fails and names the step.
    type: bool
    default: false
  wait:
    description:
      - Wait for each step to finish. When false, only the first step of the plan is issued and the module returns.
    type: bool
    default: true
  timeout:
    description:
      - Seconds the whole task may take, including waiting for a moving node to come to rest.
    type: int
    default: 3600
  concurrency:
    description:
      - With O(nodes), how many nodes may be moving at once.
    type: int
    default: 20
  max_fail_percentage:
    description:
      - With O(nodes), the percentage of nodes that may fail before the task fails, from 0 to 100.
    type: float
    default: 0
notes:
  - A node in maintenance is not moved; the task fails with the maintenance reason.
  - Ironic's cleaning wipes disks. Steps that clean disks say so in the returned plan (C(cleans_disks)).
seealso:
  - module: baremetal.lifecycle.baremetal_node
  - module: baremetal.lifecycle.baremetal_node_info
'''

EXAMPLES = r'''
- name: Make a node available (from enroll this is manage, then provide)
  baremetal.lifecycle.baremetal_provision_state:
    cloud: baremetal-lifecycle-local
    node: rack1-node07
    state: available

- name: Deploy a node
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    instance_info:
      image_source: http://127.0.0.1:8080/images/ubuntu.qcow2
      image_checksum: sha256:0123456789abcdef

- name: Adopt a server that already runs a workload, without cleaning or deploying it
  baremetal.lifecycle.baremetal_provision_state:
    node: legacy-db01
    state: active
    adopt: true
    instance_info:
      image_source: http://127.0.0.1:8080/images/blank.img

- name: Return a deployed node to the pool; this tears down its workload
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: available
    allow_destructive: true

- name: Show what would happen, without changing anything
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
  check_mode: true
  register: preview

- name: Converge a rack in one task
  baremetal.lifecycle.baremetal_provision_state:
    nodes: "{{ groups['rack1'] }}"
    state: available
    concurrency: 50
    max_fail_percentage: 5
'''

RETURN = r'''
plan:
  description: The steps planned, in order. With O(nodes), per node in RV(nodes).
  returned: with O(node)
  type: list
  elements: dict
  contains:
    verb:
      description: The API verb.
      type: str
      sample: provide
    from:
      description: The state the step starts from.
      type: str
      sample: manageable
    to:
      description: The stable state the step lands in on success.
      type: str
      sample: available
    cleans_disks:
      description: Whether the step runs cleaning, which wipes disks.
      type: bool
      sample: true
    destructive:
      description: Whether the step tears down or re-images a workload.
      type: bool
      sample: false
transitions:
  description:
    - The steps executed, with the state each ended in and how long it took.
    - With O(wait=false), the step issued, with C(to) null.
  returned: with O(node)
  type: list
  elements: dict
  sample: [{verb: manage, from: enroll, to: manageable, seconds: 0.21}]
node:
  description: The node after the task. Never contains C(driver_info) or C(instance_info).
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
  description: With O(nodes), one entry per node with C(node), C(plan), C(transitions), C(changed) and C(error).
  returned: with O(nodes)
  type: list
  elements: dict
totals:
  description: With O(nodes), how many nodes changed and failed, and the seconds the task took.
  returned: with O(nodes)
  type: dict
  sample: {nodes: 300, changed: 12, failed: 0, seconds: 4.2, api_calls: 31}
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 7
'''

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils._module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils._provision import Options, Target, converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils._states import DECLARABLE_STATES

ARGUMENT_SPEC = dict(
    node=dict(type='str'),
    nodes=dict(type='list', elements='raw'),
    state=dict(type='str', required=True, choices=list(DECLARABLE_STATES)),
    adopt=dict(type='bool', default=False),
    instance_info=dict(type='dict'),
    config_drive=dict(type='raw'),
    deploy_steps=dict(type='list', elements='dict'),
    clean_steps=dict(type='list', elements='dict'),
    rescue_password=dict(type='str', no_log=True),
    rebuild=dict(type='bool', default=False),
    allow_destructive=dict(type='bool', default=False),
    wait=dict(type='bool', default=True),
    timeout=dict(type='int', default=3600),
    concurrency=dict(type='int', default=20),
    max_fail_percentage=dict(type='float', default=0),
)


def targets_from_params(module, options):
    params = module.params
    if params['node'] is not None:
        return [Target(params['node'], params['state'], options)]
    targets = []
    for index, entry in enumerate(params['nodes']):
        if isinstance(entry, dict):
            unknown = set(entry) - set(('node', 'state'))
            if 'node' not in entry or unknown:
                module.fail('nodes[%d] must be a name, a UUID, or a dictionary with node and optionally state; '
                            'got keys %s.' % (index, ', '.join(sorted(entry))))
            state = entry.get('state', params['state'])
            if state not in DECLARABLE_STATES:
                module.fail("nodes[%d].state must be one of %s, not '%s'." % (index, ', '.join(DECLARABLE_STATES), state))
            targets.append(Target(str(entry['node']), state, options))
        else:
            targets.append(Target(str(entry), params['state'], options))
    return targets


def main_logic(module):
    params = module.params
    started = time.monotonic()
    options = Options(allow_destructive=params['allow_destructive'], adopt=params['adopt'],
                      rebuild=params['rebuild'], clean_steps=params['clean_steps'],
                      deploy_steps=params['deploy_steps'], config_drive=params['config_drive'],
                      instance_info=params['instance_info'], rescue_password=params['rescue_password'])
    jobs, missing = converge(module.client, targets_from_params(module, options), check_mode=module.check_mode,
                             wait=params['wait'], timeout=params['timeout'], concurrency=params['concurrency'])
    results = [job.result() for job in jobs]
    changed = any(result['changed'] or (module.check_mode and result['plan']) for result in results)
    if params['node'] is not None:
        if missing:
            module.fail(missing[0])
        result = results[0]
        if result['error']:
            module.fail(result['error'], changed=changed, plan=result['plan'], transitions=result['transitions'],
                        node=result['node'])
        module.exit(changed=changed, plan=result['plan'], transitions=result['transitions'], node=result['node'])
    failed = len(missing) + sum(1 for result in results if result['error'])
    total = len(missing) + len(results)
    totals = {'nodes': total, 'changed': sum(1 for result in results if result['changed']), 'failed': failed,
              'seconds': round(time.monotonic() - started, 3), 'api_calls': module.api_calls}
    errors = missing + [result['error'] for result in results if result['error']]
    if failed and 100.0 * failed / total > params['max_fail_percentage']:
        module.fail('%d of %d nodes failed (max_fail_percentage is %s): %s' % (
            failed, total, params['max_fail_percentage'], '; '.join(errors)), changed=changed, nodes=results,
            totals=totals)
    for error in errors:
        module.ansible.warn(error)
    module.exit(changed=changed, nodes=results, totals=totals)


def main():
    module = BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes')], required_one_of=[('node', 'nodes')])
    module.run(main_logic)


if __name__ == '__main__':
    main()
