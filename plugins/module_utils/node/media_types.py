# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's virtual media device types and where the conductor takes an image from: read by the declaration of a
node's wiring (node/wiring.py, baremetal_node's argument spec) and by the code of its virtual media
(node/virtual_media.py), which import this file and not each other."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Ironic's virtual media device types, and the Redfish media types that serve each (a DVD drive takes a CD image);
# where the conductor takes an image from (baremetal_node's argument spec holds both).
MEDIA_TYPES = {'cdrom': ('CD', 'DVD'), 'floppy': ('Floppy',), 'disk': ('USBStick',)}
DEVICE_TYPES = tuple(sorted(MEDIA_TYPES))
DOWNLOAD_SOURCES = ('http', 'local')
