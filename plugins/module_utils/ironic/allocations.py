# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's allocations (/v1/allocations): the requests, and the API versions each field needs.

An allocation asks Ironic for one available node of a resource class with some traits (API 1.52), picked by the
conductor in the background (state allocating, then active or error); from 1.57 its name and extra can change,
from 1.58 it can be created for a node already deployed (backfill, with node), from 1.60 it has an owner.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import ALLOCATION_FIELD_VERSION, ALLOCATIONS_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound


def find_allocation(client, ident):
    """The allocation with that name or UUID, or None."""
    client.require('allocations', ALLOCATIONS_VERSION)
    try:
        return client.request('GET', '/allocations/%s' % ident)
    except NotFound:
        return None


def create_allocation(client, body):
    """Ask for a node; the answer is the allocation, most often still allocating."""
    for field in ('node', 'owner'):
        if field in body:
            client.require(field, ALLOCATION_FIELD_VERSION[field])
    return client.request('POST', '/allocations', body=body)


def update_allocation(client, ident, patch):
    client.require('updating an allocation', ALLOCATION_FIELD_VERSION['updating an allocation'])
    return client.request('PATCH', '/allocations/%s' % ident, body=patch)


def delete_allocation(client, ident):
    """Release the allocation's node (Ironic clears its instance_uuid) and delete the allocation."""
    client.require('allocations', ALLOCATIONS_VERSION)
    client.request('DELETE', '/allocations/%s' % ident)
