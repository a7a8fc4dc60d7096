# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Finding nodes: by name or UUID in proportion to how many are asked for, or by a selection of list filters."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import (
    SELECT_ALL, raise_errors, selection_errors, selection_given)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    FEATURE_MIN_VERSION, SELECTION_FILTERS)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import PAGE_LIMIT

# The option naming one node to find, by name or UUID: node, or name, whichever word the user reaches for
# (baremetal_node, whose option is name, takes node the same way).
NODE_SPEC = dict(type='str', aliases=['name'])

# The options of a selection, shared by the modules that take one: its filters, and all (every node, on purpose).
SELECTION_SPEC = dict((name, dict(type='str')) for name in sorted(SELECTION_FILTERS))
SELECTION_SPEC[SELECT_ALL] = dict(type='bool', default=False)


def selection_filters(client, selection):
    """The list filters of a selection (None values dropped), after checking the API supports each."""
    filters = selection_given(selection)
    for name in sorted(filters):
        client.require('filtering nodes by %s' % name, FEATURE_MIN_VERSION[name])
    return filters


def select_nodes(client, selection, fields):
    """Every node that matches all filters of the selection, one list request per page. A selection that sets no
    filter is refused unless it says all: true (validate.selection_errors), here too, where the list is asked for."""
    raise_errors(selection_errors('select', selection))
    return client.list_nodes(fields=fields, **selection_filters(client, selection))


def no_node_message(idents, client):
    """What a task says of names or UUIDs that match no node (and why its credentials may not see them)."""
    message = ("No node is named or has the UUID %s. List the nodes Ironic knows with baremetal.lifecycle.baremetal_node_info, "
               "or enroll it with baremetal.lifecycle.baremetal_node." % ', '.join("'%s'" % ident for ident in idents))
    return message + (' ' + client.scope_note if client.scope_note else '')


def find_nodes(client, idents, fields):
    """Nodes by name or UUID, and the idents that match no node.

    Reads in proportion to the idents, not to the size of Ironic: one GET for one ident; for more, one list
    of twice as many nodes as asked for and, when Ironic holds more than that, a GET for each ident that list
    did not hold. When the list held every node, it records how many Ironic holds (client.count_nodes).
    """
    if not idents:
        return {}, []
    if len(idents) == 1:
        node = client.find_node(idents[0], fields)
        return ({idents[0]: node}, []) if node else ({}, list(idents))
    probe = 2 * len(idents)
    if probe >= PAGE_LIMIT:
        nodes, complete = client.list_nodes(fields=fields), True
    else:
        nodes, complete = client.list_nodes(fields=fields, first=probe)
    if complete:
        client.count_nodes(nodes)
    by_ident = {}
    for node in nodes:
        by_ident[node['uuid']] = node
        if node.get('name'):
            by_ident[node['name']] = node
    if not complete:
        for ident in idents:
            if ident not in by_ident:
                node = client.find_node(ident, fields)
                if node is not None:
                    by_ident[ident] = node
    found = dict((ident, by_ident[ident]) for ident in idents if ident in by_ident)
    return found, [ident for ident in idents if ident not in by_ident]
