# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What baremetal_node_info returns for each node: its view and, where a facet's option asks, what Ironic knows
beside it (history, stored inventory, firmware components, BIOS settings), one GET per node for each facet asked,
every secret masked.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import NODE_FACET_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import view_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked, public_node


def _without_links(records):
    return [dict((key, value) for key, value in record.items() if key != 'links') for record in records]


# Each facet, its option's name, and what it adds to a node's entry (read with one GET).
FACET_READERS = (
    ('history', lambda client, uuid: {'history': _without_links(client.whole_node_history(uuid))}),
    ('inventory', lambda client, uuid: client.stored_inventory(uuid)),
    ('firmware', lambda client, uuid: {'firmware': client.get_firmware(uuid)}),
    ('bios', lambda client, uuid: {'bios': _without_links(client.get_bios(uuid))}),
)
FACETS = tuple(facet for facet, _read in FACET_READERS)


def asked_facets(client, params):
    """The facets the options ask for; one this Ironic's API is too old for fails the task before any node is read,
    naming the version it needs and the server's."""
    asked = [facet for facet in FACETS if params.get(facet)]
    for facet in asked:
        client.require(facet, NODE_FACET_VERSION[facet])
    return asked


def node_entry(client, node, fields, asked):
    """The node as the module returns it: the given fields and the facets asked for, secrets masked."""
    entry = public_node(node, view_fields(node, fields))
    for facet, read in FACET_READERS:
        if facet in asked:
            entry.update(masked(read(client, node['uuid'])))
    return entry
