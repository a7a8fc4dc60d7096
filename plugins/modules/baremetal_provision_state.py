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
    planned with O(allow_destructive=true). Each step of the plan says whether it cleans disks and whether it
    may reboot the node.
  - In-place actions run on the way when the task asks for them, such as inspection (O(inspection)), manual cleaning
    (O(clean_steps)), a rebuild (O(rebuild)), servicing of an active node (O(service_steps)), a runbook
    (O(runbook)) and erasing the disks (O(erase)). The plan goes to
    the state the action runs in, runs it, and goes on to O(state).
  - Nodes Ironic will not move the way its state machine suggests fail before any request that changes anything,
    with a message naming the flag and how to clear it. A C(retired) node cannot become V(available); a
    C(protected) node cannot be torn down or rebuilt; a node in maintenance is not moved (see O(clear_fault));
    a node in a hold state is only resumed with O(unhold=true).
  - A node already in the declared state is left alone and no request that changes anything is made.
  - With O(nodes) or O(select), many nodes converge in one task. Each node is planned as soon as it is at rest and
    moves on its own; at most O(concurrency) of them move at once.
  - A node left in a transient state with no conductor working on it (for example after Ironic restarted
    in the middle of its cleaning) is reported as stranded within seconds; where Ironic has a safe way out
    (V(manage) out of a stranded V(cleaning)) the task takes it and says so in RV(transitions).
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
    description:
      - Returns the plan computed from the live node and makes no change.
      - A node that another operation is moving (a transient state such as C(service wait) or C(clean wait)) is
        not waited for, since nothing is sent; it is planned at once from the state Ironic is taking it to (its
        C(target_provision_state)), with a warning that a real run waits for it to rest, then plans from where it
        rests.
  diff_mode:
    support: full
    description: Shows each node's provision state before the task and after it (in check mode, after the plan).
options:
  nodes:
    version_added: 0.1.0
    description:
      - Names or UUIDs of many nodes to bring to O(state) in one task.
      - An element may also be a dictionary with C(node), and optionally C(state) and any of C(inspection),
        C(clean_steps), C(deploy_steps), C(service_steps), C(rebuild), C(adopt), C(allow_destructive), C(unhold),
        C(clear_fault), C(runbook), C(erase), C(retired) and C(retired_reason), which then apply to that node
        instead of the task's values.
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
      - Only applied when the plan deploys, rebuilds or adopts, and only where a key differs, by a step
        V(set_instance_info) of the plan just before that verb (C(PATCH /v1/nodes/{node}), which moves nothing).
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
      - When given, the path is routed through V(manageable) and a manual clean runs there, on every run
        (the task reports changed), also for a node already in O(state). Cleaning may wipe disks.
    type: list
    elements: dict
  service_steps:
    version_added: 0.2.0
    description:
      - Service steps to run on an active node, each a dictionary with C(interface), C(step), and optional
        C(args) and C(priority). Needs O(state=active) and Ironic API 1.87 or newer.
      - The node goes V(active) -> V(servicing) -> V(active) on every run (the task reports changed), like
        O(rebuild). A node in V(service failed) runs them again from there.
    type: list
    elements: dict
  inspection:
    version_added: 0.2.0
    description:
      - Whether to inspect the node's hardware on the way, in V(manageable).
      - V(skip) never inspects. V(once) inspects a node that was never inspected (no C(inspection_finished_at)),
        unless that would need a destructive step (an V(active) node is left alone); a second run changes nothing.
        V(always) inspects on every run; an V(active) node then has to be torn down, which needs
        O(allow_destructive=true).
      - What inspection learned is returned in RV(inspection).
      - A node whose C(inspect_interface) is C(no-inspect) (Ironic's default where no inspector is enabled) fails
        before anything is sent, in check mode too, naming the field; Ironic would refuse the inspection only after
        the steps before it.
    type: str
    choices: [skip, once, always]
    default: skip
  unhold:
    version_added: 0.2.0
    description:
      - Resume a node in a hold state (V(clean hold), V(deploy hold), V(service hold)), where a step asked an
        operator to look before going on. Without it, such a node fails the task with a message naming the hold.
      - Work the hold interrupted is finished by resuming it, not started again.
    type: bool
    default: false
  clear_fault:
    version_added: 0.2.0
    description:
      - When Ironic put the node in maintenance because of a fault (C(fault) is C(service failure),
        C(clean failure), C(power failure) or C(rescue abort failure)), clear the maintenance before moving the
        node. Ironic refuses, for example, to abort a failed service until maintenance is cleared.
      - Maintenance an operator set (no C(fault)) is never cleared by this module.
    type: bool
    default: false
  rescue_password:
    description:
      - The password of the rescue user, required when the plan rescues the node.
      - Before Ironic 32.0, Ironic has no C(abort) out of V(service failed), and the plan from there to V(active)
        rescues and unrescues the node (or give O(service_steps) that succeed, to service it again).
    type: str
  rebuild:
    description:
      - Redeploy a node that is already V(active). This re-images its disks, so it also needs
        O(allow_destructive=true). Every run with O(rebuild=true) redeploys.
    type: bool
    default: false
  runbook:
    version_added: 0.3.0
    description:
      - The name or UUID of a runbook (see M(baremetal.lifecycle.baremetal_runbook)) to run on the node, on every run
        (the task reports changed). Needs Ironic API 1.92 or newer; on an older API the task fails before any
        request that changes anything, naming 1.92 and the server's version.
      - With O(state=manageable) or O(state=available) it runs as a manual clean in V(manageable), on the way;
        with O(state=active) it services the active node (V(active) -> V(servicing) -> V(active)).
      - Ironic runs a runbook only on a node approved for it, by traits. From API 1.112 the node needs one of the
        runbook's C(traits); before, a trait named like the runbook. The task reads the runbook and the node's traits
        before it sends anything for the node, and fails naming the node, the runbook and the traits when Ironic would
        refuse the runbook, or when Ironic holds no runbook of that name (Ironic would refuse it only when the
        runbook's step is sent, after the steps before it, an undeploy among them, have run).
    type: str
  erase:
    version_added: 0.3.0
    description:
      - Wipe the node's disks in V(manageable) by a manual clean with the deploy interface's step
        C(erase_devices_metadata) (V(metadata), partition tables and file system signatures) or C(erase_devices)
        (V(full), every block). Needs O(state=manageable) and, as the data cannot come back, O(allow_destructive=true).
      - Runs on every run (the task reports changed). On Ironic's C(fake) deploy interface, which has no such
        step, the task fails before anything is sent, in check mode too, naming the step and the interface (the
        same holds for O(clean_steps) and O(service_steps) of an interface that offers none, such as C(no-raid)).
        Another deploy interface without the step fails it in Ironic; the node rests in V(clean failed), Ironic's
        error names the step and the interface, and the next run of the task takes the node back to V(manageable)
        with V(manage).
    type: str
    choices: [full, metadata]
  retired:
    version_added: 0.3.0
    description:
      - Set or clear the node's C(retired) flag (API 1.61), by a step V(set_retired) of the plan (C(PATCH
        /v1/nodes/{node}), which moves nothing). Unset, the flag is left as it is.
      - Ironic never makes a retired node V(available) and never retires an V(available) one, so the step is
        placed where Ironic takes it; retiring an V(active) node comes before its teardown, which then ends in
        V(manageable) without automated cleaning. O(retired=true) does not go with O(state=available).
      - Decommissioning is O(state=manageable), O(retired=true), O(allow_destructive=true) and O(erase) (see the
        playbook C(baremetal.lifecycle.decommission)).
    type: bool
  retired_reason:
    version_added: 0.3.0
    description:
      - Why the node is retired. Ironic keeps a reason only on a retired node.
    type: str
  allow_destructive:
    description:
      - Allow steps that tear down, re-image or erase a workload (V(deleted), V(rebuild), O(erase)). Without it,
        a plan that needs one fails and names the step.
    type: bool
    default: false
  wait:
    description:
      - Wait for each step to finish. When false, only the first step of each node's plan is issued and the module returns
        (with the V(set_instance_info) step before it, if any).
    type: bool
    default: true
  timeout:
    description:
      - Seconds the whole task may take, including waiting for a moving node to come to rest.
      - A node still moving at the timeout is reported with the state it stopped in, Ironic's last error
        and its latest history events.
    type: int
    default: 3600
  abort_on_timeout:
    version_added: 0.2.0
    description:
      - At the timeout, abort a node this task moved that is still waiting for its ramdisk (V(clean wait),
        V(inspect wait), V(rescue wait), V(service wait), and V(wait call-back) from API 1.110). Ironic then
        moves it to the matching failed state; the error and RV(transitions) say so. Other nodes are left as they are.
    type: bool
    default: false
  concurrency:
    version_added: 0.1.0
    description:
      - With O(nodes) or O(select), how many nodes may be moving at once while the task waits, from the step
        asked of a node until Ironic reports it done. With O(wait=false) the first step of every node is issued.
      - It bounds the conductors' work, not the API's; the task sends one request at a time whatever its value, so
        it is no limit a database needs, SQLite included. The default, V(100), moved 100 nodes as fast as moving
        every node at once did.
      - Ironic paces the rest itself. Past its concurrent action limits (C([conductor]max_concurrent_deploy) and
        C(max_concurrent_clean), for deploy, undeploy, manual cleaning and servicing) or with no conductor worker
        free, it answers a step with HTTP 503 and does nothing. The task takes that as back-pressure, not as a
        failure. The node waits. At most as many nodes as were moving then move at once, and one more each time one
        of them comes to rest.
      - O(wave_size) is the outer limit, how many nodes a task takes in hand before it checks they are healthy;
        O(concurrency) is the inner one, how many of those move at once.
    type: int
    default: 100
notes:
  - A node in maintenance is not moved; the task fails with the maintenance reason (see O(clear_fault) for
    maintenance Ironic set because of a fault).
  - Ironic's cleaning wipes disks. Steps that clean disks say so in the returned plan (C(cleans_disks)).
  - While the task waits, its action plugin shows the nodes moving as the task runs, with every change of state
    or step of a single node, and counts by state every 10 seconds for several nodes (every change at C(-v)). With
    C(async) or a connection other than C(local), the module runs the same way without these lines.
  - "In check mode the last of these lines says what the task would do, in the words of RV(plan)'s C(name), for
    example C(check mode, nothing changed; 3 nodes: 3 would deploy (now 3 available); 0 failed)."
seealso:
  - module: baremetal.lifecycle.baremetal_node
  - module: baremetal.lifecycle.baremetal_node_info
'''

EXAMPLES = r'''
- name: Make every node of a conductor group available, ten moving at once
  baremetal.lifecycle.baremetal_provision_state:
    cloud: baremetal-lifecycle-local
    select:
      conductor_group: rack1
    state: available
    concurrency: 10

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

- name: Enroll to available, inspecting the hardware of nodes never inspected
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: available
    inspection: once
  register: inspected

- name: Run service steps on an active node (it stays active)
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    service_steps:
      - interface: vendor
        step: log_passthrough

- name: Run a runbook on an active node by servicing (on a manageable node, state manageable runs it as a clean)
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    runbook: CUSTOM_FIRMWARE_UPDATE

- name: Decommission a node - retire it, end its workload, wipe its disks' metadata, keep its record
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: manageable
    retired: true
    retired_reason: end of lease, ticket 4711
    erase: metadata
    allow_destructive: true

- name: Recover a node whose servicing failed (Ironic put it in maintenance with fault 'service failure')
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    clear_fault: true

- name: Resume a node an operator-requested hold step stopped
  baremetal.lifecycle.baremetal_provision_state:
    node: rack1-node07
    state: active
    unhold: true

- name: Converge a rack in one task, inspecting one node again
  baremetal.lifecycle.baremetal_provision_state:
    nodes:
      - rack1-node01
      - node: rack1-node02
        inspection: always
    state: available

- name: Converge a rack in one task
  baremetal.lifecycle.baremetal_provision_state:
    nodes: "{{ groups['rack1'] }}"
    state: available
    concurrency: 50
    max_fail_percentage: 5
'''

RETURN = r'''
plan:
  description: The steps planned, in order. With O(nodes) or O(select), per node in RV(nodes).
  returned: with O(node)
  type: list
  elements: dict
  contains:
    verb:
      description:
        - The API verb, or V(clear_fault) for taking the node out of the maintenance Ironic set for a fault
          (see O(clear_fault)), V(set_instance_info) for setting the keys of O(instance_info) that differ, or
          V(set_retired) for setting O(retired) and O(retired_reason).
      type: str
      sample: provide
    name:
      version_added: 0.4.0
      description:
        - The step in the words the progress lines and the check-mode summary use, V(deploy) for the verb V(active),
          V(undeploy) for V(deleted), V(clear fault), V(set instance_info) and V(set retired) for the steps that are
          not verbs; every other step as its verb.
      type: str
      sample: deploy
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
    reboots:
      description: Whether the step may power-cycle the node.
      type: bool
      sample: true
    action:
      version_added: 0.3.0
      description:
        - The in-place action a step runs, where its verb does not say it (V(clean runbook), V(service runbook),
          V(erase)); absent from other steps.
      type: str
      returned: for the steps of those actions
      sample: erase
transitions:
  description:
    - The steps executed, with the state each ended in and how long it took.
    - With O(wait=false), the steps issued; the last one, which the task did not wait for, with C(to) null.
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
    fault:
      description: The fault for which Ironic put the node in maintenance, or null.
      type: str
    retired:
      description: Whether the node is retired (Ironic will not make it available).
      type: bool
    retired_reason:
      description: Why the node is retired.
      type: str
    protected:
      description: Whether the node is protected (Ironic will not tear it down or rebuild it).
      type: bool
    protected_reason:
      description: Why the node is protected.
      type: str
    inspection_finished_at:
      description: When the last inspection of the node finished, or null if it was never inspected.
      type: str
    last_error:
      description: The last error Ironic recorded for the node.
      type: str
inspection:
  version_added: 0.2.0
  description:
    - What the inspection run by this task learned. With O(nodes) or O(select), per node in RV(nodes).
    - Values of keys named like secrets (passwords, tokens, keys) are masked.
  returned: when the task inspected the node
  type: dict
  contains:
    properties:
      description: The node's properties after inspection (for example C(cpus), C(memory_mb), C(local_gb)).
      type: dict
    inventory:
      description:
        - The hardware inventory inspection stored (C(GET /v1/nodes/{node}/inventory), API 1.81), or null where
          Ironic keeps none.
      type: dict
nodes:
  description:
    - With O(nodes) or O(select), one entry per node with C(node), C(plan), C(transitions), C(changed) and C(error),
      and C(inspection) when the task inspected it.
    - C(changed) is whether the task sent the node a request that changes it; a node it did not get to has
      C(changed=false) and an error starting with C(not started). A step that failed and left the node where it
      started (a verification that fails returns the node to V(enroll)) is no change.
  returned: with O(nodes) or O(select)
  type: list
  elements: dict
totals:
  description: With O(nodes) or O(select), how many nodes changed, failed and not started (with O(wave_size)), and the seconds the task took.
  returned: with O(nodes) or O(select)
  type: dict
  sample: {nodes: 300, changed: 12, failed: 0, not_started: 0, seconds: 4.2, api_calls: 31}
failed_nodes:
  version_added: 0.2.0
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
  sample: 7
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet import moving
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    MOVING_CONCURRENCY_SPEC, NODE_SELECTION_SPEC, run, targets)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import OPTION_SPEC, Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import provision_results
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DECLARABLE_STATES

ARGUMENT_SPEC = dict(
    state=dict(type='str', required=True, choices=list(DECLARABLE_STATES)),
    wait=dict(type='bool', default=True),
    timeout=dict(type='int', default=3600),
    abort_on_timeout=dict(type='bool', default=False),
    **OPTION_SPEC
)
ARGUMENT_SPEC.update(NODE_SELECTION_SPEC, **MOVING_CONCURRENCY_SPEC)


def main():
    with BaremetalModule(ARGUMENT_SPEC, mutually_exclusive=[('node', 'nodes', 'select')],
                         required_one_of=[('node', 'nodes', 'select')]) as module:
        params = module.params
        options = Options.from_params(params)
        nodes = targets(module.client, params, moving.defaults(params['state'], options), moving.TYPES)

        def act(batch, check_mode):
            # converge reads the nodes: one that matches no node has its error, and the others go on.
            goals = [moving.move(target, options) for target in batch]
            converged = converge(module.client, goals, check_mode=check_mode, wait=params['wait'],
                                 timeout=params['timeout'], concurrency=params['concurrency'],
                                 abort_on_timeout=params['abort_on_timeout'])
            return provision_results(module.client, goals, converged, check_mode)

        module.finish(run(module, nodes, act, by_node=True))


if __name__ == '__main__':
    main()
