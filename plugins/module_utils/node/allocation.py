# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declare allocations: each one node of a resource class with some traits, kept by name.

Checking a declaration and comparing it with Ironic's allocation are pure; ensure_allocation reads and checks every
declared allocation (the task's own, or each element of allocations), then writes, and waits for the conductor's
pick with the collection's one waiter (common/wait.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import ABSENT, DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    ALLOCATION_FIELD_VERSION, ALLOCATIONS_VERSION, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.preconditions import (
    ALLOCATION, RELEASE_ALLOCATION, Write, refusals)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import name_errors, raise_errors, trait_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked

# What an allocation looks like in results and diffs.
VIEW_FIELDS = ('uuid', 'name', 'state', 'node_uuid', 'resource_class', 'traits', 'candidate_nodes', 'owner', 'extra',
               'last_error')
# Fields Ironic sets when the allocation is created and never changes.
FIXED_FIELDS = ('resource_class', 'traits', 'owner')
NODE_FIELDS = ('uuid', 'name', 'provision_state', 'target_provision_state', 'maintenance', 'resource_class')
# The options of one allocation (the task's own, or those of each element of allocations).
ALLOCATION_OPTIONS = ('name', 'state', 'resource_class', 'traits', 'candidate_nodes', 'owner', 'extra', 'node')


class AllocationError(BaremetalError):
    """A declaration Ironic would refuse, or an allocation that failed or did not finish."""


def declaration_errors(params, version):
    """Every problem of a declaration, for this API version, before anything is read or written."""
    errors = name_errors('name', params['name'], 'allocation')
    for option, minimum in sorted(ALLOCATION_FIELD_VERSION.items()):
        if params.get(option) is not None and version < minimum:
            errors.append('%s needs Ironic API %s or newer; this server supports up to %s. Upgrade Ironic or leave '
                          '%s out.' % (option, version_string(minimum), version_string(version), option))
    if params['state'] == 'absent':
        return errors
    errors.extend(trait_errors(params.get('traits')))
    if not params.get('resource_class') and not params.get('node'):
        errors.append('resource_class is required to ask for a node: Ironic picks an available node of that class. '
                      '(To record an allocation for a node already deployed, give node instead.)')
    if params.get('node') and params.get('candidate_nodes') and params['node'] not in params['candidate_nodes']:
        errors.append('node %s is not among candidate_nodes: leave candidate_nodes out, or name the node there.'
                      % params['node'])
    return errors


def declarations(params):
    """The declared allocations: the task's own, or each element of allocations with the task's state as the
    default."""
    if params.get('allocations') is None:
        return [dict((key, params.get(key)) for key in ALLOCATION_OPTIONS)]
    return [dict(element, state=element.get('state') or params['state']) for element in params['allocations']]


def all_errors(params, declared, version):
    """The problems of every declared allocation, each named in bulk, and of a name declared twice."""
    if params.get('allocations') is None:
        return declaration_errors(declared[0], version)
    errors = []
    for index, one in enumerate(declared):
        errors.extend('allocations[%d] (%s): %s' % (index, one['name'], error)
                      for error in declaration_errors(one, version))
    names = [one['name'] for one in declared]
    errors.extend('allocations names %s %d times; declare each allocation once.' % (name, names.count(name))
                  for name in sorted(set(name for name in names if names.count(name) > 1), key=str))
    return errors


def allocation_view(allocation):
    return dict((field, allocation.get(field)) for field in VIEW_FIELDS if field in allocation)


def node_view(node):
    """The allocated node in results: its name and UUID (None while no node is allocated)."""
    return {'uuid': node['uuid'], 'name': node.get('name')} if node else None


def fixed_differences(current, params, node):
    """What the declaration asks that the existing allocation cannot become (Ironic does not change those fields
    after creating it), each as words."""
    differences = []
    for field in FIXED_FIELDS:
        wanted, held = params.get(field), current.get(field)
        if field == 'traits':
            wanted, held = sorted(wanted) if wanted is not None else None, sorted(held or [])
        if wanted is not None and wanted != held:
            differences.append('%s is %r, not %r' % (field, held, wanted))
    candidates = params.get('candidate_nodes')
    if candidates and node and not set(candidates) & set((node['uuid'], node.get('name'))):
        differences.append('its node %s is not among candidate_nodes' % node_label(node))
    if params.get('node') and node and params['node'] not in (node['uuid'], node.get('name')):
        differences.append('its node is %s, not %s' % (node_label(node), params['node']))
    return differences


def request_body(params):
    """The body of the POST that asks for the declared allocation."""
    return dict((field, params[field]) for field in ('name', 'resource_class', 'traits', 'candidate_nodes', 'owner',
                                                     'extra', 'node') if params.get(field) is not None)


def allocation_diff(before, after):
    diff = DifferenceTracker()
    for field in VIEW_FIELDS:
        if field not in ('uuid', 'state', 'last_error'):
            diff.add(field, (before or {}).get(field, ABSENT), (after or {}).get(field, ABSENT))
    return diff.diff()


def _node(client, ident):
    return client.find_node(ident, NODE_FIELDS) if ident else None


def _settled(client, allocation, wait):
    """The allocation once the conductor has picked a node or failed (state no longer allocating), or as last seen
    when the wait's deadline passes."""
    wait.reset()
    while allocation.get('state') == 'allocating' and wait.pause():
        allocation = client.collection('allocations').find(allocation['uuid']) or dict(allocation, state=None)
    return allocation


def _result(changed, allocation, node, before):
    view = allocation_view(allocation) if allocation else None
    return {'changed': changed, 'allocation': view, 'node': node_view(node),
            'diff': allocation_diff(before and allocation_view(before), view)}


def _releasing(client, params, current, wait):
    if current is None:
        return lambda check_mode: _result(False, None, None, None)
    node = _node(client, current.get('node_uuid'))
    refused = node and refusals(dict(node, **{ALLOCATION: params['name']}), [Write(RELEASE_ALLOCATION, None, None)],
                                node_label(node))
    if refused:
        raise AllocationError('%s Nothing was changed.' % ' '.join(refused),
                              {'changed': False, 'allocation': allocation_view(current), 'node': node_view(node)})

    def release(check_mode):
        if not check_mode:
            # Ironic takes the node's lock to release it: a conductor at work on the node (a power sync waiting on a
            # slow BMC) holds the release off, which is sent again within what is left of the task's timeout.
            writes = NodeWrites(node_label(node) if node else params['name'], node and node['provision_state'],
                                timeout=max(0, wait.remaining()), clock=wait.clock, sleep=wait.sleep)
            try:
                writes.send('releasing allocation %s' % params['name'], client.collection('allocations').delete,
                            current['uuid'])
            except (Locked, Busy) as exc:
                raise AllocationError(str(exc), _result(False, current, node, current))
        return _result(True, None, node, current)
    return release


def _backfilled_node(client, params):
    node = _node(client, params['node'])
    if node is None:
        raise AllocationError('node %s does not exist: name an active node to record an allocation for it.'
                              % params['node'])
    if node['provision_state'] != 'active':
        raise AllocationError('node %s is %s: an allocation is recorded for (backfilled on) an active node only. '
                              'Leave node out to let Ironic pick an available one.'
                              % (params['node'], node['provision_state']))
    return node


def _failure(params, allocation, timeout):
    if allocation.get('state') == 'allocating':
        return ('allocation %s is still allocating after %d s: raise timeout, or look at the conductor log.'
                % (params['name'], timeout))
    reason = masked_text(allocation.get('last_error') or 'nothing').rstrip('.')
    return ('allocation %s failed; Ironic says: %s. A node matches when it is available, not in maintenance, with '
            'a power state Ironic knows (fake hardware has none until one is set: baremetal.lifecycle.baremetal_power, '
            'or the power of baremetal_node), of resource class %s, with every trait asked for%s. The failed '
            'allocation is kept (in state error): a rerun asks again, state: absent deletes it.'
            % (params['name'], reason, allocation.get('resource_class') or params.get('resource_class'),
               ', and among candidate_nodes' if params.get('candidate_nodes') else ''))


def ensure_allocation(client, params, check_mode, clock=time.monotonic, sleep=time.sleep):
    """Create, keep, update or delete each declared allocation (the task's own, or each element of allocations);
    the module result: changed, allocation, node and diff, or with allocations a list of those and one diff per
    allocation. Every allocation is read and checked before the first write."""
    client.require('allocations', ALLOCATIONS_VERSION)
    declared = declarations(params)
    raise_errors(all_errors(params, declared, client.version))
    wait = Wait(params['timeout'], clock=clock, sleep=sleep)
    if params.get('allocations') is None:
        return _planned(client, declared[0], wait, params['timeout'])(check_mode)
    plans, problems = [], []
    for index, one in enumerate(declared):
        try:
            plans.append(_planned(client, one, wait, params['timeout']))
        except BaremetalError as exc:
            problems.append('allocations[%d] (%s): %s' % (index, one['name'], exc))
    if problems:
        raise AllocationError('%s Nothing was changed.' % ' '.join(problems), {'changed': False})
    results, failures = [None] * len(declared), []
    for index in sorted(range(len(declared)), key=lambda index: _carry_out_order(declared[index])):
        try:
            results[index] = plans[index](check_mode)
        except AllocationError as exc:
            results[index] = dict({'changed': False, 'diff': allocation_diff(None, None)}, **exc.result)
            failures.append(str(exc))
    result = {'changed': any(one['changed'] for one in results),
              'diff': [dict(one.pop('diff'), before_header=declared_one['name'], after_header=declared_one['name'])
                       for declared_one, one in zip(declared, results)],
              'allocations': results}
    if failures:
        raise AllocationError(' '.join(failures), result)
    return result


def _carry_out_order(params):
    """Ironic gives an allocation any node that matches it, so the task asks for its most particular ones first:
    releases (their nodes become available to the others), a named node, candidate nodes, then more traits before
    fewer. Asked in the order written, an allocation without traits could take the one node with the trait another
    needs, and that one fail although the pool held a node for each."""
    return (params['state'] != 'absent', not params.get('node'), not params.get('candidate_nodes'),
            -len(params.get('traits') or ()))


def _planned(client, params, wait, timeout):
    """Read one allocation and check its declaration (no write); what carries it out: a function of check_mode that
    returns its result. Raises AllocationError for what cannot be done as declared."""
    current = client.collection('allocations').find(params['name'])
    if params['state'] == 'absent':
        return _releasing(client, params, current, wait)
    if current is not None and current['state'] == 'allocating':
        current = _settled(client, current, wait)  # asked by an earlier run that did not wait it out
        if current.get('state') == 'allocating':
            raise AllocationError(_failure(params, current, timeout), _result(False, current, None, current))
    if current is not None and current['state'] != 'error':
        return _keeping(client, params, current)
    node = _backfilled_node(client, params) if params.get('node') else None
    return lambda check_mode: _create(client, params, current, node, check_mode, wait, timeout)


def _create(client, params, current, node, check_mode, wait, timeout):
    planned = dict(request_body(params), state='allocating', node_uuid=node and node['uuid'])
    if check_mode:
        return _result(True, planned, node, current)
    if current is not None:
        client.collection('allocations').delete(current['uuid'])  # failed before: ask again
    allocation = _settled(client, client.collection('allocations').create(request_body(params)), wait)
    node = _node(client, allocation.get('node_uuid'))
    result = _result(True, allocation, node, current)
    if allocation.get('state') != 'active':
        raise AllocationError(_failure(params, allocation, timeout), result)
    return result


def _keeping(client, params, current):
    node = _node(client, current.get('node_uuid'))
    differences = fixed_differences(current, params, node)
    if differences:
        raise AllocationError('allocation %s exists, and Ironic cannot change it as declared: %s. Release it first '
                              '(state: absent), or declare it as it is. Nothing was changed.'
                              % (params['name'], '; '.join(differences)),
                              {'changed': False, 'allocation': allocation_view(current), 'node': node_view(node)})
    extra = params.get('extra')
    if extra is None or extra == (current.get('extra') or {}):
        return lambda check_mode: _result(False, current, node, current)
    client.require('updating an allocation', ALLOCATION_FIELD_VERSION['updating an allocation'])

    def update(check_mode):
        after = dict(current, extra=extra)
        if not check_mode:
            after = client.collection('allocations').update(current['uuid'], [{'op': 'replace', 'path': '/extra', 'value': extra}])
        return _result(True, after, node, current)
    return update
