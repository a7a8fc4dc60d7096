# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the declared nodes once every one of them is checked (node/snapshot.py), and delete those declared absent
(node/removal.py). The BMC check (node/bmc_check.py) and the removal load the engine, and the writes themselves
(node/record_writes.py) are code a rerun of nodes as declared never runs, so a task loads each only for a node that
needs it (bench/README.md measures the deferrals).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import wiring
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import check_declarations, refusal
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import UPDATE_SECRETS_ALWAYS, NodeError, node_view
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import plan_changes


def apply_change(client, change, check_mode, verify_bmc=True, timeout=1800, clock=time.monotonic, sleep=time.sleep):
    """Make one node what its Change says. Returns its result (name, changed, created, node, diff, bmc_verified).

    The node returned is built from Ironic's answers to the writes, without reading it again. With verify_bmc, a
    write that changes a BMC secret is followed by a check that Ironic can use it (_bmc_check). Its writes wait for
    a node a conductor keeps locked until timeout seconds after the first (engine/writes.py, on clock and sleep).
    """
    node = None if change.node is None else wiring.view(change.wiring, node_view(change.node, change.current_ports))
    result = node_result(node, change.changed, name=change.declaration.name, created=change.node is None,
                         diff=change.diff, bmc_verified=None)
    if change.declaration.warnings:
        result['warnings'] = list(change.declaration.warnings)  # fleet/outcome.py hands them to Ansible
    if change.node is not None and (change.node.get('last_error') or change.node.get('maintenance')):
        # Loaded only for a node Ironic reports a problem with.
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.bmc_check import refused_secrets_kept
        warning = refused_secrets_kept(change)
        if warning:
            result.setdefault('warnings', []).append(warning)
    if not change.changed or check_mode:
        return result
    # Imported here: the record's write path costs a module's start-up 15 ms on a host, and a rerun that finds every
    # node as declared never runs it (bench/README.md, "the deferrals kept").
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_writes import write_record
    writes = NodeWrites(change.declaration.name, (change.node or {}).get('provision_state', 'enroll'), timeout,
                        clock=clock, sleep=sleep)
    try:
        node, ports = write_record(client, change, writes)
        result['node'] = wiring.apply(client, change.wiring, node, ports, node_view, timeout, writes)
    except BaremetalError as exc:
        raise NodeError(str(exc), dict(result, **exc.result))
    if not verify_bmc:
        return result
    # Loaded only by a task that writes a node with verify_bmc on.
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.bmc_check import verified
    return verified(client, change, node, result)


def ensure_nodes(client, declarations, update_secrets, check_mode, concurrency=1, timeout=1800, verify_bmc=True):
    """Create, update or delete every declared node. Returns the per-node results, in the declared order.

    Every declaration is checked before the first write (and every node declared absent read, its DELETE judged
    against what Ironic refuses: node/removal.py read_removals); then at most ``concurrency`` nodes are written at
    once, and a node that fails (or whose new BMC secret Ironic cannot use, with verify_bmc) has its error in
    its result while the others go on.
    """
    send_secrets = update_secrets == UPDATE_SECRETS_ALWAYS
    problems = check_declarations(declarations)
    invalid = set(id(declaration) for declaration, _message in problems)
    present = [declaration for declaration in declarations
               if declaration.state == 'present' and id(declaration) not in invalid]
    changes = []
    if present:
        changes, read_problems = plan_changes(client, present, send_secrets)
        problems.extend(read_problems)
    absent = [declaration for declaration in declarations if declaration.state == 'absent']
    removals = None
    if absent and not problems:
        # Loaded only by a task that declares a node absent.
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import removal
        removals, absent_problems = removal.read_removals(client, absent)
        problems.extend(absent_problems)
    if problems:
        raise refusal(declarations, problems)
    changes = dict((change.declaration.name, change) for change in changes)
    results = run_each([declaration for declaration in declarations if declaration.state == 'present'],
                       lambda declaration: apply_change(client, changes[declaration.name], check_mode, verify_bmc, timeout),
                       concurrency)
    removed = iter(())
    if absent:
        removed = iter(removal.remove_nodes(client, absent, check_mode, timeout, concurrency, removals))
    results = iter(results)
    results = [next(removed) if declaration.state == 'absent' else next(results) for declaration in declarations]
    for declaration, result in zip(declarations, results):
        result['name'] = declaration.name  # a failure's partial result may lack it
    return results
