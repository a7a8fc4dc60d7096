# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set or clear a node's maintenance, with its reason."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _secrets as secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils._diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import NODE_SUMMARY_FIELDS, summarize_node


def wanted_maintenance(node, state, reason):
    """(maintenance, reason) the node should have. Ironic stores no reason as null."""
    if state == 'disabled':
        return False, None
    if reason is None and node.get('maintenance'):
        return True, node.get('maintenance_reason')
    return True, reason or None


def declared_maintenance(state):
    """What a declared maintenance state sets, which a wave's health gate then expects (_waves.HEALTH_CHECKS)."""
    return {'maintenance': state == 'enabled'}


def ensure_maintenance(client, node, state, reason, check_mode):
    """Set or clear one node's maintenance and reason. Returns its result."""
    current = (bool(node.get('maintenance')), node.get('maintenance_reason') or None)
    wanted = wanted_maintenance(node, state, reason)
    changed = current != wanted
    if changed and not check_mode:
        if wanted[0]:
            client.set_maintenance(node['uuid'], wanted[1])
        else:
            client.unset_maintenance(node['uuid'])
        node = client.get_node(node['uuid'], NODE_SUMMARY_FIELDS)
        wanted = (node.get('maintenance'), node.get('maintenance_reason'))
    diff = DifferenceTracker().add('maintenance', current[0], wanted[0]).add('maintenance_reason', current[1], wanted[1])
    # The operator's reason is free text: it may quote a secret.
    return {'changed': changed, 'maintenance': wanted[0], 'maintenance_reason': secrets.masked_text(wanted[1]),
            'node': summarize_node(node), 'diff': diff.diff()}
