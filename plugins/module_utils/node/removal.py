# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deleting the nodes a task declares absent: read together, moved to manageable together, deleted one by one.

Ironic deletes a node only in DELETE_ALLOWED_STATES (or in maintenance): the nodes that are elsewhere are brought to
manageable first, all of them in one run of the engine (scheduler.converge), at most concurrency moving at once.
With keep_workload, a record is deleted without a provision move: a node Ironic would not delete as it is goes into
maintenance first (_detach).

Before any of it, every node's DELETE is judged against what Ironic refuses (engine/preconditions.py: an instance or
allocation, protected) on the node as the task would send it (read_removals); the DELETE takes the node's ports with
it, so that a refusal Ironic gives anyway leaves the node with its ports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError, Step, is_at_rest
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.preconditions import (
    ALLOCATION, DELETE_NODE, Write, after_steps, refusals)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Goal, plan_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DELETE_ALLOWED_STATES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import refusal
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError, node_view, when_refused
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import PORT_FIELDS, read_fields

# The maintenance reason of a node whose record is deleted with keep_workload (_detach).
DETACH_REASON = 'being detached by baremetal.lifecycle.baremetal_node (keep_workload): its record is deleted, its workload kept'


class Removals(object):
    """The nodes a task deletes as read before its first write: found (name -> node), and each found node's ports by
    UUID (for the diff: Ironic deletes a node's ports with the node)."""

    def __init__(self, found, ports):
        self.found = found
        self.ports = ports


def read_removals(client, declarations):
    """Read every node the declarations delete and judge its DELETE against Ironic's preconditions
    (engine/preconditions.py), on the node as the task will send it: after the move to manageable, or after
    maintenance with keep_workload. Returns (Removals, [(declaration, message)]); nothing is written."""
    fields = read_fields(declarations) + client.poll_fields
    found, _missing = find_nodes(client, [declaration.name for declaration in declarations], fields)
    ports = dict((node['uuid'], client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS))
                 for node in found.values())
    problems = []
    for declaration in declarations:
        node = found.get(declaration.name)
        if node is None:
            continue
        if node.get('instance_uuid'):  # the allocation that holds it (named as baremetal_allocation takes it), if any
            allocation = client.collection('allocations').find(node['instance_uuid'])
            node = dict(node, **{ALLOCATION: allocation and (allocation.get('name') or allocation['uuid'])})
        refused = refusals(_as_deleted(client, node, declaration), [Write(DELETE_NODE, None, None)])
        if refused:
            problems.append((declaration, ' '.join(refused)))
    return Removals(found, ports), problems


def _as_deleted(client, node, declaration):
    """The node as the task sends its DELETE: in maintenance where keep_workload sets it; else as its move to
    manageable leaves it (undeploying clears its instance). A move that cannot be planned now (the node is moving, or
    no acceptable plan: converge then fails the node, naming why) is judged as it lands, in manageable, with what no
    move clears."""
    if declaration.keep_workload:
        return dict(node, maintenance=True) if _needs_maintenance(node) else node
    if node['provision_state'] in DELETE_ALLOWED_STATES:
        return node
    if is_at_rest(node['provision_state'], node.get('target_provision_state')):
        try:
            options = Options(allow_destructive=declaration.options.allow_destructive)
            return after_steps(node, plan_node(node, 'manageable', options, client.release))
        except PlanError:
            pass
    return after_steps(node, [Step('deleted', node['provision_state'], 'manageable')])


def remove_nodes(client, declarations, check_mode, timeout=1800, concurrency=1, removals=None):
    """Delete every node of the declarations (each state absent) with its ports. Returns one result per declaration,
    in order: name, changed, node (None), plan and transitions (of the move to manageable), diff, detach (with
    keep_workload), and error (None unless the node failed; the others go on). removals: the nodes as read_removals
    read and judged them (None: read and judged here, a NodeError naming every refusal before any write)."""
    if removals is None:
        removals, problems = read_removals(client, declarations)
        if problems:
            raise refusal(declarations, problems)
    found = removals.found

    def read(declaration):
        node = found.get(declaration.name)
        if node is None:  # Ironic does not hold it: nothing to do
            return node_result(None, name=declaration.name, plan=[], transitions=[], diff={'before': {}, 'after': {}})
        result = node_result(None, True, name=declaration.name, plan=[], transitions=[],
                             diff={'before': node_view(node, removals.ports[node['uuid']]), 'after': {}})
        if declaration.keep_workload:
            return _detach(client, node, result, check_mode, timeout)
        return dict(result, deleting=True)

    results = run_each(declarations, read, concurrency)
    moving = [(declaration, result) for declaration, result in zip(declarations, results)
              if 'deleting' in result and found[declaration.name]['provision_state'] not in DELETE_ALLOWED_STATES]
    if moving:
        _to_manageable(client, [(found[declaration.name], declaration, result) for declaration, result in moving],
                       check_mode, timeout, concurrency)

    def delete(item):
        declaration, result = item
        deleting = result.pop('deleting', False)
        if not deleting or result.get('error') or check_mode:
            return result
        node = found[declaration.name]
        # Ironic deletes the node's ports (and port groups) with it: none is deleted ahead, so that a DELETE Ironic
        # refuses leaves the node as it was.
        _writes(node, timeout).send('deleting it', client.delete_node, node['uuid'])
        return result

    results = run_each(list(zip(declarations, results)), delete, concurrency)
    for declaration, result in zip(declarations, results):
        result['name'] = declaration.name  # a failure's partial result may lack it
    return results


def _to_manageable(client, items, check_mode, timeout, concurrency):
    """Move every (node, declaration, result) to manageable in one run of the engine; a node whose move fails has
    its error on its result (and is not deleted)."""
    goals = [Goal(node['uuid'], 'manageable', Options(allow_destructive=declaration.options.allow_destructive))
             for node, declaration, _result in items]
    jobs, _missing = converge(client, goals, check_mode=check_mode, timeout=timeout, concurrency=concurrency,
                              found=dict((node['uuid'], node) for node, _declaration, _result in items))
    outcomes = dict((job.uuid, job.result()) for job in jobs)
    for node, _declaration, result in items:
        job = outcomes[node['uuid']]
        result.update(plan=job['plan'], transitions=job['transitions'])
        if job.get('warnings'):  # a check-mode plan of a node still moving says so
            result['warnings'] = job['warnings']
        if job['error']:
            fail(result, '%s Ironic deletes nodes only in %s, so the node is brought to manageable first.'
                 % (job['error'], ', '.join(DELETE_ALLOWED_STATES)), changed=job['changed'])


def detach_steps(node):
    """Whether deleting the node's record without a provision move first needs maintenance: Ironic deletes a node
    in maintenance whatever its provision state, and one out of it only in DELETE_ALLOWED_STATES.
    Raises NodeError where it would delete a node in the middle of a move (what Ironic refuses of the DELETE itself,
    a protected node, is judged before any write: read_removals)."""
    if not is_at_rest(node['provision_state'], node.get('target_provision_state')):
        raise NodeError("node %s is moving (%s, target %s); keep_workload deletes the record of a node at rest only, "
                        "so that no half-done move is left on the hardware. Wait until it settles, then rerun."
                        % (node['name'], node['provision_state'], node.get('target_provision_state')))
    return _needs_maintenance(node)


def _needs_maintenance(node):
    return not node.get('maintenance') and node['provision_state'] not in DELETE_ALLOWED_STATES


def _writes(node, timeout):
    """The node's writes, each waiting for a node a conductor keeps locked within the task's timeout."""
    return NodeWrites(node_label(node), node['provision_state'], timeout)


def _detach(client, node, result, check_mode, timeout):
    """Delete the node's record and leave its workload running: no provision move, maintenance set first where
    Ironic needs it (with DETACH_REASON), then the DELETE, which takes the ports with the node."""
    sets_maintenance = detach_steps(node)
    result['detach'] = {'provision_state': node['provision_state'], 'maintenance_set': sets_maintenance,
                        'maintenance_reason': DETACH_REASON if sets_maintenance
                        else masked_text(node.get('maintenance_reason'))}
    if check_mode:
        return result
    writes = _writes(node, timeout)
    if sets_maintenance:
        with when_refused(dict(result, changed=False)):
            writes.send('setting maintenance', client.set_maintenance, node['uuid'], DETACH_REASON)
    try:
        writes.send('deleting it', client.delete_node, node['uuid'])
    except AnswerLost:
        raise
    except BaremetalError as exc:
        raise NodeError('%s The node is left in maintenance, its workload untouched; rerun to delete it.' % exc
                        if sets_maintenance else str(exc), dict(result, changed=sets_maintenance))
    return result
