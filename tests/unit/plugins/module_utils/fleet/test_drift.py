# -*- coding: utf-8 -*-
"""Drift between a declared fleet and the nodes Ironic reports: each field by the rule of the module that converges it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.drift import (
    DRIFT_FIELDS, check_fleet, declared_subset, fleet_problems, match, node_drift, reads_for)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import MASK

NODE = {'uuid': 'u1', 'name': 'n1', 'resource_class': 'gold', 'properties': {'cpus': 8, 'vendor': 'Contoso'},
        'traits': ['CUSTOM_A', 'CUSTOM_B'], 'raid_config': {}, 'target_raid_config': {}}


def fields(items):
    return [item['field'] for item in items]


def test_a_node_as_declared_has_no_drift_and_undeclared_keys_are_left_alone():
    declared = {'name': 'n1', 'resource_class': 'gold', 'properties': {'cpus': 8}, 'traits': ['CUSTOM_B', 'CUSTOM_A']}
    assert node_drift(declared, NODE) == []


def test_record_fields_drift_with_what_is_declared_and_what_is_reported():
    declared = {'name': 'n1', 'resource_class': 'silver', 'properties': {'cpus': 16, 'memory_mb': 4096, 'vendor': None},
                'traits': ['CUSTOM_A']}
    assert node_drift(declared, NODE) == [
        {'field': 'properties.cpus', 'declared': 16, 'reported': 8},
        {'field': 'properties.memory_mb', 'declared': 4096, 'reported': None},
        {'field': 'properties.vendor', 'declared': None, 'reported': 'Contoso'},  # declared removed
        {'field': 'resource_class', 'declared': 'silver', 'reported': 'gold'},
        {'field': 'traits', 'declared': ['CUSTOM_A'], 'reported': ['CUSTOM_A', 'CUSTOM_B']},
    ]


def test_an_integer_property_given_as_digits_is_compared_as_the_integer_baremetal_node_writes():
    assert node_drift({'name': 'n1', 'properties': {'cpus': '8'}}, NODE) == []
    assert node_drift({'name': 'n1', 'properties': {'cpus': '16'}}, NODE) == [
        {'field': 'properties.cpus', 'declared': 16, 'reported': 8}]


def test_a_secret_property_is_compared_but_shown_masked():
    node = dict(NODE, properties={'root_password': 'old-pw'})
    items = node_drift({'name': 'n1', 'properties': {'root_password': 'new-pw'}}, node)
    assert items == [{'field': 'properties.root_password', 'declared': MASK, 'reported': MASK}]
    assert node_drift({'name': 'n1', 'properties': {'root_password': 'old-pw'}}, node) == []


def test_bios_drift_compares_values_as_text_and_masks_secret_settings():
    bios = {'ProcTurboMode': {'name': 'ProcTurboMode', 'value': 'Disabled'},
            'NumCores': {'name': 'NumCores', 'value': '4'},
            'BootPin': {'name': 'BootPin', 'value': '1111', 'attribute_type': 'Password'}}
    declared = {'name': 'n1', 'bios_settings': {'ProcTurboMode': 'Enabled', 'NumCores': 4, 'BootPin': '2222'}}
    assert node_drift(declared, NODE, bios=bios) == [
        {'field': 'bios_settings.BootPin', 'declared': MASK, 'reported': MASK},
        {'field': 'bios_settings.ProcTurboMode', 'declared': 'Enabled', 'reported': 'Disabled'},
    ]


def test_firmware_drifts_only_below_the_declared_version_or_when_missing():
    firmware = {'bmc': {'component': 'bmc', 'current_version': '2.10'},
                'bios': {'component': 'bios', 'current_version': '1.9'}}
    declared = {'name': 'n1', 'firmware': [
        {'component': 'bmc', 'version': '2.9', 'url': 'http://x/bmc'},     # 2.10 is above 2.9: no drift
        {'component': 'bios', 'version': '1.10', 'url': 'http://x/bios'},  # 1.9 is below 1.10
        {'component': 'nic', 'version': '1.0', 'url': 'http://x/nic'}]}    # not recorded at all
    assert node_drift(declared, NODE, firmware=firmware) == [
        {'field': 'firmware.bios', 'declared': '1.10', 'reported': '1.9'},
        {'field': 'firmware.nic', 'declared': '1.0', 'reported': None},
    ]


def test_raid_drifts_when_the_built_layout_or_the_recorded_target_differs():
    declared_raid = {'logical_disks': [{'raid_level': '1', 'size_gb': 100, 'is_root_volume': True}]}
    built = dict(NODE, raid_config=declared_raid, target_raid_config=declared_raid)
    assert node_drift({'name': 'n1', 'raid': declared_raid}, built) == []
    items = node_drift({'name': 'n1', 'raid': declared_raid}, NODE)
    assert fields(items) == ['raid.logical_disks[0]', 'raid.target_raid_config']
    assert items[0] == {'field': 'raid.logical_disks[0]', 'declared': declared_raid['logical_disks'][0], 'reported': None}


def test_reads_follow_the_declaration():
    assert reads_for({'name': 'n1'}) == set()
    assert reads_for({'name': 'n1', 'bios_settings': {'A': 1}, 'raid': {}}) == {'bios'}
    assert reads_for({'name': 'n1', 'firmware': [{'component': 'bmc'}], 'bios_settings': {}}) == {'firmware'}


def test_the_declared_subset_drops_what_drift_does_not_compare():
    node = {'name': 'n1', 'driver': 'redfish', 'driver_info': {'redfish_password': 'pw'}, 'traits': [],
            'provision_state': 'active', 'uuid': 'u1'}
    assert declared_subset(node) == {'name': 'n1', 'traits': [], 'uuid': 'u1'}


def test_the_fleet_report_page_names_what_drift_compares_and_what_it_does_not():
    # docs/fleet-report.md said 'A node drifts exactly where the fleet role would change it', and a node whose
    # maintenance, provision state or ports differed from the file was reported with no drift
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), *([os.pardir] * 5)))
    with open(os.path.join(root, 'docs', 'fleet-report.md'), encoding='utf-8') as page:
        text = page.read()
    assert 'A node drifts exactly where the fleet role would change it.' not in text
    table = re.findall(r'^\| `(\w+)` \| .* \| `baremetal_\w+` \|$', text, re.M)
    assert table == list(DRIFT_FIELDS)
    not_compared = re.search(r'The other fields of the file are not\s+compared: (.*?) differ from', text, re.S).group(1)
    for field in ('provision_state', 'maintenance', 'ports', 'driver_info'):
        assert '`%s`' % field in not_compared
        assert declared_subset({'name': 'n1', field: 'x'}) == {'name': 'n1'}


def test_match_by_name_then_uuid_and_names_the_undeclared_and_the_missing():
    nodes = [{'uuid': '11111111-2222-3333-4444-555555555555', 'name': 'renamed'}, {'uuid': 'u2', 'name': 'n2'},
             {'uuid': 'u3', 'name': 'extra'}]
    fleet = [{'name': 'n2'}, {'name': 'old-name', 'uuid': '11111111222233334444555555555555'}, {'name': 'gone'}]
    pairs, undeclared, missing = match(fleet, nodes)
    assert [(declared['name'], node['uuid']) for declared, node in pairs] == [
        ('n2', 'u2'), ('old-name', '11111111-2222-3333-4444-555555555555')]
    assert [node['name'] for node in undeclared] == ['extra']
    assert missing == ['gone']


def test_fleet_problems_name_the_node_and_the_field():
    problems = fleet_problems([{'name': 'n1', 'traits': 'CUSTOM_A'}, {'driver': 'x'}, {'name': 'n1'},
                               {'name': 'n3', 'firmware': [{'component': 'bmc'}], 'properties': []}])
    assert problems == [
        'fleet[0] (n1): traits: must be a list of trait names.',
        "fleet[1]: each node needs a name (a non-empty string), as in the fleet role's fleet file.",
        'fleet[2] (n1): name: the node is declared twice.',
        'fleet[3] (n3): properties: must be a dictionary.',
        'fleet[3] (n3): firmware[0].version is required and must be a non-empty string.',
        'fleet[3] (n3): firmware[0].url is required and must be a non-empty string.',
    ]
    assert fleet_problems([{'name': 'n1', 'resource_class': 'gold', 'bios_settings': {'A': 'B'}}]) == []


def test_check_fleet_raises_with_every_problem_and_passes_a_valid_fleet():
    with pytest.raises(BaremetalError, match=r'^The fleet is not valid; nothing was read: fleet\[0\] \(n1\): traits'):
        check_fleet([{'name': 'n1', 'traits': 'CUSTOM_A'}])
    check_fleet([{'name': 'n1', 'traits': ['CUSTOM_A']}])
