# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver_info schemas (node/driver_schemas.py): the hardware types they cover."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.driver_schemas import SUPPORTED_HARDWARE_TYPES

from .driver_types import TYPES


def test_supported_hardware_types():
    assert SUPPORTED_HARDWARE_TYPES == TYPES
