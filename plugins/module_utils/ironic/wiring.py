# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The requests for what wires and boots a node besides its ports: port groups (/v1/portgroups) and virtual media
(/v1/nodes/{node}/vmedia). Only these functions know those URLs; each one says which API it needs
(ironic/capabilities.py, FEATURE_MIN_VERSION)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import FEATURE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import NotFound

# The fields of a port group a declaration manages, each with the feature (a row of FEATURE_MIN_VERSION) that
# brought it; None: there since port groups.
GROUP_FIELD_FEATURES = (('address', None), ('mode', 'port group mode'), ('properties', 'port group properties'),
                        ('standalone_ports_supported', None), ('physical_network', 'port group physical_network'),
                        ('category', 'port group category'))


def _require(client, feature):
    client.require(feature, FEATURE_MIN_VERSION[feature])


def group_fields(client):
    """The fields of a port group this Ironic returns."""
    return ('uuid', 'name', 'node_uuid') + tuple(
        field for field, feature in GROUP_FIELD_FEATURES
        if feature is None or client.supports(FEATURE_MIN_VERSION[feature]))


def list_port_groups(client, node_uuid=None):
    """The port groups of one node (every node's without node_uuid), following Ironic's pagination."""
    _require(client, 'port_groups')
    params = {'fields': ','.join(group_fields(client))}
    if node_uuid:
        params['node'] = node_uuid
    return [group for page, _last in client.pages('/portgroups', params, 'portgroups') for group in page]


def find_port_group(client, name):
    """The port group of that name (names are unique across Ironic), or None."""
    _require(client, 'port_groups')
    try:
        return client.request('GET', '/portgroups/%s' % name, params={'fields': ','.join(group_fields(client))})
    except NotFound:
        return None


# retry_busy, in the writes below, as the node's writes (nodes.NodeEndpoints.update_node): their node may be locked.
def create_port_group(client, body, retry_busy=True):
    _require(client, 'port_groups')
    return client.request('POST', '/portgroups', body=body, retry_busy=retry_busy)


def update_port_group(client, uuid, patch, retry_busy=True):
    _require(client, 'port_groups')
    return client.request('PATCH', '/portgroups/%s' % uuid, body=patch, retry_busy=retry_busy)


def delete_port_group(client, uuid, retry_busy=True):
    _require(client, 'port_groups')
    client.request('DELETE', '/portgroups/%s' % uuid, retry_busy=retry_busy)


def virtual_media(client, node_uuid):
    """The virtual media devices the node's BMC offers, as Ironic reads them from it: a list of {media_types,
    inserted, image}."""
    _require(client, 'virtual_media')
    return client.request('GET', '/nodes/%s/vmedia' % node_uuid) or []


def attach_virtual_media(client, node_uuid, device_type, image_url, download_source, retry_busy=True):
    """Ask Ironic to insert the image; it does so in the background (the node's last_error says when it failed)."""
    _require(client, 'virtual_media')
    client.request('POST', '/nodes/%s/vmedia' % node_uuid, retry_busy=retry_busy,
                   body={'device_type': device_type, 'image_url': image_url, 'image_download_source': download_source})


def detach_virtual_media(client, node_uuid, device_type, retry_busy=True):
    """Ask Ironic to eject the device's image, in the background."""
    _require(client, 'virtual_media')
    client.request('DELETE', '/nodes/%s/vmedia' % node_uuid, params={'device_types': device_type}, retry_busy=retry_busy)
