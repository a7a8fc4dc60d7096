# -*- coding: utf-8 -*-
"""baremetal_hardware against a real Ironic's fake BIOS, RAID and firmware interfaces.

The fake BIOS interface really stores what bios.apply_configuration sends, registry fields included, and
replaces the whole set with it (a real interface changes only the settings given). The fake RAID interface
offers no RAID clean steps, and the fake firmware interface records no versions: that is what Ironic's
fake-hardware is, and the tests say so where it matters.
"""

import uuid

import pytest

from nodes import RawIronic

# A BIOS registry as a Redfish BMC reports one, stored through the fake interface by a raw manual clean.
REGISTRY = [
    {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration',
     'allowable_values': ['Enabled', 'Disabled'], 'read_only': False},
    {'name': 'NumCores', 'value': '8', 'attribute_type': 'Integer', 'lower_bound': 1, 'upper_bound': 64,
     'read_only': False},
    {'name': 'SerialNumber', 'value': 'QPX1234', 'attribute_type': 'String', 'read_only': True},
    {'name': 'AdminPassword', 'value': '', 'attribute_type': 'Password', 'read_only': False, 'max_length': 32},
]


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def bios(raw, uuid):
    return dict((entry['name'], entry['value']) for entry in raw.api('GET', '/nodes/%s/bios' % uuid)['bios'])


def with_registry(raw):
    """A manageable node whose fake BIOS holds REGISTRY."""
    node = raw.node_in('manageable')
    settled = raw.verb(node['uuid'], 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': REGISTRY}}])
    assert settled['provision_state'] == 'manageable', settled['last_error']
    return node


@pytest.mark.smoke
def test_bios_round_trip_by_cleaning_and_a_rerun_changes_nothing(raw, ironic, run_module):
    node = raw.node_in('manageable')
    declared = {'ProcTurboMode': 'Disabled', 'NumCores': 4}

    mark = ironic.log_mark()
    preview = run_module('baremetal_hardware', check=True, diff=True, node=node['name'], bios_settings=declared)
    assert not preview.get('failed'), preview.get('msg')
    assert ironic.write_requests_since(mark) == []
    assert preview['changed'] is True
    assert preview['changes']['bios_settings'] == {'NumCores': {'before': None, 'after': 4},
                                                   'ProcTurboMode': {'before': None, 'after': 'Disabled'}}
    assert [step['verb'] for step in preview['plan']] == ['clean']
    assert preview['diff']['after'] == {'bios_settings': {'NumCores': 4, 'ProcTurboMode': 'Disabled'}}

    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', node=node['name'], bios_settings=declared)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    assert result['steps'] == [{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': [
        {'name': 'NumCores', 'value': 4}, {'name': 'ProcTurboMode', 'value': 'Disabled'}]}}]
    assert [(t['verb'], t['from'], t['to']) for t in result['transitions']] == [('clean', 'manageable', 'manageable')]
    # one cycle: a single provision request
    assert [r.method for r in ironic.write_requests_since(mark)] == ['PUT']
    assert bios(raw, node['uuid']) == {'NumCores': '4', 'ProcTurboMode': 'Disabled'}

    mark = ironic.log_mark()
    again = run_module('baremetal_hardware', node=node['name'], bios_settings=declared)
    assert again['changed'] is False and again['steps'] == [] and again['plan'] == []
    assert ironic.write_requests_since(mark) == []


def test_bios_from_available_returns_to_available(raw, run_module):
    node = raw.node_in('available')
    result = run_module('baremetal_hardware', node=node['uuid'], bios_settings={'ProcTurboMode': 'Disabled'})
    assert not result.get('failed'), result.get('msg')
    assert [step['verb'] for step in result['plan']] == ['manage', 'clean', 'provide']
    assert result['node']['provision_state'] == 'available'
    assert bios(raw, node['uuid']) == {'ProcTurboMode': 'Disabled'}
    assert run_module('baremetal_hardware', node=node['uuid'], bios_settings={'ProcTurboMode': 'Disabled'})[
        'changed'] is False


def test_invalid_bios_settings_are_named_and_nothing_is_written(raw, ironic, run_module):
    node = with_registry(raw)
    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', node=node['name'], bios_settings={
        'ProcTurbo': 'Disabled', 'NumCores': 128, 'SerialNumber': 'X', 'ProcTurboMode': 'Off',
        'AdminPassword': 'x' * 40})
    assert result['failed']
    message = result['msg']
    assert "bios_settings.ProcTurbo: the node's BIOS has no such setting. Did you mean 'ProcTurboMode'" in message
    assert 'bios_settings.NumCores: 128 is outside the range 1..64' in message
    assert 'bios_settings.SerialNumber: the setting is read-only' in message
    assert "bios_settings.ProcTurboMode: 'Off' is not allowed; choose one of Enabled, Disabled" in message
    assert 'bios_settings.AdminPassword: ******** has 40 characters' in message and 'x' * 40 not in str(result)
    assert ironic.write_requests_since(mark) == []


def test_malformed_raid_and_firmware_are_named_and_nothing_is_written(raw, ironic, run_module):
    node = raw.node_in('manageable')
    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', node=node['name'], raid={'logical_disks': [
        {'size_gb': 'ALL', 'raid_level': '7', 'is_root': True}]})
    assert result['failed']
    assert "raid.logical_disks[0].raid_level must be one of" in result['msg']
    assert "raid.logical_disks[0].size_gb must be a whole number of GiB (0 or more) or 'MAX'" in result['msg']
    assert "raid.logical_disks[0].is_root is not a logical disk property (did you mean 'is_root_volume'?)" in result['msg']
    result = run_module('baremetal_hardware', nodes=[{'node': node['name'], 'firmware': [{'component': 'bmc', 'url': 'x'}]}])
    assert result['failed'] and 'firmware[0].version is required' in result['msg']
    assert ironic.write_requests_since(mark) == []


def test_a_recorded_layout_is_not_written_again_and_raid_none_clears_it(raw, ironic, run_module):
    node = raw.node_in('manageable')
    layout = {'logical_disks': [{'size_gb': 100, 'raid_level': '1', 'is_root_volume': True},
                                {'size_gb': 'MAX', 'raid_level': '5'}]}
    # Recorded by hand: the fake RAID interface takes the record but offers no step to build it (see below).
    raw.api('PUT', '/nodes/%s/states/raid' % node['uuid'], layout)
    mark = ironic.log_mark()
    again = run_module('baremetal_hardware', node=node['name'], raid=layout, apply='never')
    assert again['changed'] is False and 'target_raid_config' not in again['changes']['raid']
    assert again['changes']['raid']['logical_disks[0]'] == {'before': None, 'after': layout['logical_disks'][0]}
    assert ironic.write_requests_since(mark) == []

    # raid: {} declares none: the record is cleared and, with nothing built, no step runs
    cleared = run_module('baremetal_hardware', node=node['name'], raid={})
    assert not cleared.get('failed'), cleared.get('msg')
    assert cleared['changed'] is True and cleared['steps'] == []
    assert raw.node(node['uuid'])['target_raid_config'] == {}
    assert run_module('baremetal_hardware', node=node['name'], raid={})['changed'] is False


def test_firmware_is_read_and_updated_in_one_cycle_with_bios(raw, ironic, run_module):
    node = raw.node_in('manageable')
    assert raw.api('GET', '/nodes/%s/firmware' % node['uuid'])['firmware'] == []  # fake records no versions
    firmware = [{'component': 'bmc', 'version': '2.76', 'url': 'http://127.0.0.1:9/bmc-2.76.bin'}]
    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', diff=True, node=node['name'], firmware=firmware,
                        bios_settings={'ProcTurboMode': 'Disabled'})
    assert not result.get('failed'), result.get('msg')
    assert result['changes']['firmware'] == {'bmc': {'before': None, 'after': '2.76'}}
    assert [(step['interface'], step['step']) for step in result['steps']] == [
        ('firmware', 'update'), ('bios', 'apply_configuration')]
    assert result['steps'][0]['args'] == {'settings': [{'component': 'bmc', 'url': 'http://127.0.0.1:9/bmc-2.76.bin'}]}
    assert [t['verb'] for t in result['transitions']] == ['clean']
    assert len(ironic.write_requests_since(mark)) == 1
    assert raw.node(node['uuid'])['provision_state'] == 'manageable'


# Not in the smoke suite: before Ironic 32.0 servicing refuses the fake BIOS interface's steps (they are clean steps
# only; 32.0 composes the list of service steps otherwise), so the fake hardware of an older release cannot show it.
def test_servicing_applies_bios_settings_to_an_active_node_and_a_rerun_changes_nothing(raw, ironic, run_module):
    node = raw.node_in('active')
    options = dict(node=node['name'], bios_settings={'ProcTurboMode': 'Disabled'}, apply='servicing', allow_reboot=True)
    result = run_module('baremetal_hardware', **options)
    assert not result.get('failed'), result.get('msg')
    assert [(t['verb'], t['from'], t['to']) for t in result['transitions']] == [('service', 'active', 'active')]
    assert bios(raw, node['uuid']) == {'ProcTurboMode': 'Disabled'}
    mark = ironic.log_mark()
    assert run_module('baremetal_hardware', **options)['changed'] is False
    assert ironic.write_requests_since(mark) == []


def test_servicing_needs_allow_reboot_and_cleaning_refuses_an_active_node(raw, ironic, run_module):
    node = raw.node_in('active')
    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', node=node['name'], bios_settings={'ProcTurboMode': 'Disabled'},
                        apply='servicing')
    assert result['failed'] and 'bios.apply_configuration' in result['msg'] and 'allow_reboot: true' in result['msg']
    result = run_module('baremetal_hardware', node=node['name'], raid={'logical_disks': [
        {'size_gb': 'MAX', 'raid_level': '1'}]}, apply='servicing', allow_reboot=True)
    # The fake RAID interface offers no RAID step: that comes before allow_destructive (unit-tested in
    # tests/unit/plugins/module_utils/node/test_hardware.py), which could not help.
    assert result['failed'] and "raid_interface 'fake' does not offer" in result['msg']
    assert 'allow_destructive' not in result['msg']
    result = run_module('baremetal_hardware', node=node['name'], bios_settings={'ProcTurboMode': 'Disabled'})
    assert result['failed'] and 'apply: servicing' in result['msg']
    assert ironic.write_requests_since(mark) == []


def test_nodes_are_validated_together_before_any_write(raw, ironic, run_module):
    good, bad = raw.node_in('manageable'), with_registry(raw)
    mark = ironic.log_mark()
    result = run_module('baremetal_hardware', nodes=[good['name'], bad['name']], bios_settings={'ProcTurbo': 'On'})
    assert result['failed'] and 'node %s' % bad['name'] in result['msg'] and "Did you mean 'ProcTurboMode'" in result['msg']
    assert ironic.write_requests_since(mark) == []
    result = run_module('baremetal_hardware', nodes=[good['name'], {'node': bad['name'], 'bios_settings': {
        'ProcTurboMode': 'Disabled'}}], bios_settings={'NumCores': 2})
    assert not result.get('failed'), result.get('msg')
    assert [entry['changed'] for entry in result['nodes']] == [True, True]
    assert bios(raw, good['uuid']) == {'NumCores': '2'}
    assert bios(raw, bad['uuid'])['ProcTurboMode'] == 'Disabled'


FLEET_PLAYBOOK = '''
- name: Converge a fleet
  hosts: localhost
  gather_facts: false
  roles:
    - role: baremetal.lifecycle.fleet
'''


def test_the_fleet_role_configures_declared_hardware_and_a_rerun_writes_nothing(ironic, run_playbook):
    tag = uuid.uuid4().hex[:6]
    nodes = [{'name': 'hw-bios-%s' % tag, 'driver': 'fake-hardware', 'provision_state': 'manageable',
              'bios_settings': {'ProcTurboMode': 'Disabled'}},
             {'name': 'hw-plain-%s' % tag, 'driver': 'fake-hardware', 'provision_state': 'manageable'}]
    rc, output = run_playbook(FLEET_PLAYBOOK, {'fleet_nodes': nodes})
    assert rc == 0, output[-4000:]
    assert bios(RawIronic(ironic), nodes[0]['name']) == {'ProcTurboMode': 'Disabled'}
    assert bios(RawIronic(ironic), nodes[1]['name']) == {}
    assert ironic.api('GET', '/nodes/%s' % nodes[0]['name'])['provision_state'] == 'manageable'

    mark = ironic.log_mark()
    rc, output = run_playbook(FLEET_PLAYBOOK, {'fleet_nodes': nodes})
    assert rc == 0, output[-4000:]
    assert ironic.write_requests_since(mark) == []

    nodes[0]['raid'] = {'logical_disks': [{'size_gb': 'ALL', 'raid_level': '1'}]}
    rc, output = run_playbook(FLEET_PLAYBOOK, {'fleet_nodes': nodes})
    assert rc != 0 and 'fleet[0] (hw-bios-%s): raid.logical_disks[0].size_gb' % tag in output, output[-4000:]
    assert ironic.write_requests_since(mark) == []


# Interfaces of Ironic's that offer no step of the kind: refused from the node's own fields, before any write,
# in check mode too (before, fake RAID took target_raid_config and its clean failed; no-bios's clean failed).
@pytest.mark.parametrize('fields, declared, words', [
    ({}, {'raid': {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}},
     "raid.delete_configuration and raid.create_configuration, which its raid_interface 'fake' does not offer"),
    ({'raid_interface': 'no-raid'}, {'raid': {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}},
     "raid_interface 'no-raid' does not offer"),
    ({'bios_interface': 'no-bios'}, {'bios_settings': {'ProcTurboMode': 'Disabled'}},
     "bios.apply_configuration, which its bios_interface 'no-bios' does not offer"),
    ({'firmware_interface': 'no-firmware'}, {'firmware': [{'component': 'bmc', 'version': '2', 'url': 'http://127.0.0.1:9/b'}]},
     "firmware.update, which its firmware_interface 'no-firmware' does not offer"),
])
def test_an_interface_without_the_steps_is_named_before_any_write(raw, ironic, run_module, fields, declared, words):
    node = raw.create(**fields)
    raw.verb(node['uuid'], 'manage')
    for check in (True, False):
        mark = ironic.log_mark()
        result = run_module('baremetal_hardware', check=check, node=node['name'], **declared)
        assert result['failed'] and words in result['msg'], result.get('msg')
        assert 'baremetal.lifecycle.baremetal_node' in result['msg']
        assert ironic.write_requests_since(mark) == []
    after = raw.node(node['uuid'])
    assert after['provision_state'] == 'manageable' and after['target_raid_config'] == {} and not after['last_error']
