# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of a hardware declaration (node/hardware_declaration.py): its shape, BIOS settings against the registry."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as hwd

from .bios_registry import REGISTRY


@pytest.mark.parametrize('declaration, words', [
    (hwd.HardwareDeclaration(apply='sometimes'), ["apply must be one of cleaning, servicing, never, not 'sometimes'"]),
    (hwd.HardwareDeclaration(bios_settings={'A': {'x': 1}}), ['bios_settings.A must be a single value']),
    (hwd.HardwareDeclaration(raid=[]), ['raid must be a dictionary with logical_disks']),
    (hwd.HardwareDeclaration(raid={'disks': []}), ['raid has unknown keys disks']),
    (hwd.HardwareDeclaration(raid={'logical_disks': []}), ['raid.logical_disks must be a non-empty list']),
    (hwd.HardwareDeclaration(raid={'logical_disks': [{'raid_level': 1, 'size_gb': -1}]}),
     ["raid.logical_disks[0].raid_level must be one of", 'raid.logical_disks[0].size_gb must be a whole number']),
    (hwd.HardwareDeclaration(raid={'logical_disks': [{'size_gb': 'MAX'}]}), ['raid.logical_disks[0].raid_level is required']),
    (hwd.HardwareDeclaration(raid={'logical_disks': [{'raid_level': '1', 'size_gb': 1, 'disk_type': 'tape'}]}),
     ["raid.logical_disks[0].disk_type must be one of hdd, ssd, not 'tape'"]),
    (hwd.HardwareDeclaration(raid={'logical_disks': [{'raid_level': '1', 'size_gb': 1, 'physical_disks': ['a', 'b']}]}),
     ['raid.logical_disks[0].physical_disks needs controller']),
    (hwd.HardwareDeclaration(raid={'logical_disks': [{'raid_level': '1', 'size_gb': 1, 'is_root_volume': True},
                                                     {'raid_level': '1', 'size_gb': 1, 'is_root_volume': True}]}),
     ['only one logical disk may have is_root_volume: true']),
    (hwd.HardwareDeclaration(firmware={'component': 'bmc'}), ['firmware must be a list']),
    (hwd.HardwareDeclaration(firmware=[{'component': 'bmc', 'version': '1', 'url': 'u', 'checksum': 'x'}]),
     ['firmware[0].checksum is not a firmware key']),
    (hwd.HardwareDeclaration(firmware=[{'component': 'bmc', 'version': '1', 'url': 'u'},
                                       {'component': 'bmc', 'version': '2', 'url': 'u', 'wait': 0}]),
     ["firmware[1].component 'bmc' is declared twice", 'firmware[1].wait must be a whole number']),
])
def test_malformed_declarations_name_the_key(declaration, words):
    message = ' '.join(hwd.check_shape(declaration))
    for word in words:
        assert word in message


def test_well_formed_declarations_have_no_problems():
    assert hwd.check_shape(hwd.HardwareDeclaration(
        bios_settings={'A': 1, 'B': True}, raid={'logical_disks': [{'raid_level': '1+0', 'size_gb': 'MAX'}]},
        firmware=[{'component': 'bios', 'version': '2.1', 'url': 'http://127.0.0.1/b.bin', 'wait': 30}])) == []
    assert hwd.check_shape(hwd.HardwareDeclaration(raid={})) == []


@pytest.mark.parametrize('settings, words', [
    ({'ProcTurbo': 'Enabled'}, ["bios_settings.ProcTurbo: the node's BIOS has no such setting. Did you mean "
                                "'ProcTurboMode'?"]),
    ({'ProcTurboMode': 'On'}, ["bios_settings.ProcTurboMode: 'On' is not allowed; choose one of Enabled, Disabled."]),
    ({'NumCores': 0}, ['bios_settings.NumCores: 0 is outside the range 1..64.']),
    ({'NumCores': 'many'}, ["bios_settings.NumCores: 'many' is not a whole number."]),
    ({'AssetTag': 'ABCDE'}, ["bios_settings.AssetTag: 'ABCDE' has 5 characters; it must have 0 to 4."]),
    ({'SerialNumber': 'X'}, ['bios_settings.SerialNumber: the setting is read-only; remove it from bios_settings.']),
])
def test_bios_settings_are_checked_against_the_registry(settings, words):
    assert hwd.check_bios(settings, REGISTRY) == words


def test_bios_values_that_fit_the_registry_pass_and_an_empty_registry_checks_no_names():
    assert hwd.check_bios({'ProcTurboMode': 'Disabled', 'NumCores': '64', 'AssetTag': 'A1'}, REGISTRY) == []
    assert hwd.check_bios({'Anything': 'x'}, {}) == []
