# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set or clear a node's maintenance, with its reason."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets, validate
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS, summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label, node_result
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites

# baremetal_maintenance's older spelling of maintenance: true and false, kept working.
MAINTENANCE_STATES = {'enabled': True, 'disabled': False}


def maintenance_of(maintenance, state, where='the task'):
    """Whether maintenance is declared on (True), off (False) or not at all (None), from maintenance (the word of
    every module) or state (enabled or disabled, baremetal_maintenance's older spelling)."""
    _refuse_both_spellings(maintenance, state, where)
    return MAINTENANCE_STATES[state] if state is not None else maintenance


def _refuse_both_spellings(maintenance, state, where):
    """Both at once are refused, even when they agree: one setting, one word."""
    if maintenance is not None and state is not None:
        raise BaremetalError('%s gives both maintenance and state, two spellings of one setting (maintenance: true '
                             'is state: enabled, maintenance: false is state: disabled): keep maintenance only.' % where)


def task_maintenance(params):
    """The maintenance a baremetal_maintenance task declares, after checking, before anything is read, that no
    element of its nodes gives both spellings (an element's values themselves are checked with its other options),
    that no reason holds a secret (secrets.stored_text_error), and that a task without nodes does not give a reason
    its maintenance off would drop."""
    problems = []
    for index, element in enumerate(params.get('nodes') or ()):
        if isinstance(element, Mapping):
            _refuse_both_spellings(element.get('maintenance'), element.get('state'), 'nodes[%d]' % index)
            problems.append(secrets.stored_text_error('nodes[%d].reason' % index, element.get('reason')))
    problems.insert(0, secrets.stored_text_error('reason', params.get('reason')))
    problems = [problem for problem in problems if problem]
    if problems:
        raise BaremetalError(' | '.join(problems))
    task = maintenance_of(params['maintenance'], params['state'])
    if params.get('nodes') is None and params.get('reason') and not task:
        raise BaremetalError(validate.reason_dropped('reason', task))
    return task


def refuse_dropped_reasons(params, targets, task):
    """baremetal_maintenance with nodes: refuses, before anything is read, every reason the task would drop."""
    if params.get('nodes') is None:
        return  # task_maintenance checked the task's reason
    maintenances = [node_maintenance(target.settings, task) for target in targets]
    problems = validate.dropped_reasons(params['nodes'], maintenances, [target.label for target in targets],
                                        params.get('reason'), 'reason')
    if problems:
        raise BaremetalError(' | '.join(problems))


def node_maintenance(settings, task):
    """A node's declared maintenance: its element's own (maintenance or state) where it gives one, else the task's."""
    own = maintenance_of(settings['maintenance'], settings['state'])
    return task if own is None else own


def wanted_maintenance(node, maintenance, reason):
    """(maintenance, reason) the node should have. Ironic stores no reason as null."""
    if not maintenance:
        return False, None
    if reason is None and node.get('maintenance'):
        return True, node.get('maintenance_reason')
    return True, reason or None


def declared_maintenance(maintenance):
    """What a declared maintenance sets, which a wave's health gate then expects (waves.HEALTH_CHECKS)."""
    return {'maintenance': bool(maintenance)}


def ensure_maintenance(client, node, maintenance, reason, check_mode, timeout=None, clock=time.monotonic,
                       sleep=time.sleep):
    """Set (maintenance true) or clear one node's maintenance and reason. Returns its result.

    A node a conductor keeps locked is waited for within timeout seconds (baremetal_maintenance's timeout; None: the
    transport's retries only); clock and sleep pace that wait (engine/writes.py NodeWrites)."""
    current = (bool(node.get('maintenance')), node.get('maintenance_reason') or None)
    wanted = wanted_maintenance(node, maintenance, reason)
    changed = current != wanted
    if changed and not check_mode:
        writes = NodeWrites(node_label(node), node.get('provision_state'), timeout, clock=clock, sleep=sleep)
        if wanted[0]:
            writes.send('setting maintenance', client.set_maintenance, node['uuid'], wanted[1])
        else:
            writes.send('clearing maintenance', client.unset_maintenance, node['uuid'])
        node = client.get_node(node['uuid'], NODE_SUMMARY_FIELDS)
        wanted = (node.get('maintenance'), node.get('maintenance_reason'))
    diff = DifferenceTracker().add('maintenance', current[0], wanted[0]).add('maintenance_reason', current[1], wanted[1])
    # The operator's reason is free text: it may quote a secret.
    return node_result(summarize_node(node), changed, maintenance=wanted[0],
                       maintenance_reason=secrets.masked_text(wanted[1]), diff=diff.diff())
