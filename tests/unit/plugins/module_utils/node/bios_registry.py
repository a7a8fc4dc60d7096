# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A BIOS registry as Ironic reports it, for the tests of the hardware declaration and of the hardware steps."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


REGISTRY = {
    'ProcTurboMode': {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration',
                      'allowable_values': ['Enabled', 'Disabled']},
    'NumCores': {'name': 'NumCores', 'value': '8', 'attribute_type': 'Integer', 'lower_bound': 1, 'upper_bound': 64},
    'AssetTag': {'name': 'AssetTag', 'value': '', 'attribute_type': 'String', 'max_length': 4},
    'SerialNumber': {'name': 'SerialNumber', 'value': 'QPX1', 'attribute_type': 'String', 'read_only': True},
    'SetupPwd': {'name': 'SetupPwd', 'value': None, 'attribute_type': 'Password'},
}
