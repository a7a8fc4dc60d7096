# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hardware types the collection knows, for the tests of the driver_info schemas and of their validation."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


TYPES = ('ipmi', 'redfish', 'idrac', 'ilo', 'fake-hardware',
         'manual-management')
