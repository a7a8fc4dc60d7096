# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node/hardware_difference.py: how firmware versions order, and a built RAID layout that is the declared one.
(What each difference makes of steps is tested with node/hardware.py in test_hardware.py.)"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as hwd
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_difference as hwdiff


def node(state='manageable', **fields):
    return dict({'uuid': 'u-1', 'name': 'n1', 'provision_state': state, 'target_provision_state': None,
                 'maintenance': False, 'raid_interface': 'fake', 'bios_interface': 'fake'}, **fields)


def current(bios=None, firmware=None, **node_fields):
    return {'node': node(**node_fields), 'bios': bios or {}, 'firmware': firmware or {}}


@pytest.mark.parametrize('lower, higher', [
    ('1.9', '1.10'), ('2.7', '2.76'), ('U30 v2.8', 'U30 v2.76'), ('1.0', '1.0.1'), ('A', 'B'),
])
def test_firmware_versions_order_by_their_parts(lower, higher):
    assert hwdiff.version_key(lower) < hwdiff.version_key(higher)


LAYOUT = {'logical_disks': [{'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
                            {'size_gb': 'MAX', 'raid_level': '5'}]}
# What a driver records in raid_config once the layout is built: sizes resolved, extra keys, its own order.
BUILT = {'logical_disks': [{'size_gb': 1800, 'raid_level': '5', 'controller': 'RAID.Integrated.1-1'},
                           {'size_gb': 100, 'raid_level': '1', 'is_root_volume': True, 'controller': 'RAID.Integrated.1-1',
                            'root_device_hint': {'wwn': '0x600'}}]}


def test_a_built_layout_that_matches_needs_nothing():
    declaration = hwd.HardwareDeclaration(raid=LAYOUT)
    changes = hwdiff.difference(declaration, current(raid_config=BUILT, target_raid_config=LAYOUT))
    assert changes['raid'] == {}
