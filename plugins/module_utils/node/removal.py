# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deleting the nodes a task declares absent: read together, moved to manageable together, deleted one by one.

Ironic deletes a node only in DELETE_ALLOWED_STATES (or in maintenance): the nodes that are elsewhere are brought to
manageable first, all of them in one run of the engine (provision.converge), at most concurrency moving at once.
With keep_workload, a record is deleted without a provision move: a node Ironic would not delete as it is goes into
maintenance first (_detach).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import is_at_rest
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Target, converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DELETE_ALLOWED_STATES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError, node_view, when_refused
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import PORT_FIELDS, read_fields

# The maintenance reason of a node whose record is deleted with keep_workload (_detach).
DETACH_REASON = 'being detached by baremetal.lifecycle.baremetal_node (keep_workload): its record is deleted, its workload kept'


def remove_nodes(client, declarations, check_mode, timeout=1800, concurrency=1):
    """Delete every node of the declarations (each state absent) with its ports. Returns one result per declaration,
    in order: name, changed, node (None), plan and transitions (of the move to manageable), diff, detach (with
    keep_workload), and error (None unless the node failed; the others go on)."""
    fields = read_fields(declarations) + client.poll_fields
    found, _missing = find_nodes(client, [declaration.name for declaration in declarations], fields)

    def read(declaration):
        node = found.get(declaration.name)
        if node is None:  # Ironic does not hold it: nothing to do
            return node_result(None, name=declaration.name, plan=[], transitions=[], diff={'before': {}, 'after': {}})
        ports = client.list_ports(node_uuid=node['uuid'], fields=PORT_FIELDS)
        result = node_result(None, True, name=declaration.name, plan=[], transitions=[],
                             diff={'before': node_view(node, ports), 'after': {}})
        if declaration.keep_workload:
            return _detach(client, node, result, check_mode, timeout)
        return dict(result, ports=ports)

    results = run_each(declarations, read, concurrency)
    moving = [(declaration, result) for declaration, result in zip(declarations, results)
              if 'ports' in result and found[declaration.name]['provision_state'] not in DELETE_ALLOWED_STATES]
    if moving:
        _to_manageable(client, [(found[declaration.name], declaration, result) for declaration, result in moving],
                       check_mode, timeout, concurrency)

    def delete(item):
        declaration, result = item
        ports = result.pop('ports', None)
        if ports is None or result.get('error') or check_mode:
            return result
        node = found[declaration.name]
        writes = _writes(node, timeout)
        for port in ports:
            writes.send('deleting its port %s' % port['address'], client.delete_port, port['uuid'])
        writes.send('deleting it', client.delete_node, node['uuid'])
        return result

    results = run_each(list(zip(declarations, results)), delete, concurrency)
    for declaration, result in zip(declarations, results):
        result['name'] = declaration.name  # a failure's partial result may lack it
    return results


def _to_manageable(client, items, check_mode, timeout, concurrency):
    """Move every (node, declaration, result) to manageable in one run of the engine; a node whose move fails has
    its error on its result (and is not deleted)."""
    targets = [Target(node['uuid'], 'manageable', Options(allow_destructive=declaration.options.allow_destructive))
               for node, declaration, _result in items]
    jobs, _missing = converge(client, targets, check_mode=check_mode, timeout=timeout, concurrency=concurrency,
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
    Raises NodeError where Ironic would refuse the delete, or would delete a node in the middle of a move."""
    if node.get('protected'):
        raise NodeError('node %s is protected%s, and Ironic refuses to delete a protected node. Set protected: false '
                        '(baremetal.lifecycle.baremetal_node) first, then rerun.'
                        % (node['name'], ' (%s)' % node['protected_reason'] if node.get('protected_reason') else ''))
    if not is_at_rest(node['provision_state'], node.get('target_provision_state')):
        raise NodeError("node %s is moving (%s, target %s); keep_workload deletes the record of a node at rest only, "
                        "so that no half-done move is left on the hardware. Wait until it settles, then rerun."
                        % (node['name'], node['provision_state'], node.get('target_provision_state')))
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
