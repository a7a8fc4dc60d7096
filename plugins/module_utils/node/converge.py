# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node declared whole: its record, then its maintenance, provision state and power, in the order Ironic needs.

Each stage runs for every node of the task before the next one starts:

1. the record is created or updated (writer.ensure_nodes);
2. maintenance is cleared where the task declares it off, or where it declares it on but the node must move:
   Ironic refuses to move a node in maintenance (clears_maintenance);
3. the node moves to its declared provision_state (provision.provision_results), at most concurrency at once;
4. its power is brought to the declared power (power.ensure_power), where the move left it;
5. maintenance is set where declared on, after the move (with the reason it had when stage 2 cleared it for the move).

A node that fails at a stage goes no further, except that maintenance stage 2 cleared for a move is set again. In
check mode nothing is written: the move is planned from the node as stage 2 would leave it, and a node that would
be created is planned no further (it does not exist), which its result says in not_planned.

A task that declares none of maintenance, provision_state and power runs stage 1 only, and loads the code of the
other stages (node/stages.py) only when a node declares one (a deferral bench/README.md measures).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.writer import ensure_nodes

NOT_PLANNED = ("node %s does not exist yet: it would be created by this task, so its %s cannot be planned before it "
               "is. Run the task without check mode.")


def declared_health(declaration):
    """What the declaration sets that a wave's health gate then expects of the node (waves.HEALTH_CHECKS)."""
    states = declaration.states
    declared = {}
    # Imported here, with node/stages.py below: node/power.py brings the engine's waiter and diagnosis, which cost a
    # module's start-up (bench/README.md), and only a task whose nodes declare maintenance or power reads them.
    if states['maintenance'] is not None:
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import declared_maintenance
        declared.update(declared_maintenance(states['maintenance']))
    if states['power'] is not None:
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.power import declared_power
        declared.update(declared_power(states['power']))
    return declared


def ensure_whole_nodes(client, declarations, update_secrets, check_mode, concurrency=1, timeout=1800, verify_bmc=True):
    """ensure_nodes, then for every node that declares any of declaration.STATE_FIELDS the stages that bring
    them about, in the order of the module docstring. Returns the per-node results, in the declared order: the record's,
    with provision (plan, transitions, changed, inspection), maintenance (maintenance, maintenance_reason, changed,
    cleared_for_move) and power (power_state, changed) for the stages run, and one diff covering them all."""
    results = ensure_nodes(client, declarations, update_secrets, check_mode, concurrency=concurrency, timeout=timeout,
                           verify_bmc=verify_bmc)
    stated = [(declaration, result) for declaration, result in zip(declarations, results)
              if declaration.state == 'present' and not result['error']
              and any(value is not None for value in declaration.states.values())]
    for declaration, result in stated:
        if result['node'] is None:
            declared = [field for field in ('provision_state', 'maintenance', 'power') if declaration.states[field] is not None]
            result['not_planned'] = NOT_PLANNED % (declaration.name, ', '.join(declared))
    stated = [(declaration, result) for declaration, result in stated if result['node'] is not None]
    if not stated:
        return results
    # Imported here: node/stages.py and the engine it brings cost a module's start-up about 10 ms (bench/README.md),
    # and only a task whose nodes declare a stage after the record runs it.
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.stages import run_stages
    run_stages(client, stated, check_mode, timeout, concurrency)
    return results
